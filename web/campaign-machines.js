// campaign-machines.js - a campaign's machines side by side: each one's verdict, its charts as small multiples, and where its threads ran
import { h } from './dom.js';
import { ChartSet } from './charts.js';
import { TopologyPicture, threadsOn } from './topology.js';
import { bytes, count } from './format.js';
import { commonRange } from './scale.js';
import { api } from './api.js';
import { readRun } from './rundoc.js';

// The charts worth setting side by side: the experiment's heatmaps, or all of its charts when it has none.
export function sideBySideSpecs(exp) {
  const specs = (exp && exp.charts) || [];
  const heat = specs.filter((s) => s.kind === 'heatmap');
  return heat.length ? heat : specs;
}

// A run document keeps a summary of its machine, not the machine's PU list; the threads it placed
// carry the core, caches, package and node of each CPU they used, which is enough to draw those CPUs.
// r: rundoc.js's reading of the run. Returns {topo, npus} or null when no placement says where a thread ran.
export function placedTopology(r) {
  const m = r.machine || {};
  const pus = new Map();
  for (const g of r.placement) {
    for (const t of g.threads || []) {
      const os = Number.isInteger(t.cpu_observed) && t.cpu_observed >= 0 ? t.cpu_observed : t.cpu;
      if (!Number.isInteger(os) || os < 0 || pus.has(os) || !Number.isInteger(t.core)) continue;
      pus.set(os, { os, core: t.core, package: t.package, node: t.node, l2: t.l2, l3: t.l3, l1: -1 });
    }
  }
  if (!pus.size) return null;
  // a run does not record hwloc's logical index: the picture names these PUs by their OS number only
  const list = [...pus.values()].sort((a, b) => a.os - b.os).map((p) => ({ ...p, logical: null }));
  const dist = Array.isArray(m.distances) ? m.distances : [];
  const nodeIds = [...new Set(list.map((p) => p.node).filter((n) => Number.isInteger(n) && n >= 0))].sort((a, b) => a - b);
  const nodes = nodeIds.map((os) => ({ os, cpus: list.filter((p) => p.node === os).map((p) => p.os).join(','), distances: nodeIds.map((j) => (dist[os] && dist[os][j]) || 0) }));
  return {
    topo: { cpu_model: m.cpu_model, packages: new Set(list.map((p) => p.package)).size, cores: new Set(list.map((p) => `${p.package}/${p.core}`)).size, smt: m.smt, pus: list, nodes,
      // one size per level, as the machine record keeps them: every instance of a level has it
      caches: (m.caches || []).filter((c) => c && Number.isInteger(c.level)).map((c) => ({ level: c.level, size: c.size })) },
    npus: m.pus,
  };
}

// One line for a machine whose run cannot be drawn: what the machine record says.
function summaryLine(m) {
  const caches = (m.caches || []).map((c) => `L${c.level} ${bytes(c.size)}`).join(', ');
  return `${count(m.packages, 'package', 'packages')}, ${count(m.cores, 'core', 'cores')}, ${count(m.pus, 'CPU', 'CPUs')}, ${count(m.nodes, 'NUMA node', 'NUMA nodes')}${caches ? `; caches ${caches}` : ''}`;
}

// The column of one machine; r: rundoc.js's reading of its run, or null. Returns {el, charts} (charts: a ChartSet to destroy, or null).
function machineColumn(node, r, exp) {
  const col = h('section', { class: 'campaign-machine', dataset: { node: node.node }, 'aria-label': `machine ${node.node}` });
  col.append(h('h3', { class: 'campaign-machine-name' }, node.run_id ? h('a', { href: `#/runs/${node.run_id}`, text: node.node }) : node.node));
  if (!r) {
    col.append(h('p', { class: 'campaign-machine-verdict campaign-failed', text: node.state === 'failed' ? `failed: ${node.reason || 'no reason given'}` : `no run (${node.state})` }));
    return { el: col, charts: null };
  }
  col.append(h('p', { class: 'campaign-machine-verdict', text: r.verdict || 'no verdict: this run reached none' }));
  const prov = r.provenance;
  if (prov && prov.headline && prov.today && prov.changed)
    col.append(h('p', { class: 'campaign-help', text: `as imported it said: “${prov.headline}”` }));

  const box = h('div', { class: 'campaign-machine-charts' });
  col.append(box);
  const specs = sideBySideSpecs(exp);
  const ids = new Set(specs.map((s) => s.id));
  let charts = null;
  if (specs.length) {
    charts = new ChartSet(box, specs, ((exp && exp.references) || []).filter((r) => ids.has(r.chart)), { legend: 'bottom' });
    charts.setContext({ threads: r.measured, distances: (r.machine && r.machine.distances) || null });
    for (const id of ids) {
      const points = r.charts.get(id);
      if (!points) continue;
      for (const s of points.samples) charts.sample(s);
      for (const c of points.cells) charts.cell(c);
    }
    charts.settle(true);
  } else {
    box.append(h('p', { class: 'run-empty', text: 'this server does not describe the experiment’s charts' }));
  }

  const placed = placedTopology(r);
  if (placed) {
    const whole = placed.npus === placed.topo.pus.length;
    col.append(h('p', { class: 'campaign-topo-note', text: whole
      ? 'Where its threads ran (the run used every CPU of the machine).'
      : `Where its threads ran: the ${count(placed.topo.pus.length, 'CPU', 'CPUs')} it used of ${placed.npus ?? '?'}; a run keeps a summary of its machine, not its whole topology.` }));
    const pic = new TopologyPicture(placed.topo, { title: `the CPUs of ${node.node} that run ${r.id} used`, file: `numalab-${node.node}-run-${r.id}-topology.svg`, threads: threadsOn(r.last ? r.last.threads : []) });
    col.append(h('div', { class: 'campaign-machine-topo' }, pic.el));
  } else {
    col.append(h('p', { class: 'campaign-topo-note campaign-topo-summary', text: `No picture: the run says not where its threads ran. The machine: ${summaryLine(r.machine || {})}.` }));
  }
  return { el: col, charts };
}

