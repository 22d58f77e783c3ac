// compare.js - what a comparison of runs reads: figures and series in words, which way is better, what differs, each run's name
import { label, clock, bytes } from './format.js';
import { markIn, globMatch, paramApplies } from './rundoc.js';

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
  // unknown (null; 0 in runs stored before) is '?', never a distance of 0
  if (k === 'distances' && Array.isArray(v)) return v.map((r) => r.map((d) => (d > 0 ? d : '?')).join(' ')).join(' / ');
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
}

// A list param's text as its values one by one ("4-16:4" and "4,8,12,16" are one list, as runs before and
// after numalab wrote lists with their steps recorded them); any other text as it is.
export function listValues(text) {
  if (!/^\d+(-\d+(:\d+)?)?(,\d+(-\d+(:\d+)?)?)*$/.test(text)) return text;
  const out = [];
  for (const part of text.split(',')) {
    const [range, step] = part.split(':');
    const [a, b] = range.split('-').map(Number);
    const by = step === undefined ? 1 : Number(step);
    if (b === undefined) out.push(a);
    else if (by < 1 || b < a || (b - a) / by > 4096) return text;
    else for (let v = a; v <= b; v += by) out.push(v);
  }
  return out.join(',');
}

// rows [{group, name, values, same}] of params and machine parts, for the table of what differs; runs: rundoc.js's
// readings. expParams (the experiment's schema params, when known): a param a run did not read shows '–' in its
// column, whether the run recorded it (runs recorded before numalab left out what a run does not read) or not.
export function differences(runs, expParams) {
  const rows = [];
  const keys = [];
  const defs = new Map((expParams || []).map((p) => [p.name, p]));
  const reads = (r, k) => !expParams || paramApplies(defs.get(k), r.params, defs);
  for (const r of runs) for (const k of Object.keys(r.params)) if (!keys.includes(k)) keys.push(k);
  for (const k of keys) {
    const values = runs.map((r) => (k in r.params && reads(r, k) ? String(r.params[k]) : '–'));
    if (values.some((v) => v !== '–')) rows.push({ group: 'parameter', name: k, values });
  }
  for (const [k, name] of MACHINE_ROWS) rows.push({ group: 'machine', name, values: runs.map((r) => machineValue(k, (r.machine || {})[k])) });
  for (const r of rows) {
    const as = r.values.map(r.group === 'parameter' ? listValues : (v) => v);
    r.same = as.every((v) => v === as[0]);
  }
  return rows;
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

// Each run named by what sets it apart: "#3 stride=64", the parameters that differ (three at most, in the
// order the runs list them), then the host when that differs; "#3 03:17:40" (its start) when nothing does.
// runs: rundoc.js's readings. Returns [{name, full}]: full names every differing parameter.
export function runNames(runs, expParams) {
  const rows = differences(runs, expParams).filter((d) => !d.same);
  const params = rows.filter((d) => d.group === 'parameter');
  const host = rows.find((d) => d.name === 'host');
  return runs.map((r, i) => {
    const parts = params.map((d) => `${d.name}=${d.values[i]}`);
    const shown = parts.length > 3 ? [...parts.slice(0, 3), '…'] : [...parts];
    if (host) { shown.push(host.values[i]); parts.push(host.values[i]); }
    const what = shown.length ? shown.join(' · ') : clock(r.when);
    return { name: `#${r.id} ${what}`.trim(), full: `#${r.id} ${parts.length ? parts.join(' · ') : clock(r.when)}`.trim() };
  });
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

