// charts.js - one Chart.js chart per chart in the schema, drawn by kind, grown point by point
import { BIG, HeatCanvas, cellList, cpuClasses, nodeClasses } from './heatmap.js';
import { h } from './dom.js';
import { num, bytes, displayUnit, convertUnit, withUnit, label as prettify } from './format.js';
import { dataDetails } from './chart-table.js';
import { niceCeil, refsOwnAxis, logTicks } from './scale.js';
import { globMatch } from './rundoc.js';

// Okabe–Ito: told apart by people with any common colour-vision deficiency;
// the yellow is left out, it vanishes on white under a projector.
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#1a1a1a'];
// The projector's: the same hues made dark and saturated, so they hold up
// against a washed-out screen; each still differs in lightness from the next.
export const CONTRAST_PALETTE = ['#003E8A', '#B33000', '#000000', '#8C1C6B', '#006644', '#7A5200', '#4A2C9E'];
const POINT_STYLES = ['circle', 'rect', 'triangle', 'rectRot', 'star', 'crossRot', 'rectRounded'];
const DASHES = [[], [10, 5], [3, 4], [14, 4, 3, 4]];
const INK = '#15181d';
const REF = '#59606b'; // the article's published figures: grey, hatched or dashed
const GRID = '#d5d9df';
const MARK = '#7a3e00'; // a mark on x (a cache's size): a colour no series takes
// People's guesses (the classroom's histogram, the class's median, the typed guess): teal, which no series, mark or
// the article takes, so on the projector a colour is either this machine's or the class's (classroom.css draws them
// with these: the ink for lines, edges and words, the pale fill for the class's bars, told apart by lightness too).
export const GUESS_INK = '#007A87';
export const GUESS_FILL = '#B8E2E6';
export const REF_INK = REF;
export const MARK_INK = MARK;

// The look every chart takes: the laptop's, or the projector's (larger type,
// darker colours, thicker lines). Changed by setChartTheme.
const theme = { contrast: false };
const palette = () => (theme.contrast ? CONTRAST_PALETTE : PALETTE);
const lineWidth = () => (theme.contrast ? 5 : 3);
const pointRadius = () => (theme.contrast ? 8 : 6);
const gridColor = () => (theme.contrast ? '#9aa1ab' : GRID);
const live = new Set(); // the ChartSets on the page, redrawn when the theme changes

// viridis, for heatmaps: ordered by lightness, readable in grey and by colour-blind eyes
const VIRIDIS = ['#440154', '#482475', '#414487', '#355f8d', '#2a788e', '#21918c',
  '#22a884', '#44bf70', '#7ad151', '#bddf26', '#fde725'].map(rgb);

function rgb(hex) {
  return [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
}

export function viridis(t) {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(x));
  const f = x - i;
  const c = VIRIDIS[i].map((a, k) => Math.round(a + (VIRIDIS[i + 1][k] - a) * f));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

let refHatch = null;
// Grey stripes on white: bars the article published, never mistaken for this machine's.
function refPattern() {
  if (refHatch) return refHatch;
  const c = document.createElement('canvas');
  c.width = c.height = 10;
  const g = c.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, 10, 10);
  g.strokeStyle = REF;
  g.lineWidth = 2.5;
  g.beginPath();
  g.moveTo(-2, 2); g.lineTo(2, -2);
  g.moveTo(0, 10); g.lineTo(10, 0);
  g.moveTo(8, 12); g.lineTo(12, 8);
  g.stroke();
  refHatch = g.createPattern(c, 'repeat');
  return refHatch;
}

const striped = new Map();
// A palette colour in diagonal stripes on white: the eighth series and beyond.
function stripes(color) {
  if (striped.has(color)) return striped.get(color);
  const c = document.createElement('canvas');
  c.width = c.height = 10;
  const g = c.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, 10, 10);
  g.strokeStyle = color;
  g.lineWidth = 4;
  g.beginPath();
  g.moveTo(-2, 2); g.lineTo(2, -2);
  g.moveTo(0, 10); g.lineTo(10, 0);
  g.moveTo(8, 12); g.lineTo(12, 8);
  g.stroke();
  const p = g.createPattern(c, 'repeat');
  striped.set(color, p);
  return p;
}

let hatch = null;
// Grey with diagonal stripes: a cell that could not be measured, visible without colour.
function hatchPattern() {
  if (hatch) return hatch;
  const c = document.createElement('canvas');
  c.width = c.height = 12;
  const g = c.getContext('2d');
  g.fillStyle = '#e3e6ea';
  g.fillRect(0, 0, 12, 12);
  g.strokeStyle = '#8d949e';
  g.lineWidth = 2;
  g.beginPath();
  g.moveTo(-3, 3); g.lineTo(3, -3);
  g.moveTo(0, 12); g.lineTo(12, 0);
  g.moveTo(9, 15); g.lineTo(15, 9);
  g.stroke();
  hatch = g.createPattern(c, 'repeat');
  return hatch;
}

// Called once the vendored scripts have loaded, with the first look ({px, contrast}). Returns false when they have not.
export function setupCharts(look) {
  const Chart = window.Chart;
  if (!Chart) return false;
  const eb = window.ChartErrorBars;
  if (eb) Chart.register(eb.BarWithErrorBarsController, eb.BarWithErrorBar,
    eb.ScatterWithErrorBarsController, eb.PointWithErrorBar);
  const mx = window['chartjs-chart-matrix'];
  if (mx && mx.MatrixController) Chart.register(mx.MatrixController, mx.MatrixElement);
  Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
  Chart.defaults.color = INK;
  setChartTheme(look);
  Chart.defaults.animation.duration = 250;
  Chart.defaults.plugins.tooltip.padding = 10;
  return true;
}

