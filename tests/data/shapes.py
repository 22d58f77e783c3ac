#!/usr/bin/env python3
"""shapes.py - writes the captured topologies of tests/data as hwloc 2 XML.

Machines numalab has no access to, described as trees and exported as the
XML hwloc writes (`HWLOC_XMLFILE=tests/data/NAME.xml numalab topology`
loads one). Run it from the repository root after changing a shape; the
files it writes are committed, so the tests need neither it nor hwloc's
tools. Stdlib only.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GiB = 1 << 30
MiB = 1 << 20
KiB = 1 << 10


class Obj:
    def __init__(self, type_, children=(), mem=(), os_index=None, **attrs):
        self.type = type_
        self.children = list(children)
        self.mem = list(mem)  # memory children: NUMANode or MemCache
        self.os_index = os_index
        self.attrs = attrs
        self.info = attrs.pop("info", {})


def pu(os_index):
    return Obj("PU", os_index=os_index)


def core(os_index, pus):
    return Obj("Core", [pu(p) for p in pus], os_index=os_index)


def cache(level, size, children, kind="unified"):
    ctype = {"unified": 0, "data": 1}[kind]
    return Obj("L%dCache" % level, children, cache_size=size, depth=level,
               cache_linesize=64, cache_associativity=0, cache_type=ctype)


def node(os_index, memory, subtype=None):
    o = Obj("NUMANode", os_index=os_index, local_memory=memory)
    if subtype:
        o.attrs["subtype"] = subtype
    return o


def memcache(size, inner):
    return Obj("MemCache", mem=[inner], cache_size=size, depth=1,
               cache_linesize=64, cache_associativity=0, cache_type=0)


def bitmap(bits):
    if not bits:
        return "0x0"
    words = max(bits) // 32 + 1
    vals = [0] * words
    for b in bits:
        vals[b // 32] |= 1 << (b % 32)
    return ",".join("0x%08x" % v for v in reversed(vals))


def nodes_of(o):
    """The NUMA nodes attached in o's subtree (memory children included)."""
    out = []
    for m in o.mem:
        out += [m.os_index] if m.type == "NUMANode" else nodes_of(m)
    for c in o.children:
        out += nodes_of(c)
    return out


def pus_of(o):
    if o.type == "PU":
        return [o.os_index]
    out = []
    for c in o.children:
        out += pus_of(c)
    return out


class Writer:
    def __init__(self, offline=(), allowed_cpus=None, allowed_nodes=None):
        self.gp = 0
        self.lines = []
        self.offline = set(offline)
        self.allowed_cpus = allowed_cpus
        self.allowed_nodes = allowed_nodes

    def emit(self, o, depth, cpus, above_nodes, complete_extra=()):
        self.gp += 1
        ind = "  " * depth
        if o.type in ("NUMANode", "MemCache"):
            mine = [o.os_index] if o.type == "NUMANode" else nodes_of(o)
        else:
            mine = sorted(set(nodes_of(o)) | set(above_nodes))
        a = {"type": o.type}
        if o.os_index is not None:
            a["os_index"] = o.os_index
        a["cpuset"] = bitmap(cpus)
        a["complete_cpuset"] = bitmap(sorted(set(cpus) | set(complete_extra)))
        if depth == 1:
            a["allowed_cpuset"] = bitmap(self.allowed_cpus
                                         if self.allowed_cpus is not None
                                         else cpus)
        a["nodeset"] = bitmap(mine)
        a["complete_nodeset"] = bitmap(mine)
        if depth == 1:
            a["allowed_nodeset"] = bitmap(self.allowed_nodes
                                          if self.allowed_nodes is not None
                                          else mine)
        a["gp_index"] = self.gp
        a.update({k: v for k, v in o.attrs.items()})
        attrs = " ".join('%s="%s"' % (k, v) for k, v in a.items())
        kids = o.mem + o.children
        if not kids and not o.info:
            self.lines.append("%s<object %s/>" % (ind, attrs))
            return
        self.lines.append("%s<object %s>" % (ind, attrs))
        for k, v in o.info.items():
            self.lines.append('%s  <info name="%s" value="%s"/>' % (ind, k, v))
        here = sorted(set(above_nodes) | {m.os_index for m in o.mem
                                          if m.type == "NUMANode"})
        for m in o.mem:
            self.emit(m, depth + 1, cpus, here)
        for c in o.children:
            self.emit(c, depth + 1, pus_of(c), here)
        self.lines.append("%s</object>" % ind)


