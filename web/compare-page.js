// compare-page.js - the page of two or more runs of one experiment: a baseline chosen at the top, every chart and the table against it
import { api } from './api.js';
import { h, clear } from './dom.js';
import { ChartSet } from './charts.js';
import { withUnit, clock } from './format.js';
import { pngButtons } from './export.js';
import { readRun } from './rundoc.js';
import { comparePicker } from './compare-pick.js';
import { shareScales } from './campaign-machines.js';
import { differences, figureLabel, perOperation, perSample, runNames, seriesLabel, summaryDiff } from './compare.js';

// One colour family per run, dark to light; a run's series differ by dash and marker.
const FAMILIES = [
  ['#08306b', '#2171b5', '#6baed6'],
  ['#7f2704', '#d94801', '#fd8d3c'],
  ['#00441b', '#238b45', '#74c476'],
  ['#3f007d', '#6a51a3', '#9e9ac8'],
  ['#3b3b3b', '#737373', '#a3a3a3'],
];

// A table that may be wider than its card scrolls inside it, never past the page's edge.
const scroller = (table, label) => h('div', { class: 'compare-scroll', tabindex: '0', role: 'region', 'aria-label': label }, table);

function diffTable(runs, names, expParams) {
  const rows = differences(runs, expParams);
  const head = h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'what' }), runs.map((r, i) =>
    h('th', { scope: 'col', title: names[i].full }, h('span', { class: 'run-swatch', dataset: { family: String(i % FAMILIES.length) } }), `run #${r.id}`))));
  const line = (r) => h('tr', { class: r.same ? 'same' : 'differs' },
    h('th', { scope: 'row', text: `${r.name}${r.group === 'machine' ? ' (machine)' : ''}` }), r.values.map((v) => h('td', { text: v })));
  const diff = rows.filter((r) => !r.same);
  const same = rows.filter((r) => r.same);
  return h('section', { class: 'compare-diff', id: 'compare-diff', 'aria-label': 'what differs between the runs' },
    h('h3', { text: diff.length ? `What differs (${diff.length})` : 'The runs have the same parameters and machine' }),
    diff.length ? scroller(h('table', { class: 'compare-table', id: 'compare-diff-table' }, head, h('tbody', {}, diff.map(line))), 'what differs') : null,
    same.length ? h('details', { class: 'compare-same' }, h('summary', { text: `${same.length} rows are the same in every run` }),
      scroller(h('table', { class: 'compare-table' }, head.cloneNode(true), h('tbody', {}, same.map(line))), 'what is the same')) : null);
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

// The side-by-side table: every run's value, and (relative) each run against the baseline.
function summaryTable(runs, names, base, relative, exp) {
  const rows = summaryDiff(runs, base);
  const others = relative ? runs.map((r, i) => i).filter((i) => i !== base) : [];
  return h('table', { class: 'compare-table', id: 'compare-table' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'figure' }), h('th', { scope: 'col', text: 'better' }),
      runs.map((r, i) => h('th', { scope: 'col', class: i === base ? 'baseline' : null, title: names[i].full, text: `${names[i].name}${i === base ? ' (baseline)' : ''}` })),
      others.map((i) => h('th', { scope: 'col', text: `run #${runs[i].id} ÷ baseline #${runs[base].id}` })))),
    h('tbody', {}, rows.map((r) => h('tr', {}, h('th', { scope: 'row', text: figureLabel(r.key, exp), title: r.key }),
      h('td', { class: 'better-way', text: r.way ? `${r.way} is better` : 'neither way: no ratio' }),
      r.values.map((v, i) => h('td', { class: i === base ? 'baseline' : null, text: valueText(v, r.unit, r.marks[i]), title: r.marks[i] ? r.marks[i].why : null })),
      others.map((i) => h('td', { class: 'ratio', text: ratioText(r.ratios[i], r.way) }))))));
}

// A chart's spec as its ratio to the baseline: "time per increment ÷ baseline (×)".
export function relativeSpec(spec, baseName) {
  const y = String(spec.y_label || spec.title || spec.id).replace(/\s*\([^)]*\)\s*$/, '');
  // the axis stops at twice the largest ratio: a wider interval runs off the top (its tooltip says it)
  return { ...spec, title: `${spec.title || spec.id}, relative to the baseline`, y_label: `${y} ÷ baseline (×)`, baseline: baseName, y_cap: 2 };
}