// Type follows the page's: larger on a 1920 wide projector than on a laptop.
// px: the type size; contrast: the projector's palette and line widths.
// Charts already drawn are built again, so nothing keeps the old look
// (Chart.js resolves a chart's options once, when it is created).
export function setChartTheme({ px, contrast }) {
  const Chart = window.Chart;
  if (!Chart || (Chart.defaults.font.size === px && theme.contrast === !!contrast)) return;
  theme.contrast = !!contrast;
  Chart.defaults.font.size = px;
  Chart.defaults.plugins.tooltip.titleFont = { size: px, weight: 'bold' };
  Chart.defaults.plugins.tooltip.bodyFont = { size: px };
  Chart.defaults.plugins.legend.labels.boxWidth = Math.round(px * 1.6);
  Chart.defaults.borderColor = gridColor();
  for (const set of live) for (const v of set.views.values()) v.remount();
}

// "time (s)" shown in ms reads "time (ms)"; a label without a unit gets one.
export function axisTitle(text, unit, shown) {
  if (!text) return shown || '';
  if (unit && shown && unit !== shown && text.includes(`(${unit})`)) return text.replace(`(${unit})`, `(${shown})`);
  // a title that names its unit as a word ("ns per load") says the unit shown, not "ns per load (µs)"
  if (unit && shown && unit !== shown) {
    const word = new RegExp(`(^|\\s)${unit.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=\\s|$)`);
    if (word.test(text)) return text.replace(word, `$1${shown}`);
  }
  if (shown && !/\(.*\)/.test(text) && !text.toLowerCase().includes(shown.toLowerCase())) return `${text} (${shown})`;
  return text;
}

// A y axis's title in lines no longer than the plot is high (it is drawn turned), measured in the axis's font once
// the chart has been laid out (before that, cut at 14 characters a line on the projector). At most three lines: where
// the words need more, the title's type steps down (to 60% at least) rather than lose a word such as its unit.
// Returns {text, size}: size null for the chart's own type size.
function fitTitle(chart, text) {
  const area = chart && chart.chartArea;
  const Chart = window.Chart;
  const room = area ? area.height - 6 : 0;
  if (!room || !Chart || !Chart.helpers || !chart.ctx) return { text: theme.contrast ? wrapLabel(text, 14) : text, size: null };
  const g = chart.ctx;
  const base = Chart.defaults.font.size;
  const words = String(text).split(/\s+/).filter(Boolean);
  g.save();
  let best = null;
  for (let size = base; size >= Math.round(base * 0.6); size -= 1) {
    g.font = Chart.helpers.toFont({ ...Chart.defaults.font, size }).string;
    const fit = (t) => g.measureText(t).width <= room;
    const lines = [];
    let cur = '';
    for (const w of words) {
      const next = cur ? `${cur} ${w}` : w;
      if (cur && !fit(next)) { lines.push(cur); cur = w; } else cur = next;
    }
    if (cur) lines.push(cur);
    best = { text: lines.length <= 1 ? lines[0] || '' : lines, size: size === base ? null : size };
    if (lines.length <= 3 && lines.every(fit)) break;
  }
  g.restore();
  return best;
}

// A long category label on several lines rather than cut off: "node 1 (not on this machine)".
function wrapLabel(text, width = 14) {
  const words = String(text ?? '').split(/\s+/);
  const lines = [];
  let cur = '';
  for (const w of words) {
    if (cur && cur.length + 1 + w.length > width) {
      lines.push(cur);
      cur = w;
    } else {
      cur = cur ? `${cur} ${w}` : w;
    }
  }
  if (cur) lines.push(cur);
  return lines.length > 1 ? lines : lines[0] || '';
}

const isBytes = (text) => /\bbytes?\b|\(B\)|\bsize\b/i.test(text || '');
const sampleCount = (s) => (Array.isArray(s.samples) ? s.samples.length : (s.stats && s.stats.n) || 1);

// At most n of the values, evenly spread, first and last kept.
function thin(values, n) {
  if (values.length <= n) return values;
  const step = (values.length - 1) / (n - 1);
  return Array.from({ length: n }, (_, i) => values[Math.round(i * step)]);
}

class ChartView {
  constructor(spec, set, refs) {
    this.spec = { kind: 'line', ...spec };
    this.set = set; // the ChartSet: colours are run wide
    this.refs = new Map(); // the article's series -> its points
    for (const r of refs || []) {
      if (!this.refs.has(r.series)) this.refs.set(r.series, []);
      this.refs.get(r.series).push(r);
    }
    this.series = new Map(); // series -> Map(x key -> sample)
    this.cells = new Map(); // row * 2^20 + col -> cell (a number: a million keys stay cheap)
    this.unit = null;
    this.shown = { unit: null, factor: 1 };
    this.n = 0;
    this.pending = false;
    this.rows = [];
    this.cols = [];
    this.range = { lo: Infinity, hi: -Infinity };
    this.fixed = null; // a scale shared with other charts of the same figure ({lo, hi}, raw units), or its own when null
    const title = spec.title || prettify(spec.id);
    this.canvas = h('canvas', { role: 'img', 'aria-label': title });
    this.empty = h('span', { class: 'chart-empty', text: 'no measurements yet' });
    this.legend = this.spec.kind === 'heatmap' ? h('div', { class: 'heat-legend', hidden: true }) : null;
    // the canvas's text alternative: its numbers, a click (or a screen reader's step) away
    this.table = dataDetails(title);
    this.el = h('figure', { class: `chart chart-${this.spec.kind}`, dataset: { chart: spec.id, kind: this.spec.kind, points: '0' } },
      h('figcaption', {}, h('span', { class: 'chart-title', text: title }), this.empty, this.table.el),
      h('div', { class: 'chart-box' }, this.canvas),
      this.legend);
  }

