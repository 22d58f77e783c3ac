// compare.js - two or more runs of one experiment on one chart, each labelled with its machine and date, and their summaries side by side
import { api } from './api.js';
import { h, clear } from './dom.js';
import { ChartSet } from './charts.js';
import { label, withUnit, clock, bytes } from './format.js';
import { pngButtons } from './export.js';
import { readRun, markIn, globMatch } from './rundoc.js';
import { comparePicker } from './compare-pick.js';

// One colour family per run, dark to light; a run's series differ by dash and marker.
const FAMILIES = [
  ['#08306b', '#2171b5', '#6baed6'],
  ['#7f2704', '#d94801', '#fd8d3c'],
  ['#00441b', '#238b45', '#74c476'],
  ['#3f007d', '#6a51a3', '#9e9ac8'],
  ['#3b3b3b', '#737373', '#a3a3a3'],
];

// A summary key in words, from the experiment's summary_labels ({key: pattern with '*', label with '%s', unit})
// when the server gives them, else the key made readable: "slowdown with 2 threads, stride 64 B".
export function figureLabel(key, exp, fallback = label(key)) {
  for (const r of (exp && exp.summary_labels) || []) {
    const re = new RegExp(`^${String(r.key).split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('(.*)')}$`);
    const m = re.exec(key);
    if (!m) continue;
    // a part that names a series is said as the series is ("c11_relaxed" -> "C11 atomic, relaxed")
    const part = (g) => ((exp.series_labels || []).find((s) => s.key === g) || { label: g }).label;
    let text = r.label;
    for (const g of m.slice(1)) text = text.replace('%s', part(g));
    return text;
  }
  return fallback;
}

// A series in words, from the experiment's series_labels ("c11_seq_cst" -> "C11 atomic, seq_cst"), else its own name.
export function seriesLabel(name, exp) {
  const rows = (exp && exp.series_labels) || [];
  return rows.length ? figureLabel(name, { summary_labels: rows }, name) : name;
}

// The figure a picker opens on: of the keys the experiment's headline_key matches, the one at the most threads (or the
// largest number it names: "slowdown_4_threads" over "slowdown_1_threads"), else the first that matches; else keys[0].
export function headlineKey(keys, exp) {
  const pat = exp && exp.headline_key;
  const hits = pat ? keys.filter((k) => globMatch(pat, k)) : [];
  if (!hits.length) return keys[0];
  const most = (k) => Math.max(-1, ...(k.match(/\d+/g) || []).map(Number));
  return hits.reduce((best, k) => (most(k) > most(best) ? k : best), hits[0]);
}

// Which way is better for a figure, from its unit and name: 'lower', 'higher' or null.
export function betterWay(key, unit) {
  const k = `${key} ${unit || ''}`.toLowerCase();
  if (/gb\/s|mb\/s|\/s\b|per.?s(ec)?\b|bandwidth|gbps|throughput|speedup/.test(k)) return 'higher';
  if (/\bns\b|\bms\b|\bus\b|\bs\b|cycles|time|latency|overhead|slowdown|penalty/.test(k)) return 'lower';
  return null;
}

const MACHINE_ROWS = [
  ['hostname', 'host'], ['cpu_model', 'CPU'], ['packages', 'packages'], ['cores', 'cores'], ['pus', 'CPUs'],
  ['nodes', 'NUMA nodes'], ['smt', 'SMT'], ['caches', 'caches'], ['distances', 'NUMA distances'], ['kernel', 'kernel'],
  ['thp', 'THP'], ['governor', 'governor'], ['vm', 'virtual machine'], ['version', 'numalab'], ['compiler', 'compiler'], ['cflags', 'flags'],
];

function machineValue(k, v) {
  if (v === null || v === undefined) return '–';
  if (k === 'caches' && Array.isArray(v)) return v.map((c) => `L${c.level} ${bytes(c.size)}`).join(', ');
  if (k === 'distances' && Array.isArray(v)) return v.map((r) => r.join(' ')).join(' / ');
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
}

// rows [{group, name, values, same}] of params and machine parts, for the table of what differs; runs: rundoc.js's readings
export function differences(runs) {
  const rows = [];
  const keys = [];
  for (const r of runs) for (const k of Object.keys(r.params)) if (!keys.includes(k)) keys.push(k);
  for (const k of keys) rows.push({ group: 'parameter', name: k, values: runs.map((r) => (k in r.params ? String(r.params[k]) : '–')) });
  for (const [k, name] of MACHINE_ROWS) rows.push({ group: 'machine', name, values: runs.map((r) => machineValue(k, (r.machine || {})[k])) });
  for (const r of rows) r.same = r.values.every((v) => v === r.values[0]);
  return rows;
}

