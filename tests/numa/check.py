#!/usr/bin/env python3
"""check.py - judges what numalab printed inside a NUMA guest (tests/numa/guest.sh).

usage: check.py --nodes N [--cpus-per-node C] --distances d00,d01,... [--probe] RESULTS

RESULTS holds blocks "@@@ BEGIN name" / stdout / "@@@ STDERR" / stderr /
"@@@ END rc=N". Only meaning is asserted (where pages are, which cells
exist, what is refused and why), never a timing: the guest is emulated.
"""
import argparse
import json
import sys

PAGE = 4096
failures = 0


def report(ok, what, detail=""):
    global failures
    if ok:
        print(f"  ok    {what}")
    else:
        failures += 1
        print(f"  FAIL  {what}{': ' + detail if detail else ''}")
    return ok


def parse(path):
    blocks, name, part = {}, None, None
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\r\n")
            if line.startswith("@@@ BEGIN "):
                name = line[len("@@@ BEGIN "):]
                blocks[name] = {"stdout": [], "stderr": [], "rc": None}
                part = "stdout"
            elif line == "@@@ STDERR" and name:
                part = "stderr"
            elif line.startswith("@@@ END rc=") and name:
                blocks[name]["rc"] = int(line[len("@@@ END rc="):])
                name = None
            elif name:
                blocks[name][part].append(line)
    for b in blocks.values():
        b["stdout"] = "\n".join(b["stdout"])
        b["stderr"] = "\n".join(b["stderr"])
    return blocks


def doc(blocks, name, run=True):
    """The run document of a --json block, or None (reported) when there is none."""
    b = blocks.get(name)
    if not report(b is not None and b["rc"] is not None, f"{name}: ran to the end"):
        return None
    if not report(b["rc"] == 0, f"{name}: exit status 0", f"rc={b['rc']}: {b['stderr'][-300:]}"):
        return None
    try:
        d = json.loads(b["stdout"])
    except ValueError as e:
        report(False, f"{name}: prints one JSON document", str(e))
        return None
    if run:
        report(d.get("status") == "done", f"{name}: status done", str(d.get("status")))
    return d


def plain(series):
    """A series name without the label a buffer under 4x the caches gets."""
    return series[:-len(" (from cache)")] if series.endswith(" (from cache)") else series


def summary(d, key):
    s = d.get("summary", {}).get(key)
    return None if s is None else s.get("value")


def expect(d, name, key, want):
    got = summary(d, key)
    report(got == want, f"{name}: {key} = {want}", f"got {got}")


def check_topology(blocks, n, cpn, dist):
    d = doc(blocks, "topology", run=False)
    if d is None:
        return
    nodes = d.get("nodes", [])
    report(d.get("nnodes") == n and len(nodes) == n, f"topology: {n} nodes", f"got {d.get('nnodes')}")
    report([x["os"] for x in nodes] == list(range(n)), "topology: nodes numbered 0..n-1")
    got = [x.get("distances") for x in nodes]
    want = [dist[i * n:(i + 1) * n] for i in range(n)]
    report(got == want, "topology: distances as the guest was given them", f"got {got}, want {want}")
    report(all(x.get("npus") == cpn and x.get("mem_total", 0) > 0 for x in nodes),
           f"topology: every node has {cpn} cpu{'s' if cpn > 1 else ''} and memory",
           str([(x.get("npus"), x.get("mem_total")) for x in nodes]))
    report(d.get("numa_available") is True, "topology: numa available")


def check_pages_on(blocks, name, node, pages, n):
    d = doc(blocks, name)
    if d is None:
        return None
    expect(d, name, f"touch_pages_node{node}", pages)
    for other in range(n):
        if other != node:
            expect(d, name, f"touch_pages_node{other}", 0)
    expect(d, name, "touch_pages_outside", 0)
    expect(d, name, "touch_pages_absent", 0)
    return d