  mount() {
    const Chart = window.Chart;
    if (!Chart) return;
    this.chart = new Chart(this.canvas, this.spec.kind === 'heatmap' ? this.heatConfig() : this.xyConfig());
    this.titleSet = {}; // a chart built anew takes its titles anew
    if (this.refs.size && this.spec.kind !== 'heatmap') this.render();
  }

  destroy() {
    if (this.chart) this.chart.destroy();
    this.chart = null;
    if (this.big) this.big.destroy();
    this.big = null;
    this.canvas.hidden = false;
  }

  // The same data in a chart built anew: after a change of theme.
  remount() {
    if (!this.chart) return;
    this.destroy();
    this.mount();
    this.render();
  }

  count() { return this.n; }

  // Once the run has ended, a chart it left without a point says so in
  // one line, and keeps its axes only for the article's figures.
  settle(ended) {
    const none = ended && this.n === 0;
    this.el.classList.toggle('chart-unmeasured', none);
    this.el.querySelector('.chart-box').hidden = none && !this.refs.size;
    this.empty.textContent = none ? 'not measured in this run (the notes say why)' : 'no measurements yet';
  }

  title() {
    return this.spec.title || prettify(this.spec.id);
  }

  // points with a value (a heatmap cell that could not be measured has none)
  measured() {
    if (this.spec.kind !== 'heatmap') return this.n;
    let n = 0;
    for (const c of this.cells.values()) if (Number.isFinite(c.value)) n++;
    return n;
  }

  add(s) {
    if (!this.series.has(s.series)) {
      this.series.set(s.series, new Map());
      this.set.newSeries();
    }
    const pts = this.series.get(s.series);
    const key = this.spec.kind === 'bar' ? (s.x_label ?? String(s.x)) : String(s.x);
    if (!pts.has(key)) this.n++;
    pts.set(key, s); // a replayed event replaces, never duplicates
    if (s.unit) this.unit = s.unit;
    this.changed();
  }

  addCell(c) {
    const key = c.row * 1048576 + c.col;
    if (!this.cells.has(key)) this.n++;
    this.cells.set(key, c);
    if (c.unit) this.unit = c.unit;
    this.changed();
  }

  changed() {
    // a million cells can arrive before the next frame: the DOM is touched once, then
    if (this.pending) return;
    this.el.dataset.points = String(this.n);
    this.empty.hidden = this.n > 0;
    this.schedule();
  }

