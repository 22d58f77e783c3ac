// chart-table.js - a chart's data as a table, the text a screen reader reaches for a canvas
import { h, clear } from './dom.js';
import { num, bytes } from './format.js';

const isBytes = (text) => /\bbytes?\b|\(B\)|\bsize\b/i.test(text || '');

// A line or bar chart: one row per x, one column per series (the article's too). view: a ChartView.
function xyTable(view) {
  const spec = view.spec;
  const f = view.shown.factor || 1;
  const u = view.shown.unit ? ` (${view.shown.unit})` : '';
  const cols = [...view.series.keys()];
  const rows = new Map(); // x text -> {x, cells: Map(series -> text)}
  const xText = (s) => s.x_label ?? (isBytes(spec.x_label) ? bytes(s.x) : num(s.x));
  const put = (name, s, text) => {
    const key = xText(s);
    if (!rows.has(key)) rows.set(key, { x: Number(s.x), cells: new Map() });
    rows.get(key).cells.set(name, text);
  };
  for (const [name, pts] of view.series)
    for (const s of pts.values()) put(name, s, num(s.y * f));
  for (const [name, pts] of view.refs) {
    cols.push(name);
    for (const r of pts) put(name, r, num(r.y));
  }
  const sorted = [...rows.entries()].sort((a, b) => (a[1].x - b[1].x) || 0);
  return h('table', { class: 'chart-data-table' },
    h('caption', { text: `${spec.title || spec.id}${u}` }),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: spec.x_label || 'x' }),
      // a series in words, as the legend says it
      cols.map((c) => h('th', { scope: 'col', text: view.set && view.set.seriesLabel && view.series.has(c) ? view.set.seriesLabel(c) : c })))),
    h('tbody', {}, sorted.map(([key, r]) => h('tr', {}, h('th', { scope: 'row', text: key }),
      cols.map((c) => h('td', { text: r.cells.get(c) ?? '–' }))))));
}

// A heatmap: its rows and columns as they are drawn, "not measured" where a cell has no value.
function heatTable(view) {
  const spec = view.spec;
  const rows = new Map();
  const cols = new Map();
  for (const c of view.cells.values()) {
    rows.set(c.row_label ?? String(c.row), c.row);
    cols.set(c.col_label ?? String(c.col), c.col);
  }
  const order = (m) => [...m.entries()].sort((a, b) => (Number(a[1]) - Number(b[1])) || 0).map((e) => e[0]);
  const byKey = new Map([...view.cells.values()].map((c) => [`${c.row_label ?? c.row}\n${c.col_label ?? c.col}`, c]));
  const u = view.unit ? ` (${view.unit})` : '';
  const colNames = order(cols);
  return h('table', { class: 'chart-data-table' },
    h('caption', { text: `${spec.title || spec.id}${u}: rows ${spec.y_label || 'row'}, columns ${spec.x_label || 'column'}` }),
    h('thead', {}, h('tr', {}, h('td', {}), colNames.map((c) => h('th', { scope: 'col', text: c })))),
    h('tbody', {}, order(rows).map((r) => h('tr', {}, h('th', { scope: 'row', text: r }),
      colNames.map((c) => {
        const cell = byKey.get(`${r}\n${c}`);
        return h('td', { text: !cell ? '' : Number.isFinite(cell.value) ? num(cell.value) : `not measured${cell.note ? `: ${cell.note}` : ''}` });
      })))));
}

// The <details> in a chart's caption: "data as a table", filled again on each render.
export function dataDetails(title) {
  const holder = h('div', { class: 'chart-data-body' });
  const el = h('details', { class: 'chart-data' }, h('summary', { text: 'data as a table', 'aria-label': `${title}: data as a table` }), holder);
  return { el, fill(view) { clear(holder).append(view.spec.kind === 'heatmap' ? heatTable(view) : xyTable(view)); } };
}