def write(name, machine, distances=None, offline=(), allowed_cpus=None,
          allowed_nodes=None, arch=None):
    w = Writer(offline, allowed_cpus, allowed_nodes)
    machine.info = dict(machine.info)
    if arch:
        machine.info["Architecture"] = arch
    cpus = pus_of(machine)
    w.lines += ['<?xml version="1.0" encoding="UTF-8"?>',
                '<!DOCTYPE topology SYSTEM "hwloc2.dtd">',
                '<topology version="2.0">']
    w.emit(machine, 1, cpus, [], complete_extra=offline)
    if distances:
        ids, matrix = distances
        n = len(ids)
        w.lines.append('  <distances2 type="NUMANode" nbobjs="%d" kind="5" '
                       'indexing="os" name="NUMALatency">' % n)
        w.lines.append('    <indexes length="%d">%s</indexes>' %
                       (len(" ".join(map(str, ids))), " ".join(map(str, ids))))
        vals = " ".join(str(v) for row in matrix for v in row)
        w.lines.append('    <u64values length="%d">%s</u64values>' %
                       (len(vals), vals))
        w.lines.append("  </distances2>")
    w.lines.append("</topology>")
    with open(os.path.join(HERE, name + ".xml"), "w") as f:
        f.write("\n".join(w.lines) + "\n")


def machine(children=(), mem=(), arch=None, info=None):
    info = dict(info or {})
    if arch:
        info["Architecture"] = arch
    return Obj("Machine", children, mem, os_index=0, info=info)


def package(os_index, children, mem=(), **kw):
    return Obj("Package", children, mem, os_index=os_index, **kw)


def plain_cores(first_core, first_pu, ncores, smt, step=None):
    """ncores cores of smt PUs each; PU k of core c is first_pu + c*smt + k,
    or (with step) first_pu + c + k*step, as Linux numbers SMT siblings."""
    out = []
    for c in range(ncores):
        if step:
            pus = [first_pu + c + k * step for k in range(smt)]
        else:
            pus = [first_pu + c * smt + k for k in range(smt)]
        out.append(core(first_core + c, pus))
    return out


def l2_cores(cores, l2=1 * MiB, l1=48 * KiB):
    return [cache(2, l2, [cache(1, l1, [c], "data")]) for c in cores]