  schedule() {
    // many events can land in one frame: draw once per frame
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.el.dataset.points = String(this.n);
      this.empty.hidden = this.n > 0;
      this.render();
    });
  }

  render() {
    if (!this.chart) return;
    if (this.spec.kind === 'heatmap' && this.renderHeat() === 'big') return;
    if (this.spec.kind !== 'heatmap') this.renderXY();
    this.chart.update();
    this.table.fill(this);
  }

  /* line and bar */

  xyConfig() {
    const spec = this.spec;
    const line = spec.kind !== 'bar';
    const view = this;
    const xIsBytes = isBytes(spec.x_label);
    return {
      type: line ? 'scatterWithErrorBars' : 'barWithErrorBars',
      data: { labels: [], datasets: [] },
      // the marks of the chart (a cache's size): a labelled line across the plot, above the points
      plugins: [{ id: 'numalabMarks', afterDatasetsDraw: (chart) => view.drawMarks(chart) },
        // the y titles fitted to the plot's height once it is known (a short plot on a projector cut them)
        { id: 'numalabFitTitles', afterRender: (chart) => view.fitTitles(chart) }],
      options: {
        responsive: true,
        maintainAspectRatio: false,
        interaction: { mode: line ? 'nearest' : 'index', intersect: false },
        layout: { padding: { top: 4, right: 12 } },
        scales: {
          x: line ? {
            type: spec.log_x ? 'logarithmic' : 'linear',
            title: { display: !!spec.x_label, text: spec.x_label || '' },
            grid: { color: gridColor() },
            afterBuildTicks: (scale) => {
              // ticks where the measurements are, when they are few
              const xs = view.xValues();
              if (xs.length && xs.length <= 40) scale.ticks = thin(xs, 12).map((value) => ({ value }));
            },
            ticks: { callback: (v) => (xIsBytes ? bytes(v) : num(v)), maxRotation: 0 },
          } : {
            type: 'category',
            title: { display: !!spec.x_label, text: spec.x_label || '' },
            grid: { display: false },
            ticks: { callback(v) { return wrapLabel(this.getLabelForValue(v), 16); }, maxRotation: 0 },
          },
          y: {
            // from zero: the height of a bar or a line is read as the size of the value; a figure
            // that spans decades (ns per load from L1 to memory) on a log scale, each level a step
            type: spec.log_y && line ? 'logarithmic' : 'linear',
            beginAtZero: !(spec.log_y && line),
            title: { display: true, text: axisTitle(spec.y_label, null, null) },
            grid: { color: gridColor() },
            ticks: { callback: (v) => num(v) },
            // a log axis labels 1-2-5 (or fewer), never "100" over "70"
            afterBuildTicks: (scale) => {
              if (scale.type !== 'logarithmic') return;
              const t = logTicks(scale.min, scale.max);
              if (t.length >= 2) scale.ticks = t.map((value) => ({ value, major: Number.isInteger(Math.log10(value)) }));
            },
          },
          // the article's figures, on an axis of their own when theirs would flatten the runs' (renderXY decides)
          yRef: {
            display: false,
            position: 'right',
            beginAtZero: true,
            title: { display: true, text: '' },
            grid: { drawOnChartArea: false },
            ticks: { callback: (v) => num(v), color: REF },
          },
        },
        plugins: {
          legend: {
            // on a projector the legend goes under the plot, clear of the y axis's title
            position: theme.contrast ? 'bottom' : view.set.legendAt || 'top',
            align: 'start',
            labels: { usePointStyle: line, padding: 16, boxHeight: line ? Math.round(Chart_font() * 0.6) : undefined },
          },
          tooltip: {
            callbacks: {
              title: (items) => (items.length ? view.xText(items[0]) : ''),
              label: (item) => `${item.dataset.label}: ${num(item.raw && item.raw.y)} ${view.shown.unit || ''}`.trim(),
              afterLabel: (item) => view.details(item.raw && item.raw._s),
            },
          },
        },
      },
    };
  }

  xValues() {
    const xs = new Set();
    for (const pts of [...this.series.values(), ...this.refs.values()])
      for (const s of pts.values()) if (!(this.spec.log_x && s.x <= 0)) xs.add(s.x);
    return [...xs].sort((a, b) => a - b);
  }

  xText(item) {
    const s = item.raw && item.raw._s;
    const name = this.spec.x_label || 'x';
    if (!s) return item.label || '';
    const x = s.x_label ?? (isBytes(this.spec.x_label) ? bytes(s.x) : num(s.x));
    return `${name}: ${x}`;
  }

  details(s) {
    if (!s) return '';
    if (s._ref) return 'published in the article';
    const f = this.shown.factor;
    const u = this.shown.unit === 'x' ? '×' : this.shown.unit ? ` ${this.shown.unit}` : '';
    const lines = [];
    const n = sampleCount(s);
    // a figure worked out from others (compare's ratio) carries its own interval, said as what it is
    if (s.interval) lines.push(`${s.interval.what} ${num(s.interval.lo * f)} – ${num(s.interval.hi * f)}${u}`);
    else if (n > 1 && s.stats) lines.push(`range ${num(s.stats.min * f)} – ${num(s.stats.max * f)}${u}`, `median of ${n} rounds`);
    for (const [k, v] of Object.entries(s.extra || {})) lines.push(`${prettify(k)}: ${num(v)}`);
    return lines;
  }

  point(s, f) {
    const p = { y: s.y * f, _s: s };
    if (this.spec.kind !== 'bar') p.x = s.x;
    // the whiskers only when there was more than one sample to spread
    if (s.interval) {
      p.yMin = s.interval.lo * f;
      p.yMax = s.interval.hi * f;
    } else if (sampleCount(s) > 1 && s.stats && Number.isFinite(s.stats.min) && Number.isFinite(s.stats.max)) {
      p.yMin = s.stats.min * f;
      p.yMax = s.stats.max * f;
    }
    return p;
  }

  // An axis's title as fitTitle gave it; true when that changed it (what was set is kept here: Chart.js's options
  // read back resolved, with the default type size filled in).
  setTitle(axis, sc, fitted) {
    if (!sc || !sc.title) return false;
    const key = JSON.stringify(fitted);
    this.titleSet = this.titleSet || {};
    if (this.titleSet[axis] === key) return false;
    this.titleSet[axis] = key;
    sc.title.text = fitted.text;
    sc.title.font = fitted.size ? { size: fitted.size } : undefined;
    return true;
  }

  fitTitles(chart) {
    if (!this.yTitles || this.fitting) return;
    let changed = false;
    for (const axis of ['y', 'yRef']) changed = this.setTitle(axis, chart.options.scales[axis], fitTitle(chart, this.yTitles[axis])) || changed;
    if (!changed) return;
    // once more with the titles fitted, outside this draw
    this.fitting = true;
    requestAnimationFrame(() => { this.fitting = false; if (this.chart === chart) chart.update('none'); });
  }

  renderXY() {
    const line = this.spec.kind !== 'bar';
    let maxAbs = 0;
    let refMax = 0;
    let valueMax = 0; // the values alone, without their whiskers
    for (const pts of this.series.values())
      for (const s of pts.values()) {
        valueMax = Math.max(valueMax, Math.abs(s.y));
        maxAbs = Math.max(maxAbs, Math.abs(s.y), Math.abs((s.interval ? s.interval.hi : s.stats && s.stats.max) || 0));
      }
    for (const pts of this.refs.values())
      for (const r of pts) refMax = Math.max(refMax, Math.abs(convertUnit(r.y, r.unit, this.unit || r.unit)));
    if (this.fixed) maxAbs = Math.max(maxAbs, Math.abs(this.fixed.lo), Math.abs(this.fixed.hi));
    // the article's bars on the right-hand axis when on the runs' they would flatten them
    this.refAxis = refsOwnAxis(maxAbs, refMax);
    if (!this.refAxis) maxAbs = Math.max(maxAbs, refMax);
    this.shown = displayUnit(this.unit || this.refUnit(), maxAbs);
    const f = this.shown.factor;
    const opts = this.chart.options;
    // a shared scale: every chart of the figure starts and ends its value axis at the same place
    opts.scales.y.min = this.fixed ? Math.min(0, this.fixed.lo * f) : undefined;
    opts.scales.y.max = this.fixed ? niceCeil(this.fixed.hi * f) : undefined;
    // a spec may cap its axis at a multiple of its largest value (compare's ratios: an interval of a few rounds can
    // reach 40×, and drawn whole it flattens every bar to nothing); a whisker past the cap runs off the top, and its
    // tooltip gives it whole
    if (!this.fixed && this.spec.y_cap && valueMax > 0 && maxAbs > valueMax * this.spec.y_cap) opts.scales.y.max = niceCeil(valueMax * this.spec.y_cap * f);
    const yTitle = axisTitle(this.spec.y_label, this.unit, this.shown.unit);
    // projector type: a long title on two lines, so it stays within a short plot
    this.yTitles = { y: yTitle, yRef: `the article's figures, own scale${this.shown.unit ? ` (${this.shown.unit})` : ''}` };
    opts.scales.yRef.display = this.refAxis;
    for (const axis of ['y', 'yRef']) this.setTitle(axis, opts.scales[axis], fitTitle(this.chart, this.yTitles[axis]));

    let labels = [];
    if (!line) {
      // categories in order of x, so thread counts read 1, 2, 4, 8
      const cats = new Map();
      for (const pts of this.series.values())
        for (const [key, s] of pts) if (!cats.has(key)) cats.set(key, s.x);
      for (const pts of this.refs.values())
        for (const r of pts) {
          const key = r.x_label ?? String(r.x);
          if (!cats.has(key)) cats.set(key, r.x);
        }
      labels = [...cats.entries()].sort((a, b) => (Number(a[1]) - Number(b[1])) || 0).map((e) => e[0]);
      this.chart.data.labels = labels;
    }
    const datasets = this.chart.data.datasets;
    // a series that marks a place on x (the schema's marks glob) is drawn by drawMarks, not as points
    this.marks = [];
    for (const [name, pts] of this.series) {
      if (!this.isMark(name)) continue;
      const text = this.set.seriesLabel ? this.set.seriesLabel(name) : name;
      for (const s of pts.values()) this.marks.push({ x: s.x, text });
    }
    for (let k = datasets.length - 1; k >= 0; k--) if (this.isMark(datasets[k]._name) && !datasets[k]._ref) datasets.splice(k, 1);
    for (const [name, pts] of this.series) {
      if (this.isMark(name)) continue;
      const i = this.set.index(name);
      let ds = datasets.find((d) => d._name === name && !d._ref);
      if (!ds || ds._color !== i) {
        const pal = palette();
        // a set may choose (compare: one colour family per run, the series told apart by dash and marker)
        const own = this.set.style ? this.set.style(name) : null;
        const color = own ? own.color : pal[i % pal.length];
        const dash = own ? own.dash : Math.floor(i / pal.length);
        // past the palette: the same colours again, striped (bars) or dashed (lines)
        const fill = dash > 0 && !line ? stripes(color) : color;
        const shown = this.set.seriesLabel ? this.set.seriesLabel(name) : name;
        const style = line ? {
          label: shown, _name: name, showLine: true,
          borderColor: color, backgroundColor: color, borderWidth: lineWidth(),
          borderDash: DASHES[dash % DASHES.length],
          pointStyle: POINT_STYLES[(own ? own.marker : i) % POINT_STYLES.length], pointRadius: pointRadius(), pointHoverRadius: pointRadius() + 2,
          errorBarColor: color, errorBarWhiskerColor: color, errorBarLineWidth: 2, errorBarWhiskerLineWidth: 2, errorBarWhiskerSize: 12,
        } : {
          label: shown, _name: name,
          backgroundColor: fill, borderColor: color, borderWidth: dash > 0 ? 2 : 0,
          maxBarThickness: 90, categoryPercentage: 0.7, barPercentage: 0.9,
          errorBarColor: INK, errorBarWhiskerColor: INK, errorBarLineWidth: 2, errorBarWhiskerLineWidth: 2,
        };
        if (ds) {
          Object.assign(ds, style);
        } else {
          ds = { ...style, data: [] };
          // measured series first, the article's after them
          const at = datasets.findIndex((d) => d._ref);
          if (at < 0) datasets.push(ds);
          else datasets.splice(at, 0, ds);
        }
        ds._color = i;
      }
      if (line) {
        ds.data = [...pts.values()].filter((s) => !(this.spec.log_x && s.x <= 0))
          .sort((a, b) => a.x - b.x).map((s) => this.point(s, f));
      } else {
        // a gap is {y: null}, not null: the error-bar plugin reads every entry as an object
        ds.data = labels.map((key) => (pts.has(key) ? this.point(pts.get(key), f) : { y: null }));
      }
    }
    for (const [name, pts] of this.refs) {
      let ds = datasets.find((d) => d._ref && d._name === name);
      if (!ds) {
        ds = line ? {
          label: name, data: [], _ref: true, _name: name, showLine: true,
          borderColor: REF, backgroundColor: '#ffffff', borderWidth: 2.5, borderDash: [7, 5],
          pointStyle: 'circle', pointRadius: 6, pointBorderWidth: 2.5, pointBorderColor: REF, pointBackgroundColor: '#ffffff',
        } : {
          label: name, data: [], _ref: true, _name: name,
          backgroundColor: refPattern(), borderColor: REF, borderWidth: 2,
          maxBarThickness: 90, categoryPercentage: 0.7, barPercentage: 0.9,
        };
        datasets.push(ds);
      }
      ds.yAxisID = this.refAxis ? 'yRef' : 'y';
      ds.label = this.refAxis ? `${name} (right-hand axis)` : name;
      const toShown = (r) => convertUnit(r.y, r.unit, this.unit || r.unit) * f;
      if (line) {
        ds.data = pts.filter((r) => !(this.spec.log_x && r.x <= 0)).sort((a, b) => a.x - b.x)
          .map((r) => ({ x: r.x, y: toShown(r), _s: { ...r, _ref: true } }));
      } else {
        const byKey = new Map(pts.map((r) => [r.x_label ?? String(r.x), r]));
        ds.data = labels.map((key) => (byKey.has(key) ? { y: toShown(byKey.get(key)), _s: { ...byKey.get(key), _ref: true } } : { y: null }));
      }
    }
  }

  isMark(name) {
    return !!this.spec.marks && this.spec.kind !== 'bar' && globMatch(this.spec.marks, name);
  }

  // Each mark a dashed vertical line over the whole plot, its words written up along it.
  drawMarks(chart) {
    if (!this.marks || !this.marks.length) return;
    const { ctx, chartArea: a, scales } = chart;
    const px = Chart_font();
    for (const m of this.marks) {
      const x = scales.x.getPixelForValue(m.x);
      if (!(x >= a.left && x <= a.right)) continue;
      ctx.save();
      ctx.strokeStyle = MARK;
      ctx.lineWidth = 2;
      ctx.setLineDash([6, 4]);
      ctx.beginPath();
      ctx.moveTo(x, a.top);
      ctx.lineTo(x, a.bottom);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.translate(x - 5, a.top + 4);
      ctx.rotate(-Math.PI / 2);
      ctx.font = `${Math.round(px * 0.85)}px sans-serif`;
      ctx.textAlign = 'right';
      ctx.textBaseline = 'bottom';
      // a halo, so the words read over a grid line or a point
      ctx.lineWidth = 4;
      ctx.strokeStyle = '#ffffff';
      ctx.strokeText(m.text, 0, 0);
      ctx.fillStyle = MARK;
      ctx.fillText(m.text, 0, 0);
      ctx.restore();
    }
  }

  refUnit() {
    for (const pts of this.refs.values()) for (const r of pts) if (r.unit) return r.unit;
    return null;
  }

  /* heatmap */

  heatConfig() {
    const view = this;
    const spec = this.spec;
    return {
      type: 'matrix',
      data: {
        datasets: [{
          label: spec.title || spec.id,
          data: [],
          backgroundColor: (ctx) => view.cellColor(ctx.raw),
          borderColor: '#ffffff',
          borderWidth: 2,
          width: ({ chart }) => Math.max(1, ((chart.chartArea || {}).width || 0) / Math.max(1, view.cols.length) - 2),
          height: ({ chart }) => Math.max(1, ((chart.chartArea || {}).height || 0) / Math.max(1, view.rows.length) - 2),
        }],
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: { duration: 150 },
        scales: {
          x: {
            type: 'category', labels: [], offset: true, grid: { display: false }, border: { display: false },
            title: { display: !!spec.x_label, text: spec.x_label || '' },
            ticks: { callback(v) { return wrapLabel(this.getLabelForValue(v)); }, maxRotation: 0 },
          },
          y: {
            // row 0 on top, as a matrix is read (Chart.js puts a category y axis's first label there)
            type: 'category', labels: [], offset: true, reverse: false, grid: { display: false }, border: { display: false },
            title: { display: !!spec.y_label, text: spec.y_label || '' },
            ticks: { callback(v) { return wrapLabel(this.getLabelForValue(v)); } },
          },
        },
        plugins: {
          legend: { display: false },
          tooltip: {
            callbacks: {
              title: (items) => {
                const c = items.length && items[0].raw && items[0].raw._c;
                if (!c) return '';
                return `${spec.y_label || 'row'} ${rowText(c)}, ${spec.x_label || 'column'} ${colText(c)}`;
              },
              label: (item) => {
                const c = item.raw._c;
                if (c.value === null || c.value === undefined) return `not measured${c.note ? `: ${c.note}` : ''}`;
                return withUnit(c.value, c.unit || '');
              },
              afterLabel: (item) => {
                const c = item.raw._c;
                const out = [];
                if (c.value !== null && c.value !== undefined && c.note) out.push(c.note);
                const n = sampleCount(c);
                if (n > 1 && c.stats) out.push(`range ${num(c.stats.min)} – ${num(c.stats.max)}, median of ${n}`);
                return out;
              },
            },
          },
        },
      },
      plugins: [{ id: 'cellValues', afterDatasetsDraw: (chart) => view.drawValues(chart) }],
    };
  }

  cellColor(raw) {
    if (!raw || raw.v === null || raw.v === undefined) return hatchPattern();
    return viridis(this.range.hi > this.range.lo ? (raw.v - this.range.lo) / (this.range.hi - this.range.lo) : 0.5);
  }

  // The values this chart shows, raw units ({lo, hi}, from zero as it draws them), for a scale shared with other charts.
  extent() {
    let lo = Infinity;
    let hi = -Infinity;
    const see = (v) => { if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); } };
    if (this.spec.kind === 'heatmap') for (const c of this.cells.values()) see(c.value);
    else for (const pts of this.series.values()) for (const s of pts.values()) { see(s.y); see(s.stats && s.stats.max); }
    if (lo > 0) lo = 0;
    return lo <= hi ? { lo, hi } : null;
  }

  // range: a scale shared with other charts, or null for the chart's own
  fix(range) {
    this.fixed = range;
    this.render();
  }

  renderHeat() {
    const rows = new Map();
    const cols = new Map();
    let lo = Infinity;
    let hi = -Infinity;
    for (const c of this.cells.values()) {
      // a cell without labels keeps the ones another cell of its row or column gave
      if (c.row_label != null || !rows.has(c.row)) rows.set(c.row, rowText(c));
      if (c.col_label != null || !cols.has(c.col)) cols.set(c.col, colText(c));
      if (Number.isFinite(c.value)) {
        lo = Math.min(lo, c.value);
        hi = Math.max(hi, c.value);
      }
    }
    const order = (m) => [...m.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
    this.rows = order(rows);
    this.cols = order(cols);
    // colour from zero when nothing is negative: a 4% spread must not look like black and white
    if (lo > 0) lo = 0;
    if (this.fixed) ({ lo, hi } = this.fixed);
    this.range = { lo, hi };
    if (this.rows.length > BIG || this.cols.length > BIG) return this.renderBig(rows, cols);
    const opts = this.chart.options;
    opts.scales.x.labels = this.cols;
    opts.scales.y.labels = this.rows;
    // a small matrix drawn small: a 1×1 is one cell of a readable size, not a screen of one colour (style.css)
    const box = this.el.querySelector('.chart-box');
    box.style.setProperty('--matrix-rows', String(this.rows.length));
    box.style.setProperty('--matrix-cols', String(this.cols.length));
    this.chart.data.datasets[0].data = [...this.cells.values()].map((c) => ({
      x: colText(c), y: rowText(c), v: Number.isFinite(c.value) ? c.value : null, _c: c,
    }));
    this.drawLegend();
  }

  // A matrix too large for a chart of cells: drawn on a canvas of its own (heatmap.js).
  renderBig(rows, cols) {
    const box = this.el.querySelector('.chart-box');
    if (!this.big) {
      this.canvas.hidden = true;
      box.classList.add('chart-box-big');
      this.big = new HeatCanvas(box, { colour: viridis, unit: this.unit, xLabel: this.spec.x_label, yLabel: this.spec.y_label });
    }
    const at = (m) => new Map([...m.keys()].sort((a, b) => a - b).map((k, i) => [k, i]));
    const ri = at(rows);
    const ci = at(cols);
    // the measured cells only: a declared matrix of any size, however sparse, is never a full grid
    const present = cellList(this.cells.size);
    for (const c of this.cells.values()) {
      if (!Number.isFinite(c.value)) continue;
      present.r[present.n] = ri.get(c.row);
      present.c[present.n] = ci.get(c.col);
      present.v[present.n++] = c.value;
    }
    const ctx = this.set.context || {};
    const threads = ctx.threads && ctx.threads.length === this.rows.length ? ctx.threads : null;
    // the classes depend on the cpus and the distances only: worked out once for them
    const made = this.classesFor;
    if (!made || made.threads !== threads || made.distances !== ctx.distances || made.rows !== this.rows.length) {
      const classes = threads ? cpuClasses(threads, ctx.distances) : nodeClasses(this.rows, this.cols, ctx.distances);
      this.classesFor = { threads, distances: ctx.distances, rows: this.rows.length, classes };
    }
    const { classes } = this.classesFor;
    this.big.unit = this.unit || '';
    this.big.set(this.rows, this.cols, present, this.range, classes);
    this.drawLegend();
    return 'big';
  }

  drawValues(chart) {
    const meta = chart.getDatasetMeta(0);
    const ds = chart.data.datasets[0];
    const g = chart.ctx;
    g.save();
    g.textAlign = 'center';
    g.textBaseline = 'middle';
    meta.data.forEach((el, i) => {
      const raw = ds.data[i];
      const { x, y, width, height } = el.getProps(['x', 'y', 'width', 'height'], true);
      if (!raw || width < 44 || height < 26) return;
      const size = Math.min(Chart_font(), height / 2.4);
      g.font = `600 ${size}px ${getComputedStyle(document.body).fontFamily}`;
      if (raw.v === null) {
        g.fillStyle = INK;
        g.fillText('n/a', x + width / 2, y + height / 2);
        return;
      }
      const t = this.range.hi > this.range.lo ? (raw.v - this.range.lo) / (this.range.hi - this.range.lo) : 0.5;
      g.fillStyle = t > 0.62 ? '#111111' : '#ffffff';
      g.fillText(num(raw.v), x + width / 2, y + height / 2);
    });
    g.restore();
  }

  drawLegend() {
    const L = this.legend;
    const hasValue = Number.isFinite(this.range.lo);
    let hasNull = false;
    for (const c of this.cells.values()) if (!Number.isFinite(c.value)) { hasNull = true; break; }
    L.hidden = !hasValue && !hasNull;
    while (L.firstChild) L.firstChild.remove();
    // "3×" for a ratio, "92.1 ns" for a time: the legend's ends as every other number on the page
    const end = (v) => withUnit(v, this.unit || '');
    if (hasValue) {
      const bar = h('canvas', { class: 'heat-scale', width: 240, height: 16, 'aria-hidden': 'true' });
      const g = bar.getContext('2d');
      for (let i = 0; i < 240; i++) {
        g.fillStyle = viridis(i / 239);
        g.fillRect(i, 0, 1, 16);
      }
      L.append(h('span', { class: 'heat-lo', text: end(this.range.lo) }), bar,
        h('span', { class: 'heat-hi', text: end(this.range.hi) }));
    }
    if (hasNull) {
      const sw = h('canvas', { class: 'heat-na', width: 24, height: 16, 'aria-hidden': 'true' });
      const g = sw.getContext('2d');
      g.fillStyle = hatchPattern();
      g.fillRect(0, 0, 24, 16);
      // the reasons written out: a projector has no hover
      const why = [...new Set([...this.cells.values()].filter((c) => !Number.isFinite(c.value)).map((c) => c.note).filter(Boolean))];
      L.append(h('span', { class: 'heat-na-label' }, sw, why.length ? `not measured: ${why.join('; ')}` : 'not measured'));
    }
  }
}