function diffTable(runs) {
  const rows = differences(runs);
  const head = h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'what' }), runs.map((r, i) =>
    h('th', { scope: 'col' }, h('span', { class: 'run-swatch', dataset: { family: String(i % FAMILIES.length) } }), `run #${r.id}`))));
  const line = (r) => h('tr', { class: r.same ? 'same' : 'differs' },
    h('th', { scope: 'row', text: `${r.name}${r.group === 'machine' ? ' (machine)' : ''}` }), r.values.map((v) => h('td', { text: v })));
  const diff = rows.filter((r) => !r.same);
  const same = rows.filter((r) => r.same);
  return h('section', { class: 'compare-diff', id: 'compare-diff', 'aria-label': 'what differs between the runs' },
    h('h3', { text: diff.length ? `What differs (${diff.length})` : 'The runs have the same parameters and machine' }),
    diff.length ? h('table', { class: 'compare-table', id: 'compare-diff-table' }, head, h('tbody', {}, diff.map(line))) : null,
    same.length ? h('details', { class: 'compare-same' }, h('summary', { text: `${same.length} rows are the same in every run` }),
      h('table', { class: 'compare-table' }, head.cloneNode(true), h('tbody', {}, same.map(line)))) : null);
}

// A chart whose y grows with a param's count of operations (schema's chart.per: {param, operation}), when the runs
// differ in that param: the spec drawn per operation and each run's divisor. null when the runs are the same size
// (their raw values compare as they are) or when a run does not say its count.
export function perOperation(spec, runs) {
  const per = spec && spec.per;
  if (!per || !per.param) return null;
  const counts = runs.map((r) => Number((r.params || {})[per.param]));
  if (counts.some((n) => !(n > 0))) return null;
  if (counts.every((n) => n === counts[0])) return null;
  const one = per.operation || 'operation';
  const y = spec.y_label || '';
  return {
    spec: { ...spec, title: `${spec.title || spec.id}, per ${one} (÷ ${per.param}: the runs differ in size)`,
      y_label: /\(.*\)/.test(y) ? y.replace(/^([^(]*?)\s*\(/, `$1 per ${one} (`) : `${y} per ${one}`.trim() },
    divisor: counts,
  };
}

// A sample divided by n: its value, its spread and its rounds.
export function perSample(x, n) {
  const d = (v) => (typeof v === 'number' ? v / n : v);
  const stats = x.stats ? Object.fromEntries(Object.entries(x.stats).map(([k, v]) => [k, k === 'n' ? v : d(v)])) : x.stats;
  return { ...x, y: d(x.y), stats, samples: Array.isArray(x.samples) ? x.samples.map(d) : x.samples };
}

// r: rundoc.js's reading of a run
export function runLabel(r) {
  const m = r.machine || {};
  return `#${r.id} ${m.hostname || '?'} ${clock(r.when)}`;
}

// rows: [{key, unit, way, values: [...], ratios: [...]}], each run against the baseline run (index base);
// a ratio only for a figure with a better direction, and none for a value its verdict disowns. runs: rundoc.js's readings
export function summaryDiff(runs, base = 0) {
  const keys = [];
  for (const r of runs) for (const e of r.summary) if (!keys.includes(e.key)) keys.push(e.key);
  return keys.map((k) => {
    // a value its run's verdict disowns is no figure to compare: it stays out of every ratio
    const marks = runs.map((r) => markIn(r.marks, k));
    const vals = runs.map((r, i) => (r.figures.has(k) && !(marks[i] && marks[i].mark === 'disowned') ? r.figures.get(k).value : null));
    const unit = runs.find((r) => r.figures.has(k)).figures.get(k).unit;
    const way = betterWay(k, unit);
    const b = vals[base];
    const ok = (v) => typeof v === 'number' && Number.isFinite(v);
    return { key: k, unit, way, values: vals, marks,
      ratios: vals.map((v) => (way && ok(v) && ok(b) && b !== 0 ? v / b : null)) };
  });
}

// A run's value as the verdict lets it be shown: none when it disowned it, "at least" when it is a bound.
function valueText(v, unit, mark) {
  if (mark && mark.mark === 'disowned') return 'not a valid measurement';
  if (v === null) return '–';
  return `${mark ? 'at least ' : ''}${withUnit(v, unit)}`;
}

// "1.25× (worse)": the direction named, so a ratio of ratios is never read the wrong way
function ratioText(x, way) {
  if (x === null) return '–';
  const tag = !way || Math.abs(x - 1) < 0.005 ? '' : ((x > 1) === (way === 'higher') ? ' (better)' : ' (worse)');
  return `${x.toFixed(2)}×${tag}`;
}

// The side-by-side table: every run's value, then each run against the baseline run (absolute and relative both).
function summaryTable(runs, base, exp) {
  const rows = summaryDiff(runs, base);
  const others = runs.map((r, i) => i).filter((i) => i !== base);
  return h('table', { class: 'compare-table', id: 'compare-table' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'figure' }), h('th', { scope: 'col', text: 'better' }),
      runs.map((r, i) => h('th', { scope: 'col', class: i === base ? 'baseline' : null, text: `${runLabel(r)}${i === base ? ' (baseline)' : ''}` })),
      others.map((i) => h('th', { scope: 'col', text: `run #${runs[i].id} ÷ baseline #${runs[base].id}` })))),
    h('tbody', {}, rows.map((r) => h('tr', {}, h('th', { scope: 'row', text: figureLabel(r.key, exp), title: r.key }),
      h('td', { class: 'better-way', text: r.way ? `${r.way} is better` : 'neither way: no ratio' }),
      r.values.map((v, i) => h('td', { class: i === base ? 'baseline' : null, text: valueText(v, r.unit, r.marks[i]), title: r.marks[i] ? r.marks[i].why : null })),
      others.map((i) => h('td', { class: 'ratio', text: ratioText(r.ratios[i], r.way) }))))));
}