// One scale for each figure across the machines' chart sets (the same colour, the same bar height, the same value),
// or each machine its own when one is false. sets: ChartSets; ids: the figures; others: Map id -> the range of
// the machines not on this page (so that the scale is the campaign's, not the page's), or null.
export function shareScales(sets, ids, one, others = null) {
  for (const id of ids) {
    const views = sets.map((s) => s.chart(id)).filter(Boolean);
    const range = one ? commonRange([...views.map((v) => v.extent()), others ? others.get(id) : null]) : null;
    for (const v of views) v.fix(range);
  }
}

// The range of one chart's points in a run (as a chart's extent() reads its own); r: rundoc.js's reading.
export function runExtent(r, id) {
  const pts = r && r.charts.get(id);
  if (!pts) return null;
  let lo = Infinity;
  let hi = -Infinity;
  const see = (v) => { if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); } };
  for (const c of pts.cells) see(c.value);
  for (const p of pts.samples) { see(p.y); see(p.stats && p.stats.max); }
  if (lo > 0) lo = 0;
  return lo <= hi ? { lo, hi } : null;
}

// Ranges of every machine's run, by campaign and figure, read once a page session: {key, ranges: Map, read, of}.
const campaignRanges = new Map();

// Reads every run of a campaign (runIds: a promise of their ids), four at a time, folding each chart's range;
// onStep(read, of) after each. Returns the Map id -> range.
async function everyRange(wide, ids, onStep) {
  const have = campaignRanges.get(wide.key);
  if (have && have.done) return have.ranges;
  const all = await wide.runIds();
  const ranges = new Map();
  let read = 0, next = 0;
  const one = async () => {
    while (next < all.length) {
      const rid = all[next++];
      try {
        const r = readRun(await api.run(rid));
        for (const id of ids) ranges.set(id, commonRange([ranges.get(id), runExtent(r, id)]));
      } catch (e) {
        // a run that cannot be read leaves the scale to the others
      }
      read++;
      if (read % 25 === 0 || read === all.length) onStep(read, all.length);
    }
  };
  await Promise.all([one(), one(), one(), one()]);
  campaignRanges.set(wide.key, { done: true, ranges });
  return ranges;
}

// The section of every machine side by side; runs: rundoc.js's readings of their runs (null where none); holder.sets collects the chart sets to destroy.
// wide: {total, runIds, key} when the campaign has more machines than this page (the one scale is then every machine's), or null.
export function machinesSection(nodes, runs, exp, holder, wide = null) {
  const grid = h('div', { class: 'campaign-machines', id: 'campaign-machines' });
  const sets = [];
  nodes.forEach((n, i) => {
    const { el, charts } = machineColumn(n, runs[i], exp);
    if (charts) sets.push(charts);
    if (charts && holder) holder.sets.push(charts);
    grid.append(el);
  });
  const ids = sideBySideSpecs(exp).map((s) => s.id);
  const one = h('input', { type: 'checkbox', id: 'campaign-one-scale', checked: true });
  const note = h('span', { class: 'campaign-help', id: 'campaign-scale-note' });
  let others = null;
  const apply = () => {
    shareScales(sets, ids, one.checked, others);
    note.textContent = one.checked
      ? ` every machine’s chart of a figure uses one scale${wide ? (others ? `, that of all ${wide.total} machines` : ', this page’s until every machine’s runs are read') : ''}: the same colour or height is the same value`
      : ' each machine’s chart has its own scale: compare shapes, not colours or heights, across machines';
  };
  if (wide && ids.length) {
    everyRange(wide, ids, (read, of) => {
      if (one.checked && read < of) note.textContent = ` one scale: reading every machine’s run (${read} of ${of})…`;
    }).then((r) => {
      others = r;
      apply();
    }, () => {});
  }
  one.addEventListener('change', apply);
  apply();
  return h('section', { class: 'campaign-section' }, h('h2', { text: 'Each machine: its verdict, its charts, where its threads ran' }),
    h('p', { class: 'campaign-controls' }, h('label', { for: 'campaign-one-scale' }, one, ' one scale for every machine'), note), grid);
}
