// format.js - numbers, sizes, times and units as people read them
const nf3 = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });
const nfInt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

// A parameter or summary name as a label: "ns_per_increment" -> "ns per increment".
export function label(name) {
  return String(name).replace(/_/g, ' ');
}

export function num(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  if (typeof v !== 'number') return String(v);
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '−∞';
  if (Number.isInteger(v) && Math.abs(v) >= 1000) return nfInt.format(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-4 || a >= 1e9)) return v.toExponential(2).replace('e', '×10^');
  return nf3.format(v);
}

// Whole numbers with digit grouping (range hints): 4000000000 -> "4,000,000,000".
export function int(v) {
  return nfInt.format(v);
}

const SIZE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
export function bytes(n) {
  let v = Number(n);
  let i = 0;
  while (Math.abs(v) >= 1024 && i < SIZE_UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return `${nf3.format(v)} ${SIZE_UNITS[i]}`;
}

// Bytes in the form a user types and the size parser reads: 1048576 -> "1M".
export function sizeText(n) {
  const v = Number(n);
  if (!Number.isFinite(v) || v <= 0) return String(n);
  for (const [suffix, f] of [['T', 2 ** 40], ['G', 2 ** 30], ['M', 2 ** 20], ['K', 2 ** 10]])
    if (v % f === 0) return `${v / f}${suffix}`;
  return String(v);
}

// Timestamps from the API: ISO text or seconds since the epoch.
export function toDate(t) {
  if (t === null || t === undefined || t === '') return null;
  if (typeof t === 'number') return new Date(t < 1e12 ? t * 1000 : t);
  const d = new Date(/^\d+(\.\d+)?$/.test(t) ? Number(t) * 1000 : t);
  return Number.isNaN(d.getTime()) ? null : d;
}

export function clock(t) {
  const d = toDate(t);
  if (!d) return '';
  const today = new Date();
  const time = d.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  if (d.toDateString() === today.toDateString()) return time;
  return `${d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short' })} ${time}`;
}

export function duration(seconds) {
  if (!Number.isFinite(seconds) || seconds < 0) return '';
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const m = Math.floor(seconds / 60);
  return `${m} min ${Math.round(seconds - m * 60)} s`;
}

// Time units, so an axis reads "1.2 ms" rather than "0.0012 s".
const TIME = { s: 1, ms: 1e-3, 'µs': 1e-6, us: 1e-6, ns: 1e-9 };
const TIME_STEPS = [['s', 1], ['ms', 1e-3], ['µs', 1e-6], ['ns', 1e-9]];

// The factor and unit to show values of `unit` whose largest magnitude is maxAbs.
export function displayUnit(unit, maxAbs) {
  if (!(unit in TIME) || !(maxAbs > 0)) return { unit, factor: 1 };
  const base = maxAbs * TIME[unit];
  for (const [u, f] of TIME_STEPS) if (base >= f) return { unit: u, factor: TIME[unit] / f };
  return { unit: 'ns', factor: TIME[unit] / 1e-9 };
}

// v in unit `from` expressed in `to`; unchanged unless both are time units.
export function convertUnit(v, from, to) {
  if (from && to && from !== to && from in TIME && to in TIME) return (v * TIME[from]) / TIME[to];
  return v;
}

// "x" as a unit means a ratio: 3.38 x -> "3.38×".
// A value with the 95% interval the verdict states beside it: "2.6× (2.4–2.9)"; the value alone without one.
// "1 node", "2 nodes", "? nodes" (a count the record does not have).
export function count(n, one, many) {
  return `${n ?? '?'} ${n === 1 ? one : many}`;
}

export function withInterval(v, unit, lo, hi) {
  const text = withUnit(v, unit);
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || text === '–') return text;
  return `${text} (${num(lo)}–${num(hi)})`;
}

export function withUnit(v, unit) {
  if (v === null || v === undefined || Number.isNaN(v)) return '–'; // nothing measured carries no unit
  if (unit === 'x') return `${num(v)}×`;
  if (unit === '%') return `${num(v)} %`;
  if (unit === 'bytes' || unit === 'B') return bytes(v);
  return unit ? `${num(v)} ${unit}` : num(v);
}
