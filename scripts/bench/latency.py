"""latency.py - the pointer chase rows of `make bench`: memory_latency's
chase against tests/bench/chase_ref (written from multichase's published
design: 256-byte stride, 64-page TLB locality; same buffer size, page size
and cpu; both timed on the thread's cpu clock), in cache and from memory,
and the loaded curve's first point (no loader) against the idle chase."""

import json

import common
from common import Failure, Unavailable, best, best_ratio, sh

LOADS = (1 << 18) if common.QUICK else (1 << 20)  # dependent loads per round / sample
ROUNDS = 5           # rounds (numalab) and samples (reference) per pair
IN_CACHE = 64 << 10  # well inside L2 on any machine of the last decade
STRIDE = 256         # multichase's default, numalab's too
LOCALITY = 64        # pages: multichase's default TLB locality
GOAL = (0.95, 1.05)


def size_bytes(text):
    t = str(text).strip().upper()
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    return int(t[:-1]) * mult[t[-1]] if t and t[-1] in mult else int(t)


def numalab_chase(b, size, node, extra=None):
    params = {"mode": "nodes", "nodes": str(node), "size": size,
              "loads": str(LOADS), "repeat": str(ROUNDS), "warmup": "1",
              "budget": "0", "stride": str(STRIDE), "locality": str(LOCALITY)}
    params.update(extra or {})
    doc = b.run_cli("memory_latency", params)
    ns = (doc.get("summary", {}).get("local_ns") or {}).get("value")
    if ns is None:
        raise Failure("memory_latency gave no local cell: %s" % doc.get("headline"))
    cpu = [t.get("cpu_observed", t.get("cpu")) for p in doc.get("placement", [])
           for t in p.get("threads", [])][0]
    huge = (doc.get("summary", {}).get("huge_page_share") or {}).get("value")
    return ns, cpu, doc["params"]["size"], huge


def ref_chase(b, cpu, size):
    tlb = min(size, LOCALITY * 4096)
    out = sh([b.tool("chase_ref"), str(cpu), str(size), str(STRIDE), str(LOADS),
              str(ROUNDS), "huge", str(tlb)], timeout=300)
    return json.loads(out.stdout)


def row_pair(b, what, size_text, share_s):
    a, r, huge_a, huge_r = [], [], [], []
    got = {"size": size_text, "cpu": None}

    def pair():
        ns, cpu, text, huge = numalab_chase(b, got["size"], 0)
        size = size_bytes(text)
        ref = ref_chase(b, cpu, size)
        a.append(ns)
        r.append(ref["median_ns"])
        huge_a.append(huge)
        huge_r.append(100.0 * ref["huge_bytes"] / max(size, 2 << 20))
        got.update(size=text, cpu=cpu)

    k, why = b.ab_pairs(what, pair, lambda: best_ratio(a, r, higher=False), GOAL,
                        share_s=share_s)
    if not k:
        b.skipped("chase", what)
        return got["size"]
    size_text, cpu = got["size"], got["cpu"]
    # each side by its best pair, as the bandwidth rows: on a busy machine
    # interference only ever lengthens a load
    ratio = best_ratio(a, r, higher=False)
    m = common.center(ratio)
    meets = "yes" if GOAL[0] <= m <= GOAL[1] else "no"
    note = "%s on cpu %s: numalab %s%% of the buffer on 2 MiB pages, the reference %.0f%%" % (
        size_text, cpu, "?" if huge_a[-1] is None else "%.0f" % huge_a[-1], huge_r[-1])
    if b.pairs_note(k, why):
        note += "; " + b.pairs_note(k, why)
    b.row("chase", what, best(a, False, r), best(r, False, a), "ns/load", ratio,
          "%.2f-%.2f" % GOAL, meets, note, a_label="numalab", b_label="chase_ref",
          fmt="%.2f")
    b.raw.setdefault("chase", {})[what] = {"numalab": a, "chase_ref": r, "size": size_text}
    return size_text


def loaded_first_point(b, size_text):
    """The loaded curve's first point (no loader) against the idle chase:
    the same chase, so the same figure within noise."""
    idle, first = [], []
    what = "loaded curve, first point / idle (%s)" % size_text

    def pair():
        ns, _cpu, _s, _h = numalab_chase(b, size_text, 0)
        idle.append(ns)
        doc = b.run_cli("memory_latency", {
            "mode": "loaded", "loaders": "0", "size": size_text, "loads": str(LOADS),
            "repeat": str(ROUNDS), "warmup": "1", "budget": "0", "stride": str(STRIDE),
            "locality": str(LOCALITY)})
        first.append((doc.get("summary", {}).get("idle_ns") or {}).get("value"))

    k, why = b.ab_pairs(what, pair, lambda: best_ratio(first, idle, higher=False), GOAL)
    if not k:
        b.skipped("chase", what)
        return
    ratio = best_ratio(first, idle, higher=False)
    m = common.center(ratio)
    meets = "yes" if m is not None and GOAL[0] <= m <= GOAL[1] else "no"
    b.row("chase", what, best(first, False, idle),
          best(idle, False, first), "ns/load", ratio, "%.2f-%.2f" % GOAL, meets,
          "the loaded mode with no loader against the node matrix's local cell"
          + ("; " + b.pairs_note(k, why) if b.pairs_note(k, why) else ""),
          a_label="loaded[0]", b_label="idle", fmt="%.2f")


def chase(b):
    b.need_experiment("memory_latency", ["mode", "size", "nodes", "loads", "pages", "stride",
                                         "locality"])
    if b.ncpus < 1:
        raise Unavailable("no cpu")
    # a third of the section each, so the loaded row always gets its turn
    row_pair(b, "pointer chase in cache (64 KiB)", "64K", b.budget / 4)
    mem = b.schema["memory_latency"]
    size = next((p.get("default") for p in mem.get("params", []) if p["name"] == "size"), "256M")
    if common.QUICK:
        size = "64M"  # past the LLC of this class of machine, a quarter of the setup time
    size = row_pair(b, "pointer chase from memory (%s)" % size, str(size),
                    (b.budget - b.elapsed()) / 2)
    loaded_first_point(b, size)
    b.notes.append("pointer chase: each side by its best pair (the shortest load), A/B best over best; %d-%d pairs of %d rounds of %d dependent loads; both chains follow "
                   "multichase's published defaults, %d-byte nodes in %d-page blocks visited in random order "
                   "(numalab's also never puts two neighbours in one 4 KiB page), so the adjacent-line and stream "
                   "prefetchers cannot help; both timed on the chasing thread's cpu clock (numalab over the "
                   "stretches it was on its cpu, the reference by CLOCK_THREAD_CPUTIME_ID), the same "
                   "buffer size, cpu and 2 MiB page advice" % (common.MIN_PAIRS, common.MAX_PAIRS, ROUNDS, LOADS,
                                                               STRIDE, LOCALITY))