// A point where the chart shows x: its series and its x (a bar's category, a line's value).
const pointKey = (x, kind) => `${x.chart}\n${x.series}\n${kind === 'bar' ? (x.x_label ?? String(x.x)) : String(x.x)}`;

// Every run's samples of the line and bar charts as they are drawn: per operation where the runs differ in size,
// then (relative) divided by the baseline's sample at the same series and x; a point the baseline lacks is left out.
// Returns [{run, sample}] with sample.series named "<series> · run #id".
export function drawnSamples(runs, specs, perOp, base, relative) {
  const kinds = new Map(specs.map((c) => [c.id, c.kind]));
  const own = runs.map((r, i) => specs.flatMap((c) => (r.charts.get(c.id) || { samples: [] }).samples)
    .map((x) => (perOp.has(x.chart) ? perSample(x, perOp.get(x.chart).divisor[i]) : x)));
  const baseAt = new Map(own[base].map((x) => [pointKey(x, kinds.get(x.chart)), x]));
  const out = [];
  own.forEach((list, run) => {
    for (const x of list) {
      let s = x;
      if (relative) {
        const b = baseAt.get(pointKey(x, kinds.get(x.chart)));
        if (!b || !(typeof b.y === 'number' && b.y !== 0)) continue;
        s = ratioSample(x, b, run === base);
      }
      out.push({ run, sample: { ...s, series: `${x.series} · run #${runs[run].id}` } });
    }
  });
  return out;
}

// A sample over the baseline's at the same point: the ratio of the medians, and its interval from the two medians'
// 95% intervals (a.ci_lo / b.ci_hi .. a.ci_hi / b.ci_lo, as the verdict compares them: kernels/harness/compare.h), never a
// run's whole spread over the baseline's median (one slow round made that 250×). The baseline over itself is 1, no
// interval; a side without an interval gives none. The rounds' own spread stays on the absolute charts.
export function ratioSample(a, b, self) {
  const y = a.y / b.y;
  const sa = a.stats || {};
  const sb = b.stats || {};
  const lo = sa.ci_lo / sb.ci_hi;
  const hi = sa.ci_hi / sb.ci_lo;
  const ok = !self && [lo, hi].every(Number.isFinite) && sb.ci_lo > 0 && lo <= hi;
  const out = { ...a, y, unit: 'x', stats: null, samples: undefined };
  if (ok) out.interval = { lo: Math.min(lo, y), hi: Math.max(hi, y), what: '95% interval of the ratio' };
  return out;
}

// The cells of a matrix relative to the baseline's cell at the same row and column (none where it has none).
export function relativeCells(cells, baseCells) {
  const at = new Map(baseCells.map((c) => [`${c.row},${c.col}`, c.value]));
  return cells.map((c) => {
    const b = at.get(`${c.row},${c.col}`);
    const ok = Number.isFinite(c.value) && Number.isFinite(b) && b !== 0;
    return { ...c, value: ok ? c.value / b : null, unit: 'x' };
  });
}

