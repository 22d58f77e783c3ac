// compare.js - two or more runs of one experiment on one chart, each labelled with its machine and date, and their summaries side by side
import { api } from './api.js';
import { h, clear } from './dom.js';
import { ChartSet } from './charts.js';
import { label, withUnit, clock } from './format.js';
import { pngButtons } from './export.js';

export function runLabel(doc) {
  const m = doc.machine || {};
  return `#${doc.id} ${m.hostname || '?'} ${clock(doc.started_at || doc.created_at)}`;
}

// rows: [{key, unit, values: [...], ratios: [...]}], the ratio of each run to the first
export function summaryDiff(docs) {
  const keys = [];
  for (const d of docs) for (const k of Object.keys(d.summary || {})) if (!keys.includes(k)) keys.push(k);
  return keys.map((k) => {
    const vals = docs.map((d) => (d.summary && d.summary[k] ? d.summary[k].value : null));
    const unit = (docs.find((d) => d.summary && d.summary[k]) || {}).summary[k].unit;
    const base = vals[0];
    return { key: k, unit, values: vals, ratios: vals.map((v) => (typeof v === 'number' && typeof base === 'number' && base !== 0 ? v / base : null)) };
  });
}

// returns {destroy} for the app to drop it
export async function showCompare(container, ids, byName) {
  clear(container);
  const docs = [];
  for (const id of ids) {
    try {
      docs.push(await api.run(id));
    } catch (e) {
      container.append(h('p', { class: 'note note-warn', text: `cannot compare: run ${id}: ${e.message}` }));
      return { destroy() {} };
    }
  }
  const kinds = new Set(docs.map((d) => d.experiment));
  if (kinds.size !== 1) {
    container.append(h('p', { class: 'note note-warn', text: `cannot compare runs of different experiments (${[...kinds].join(', ')})` }));
    return { destroy() {} };
  }
  const exp = byName.get(docs[0].experiment) || { name: docs[0].experiment, title: docs[0].experiment, charts: [] };
  const lineCharts = (exp.charts || []).filter((c) => c.kind !== 'heatmap');
  const chartsEl = h('div', { class: 'charts', id: 'compare-charts' });
  const rows = summaryDiff(docs);
  container.append(
    h('h2', { class: 'run-title', id: 'compare-title', text: `Compare: ${exp.title || exp.name}` }),
    h('ul', { class: 'compare-runs' }, docs.map((d) => h('li', {}, h('a', { href: `#/runs/${d.id}`, text: runLabel(d) }),
      d.headline ? h('span', { class: 'run-headline', text: ` — ${d.headline}` }) : null))),
    chartsEl,
    h('h3', { text: 'Summary, side by side' }),
    h('table', { class: 'compare-table', id: 'compare-table' },
      h('thead', {}, h('tr', {}, h('th', { text: 'figure' }), docs.map((d) => h('th', { text: runLabel(d) })),
        docs.slice(1).map((d) => h('th', { text: `#${d.id} / #${docs[0].id}` })))),
      h('tbody', {}, rows.map((r) => h('tr', {}, h('th', { scope: 'row', text: label(r.key) }),
        r.values.map((v) => h('td', { text: v === null ? '–' : withUnit(v, r.unit) })),
        r.ratios.slice(1).map((x) => h('td', { class: 'ratio', text: x === null ? '–' : `${x.toFixed(2)}×` })))))));
  const charts = new ChartSet(chartsEl, lineCharts, exp.references || []);
  for (const d of docs)
    for (const s of d.samples || [])
      if (lineCharts.some((c) => c.id === s.chart)) charts.sample({ ...s, series: `${s.series} · ${runLabel(d)}` });
  setTimeout(() => pngButtons(chartsEl, `numalab-compare-${ids.join('-')}`), 300);
  return { destroy: () => charts.destroy(), isFinal: () => true, id: null };
}