const rowText = (c) => c.row_label ?? String(c.row);
const colText = (c) => c.col_label ?? String(c.col);
const Chart_font = () => (window.Chart ? window.Chart.defaults.font.size : 15);

// Every chart of one experiment, for one run (or none yet).
export class ChartSet {
  // refs: the experiment's published figures, [{chart, series, x, x_label, y, unit}]
  // opts.style(series) -> {color, dash, marker}: colours chosen by the caller; opts.legend: where the legend goes
  constructor(container, specs, refs, opts = {}) {
    this.style = opts.style || null;
    this.seriesLabel = opts.seriesLabel || null; // a series's name in words, for legends and tooltips
    this.legendAt = opts.legend || 'top';
    this.container = container;
    this.views = new Map();
    this.refs = refs || [];
    this.order = null;
    for (const spec of specs || []) this.view(spec);
    live.add(this);
  }

  view(spec) {
    const v = new ChartView(spec, this, this.refs.filter((r) => r.chart === spec.id));
    this.views.set(spec.id, v);
    this.container.append(v.el);
    v.mount();
    return v;
  }

  // A series keeps one colour in every chart of the run, whatever order the
  // events came in: charts are taken in schema order.
  index(name) {
    if (!this.order) {
      // each chart starts at the first colour, except that a series met in
      // an earlier chart keeps the colour it had there
      const order = new Map();
      for (const v of this.views.values()) {
        const used = new Set();
        for (const s of v.series.keys()) if (order.has(s)) used.add(order.get(s));
        let next = 0;
        for (const s of v.series.keys()) {
          if (order.has(s)) continue;
          while (used.has(next)) next++;
          order.set(s, next);
          used.add(next);
        }
      }
      this.order = order;
    }
    return this.order.get(name) ?? 0;
  }