// returns {destroy} for the app to drop it; one id: the picker of the runs to compare it with
export async function showCompare(container, ids, byName) {
  clear(container);
  const runs = [];
  for (const id of ids) {
    try {
      runs.push(readRun(await api.run(id)));
    } catch (e) {
      container.append(h('p', { class: 'note note-warn', text: `cannot compare: run ${id}: ${e.message}` }));
      return { destroy() {} };
    }
  }
  if (runs.length < 2) {
    const pick = comparePicker({ id: runs[0].id, experiment: runs[0].experiment, params: runs[0].params });
    container.append(pick);
    pick.querySelector('h3').focus({ preventScroll: true });
    return { destroy() {} };
  }
  const kinds = new Set(runs.map((r) => r.experiment));
  if (kinds.size !== 1) {
    container.append(h('p', { class: 'note note-warn', text: `cannot compare runs of different experiments (${[...kinds].join(', ')})` }));
    return { destroy() {} };
  }
  const exp = byName.get(runs[0].experiment) || { name: runs[0].experiment, title: runs[0].experiment, charts: [] };
  // runs of different sizes: a chart of totals is drawn per operation, the article's totals left on the run's own page
  const perOp = new Map();
  for (const c of exp.charts || []) {
    const p = perOperation(c, runs);
    if (p) perOp.set(c.id, p);
  }
  const lineCharts = (exp.charts || []).filter((c) => c.kind !== 'heatmap').map((c) => (perOp.has(c.id) ? perOp.get(c.id).spec : c));
  const refs = (exp.references || []).filter((r) => !perOp.has(r.chart));
  const chartsEl = h('div', { class: 'charts', id: 'compare-charts' });
  // the baseline is the reader's choice; every ratio is against it
  const baseSel = h('select', { id: 'compare-baseline', 'aria-label': 'baseline run' },
    runs.map((r, i) => h('option', { value: String(i), text: runLabel(r) })));
  let table = summaryTable(runs, 0, exp);
  baseSel.addEventListener('change', () => {
    const t = summaryTable(runs, Number(baseSel.value), exp);
    table.replaceWith(t);
    table = t;
  });
  container.append(
    h('h2', { class: 'run-title', id: 'compare-title', text: `Compare: ${exp.title || exp.name}` }),
    h('ul', { class: 'compare-runs' }, runs.map((r) => h('li', {}, h('a', { href: `#/runs/${r.id}`, text: runLabel(r) }),
      r.headline ? h('span', { class: 'run-headline', text: ` — ${r.headline}` }) : null))),
    diffTable(runs),
    chartsEl,
    h('h3', { text: 'Summary, side by side' }),
    h('p', { class: 'compare-base' }, h('label', {}, 'Baseline: ', baseSel),
      ' every ratio is a run against it; figures with no better direction get none'),
    table);
  // series name -> {run, series}: the run picks the colour family, the series the dash and marker
  const styles = new Map();
  const seriesOf = [...new Set(runs.flatMap((r) => r.samples.map((x) => x.series)))];
  const style = (name) => {
    const st = styles.get(name) || { run: 0, series: 0 };
    const fam = FAMILIES[st.run % FAMILIES.length];
    return { color: fam[st.series % fam.length], dash: st.series, marker: st.series };
  };
  const charts = new ChartSet(chartsEl, lineCharts, refs, { style, legend: 'bottom',
    seriesLabel: (name) => name.replace(/^(.*) · (run #\d+)$/, (m, s, r) => `${seriesLabel(s, exp)} · ${r}`) });
  runs.forEach((r, run) => {
    for (const x of lineCharts.flatMap((c) => (r.charts.get(c.id) || { samples: [] }).samples)) {
      const name = `${x.series} · run #${r.id}`;
      const p = perOp.get(x.chart);
      styles.set(name, { run, series: seriesOf.indexOf(x.series) });
      charts.sample({ ...(p ? perSample(x, p.divisor[run]) : x), series: name });
    }
  });
  setTimeout(() => pngButtons(chartsEl, `numalab-compare-${ids.join('-')}`, {
    what: `compare ${runs.map((r) => `#${r.id}`).join(', ')}`,
    experiment: exp.title || exp.name,
    params: differences(runs).filter((d) => d.group === 'parameter' && !d.same).map((d) => `${d.name}=${d.values.join('/')}`).join(' · '),
    machine: runs.map(runLabel).join(' · '),
  }), 300);
  return { destroy: () => charts.destroy(), isFinal: () => true, id: null };
}