def shapes():
    # shared_l3, l3_per_core and one_cpu were exported by hwloc itself from
    # the synthetic description they carry
    # POWER9-like: SMT8 cores, pairs of cores under one L2 and L3
    write("power_smt8", machine([package(p, [
        cache(3, 10 * MiB, [cache(2, 512 * KiB, [
            cache(1, 32 * KiB, [c], "data")
            for c in plain_cores(p * 4 + 2 * k, p * 32 + 16 * k, 2, 8)])])
        for k in range(2)], [node(p * 8, 64 * GiB)]) for p in range(2)],
        arch="ppc64le"), distances=([0, 8], [[10, 40], [40, 10]]))
    # four sockets, 4 cores each, SMT2 numbered as Linux does
    write("four_socket", machine([package(p, [cache(3, 16 * MiB, l2_cores(
        [core(p * 4 + c, [p * 4 + c, 16 + p * 4 + c]) for c in range(4)]))],
        [node(p, 16 * GiB)]) for p in range(4)], arch="x86_64"),
        distances=([0, 1, 2, 3], [[10, 21, 21, 21], [21, 10, 21, 21],
                                  [21, 21, 10, 21], [21, 21, 21, 10]]))
    # one L3 per group of 4 cores (AMD CCX), 2 groups, SMT2
    write("ccx", machine([package(0, [cache(3, 32 * MiB, l2_cores(
        [core(g * 4 + c, [g * 4 + c, 8 + g * 4 + c]) for c in range(4)],
        512 * KiB, 32 * KiB)) for g in range(2)], [node(0, 64 * GiB)])],
        arch="x86_64"))
    # hybrid: 2 big SMT2 cores with an L2 each, 4 little cores sharing one L2
    big = l2_cores([core(0, [0, 1]), core(1, [2, 3])], 1280 * KiB)
    little = [cache(2, 2 * MiB, [cache(1, 32 * KiB, [core(2 + k, [4 + k])],
                                        "data") for k in range(4)])]
    write("hybrid", machine([package(0, [cache(3, 12 * MiB, big + little)],
                                      [node(0, 16 * GiB)])], arch="x86_64"))
    # DRAM + HBM per package (Xeon Max flat mode), and an NVM node and a
    # CXL node for the machine, each behind nothing but the bus
    pk = []
    for p in range(2):
        cores = l2_cores(plain_cores(p * 4, p * 4, 4, 1), 2 * MiB)
        pk.append(package(p, [cache(3, 32 * MiB, cores)],
                          [node(p, 32 * GiB, "DRAM"),
                           node(2 + p, 16 * GiB, "HBM")]))
    write("dram_hbm_nvm", machine(pk, [node(4, 128 * GiB, "NVM"),
                                       memcache(4 * GiB, node(5, 64 * GiB,
                                                              "CXL-DRAM"))],
                                  info={"Architecture": "x86_64"}),
          distances=([0, 1, 2, 3, 4, 5],
                     [[10, 21, 13, 23, 17, 30], [21, 10, 23, 13, 28, 30],
                      [13, 23, 10, 24, 28, 32], [23, 13, 24, 10, 28, 32],
                      [17, 28, 28, 28, 10, 40], [30, 30, 32, 32, 40, 10]]))
    # a memory-only node: package 1 has cpus, node 1 has none (qemu -numa
    # node without cpus)
    write("memory_only_node", machine([package(0, [cache(3, 16 * MiB, l2_cores(
        plain_cores(0, 0, 2, 1)))], [node(0, 8 * GiB)])],
        [node(1, 8 * GiB)], info={"Architecture": "x86_64"}),
        distances=([0, 1], [[10, 20], [20, 10]]))
    # a CPU-only node: node 1's cpus have no memory of their own
    write("cpu_only_node", machine([
        package(0, [cache(3, 16 * MiB, l2_cores(plain_cores(0, 0, 2, 1)))],
                [node(0, 8 * GiB)]),
        package(1, [cache(3, 16 * MiB, l2_cores(plain_cores(2, 2, 2, 1)))],
                [node(1, 0)])], info={"Architecture": "x86_64"}),
        distances=([0, 1], [[10, 20], [20, 10]]))
    # node 0 offline: its cpus are in no NUMA node (they belong to none
    # hwloc lists); cpus 6-7 offline too
    write("node0_offline", machine([
        package(0, [cache(3, 16 * MiB, l2_cores(plain_cores(0, 0, 2, 1)))]),
        package(1, [cache(3, 16 * MiB, l2_cores(plain_cores(2, 2, 2, 1)))],
                [node(1, 8 * GiB)])], info={"Architecture": "aarch64"}),
        offline=[6, 7])
    # a cgroup cpuset: cpus 2-3 and node 1 allowed of 0-7 and 0-1
    write("cgroup_cpuset", machine([package(p, [cache(3, 16 * MiB, l2_cores(
        plain_cores(p * 4, p * 4, 4, 1)))], [node(p, 8 * GiB)])
        for p in range(2)], info={"Architecture": "x86_64"}),
        allowed_cpus=[2, 3], allowed_nodes=[1],
        distances=([0, 1], [[10, 21], [21, 10]]))
    # 72 nodes (an SGI UV-like box), one core each
    write("nodes_72", machine([package(p, [core(p, [p])], [node(p, GiB)])
                               for p in range(72)], arch="ia64"))
    # 1,024 PUs: 4 sockets of 64 SMT4 cores
    pk = []
    for p in range(4):
        cores = [core(p * 64 + c, [p * 256 + c * 4 + k for k in range(4)])
                 for c in range(64)]
        pk.append(package(p, [cache(3, 64 * MiB, l2_cores(cores, 512 * KiB,
                                                            32 * KiB))],
                          [node(p, 256 * GiB)]))
    write("pus_1024", machine(pk, info={"Architecture": "ppc64le"}))


if __name__ == "__main__":
    shapes()
    sys.exit(0)