// returns {destroy} for the app to drop it; one id: the picker of the runs to compare it with.
// showExperiment(name, params): the setup column shows the runs' experiment (a link opened alone has none yet).
export async function showCompare(container, ids, byName, showExperiment = () => {}) {
  clear(container);
  container.append(h('p', { class: 'run-empty', id: 'compare-reading', text: `reading runs ${ids.map((i) => `#${i}`).join(', ')}…` }));
  let runs;
  try {
    runs = await Promise.all(ids.map((id) => api.run(id).then(readRun, (e) => { throw new Error(`run ${id}: ${e.message}`); })));
  } catch (e) {
    clear(container).append(h('p', { class: 'note note-warn', text: `cannot compare: ${e.message}` }));
    return { destroy() {} };
  }
  clear(container);
  if (runs.length < 2) {
    showExperiment(runs[0].experiment, runs[0].params);
    const exp0 = byName.get(runs[0].experiment);
    const pick = comparePicker({ id: runs[0].id, experiment: runs[0].experiment, params: runs[0].params }, exp0 && exp0.params);
    container.append(h('h2', { class: 'run-title', text: `Compare: ${(exp0 && exp0.title) || runs[0].experiment}` }), pick);
    pick.querySelector('h3').focus({ preventScroll: true });
    return { destroy() {} };
  }
  const kinds = new Set(runs.map((r) => r.experiment));
  if (kinds.size !== 1) {
    container.append(h('p', { class: 'note note-warn', text: `cannot compare runs of different experiments (${[...kinds].join(', ')})` }));
    return { destroy() {} };
  }
  showExperiment(runs[0].experiment);
  const exp = byName.get(runs[0].experiment) || { name: runs[0].experiment, title: runs[0].experiment, charts: [] };
  const names = runNames(runs, exp.params);
  // runs of different sizes: a chart of totals is drawn per operation, the article's totals left on the run's own page
  const perOp = new Map();
  for (const c of exp.charts || []) {
    const p = perOperation(c, runs);
    if (p) perOp.set(c.id, p);
  }
  const lineSpecs = (exp.charts || []).filter((c) => c.kind !== 'heatmap').map((c) => (perOp.has(c.id) ? perOp.get(c.id).spec : c));
  const heatSpecs = (exp.charts || []).filter((c) => c.kind === 'heatmap' && runs.some((r) => (r.charts.get(c.id) || { cells: [] }).cells.length));

  // the baseline and the reading, first on the page: every chart and the table below follow them
  const baseSel = h('select', { id: 'compare-baseline' }, runs.map((r, i) => h('option', { value: String(i), text: names[i].name, title: names[i].full })));
  const relBox = h('input', { type: 'checkbox', id: 'compare-relative', checked: true });
  const note = h('span', { class: 'compare-note', id: 'compare-note' });
  const chartsEl = h('div', { class: 'charts', id: 'compare-charts' });
  // one column a run, side by side (four at most on a row)
  const matricesEl = h('div', { class: 'compare-matrices', id: 'compare-matrices' });
  matricesEl.style.gridTemplateColumns = `repeat(${Math.min(runs.length, 4)}, minmax(0, 1fr))`;
  const tableBox = h('div');
  const matrixHead = h('h3', { id: 'compare-matrix-head' });
  container.append(
    h('h2', { class: 'run-title', id: 'compare-title', text: `Compare: ${exp.title || exp.name}` }),
    h('div', { class: 'compare-controls', id: 'compare-controls' },
      h('label', { for: 'compare-baseline', class: 'compare-control-name', text: 'Baseline' }), baseSel,
      h('label', { class: 'compare-relative' }, relBox, 'relative to the baseline'), note),
    h('ul', { class: 'compare-runs' }, runs.map((r, i) => h('li', {}, h('a', { href: `#/runs/${r.id}`, text: names[i].name, title: names[i].full }),
      h('span', { class: 'compare-when', text: ` started ${clock(r.when)}` }),
      r.headline ? h('span', { class: 'run-headline', title: r.headline, text: ` — ${r.headline}` }) : null))),
    diffTable(runs, names, exp.params),
    chartsEl,
    heatSpecs.length ? h('section', { class: 'compare-matrix-section', 'aria-label': 'the matrices side by side' },
      matrixHead, matricesEl) : '',
    h('h3', { text: 'Summary, side by side' }),
    tableBox);

  // series name -> {run, series}: the run picks the colour family, the series the dash and marker
  const styles = new Map();
  const seriesOf = [...new Set(runs.flatMap((r) => r.samples.map((x) => x.series)))];
  const style = (name) => {
    const st = styles.get(name) || { run: 0, series: 0 };
    const fam = FAMILIES[st.run % FAMILIES.length];
    return { color: fam[st.series % fam.length], dash: st.series, marker: st.series };
  };
  let sets = [];
  const pngMeta = () => ({
    what: `compare ${runs.map((r) => `#${r.id}`).join(', ')}`,
    experiment: exp.title || exp.name,
    params: differences(runs, exp.params).filter((d) => d.group === 'parameter' && !d.same).map((d) => `${d.name}=${d.values.join('/')}`).join(' · '),
    machine: [...new Set(runs.map((r) => machineLine(r.machine)))].join(' | '),
    date: runs.map((r, i) => `#${r.id} ${clock(r.when)}`).join(', '),
  });
  const draw = () => {
    const base = Number(baseSel.value);
    const relative = relBox.checked;
    for (const s of sets) s.destroy();
    sets = [];
    clear(chartsEl);
    clear(matricesEl);
    const specs = relative ? lineSpecs.map((c) => relativeSpec(c, names[base].name)) : lineSpecs;
    const refs = relative ? [] : (exp.references || []).filter((r) => !perOp.has(r.chart));
    const charts = new ChartSet(chartsEl, specs, refs, { style, legend: 'bottom',
      seriesLabel: (name) => name.replace(/^(.*) · (run #\d+)$/, (m, s, r) => `${seriesLabel(s, exp)} · ${names[runs.findIndex((x) => `run #${x.id}` === r)]?.name || r}`) });
    sets.push(charts);
    const legendItems = new Map(); // chart id -> its series, one legend entry each
    for (const { run, sample } of drawnSamples(runs, lineSpecs, perOp, base, relative)) {
      styles.set(sample.series, { run, series: seriesOf.indexOf(sample.series.replace(/ · run #\d+$/, '')) });
      if (!legendItems.has(sample.chart)) legendItems.set(sample.chart, new Set());
      legendItems.get(sample.chart).add(sample.series);
      charts.sample(sample);
    }
    charts.settle(true);
    // a series a run: the legend under the plot grows with them, and the plot keeps its height (compare.css)
    for (const [id, names] of legendItems) {
      const box = chartsEl.querySelector(`figure[data-chart="${CSS.escape(id)}"] .chart-box`);
      if (box) box.style.setProperty('--legend-items', String(names.size + new Set(refs.filter((r) => r.chart === id).map((r) => r.series)).size));
    }
    // the matrices: one column a run, one colour scale for all
    const heatSets = runs.map((r, i) => {
      const col = h('section', { class: 'compare-matrix', 'aria-label': names[i].full },
        h('h4', { class: 'compare-matrix-name' }, h('span', { class: 'run-swatch', dataset: { family: String(i % FAMILIES.length) } }),
          `${names[i].name}${i === base ? ' (baseline)' : ''}`));
      matricesEl.append(col);
      const box = h('div', { class: 'charts' });
      col.append(box);
      // a matrix keeps its title and axes: the section's heading says when its colours are ratios
      const set = new ChartSet(box, heatSpecs, [], { legend: 'bottom' });
      set.setContext({ threads: r.measured, distances: (r.machine && r.machine.distances) || null });
      for (const c of heatSpecs) {
        const cells = (r.charts.get(c.id) || { cells: [] }).cells;
        const shown = relative ? relativeCells(cells, (runs[base].charts.get(c.id) || { cells: [] }).cells) : cells;
        for (const x of shown) set.cell(x);
      }
      set.settle(true);
      return set;
    });
    sets.push(...heatSets);
    if (heatSets.length) shareScales(heatSets, heatSpecs.map((c) => c.id), true);
    matrixHead.textContent = relative ? 'The matrices side by side, each cell ÷ the baseline’s, one colour scale'
      : 'The matrices side by side, one colour scale';
    tableBox.replaceChildren(scroller(summaryTable(runs, names, base, relative, exp), 'the summary side by side'));
    note.textContent = relative
      ? 'every chart, matrix and ratio: each run ÷ the baseline; whiskers: the ratio’s 95% interval'
      : 'absolute values; the ratios are against the baseline when "relative" is ticked';
    setTimeout(() => {
      pngButtons(chartsEl, `numalab-compare-${ids.join('-')}`, pngMeta());
      pngButtons(matricesEl, `numalab-compare-${ids.join('-')}-matrix`, pngMeta());
    }, 300);
  };
  baseSel.addEventListener('change', draw);
  relBox.addEventListener('change', draw);
  draw();
  return { destroy: () => { for (const s of sets) s.destroy(); sets = []; }, isFinal: () => true, id: null };
}

// "lab-a: AMD EPYC, 2 CPUs, 1 NUMA node": a run's machine in one line, for an export's footer.
export function machineLine(m) {
  if (!m) return 'machine unknown';
  const parts = [m.cpu_model, m.pus ? `${m.pus} CPUs` : null, m.nodes ? `${m.nodes} NUMA node${m.nodes === 1 ? '' : 's'}` : null].filter(Boolean);
  return `${m.hostname || 'unnamed host'}${parts.length ? `: ${parts.join(', ')}` : ''}`;
}