  // What a matrix's relation classes are read from: the cpus measured ({thread, core, l2, l3, package, node}) and the node distances.
  setContext(ctx) {
    this.context = ctx;
    for (const v of this.views.values()) if (v.spec.kind === 'heatmap' && v.cells.size) v.schedule();
  }

  newSeries() {
    this.order = null;
    for (const v of this.views.values()) if (v.series.size) v.schedule();
  }

  // A point for a chart the schema does not list still gets drawn, as a line.
  sample(s) {
    (this.views.get(s.chart) || this.view({ id: s.chart, kind: 'line', title: prettify(s.chart) })).add(s);
  }

  cell(c) {
    (this.views.get(c.chart) || this.view({ id: c.chart, kind: 'heatmap', title: prettify(c.chart) })).addCell(c);
  }

  // The chart views of figure id, for a scale shared across sets.
  chart(id) {
    return this.views.get(id) || null;
  }

  // The run has ended (or not, again): charts without points collapse to one line, and go
  // after the charts that have some (a mode of an experiment fills only its own charts: the
  // reader sees those first), each group in the experiment's order.
  // Once it has ended, a chart the run left empty (another mode's, or one this machine cannot fill) is
  // not drawn: one line after the charts names them.
  settle(ended) {
    for (const v of this.views.values()) v.settle(ended);
    const views = [...this.views.values()];
    const none = ended ? views.filter((v) => v.el.classList.contains('chart-unmeasured')) : [];
    for (const v of views) v.el.hidden = none.includes(v);
    // one short line, the charts' titles a click away: a list of other modes' titles in a sentence read as one title
    if (!this.noneEl) {
      this.noneSummary = h('summary');
      this.noneList = h('ul');
      this.noneEl = h('details', { class: 'charts-unmeasured' }, this.noneSummary, this.noneList);
    }
    this.noneSummary.textContent = none.length === 1 ? '1 chart not measured in this run (the notes say why)'
      : `${none.length} charts not measured in this run (the notes say why)`;
    this.noneList.replaceChildren(...none.map((v) => h('li', { text: v.title() })));
    this.noneEl.hidden = !none.length;
    this.container.append(this.noneEl);
  }

  count() {
    let n = 0;
    for (const v of this.views.values()) n += v.count();
    return n;
  }

  measured() {
    let n = 0;
    for (const v of this.views.values()) n += v.measured();
    return n;
  }

  destroy() {
    for (const v of this.views.values()) v.destroy();
    this.views.clear();
    live.delete(this);
  }
}