def check_bind(blocks, n):
    last, pages = n - 1, 16 * 2**20 // PAGE
    d = check_pages_on(blocks, "bind_last", last, pages, n)
    if d is None:
        return
    agree, checked = summary(d, "get_mempolicy_agree"), summary(d, "get_mempolicy_checked")
    report(checked and agree == checked, "bind_last: get_mempolicy agrees with move_pages",
           f"{agree} of {checked}")
    bw = {(plain(s["series"]), s["x"]) for s in d["samples"] if s["chart"] == "bandwidth"}
    report({("read", 0), ("write", 0), ("read", last), ("write", last)} <= bw,
           "bind_last: read and write bandwidth from nodes 0 and the last", str(sorted(bw)))
    # migration: mbind moves everything to node 0, move_pages brings it back
    expect(d, "bind_last", "mbind_moved", pages)
    expect(d, "bind_last", "mbind_failed", 0)
    expect(d, "bind_last", "mbind_pages_node0", pages)
    expect(d, "bind_last", "move_pages_moved", pages)
    expect(d, "bind_last", "move_pages_failed", 0)
    expect(d, "bind_last", f"move_pages_pages_node{last}", pages)


def check_interleave(blocks, n):
    pages = 16 * 2**20 // PAGE
    d = doc(blocks, "interleave")
    if d is not None:
        expect(d, "interleave", "interleaved", 1)
        expect(d, "interleave", "interleave_run_pages", 1)
        for node in range(n):
            expect(d, "interleave", f"touch_pages_node{node}", pages // n)
    # task policy: a per-thread counter deals the pages, and page tables
    # allocated on the way take turns too, so only the balance is asserted
    d = doc(blocks, "interleave_task")
    if d is not None:
        pages = 8 * 2**20 // PAGE
        counts = [summary(d, f"touch_pages_node{node}") or 0 for node in range(n)]
        report(sum(counts) == pages and min(counts) >= pages // n * 0.9,
               "interleave_task: pages spread evenly over every node", str(counts))
    if n >= 4:
        pages = 8 * 2**20 // PAGE
        d = doc(blocks, "interleave_odd")
        if d is not None:
            expect(d, "interleave_odd", "interleaved", 1)
            for node in range(n):
                expect(d, "interleave_odd", f"touch_pages_node{node}", pages // 2 if node in (1, 3) else 0)


def check_other_policies(blocks, n):
    last, pages = n - 1, 8 * 2**20 // PAGE
    check_pages_on(blocks, "bind_task", last, pages, n)
    check_pages_on(blocks, "preferred", last, pages, n)
    d = check_pages_on(blocks, "first_touch", last, pages, n)
    if d is not None:
        toucher = [p for p in d.get("placement", []) if p.get("label") == "first touch"]
        nodes = {t.get("node") for p in toucher for t in p.get("threads", [])}
        report(nodes == {last}, "first_touch: the toucher ran on the last node", str(nodes))
    d = doc(blocks, "move_pages")
    if d is not None:
        expect(d, "move_pages", "touch_pages_node0", pages)
        expect(d, "move_pages", "move_pages_moved", pages)
        expect(d, "move_pages", "move_pages_failed", 0)
        expect(d, "move_pages", f"move_pages_pages_node{last}", pages)


def check_remote(blocks, n):
    d = doc(blocks, "remote")
    if d is None:
        return
    cells = {}
    for c in d.get("cells", []):
        cells.setdefault(c["chart"], {})[(c["row"], c["col"])] = c
    want = {(i, j) for i in range(n) for j in range(n)}
    for chart in ("write_regular", "write_nontemporal", "read"):
        got = cells.get(chart, {})
        valued = {k for k, c in got.items() if isinstance(c.get("value"), (int, float)) and c["value"] > 0}
        report(set(got) == want and valued == want, f"remote: {chart} has all {n}x{n} cells measured",
               f"{len(valued)} of {len(want)}")
    got = cells.get("write_prefetchw", {})
    report(set(got) == want and all(c.get("value") is not None or c.get("note") for c in got.values()),
           f"remote: write_prefetchw has all {n}x{n} cells (measured, or a note why not)")
    mixed = {(plain(s["series"]), s.get("x_label")) for s in d.get("samples", []) if s["chart"] == "mixed"}
    report({("regular stores", "all local"), ("regular stores", "read local, write remote")} <= mixed,
           "remote: the mixed run measured all-local and read-local-write-remote", str(sorted(mixed)))
    # 6.5.8 with the node written to idle: node 0 alone copies, its target runs nothing
    idle = {(plain(s["series"]), s.get("x_label")) for s in d.get("samples", []) if s["chart"] == "idle_remote"}
    report({("regular stores", "one node, all local"),
            ("regular stores", "read local, write to an idle node")} <= idle,
           "remote: the idle run measured one node local and writing to an idle node", str(sorted(idle)))
    ran = {t.get("node") for p in d.get("placement", []) if p.get("label", "").startswith("idle_remote")
           for t in p.get("threads", [])}
    report(ran == {0}, "remote: only node 0's threads ran in the idle run", str(ran))
    report(summary(d, "idle_local_gbps") is not None and summary(d, "idle_remote_gbps") is not None,
           "remote: the idle run's local and remote summaries")


def check_latency(blocks, n, dist):
    """memory_latency's node matrix: every cell measured, on the cpu node it
    names, its buffer on the memory node it names (move_pages, not timing)."""
    d = doc(blocks, "latency")
    if d is None:
        return
    cells = {}
    for c in d.get("cells", []):
        cells.setdefault(c["chart"], {})[(c["row"], c["col"])] = c
    want = {(i, j) for i in range(n) for j in range(n)}
    lat = cells.get("latency", {})
    valued = {k for k, c in lat.items() if isinstance(c.get("value"), (int, float)) and c["value"] > 0}
    report(set(lat) == want and valued == want, f"latency: all {n}x{n} cells measured",
           f"{len(valued)} of {len(want)}")
    ratio = cells.get("ratio", {})
    report(set(ratio) == want and all(abs(ratio[(i, i)]["value"] - 1) < 1e-9 for i in range(n)
                                      if (i, i) in ratio),
           f"latency: a ratio to local beside every cell, 1 on the diagonal")
    got = {k: c.get("value") for k, c in cells.get("distance", {}).items()}
    report(got == {(i, j): dist[i * n + j] for i in range(n) for j in range(n)},
           "latency: the firmware's distance beside every cell")
    pages = (1 << 20) // PAGE
    for j in range(n):
        on, off = summary(d, f"pages_on_node{j}"), summary(d, f"pages_off_node{j}")
        report(on == pages and off == 0, f"latency: the buffer of column {j} is on node {j} (move_pages)",
               f"on {on}, off {off}")
    for i in range(n):
        for j in range(n):
            label = f"chase: cpu of node {i}, memory of node {j}"
            ran = {t.get("node") for p in d.get("placement", []) if p.get("label") == label
                   for t in p.get("threads", [])}
            if not report(ran == {i}, f"latency: the chase of cell ({i},{j}) ran on node {i}", str(ran)):
                return
    report(summary(d, "remote_over_local") is not None, "latency: remote over local summarised")


def check_emulated(blocks):
    """Under qemu's emulation (TCG) the machine record says so, and the
    timing runs state no comparison: the headline says the times are the
    emulator's, nothing is called slower, no distance is set against a
    time, and the remote-over-local ratios are disowned."""
    for name, ratio in (("latency", "remote_over_local"), ("remote", "read_remote_over_local")):
        d = doc(blocks, name)
        if d is None:
            continue
        if not (d.get("machine") or {}).get("emulator"):
            report(True, f"{name}: not under an emulator (KVM): its times may be compared")
            continue
        head = d.get("headline") or ""
        report(head.startswith("the emulator's times"), f"{name}: the headline says the times are the emulator's",
               head[:160])
        report("slower" not in head and "distance says" not in head,
               f"{name}: no remote called slower, no distance set against a time", head[:200])
        marks = {m.get("key"): m.get("mark") or m.get("kind") for m in d.get("marks") or []
                 if isinstance(m, dict)}
        report(marks.get(ratio) == "disowned", f"{name}: {ratio} disowned under the emulator", str(marks))


def check_scaling(blocks, n):
    d = doc(blocks, "scaling")
    if d is None:
        return
    xs = sorted(s["x"] for s in d.get("samples", []) if s["chart"] == "read" and s["series"] == "spread")
    report(xs == list(range(1, n + 1)), f"scaling: read points for 1..{n} threads", str(xs))
    label = f"threads={n} placement=spread"
    nodes = [t.get("node") for p in d.get("placement", []) if p.get("label") == label
             for t in p.get("threads", [])]
    report(sorted(nodes) == list(range(n)), f"scaling: {n} spread threads on {n} different nodes", str(nodes))


def check_plans(blocks, n, cpn, dist):
    """The pair and cell plans for the guest: each node a socket of cpn cores under one L3."""
    d = doc(blocks, "plans", run=False)
    if d is None:
        return
    ncpus = n * cpn
    remote = sorted({dist[i * n + j] for i in range(n) for j in range(n) if i != j})
    every = d["pairs"]["all"]
    report(every["ncpus"] == ncpus and every["npairs"] == ncpus * (ncpus - 1),
           f"plans: all measures {ncpus * (ncpus - 1)} ordered pairs", str(every["npairs"]))
    rel = d["pairs"]["by_relation"]
    names = [c["name"] for c in rel["classes"]]
    want = (["l3"] if cpn > 1 else []) + [f"cross-package, distance {x}" for x in remote]
    report(names == want, "plans: one relation class for a socket's cores and one per node distance",
           f"got {names}, want {want}")
    report(sum(c["available"] for c in rel["classes"]) == ncpus * (ncpus - 1),
           "plans: the classes hold every ordered pair")
    short = [c["name"] for c in rel["classes"] if c["planned"] != min(3, c["available"])]
    report(not short, "plans: by_relation measures min(3, its pairs) of every class", str(short))
    pairs = [tuple(p[:2]) for p in rel["pairs"]]
    report(len(pairs) == len(set(pairs)) and all(a != b for a, b in pairs),
           f"plans: by_relation's {len(pairs)} pairs are distinct", str(pairs))
    full, near = d["cells"]["full"], d["cells"]["by_distance"]
    report(len(full["cells"]) == n * n, f"plans: the full node matrix has {n * n} cells",
           str(len(full["cells"])))
    cnames = [c["name"] for c in near["classes"]]
    want = ["local"] + [f"distance {x}" for x in remote]
    report(cnames == want, "plans: by_distance has local and one class per distance",
           f"got {cnames}, want {want}")
    cells = [tuple(c[:2]) for c in near["cells"]]
    report(len(cells) == len(set(cells)) and
           all(c["planned"] == min(3, c["available"]) for c in near["classes"]),
           f"plans: by_distance measures {len(cells)} distinct cells, min(3, its cells) a class",
           str(cells))


def check_replication(blocks, n):
    """numa_replication: a copy per node on its node, one region per node, the migrated pages local."""
    pages = 2**20 // PAGE
    region = 1024 * 8 // PAGE
    d = doc(blocks, "replication")
    if d is not None:
        expect(d, "replication", "nodes_used", n)
        expect(d, "replication", "replicas", n)
        expect(d, "replication", "replica_bytes", n * 2**20)
        expect(d, "replication", "single_pages_home", pages)
        expect(d, "replication", "single_pages_elsewhere", 0)
        for node in range(n):
            expect(d, "replication", f"replica_node{node}_pages_local", pages)
            expect(d, "replication", f"replica_node{node}_pages_elsewhere", 0)
            expect(d, "replication", f"region_node{node}_pages_local", region)
            expect(d, "replication", f"region_node{node}_pages_elsewhere", 0)
        expect(d, "replication", "shared_region_pages_home", region)
        expect(d, "replication", "accumulate_equal", 1)
        readers = [p for p in d.get("placement", []) if p.get("label") == "a copy per node"]
        nodes = sorted(t.get("node") for p in readers for t in p.get("threads", []))
        report(nodes == list(range(n)), f"replication: one reader on each of the {n} nodes", str(nodes))
        expect(d, "replication", "migration_possible", 1)
        expect(d, "replication", "local_node", 0)
        # the farthest node from node 0 (the last one in the 2- and 4-node guests)
        expect(d, "replication", "remote_node", n - 1)
        expect(d, "replication", "migration_pages_before_remote", pages)
        expect(d, "replication", "migration_moved", pages)
        expect(d, "replication", "migration_failed", 0)
        expect(d, "replication", "migration_pages_after_local", pages)
        # a break-even only when a remote pass was told slower (the
        # emulator's timings may not tell them apart): the number, or why not
        be = summary(d, "break_even_passes")
        said = [x["text"] for x in d.get("notes", []) if "no break-even can be claimed" in x["text"]]
        report(isinstance(be, (int, float)) != bool(said),
               "replication: a break-even number, or a note why none is claimed", f"{be} {said}")
        pts = {s["series"] for s in d.get("samples", []) if s["chart"] == "migration"}
        report({"stay remote", "migrate first"} <= pts, "replication: the break-even chart has both lines", str(pts))
        report(("break-even" in pts) == isinstance(be, (int, float)),
               "replication: the crossing is drawn only with a break-even number", str(pts))
        # 1M reads from cache: the copy comparison is not stated, and that is
        # the one thing called impossible on several nodes
        cannot = [x["text"] for x in d.get("notes", []) if x["level"] == "cannot"]
        # (the experiment's own sentence and the rulebook's both say "from cache")
        report(all("from cache" in x for x in cannot),
               "replication: no comparison is called impossible on several nodes but the one from cache",
               str(cannot))
    d = doc(blocks, "replication_home")
    if d is not None:
        last = n - 1
        expect(d, "replication_home", "home_node", last)
        expect(d, "replication_home", "single_pages_home", pages)
        expect(d, "replication_home", "shared_region_pages_home", region)
        expect(d, "replication_home", "replica_node0_pages_local", pages)
        expect(d, "replication_home", f"replica_node{last}_pages_local", pages)
        expect(d, "replication_home", "replicas", 2)


def check_refusals(blocks, n):
    have = f"this machine has nodes 0-{n - 1}"
    for name, text in (("missing_node", f"node {n} does not exist ({have})"),
                       ("missing_matrix_node", f"node {n + 1} does not exist ({have})"),
                       ("too_big", "'size' asks for 65536.0 MiB, more than the")):
        b = blocks.get(name)
        if not report(b is not None, f"{name}: ran"):
            continue
        report(b["rc"] == 2 and text in b["stderr"], f"{name}: refused with \"{text}\"",
               f"rc={b['rc']}: {b['stderr'][-300:]}")


def check_semantics_affinity(blocks, n, cpn):
    """memory_policy_semantics's steps and affinity's placement, in the guest and in a cpuset."""
    last, one = n - 1, (n - 1) * cpn
    d = doc(blocks, "semantics")
    if d is not None:
        expect(d, "semantics", "node_a", 0)
        expect(d, "semantics", "node_b", last)
        for step in ("after_touch", "vma_wins", "strict", "migrate_pages", "preferred"):
            agree, total = summary(d, f"{step}_agree"), summary(d, f"{step}_total")
            report(total and agree == total, f"semantics: {step} as the article says", f"{agree} of {total}")
        expect(d, "semantics", "strict_elsewhere_errno", 5)  # EIO
        expect(d, "semantics", "get_mempolicy_policy_ok", 1)
        # the pages must interleave page by page; MPOL_F_NODE's prediction
        # holds only where page faults turn the counter it reads (the
        # article's kernel); Linux 6.1 places them by offset instead, and
        # then the counter must not have moved at all
        got, asked = summary(d, "get_mempolicy_predicted"), summary(d, "get_mempolicy_asked")
        order, moves = summary(d, "get_mempolicy_in_order"), summary(d, "get_mempolicy_counter_moves")
        report(asked and order == asked - 1, "semantics: task interleave dealt the pages in node order",
               f"{order} of {asked and asked - 1}")
        report(asked and (got == asked or moves == 0),
               "semantics: MPOL_F_NODE named the next node, or page faults never turned its counter",
               f"predicted {got} of {asked}, counter moved {moves} times")
        report(summary(d, "preferred_many_on_b") == summary(d, "preferred_pages"),
               "semantics: MPOL_PREFERRED_MANY kept the toucher's own node")
    d = doc(blocks, "affinity")
    if d is not None:
        pinned = [t for p in d.get("placement", []) if p["label"] == "created_pinned" for t in p["threads"]]
        report(pinned and all(t["cpu_observed"] == t["cpu"] for t in pinned),
               "affinity: threads pinned at creation ran where asked", str(pinned))
        report(summary(d, "created_pinned_local_pages") == summary(d, "created_pinned_pages"),
               "affinity: pinned at creation, every page on the thread's node")
        if cpn >= 2:
            report(summary(d, "cache_split_shared_gbps") is not None and
                   summary(d, "cache_split_split_gbps") is not None,
                   "affinity: cache_split measured one cache and split")
        else:
            expect(d, "affinity", "cache_split_level", 0)
    for name, cpuset in (("affinity_taskset", False), ("cpuset_run", True)):
        if cpuset and name not in blocks:
            print(f"  SKIP  {name}: the guest's kernel made no cgroup v2 cpuset")
            continue
        d = doc(blocks, name)
        if d is None:
            continue
        seen = {t["cpu_observed"] for p in d.get("placement", []) for t in p["threads"]}
        report(seen == {one}, f"{name}: every thread ran on cpu {one} only", str(seen))
        for mode in ("created_pinned", "unpinned"):
            expect(d, name, f"{mode}_outside_cpus", 0)
            expect(d, name, f"{mode}_outside_mems", 0)
            report(summary(d, f"{mode}_local_pages") == summary(d, f"{mode}_pages"),
                   f"{name}: {mode}: every page on node {last}")
    if "cpuset_topology" in blocks:
        d = doc(blocks, "cpuset_topology", run=False)
        if d is not None:
            cs = d.get("cpuset", {})
            report(cs.get("cpus") == str(one) and cs.get("mems") == str(last) and
                   cs.get("cpus_from") == "cgroup cpuset.cpus.effective" and
                   cs.get("mems_from") == "cgroup cpuset.mems.effective",
                   "cpuset_topology: the cgroup's cpuset, and where it was read", str(cs))
        b = blocks.get("cpuset_refused")
        text = (f"node 0 is outside this process's cpuset (allowed mems: {last}, "
                "from cgroup cpuset.mems.effective")
        report(b is not None and b["rc"] == 2 and text in b["stderr"],
               f"cpuset_refused: refused with \"{text}\"", str(b and b["stderr"][-300:]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, required=True)
    ap.add_argument("--cpus-per-node", type=int, default=1)
    ap.add_argument("--distances", required=True)
    ap.add_argument("--probe", action="store_true", help="the guest ran plan_probe")
    ap.add_argument("results")
    a = ap.parse_args()
    dist = [int(x) for x in a.distances.split(",")]
    blocks = parse(a.results)
    n = a.nodes
    cpn = a.cpus_per_node
    check_topology(blocks, n, cpn, dist)
    if a.probe:
        check_plans(blocks, n, cpn, dist)
    check_bind(blocks, n)
    check_other_policies(blocks, n)
    check_interleave(blocks, n)
    check_remote(blocks, n)
    check_scaling(blocks, n)
    check_latency(blocks, n, dist)
    check_emulated(blocks)
    check_replication(blocks, n)
    check_refusals(blocks, n)
    check_semantics_affinity(blocks, n, cpn)
    print(f"  {n}-node guest: {'all checks passed' if not failures else f'{failures} check(s) failed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
