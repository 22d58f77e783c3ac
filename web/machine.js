// machine.js - what a run knows about the machine it ran on, in a few readable lines; and when its spread is too wide to trust
import { h } from './dom.js';
import { bytes } from './format.js';
import { importedFrom } from './rundoc.js';

// A point whose rounds differ by more than this share of their median is not worth a conclusion.
export const NOISY_SPREAD = 0.25;

const FLAGS = ['avx512f', 'avx2', 'sse4_2', 'ht', 'constant_tsc', 'rdtscp'];

export function machineLines(m) {
  if (!m || typeof m !== 'object') return [];
  const caches = (m.caches || []).map((c) => `L${c.level} ${bytes(c.size)}`).join(', ');
  const flags = Array.isArray(m.flags) ? m.flags.filter((f) => FLAGS.includes(f)) : [];
  const lines = [
    ['CPU', `${m.cpu_model || 'unknown'}${m.arch ? ` (${m.arch})` : ''}`],
    ['Topology', [m.packages && `${m.packages} package${m.packages > 1 ? 's' : ''}`, m.nodes && `${m.nodes} NUMA node${m.nodes > 1 ? 's' : ''}`,
      m.cores && `${m.cores} cores`, m.pus && `${m.pus} CPUs`, m.smt ? 'SMT on' : 'no SMT'].filter(Boolean).join(' · ')],
    ['Caches', caches || '–'],
    ['NUMA distances', Array.isArray(m.distances) && m.distances.length > 1 ? m.distances.map((r) => r.map((v) => (v > 0 ? v : '?')).join(' ')).join(' / ') : 'one node'],
    ['Flags', flags.join(' ') || '–'],
    ['Kernel', `${m.kernel || '?'} · THP ${m.thp || '?'} · governor ${m.governor || '?'}${m.cur_freq_mhz ? ` · ${m.cur_freq_mhz} MHz` : ''}${m.vm ? ' · virtual machine' : ''}`],
    ['Build', `numalab ${m.version || '?'} · ${m.compiler || '?'} ${m.cflags || ''}`],
    ['Host', m.hostname || '?'],
  ];
  return lines;
}

// m: the run's machine; prov: rundoc.js's provenance of the run (null when it was made here)
export function machinePanel(m, prov) {
  const lines = machineLines(m);
  if (!lines.length) return null;
  return h('section', { class: 'machine-panel', id: 'machine-panel', 'aria-label': 'the machine of this run' },
    h('h3', { text: `Measured on ${m.hostname || 'an unnamed machine'}` }),
    prov ? h('p', { class: 'imported-flag', text: `${importedFrom(prov)}${prov.originalId ? `, where it was run ${prov.originalId}` : ''}` }) : null,
    h('dl', { class: 'machine-compact' }, lines.map(([k, v]) => [h('dt', { text: k }), h('dd', { text: v })])));
}

// How far a point's rounds disagree, as a share of its median: the width
// of the 95% interval of the median (a single preempted round among 200
// moves it little; with under 6 rounds the stats make it the whole range),
// or min to max for a document without one.
export function spreadOf(st) {
  if (!st || !(st.n > 1) || !st.median) return null;
  const ci = Number.isFinite(st.ci_lo) && Number.isFinite(st.ci_hi);
  return (ci ? st.ci_hi - st.ci_lo : st.max - st.min) / Math.abs(st.median);
}

// The points whose spread is too wide: [{chart, where, spread}]. r: rundoc.js's reading of a run.
export function noisyPoints(r) {
  const out = [];
  for (const s of [...r.samples, ...r.cells]) {
    const spread = spreadOf(s.stats);
    if (spread === null || !(spread > NOISY_SPREAD)) continue;
    const where = s.series !== undefined
      ? `${s.series} at ${s.x_label ?? s.x}`
      : `${s.row_label ?? s.row}→${s.col_label ?? s.col}`;
    out.push({ chart: s.chart, where, spread });
  }
  return out;
}

// {short, el}: its first words for a folded line, and the whole warning; null when no point is noisy.
export function noisyWarning(r) {
  const pts = noisyPoints(r);
  if (!pts.length) return null;
  const worst = pts.reduce((a, b) => (b.spread > a.spread ? b : a));
  const short = h('span', { class: 'noisy-short', id: 'noisy-warning' }, h('strong', { text: 'Noisy machine: ' }),
    `${pts.length} point${pts.length > 1 ? 's' : ''} vary more than ${Math.round(NOISY_SPREAD * 100)}% between rounds`);
  return { short, el: noisyText(pts, worst) };
}

function noisyText(pts, worst) {
  return h('p', { class: 'noisy-warning', role: 'note' },
    h('strong', { text: 'Noisy machine: ' }),
    `${pts.length} point${pts.length > 1 ? 's' : ''} spread more than ${Math.round(NOISY_SPREAD * 100)}% of their median between rounds ` +
    `(worst: ${worst.where} in “${worst.chart}”, ${Math.round(worst.spread * 100)}%). ` +
    'Something else was running, or the clock changed speed: run it again with more repeats before trusting the difference.');
}
