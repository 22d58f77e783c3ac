#!/usr/bin/env python3
"""check_shape.py - judges what numalab printed inside an odd-shaped NUMA guest.

usage: check_shape.py --shape memonly|cpuonly|asym RESULTS

memonly: node 1 has memory and no cpu; cpuonly: node 1 has a cpu and no
memory (Linux may fold it into node 0: what the guest's kernel reports is
checked against what numalab says); asym: three nodes whose distances
differ by direction (0->1 20, 1->0 30; 1->2 40, 2->1 15). Only meaning is
asserted: which nodes run threads, which take memory, what the plans and
sentences say; never a timing.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check  # noqa: E402  (parse, doc, report, summary)


def threads_nodes(d):
    """The nodes the run's threads were seen on, over every placement."""
    return {t.get("node") for p in d.get("placement", []) for t in p.get("threads", [])}


def label_node(label):
    """The node a cell's row or column label names: "node 1 (from cache)" -> 1."""
    words = (label or "").split()
    return int(words[1]) if len(words) > 1 and words[0] == "node" and words[1].isdigit() else None


def headline_ok(d, name):
    h = d.get("headline") or ""
    check.report(bool(h.strip()), f"{name}: says what it showed", h[:200])
    return h


def runs(blocks, cpu_nodes, mem_nodes, memory_only):
    for name in ("policy", "remote", "latency", "replication"):
        d = check.doc(blocks, name)
        if d is None:
            continue
        seen = threads_nodes(d)
        check.report(seen <= set(cpu_nodes), f"{name}: threads only on nodes with cpus {sorted(cpu_nodes)}",
                     f"seen on {sorted(seen)}")
        headline_ok(d, name)
        # the measured cells (not the distance table's): threads on a node with cpus, memory on
        # one with memory, and (where there is one) a memory-only node among the targets
        measured = [(label_node(c.get("row_label")), label_node(c.get("col_label")))
                    for c in d.get("cells", []) if c.get("value") is not None
                    and c.get("chart") not in ("distance", "ratio")]
        if measured:
            rows = {r for r, _ in measured}
            cols = {c for _, c in measured}
            check.report(rows <= set(cpu_nodes), f"{name}: cells run threads only on nodes with cpus",
                         f"rows {sorted(rows)}")
            check.report(cols <= set(mem_nodes), f"{name}: cells bind memory only to nodes with memory",
                         f"columns {sorted(cols)}")
            if memory_only:
                check.report(set(memory_only) <= cols, f"{name}: the memory-only node is a memory target",
                             f"columns {sorted(cols)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", required=True, choices=["memonly", "cpuonly", "asym"])
    ap.add_argument("results")
    a = ap.parse_args()
    blocks = check.parse(a.results)
    print(f"check_shape: the {a.shape} guest")
    topo = check.doc(blocks, "topology", run=False)
    if topo is None:
        return 1
    nodes = {n["os"]: n for n in topo.get("nodes", [])}
    cpu_nodes = sorted(k for k, n in nodes.items() if n.get("npus", 0) > 0)
    mem_nodes = sorted(k for k, n in nodes.items() if n.get("mem_total", 0) > 0)
    memory_only = sorted(k for k, n in nodes.items() if n.get("cpuless"))
    print(f"  (the guest reports nodes {sorted(nodes)}; cpus on {cpu_nodes}; memory on {mem_nodes};"
          f" memory only {memory_only})")
    check.report(all(p["node"] in nodes for p in topo.get("pus", [])), "topology: every cpu in a node it lists")
    if a.shape == "memonly":
        check.report(sorted(nodes) == [0, 1], "memonly: two nodes", str(sorted(nodes)))
        check.report(memory_only == [1], "memonly: node 1 is memory only", str(memory_only))
        check.report(nodes.get(1, {}).get("cpus") == "", "memonly: node 1 lists no cpu")
        check.report(all(p["node"] == 0 for p in topo.get("pus", [])), "memonly: every cpu's local node is 0")
        plan = check.doc(blocks, "plan", run=False)
        if plan is not None:
            lines = plan.get("plan", [])
            check.report("memory only (never a thread): node 1" in lines, "memonly: the plan keeps threads off node 1",
                         str(lines))
            cells = next((x for x in lines if x.startswith("cells")), "")
            check.report("threads on 1" not in cells and "memory on 0 1" in cells,
                         "memonly: the cells take node 1 as memory only", cells)
    elif a.shape == "cpuonly":
        # Linux either lists node 1 with its cpu and no memory, or files the cpu under node 0
        if 1 in nodes:
            check.report(nodes[1].get("mem_total", 1) == 0 and nodes[1].get("npus") == 1,
                         "cpuonly: node 1 has a cpu and no memory", str(nodes[1]))
        else:
            check.report(len(topo.get("pus", [])) == 2 and all(p["node"] == 0 for p in topo["pus"]),
                         "cpuonly: the kernel filed node 1's cpu under node 0, and numalab says so")
        for name in ("policy", "remote"):
            d = check.doc(blocks, name)
            if d is None:
                continue
            pages = {k: v["value"] for k, v in d.get("summary", {}).items() if "pages_node1" in k}
            check.report(all(v == 0 for v in pages.values()), f"{name}: no page on node 1", str(pages))
    else:
        dist = {k: n.get("distances") for k, n in nodes.items()}
        check.report(sorted(nodes) == [0, 1, 2], "asym: three nodes", str(sorted(nodes)))
        check.report(dist.get(0) == [10, 20, 25] and dist.get(1) == [30, 10, 40] and dist.get(2) == [25, 15, 10],
                     "asym: distances kept by direction (0->1 20, 1->0 30, 1->2 40, 2->1 15)", str(dist))
    runs(blocks, cpu_nodes, mem_nodes, memory_only)
    rep = check.doc(blocks, "replication")
    if rep is not None and a.shape in ("memonly", "cpuonly"):
        h = rep.get("headline") or ""
        check.report("only one of this machine's 2 nodes has both cpus and memory" in h,
                     f"{a.shape}: numa_replication says why it has one node to use", h)
    pol = check.doc(blocks, "policy")
    if pol is not None and a.shape == "memonly":
        # interleave's default nodes are every node with memory: half the pages on the memory-only node
        pages = {k: v["value"] for k, v in pol.get("summary", {}).items() if k.startswith("touch_pages_node")}
        check.report(pages.get("touch_pages_node1", 0) > 0, "memonly: interleave puts pages on the memory-only node",
                     str(pages))
        check.report("1024 on node 1" in (pol.get("headline") or ""), "memonly: the headline says so",
                     pol.get("headline", ""))
    print(f"check_shape: {a.shape}: {check.failures} failure(s)")
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
