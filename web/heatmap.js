// heatmap.js - a large matrix drawn straight on a canvas: relation classes as blocks, folded below 2 px a cell, zoom into a block
import { h } from './dom.js';

// Above this many rows or columns a matrix is drawn here rather than cell by cell in Chart.js.
export const BIG = 24;
const MIN_PX = 2; // a cell narrower than this is folded into a block with its neighbours
const ZOOM = 64; // rows and columns shown when zoomed into a block

// Okabe-Ito, colour-blind safe: one per relation class, closest first.
const CLASS_COLOURS = ['#009e73', '#56b4e9', '#e69f00', '#cc79a7', '#0072b2', '#d55e00', '#f0e442', '#999999'];

// The bar labels core_to_core gives its relations; the page names a pair the same way.
const KINDS = ['smt siblings', 'shared L2', 'shared L3', 'same package, no shared cache', 'other package'];

function kindOf(a, b) {
  if (a.core === b.core) return 0;
  if (a.l2 >= 0 && a.l2 === b.l2) return 1;
  if (a.l3 >= 0 && a.l3 === b.l3) return 2;
  return a.package === b.package ? 3 : 4;
}

// Up to this many distinct threads, the classes present are found over every pair of them.
const EXACT_KINDS = 2048;

// The ranks of pairs that share a core, an L2 or an L3, found by grouping: [0, 1000, 2000] or fewer.
function sharedRanks(threads) {
  const out = [];
  const by = (key) => {
    const m = new Map();
    for (const t of threads) {
      const k = key(t);
      if (k === null) continue;
      if (!m.has(k)) m.set(k, []);
      m.get(k).push(t);
    }
    return [...m.values()];
  };
  if (by((t) => t.core).some((g) => g.length > 1)) out.push(0);
  if (by((t) => (t.l2 >= 0 ? t.l2 : null)).some((g) => new Set(g.map((t) => t.core)).size > 1)) out.push(1000);
  if (by((t) => (t.l3 >= 0 ? t.l3 : null)).some(sharesL3Only)) out.push(2000);
  return out;
}

// Whether two threads of one L3 share neither a core nor an L2, in two passes: when no thread
// pairs with the first, every thread of another L2 is on its core, and one of them finds the pair.
function sharesL3Only(g) {
  const l2 = (t) => (t.l2 >= 0 ? t.l2 : t);
  const a = g[0];
  const other = g.find((b) => l2(b) !== l2(a) && b.core !== a.core);
  if (other) return true;
  const a2 = g.find((b) => l2(b) !== l2(a));
  return !!a2 && g.some((b) => l2(b) !== l2(a2) && b.core !== a2.core);
}

// A classifier of cells from the cpus measured (thread i is row and column i) and the machine's
// node distances: (i, j) -> class index, and the classes' names, closest first. Nothing of size
// n x n is kept: a pair's class is worked out when asked, and the classes present are found over
// the distinct kinds of thread (same core, caches, package and node), not over every pair.
export function cpuClasses(threads, distances) {
  if (!threads || threads.length < 2) return null;
  const n = threads.length;
  // a class's rank: its kind, then its distance (0: one node, -1: unknown, last)
  const rankOf = (a, b) => {
    const kind = kindOf(a, b);
    if (kind < 3 || a.node === b.node) return kind * 1000;
    const v = distances && distances[a.node] && distances[a.node][b.node];
    return kind * 1000 + (v > 0 ? Math.min(v, 998) : 999);
  };
  // threads alike in every field a rank reads have the same ranks to every other
  const kinds = new Map();
  for (const t of threads) {
    const key = `${t.core}/${t.l2}/${t.l3}/${t.package}/${t.node}`;
    const k = kinds.get(key);
    if (k) k.count++;
    else kinds.set(key, { t, count: 1 });
  }
  const distinct = [...kinds.values()];
  const seen = new Set();
  if (distinct.length <= EXACT_KINDS) {
    for (let i = 0; i < distinct.length; i++) {
      if (distinct[i].count > 1) seen.add(rankOf(distinct[i].t, distinct[i].t));
      for (let j = 0; j < distinct.length; j++) if (i !== j) seen.add(rankOf(distinct[i].t, distinct[j].t));
    }
  } else {
    for (const r of sharedRanks(threads)) seen.add(r);
    // past the caches, a pair's rank is its packages' and nodes': one thread of each stands for them
    const groups = new Map();
    for (const t of threads) {
      const key = `${t.package}/${t.node}`;
      if (!groups.has(key)) groups.set(key, []);
      if (groups.get(key).length < 2) groups.get(key).push(t);
    }
    const reps = [...groups.values()];
    for (const a of reps) {
      for (const b of reps) {
        for (const x of a) for (const y of b) if (x !== y && kindOf(x, y) >= 3) seen.add(rankOf(x, y));
      }
    }
  }
  const sorted = [...seen].sort((a, b) => a - b);
  const index = new Map(sorted.map((r, i) => [r, i]));
  const names = sorted.map((r) => {
    const kind = Math.floor(r / 1000);
    const d = r % 1000;
    return d === 0 ? KINDS[kind] : d === 999 ? `${KINDS[kind]}, another node` : `${KINDS[kind]}, distance ${d}`;
  });
  const of = (i, j) => (i < n && j < n && i !== j ? Math.min(254, index.get(rankOf(threads[i], threads[j]))) : 255);
  return { names, of };
}

// The measured cells in view summed into blocks of k x k: {sum, count} per block, row-major,
// gw x gh. Only the cells present are visited, so a sparse matrix of any declared size costs
// its cells and the blocks on screen. cells: {n, r, c, v}, the row, column and value of cell i
// at r[i], c[i], v[i] (cellList makes them).
export function blockSums(cells, view, k, gw, gh) {
  const sum = new Float64Array(gw * gh);
  const count = new Uint32Array(gw * gh);
  for (let i = 0; i < cells.n; i++) {
    const r = cells.r[i] - view.r0;
    const c = cells.c[i] - view.c0;
    const x = cells.v[i];
    if (r < 0 || c < 0 || r >= view.n || c >= view.m || x !== x) continue;
    const o = Math.floor(r / k) * gw + Math.floor(c / k);
    sum[o] += x;
    count[o]++;
  }
  return { sum, count };
}

// Room for n cells: {n, r, c, v} as blockSums and HeatCanvas.set take them.
export function cellList(n) {
  return { n: 0, r: new Int32Array(n), c: new Int32Array(n), v: new Float64Array(n) };
}

// Classes of a node matrix ("node 3" rows and columns): local, then each distance.
export function nodeClasses(rows, cols, distances) {
  const node = (t) => { const m = /^node (\d+)/.exec(t || ''); return m ? Number(m[1]) : null; };
  const r = rows.map(node);
  const c = cols.map(node);
  if (r.some((x) => x === null) || c.some((x) => x === null)) return null;
  const dist = (a, b) => (a === b ? 0 : (distances && distances[a] && distances[a][b]) || -1);
  const ds = new Set();
  // over the nodes named, not every row and column
  const rn = [...new Set(r)];
  const cn = [...new Set(c)];
  for (const a of rn) for (const b of cn) ds.add(dist(a, b));
  const order = [...ds].sort((a, b) => (a < 0 ? 1e9 : a) - (b < 0 ? 1e9 : b));
  const names = order.map((d) => (d === 0 ? 'local' : d > 0 ? `distance ${d}` : 'remote, distance unknown'));
  const idx = new Map(order.map((d, i) => [d, i]));
  return { names, of: (i, j) => (i < r.length && j < c.length ? idx.get(dist(r[i], c[j])) : 255) };
}

// The matrix of one chart: its measured cells only, drawn on a canvas the size of its box.
export class HeatCanvas {
  constructor(box, { colour, unit, xLabel, yLabel }) {
    this.box = box;
    this.colour = colour; // value in 0..1 -> css colour
    this.unit = unit || '';
    this.canvas = h('canvas', { class: 'heat-canvas', role: 'img', tabindex: '0', 'aria-label': `${yLabel || 'row'} by ${xLabel || 'column'}` });
    this.tip = h('div', { class: 'heat-tip', 'aria-live': 'polite', text: 'hover or focus a cell for its value' });
    this.back = h('button', { type: 'button', class: 'heat-back', hidden: true, text: 'whole matrix' });
    this.keys = h('ul', { class: 'heat-classes', 'aria-label': 'relation classes' });
    this.el = h('div', { class: 'heat-big' }, h('div', { class: 'heat-bar' }, this.back, this.tip), this.canvas, this.keys);
    box.append(this.el);
    this.view = null; // {r0, c0, n, m}: the rows and columns shown, all when null
    this.back.addEventListener('click', () => { this.view = null; this.draw(); });
    this.canvas.addEventListener('mousemove', (e) => this.hover(e));
    this.canvas.addEventListener('click', (e) => this.zoom(e));
    this.canvas.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && this.view) { this.view = null; this.draw(); }
    });
  }

  // rows, cols: labels; cells: the measured ones only (cellList), so a matrix of any declared
  // size, however sparse, costs its cells; classes: null or a classifier
  set(rows, cols, cells, range, classes) {
    const m = cols.length;
    // a matrix mostly measured keeps a grid for the pointer to read; a sparse one, a map
    let lookup;
    if (cells.n * 4 >= rows.length * m) {
      const grid = new Float64Array(rows.length * m).fill(NaN);
      for (let i = 0; i < cells.n; i++) grid[cells.r[i] * m + cells.c[i]] = cells.v[i];
      lookup = (r, c) => grid[r * m + c];
    } else {
      const map = new Map();
      for (let i = 0; i < cells.n; i++) map.set(cells.r[i] * m + cells.c[i], cells.v[i]);
      lookup = (r, c) => { const v = map.get(r * m + c); return v === undefined ? NaN : v; };
    }
    Object.assign(this, { rows, cols, cells, lookup, range, classes });
    this.draw();
  }

  // The value of one cell, NaN where none was measured.
  value(r, c) {
    return this.lookup(r, c);
  }

  destroy() { this.el.remove(); }

  // The cells shown and how big each is, in device pixels.
  layout() {
    const v = this.view || { r0: 0, c0: 0, n: this.rows.length, m: this.cols.length };
    const dpr = window.devicePixelRatio || 1;
    const width = Math.max(200, this.box.clientWidth || 600);
    const side = Math.min(width, 720);
    const cell = side / Math.max(v.n, v.m);
    // fold: one block of k x k cells when a cell would be under MIN_PX
    const k = cell >= MIN_PX ? 1 : Math.ceil(MIN_PX / cell);
    return { v, dpr, side, cell, k };
  }

  draw() {
    const t0 = performance.now();
    const { v, dpr, side, cell, k } = this.layout();
    const gw = Math.ceil(v.m / k);
    const gh = Math.ceil(v.n / k);
    const c = this.canvas;
    c.width = Math.round(side * dpr);
    c.height = Math.round(side * (v.n / Math.max(v.n, v.m)) * dpr);
    c.style.width = `${side}px`;
    c.style.height = `${c.height / dpr}px`;
    const g = c.getContext('2d');
    // one pixel per block in an image, scaled up without smoothing
    const img = new ImageData(gw, gh);
    const px = img.data;
    const { lo, hi } = this.range;
    const span = hi > lo ? hi - lo : 1;
    const buckets = 64;
    const ramp = Array.from({ length: buckets }, (_, i) => rgb(this.colour(i / (buckets - 1))));
    const tints = CLASS_COLOURS.map((css) => tint(rgb(css)));
    const blockClass = new Uint8Array(gw * gh).fill(255);
    const sums = blockSums(this.cells, v, k, gw, gh);
    let measured = 0;
    for (let by = 0; by < gh; by++) {
      for (let bx = 0; bx < gw; bx++) {
        const sum = sums.sum[by * gw + bx];
        const n = sums.count[by * gw + bx];
        // a block's relation: its corner cell's, or the next one's when the corner is a diagonal
        let cls = 255;
        if (this.classes) {
          const r = v.r0 + by * k;
          const q = v.c0 + bx * k;
          cls = this.classes.of(r, q);
          if (cls === 255 && k > 1 && q + 1 < v.c0 + v.m) cls = this.classes.of(r, q + 1);
        }
        measured += n;
        blockClass[by * gw + bx] = cls;
        const o = (by * gw + bx) * 4;
        let col;
        if (n) col = ramp[Math.max(0, Math.min(buckets - 1, Math.round(((sum / n - lo) / span) * (buckets - 1))))];
        else if (cls !== 255) col = tints[cls % CLASS_COLOURS.length];
        else col = [238, 238, 238, 255];
        px[o] = col[0]; px[o + 1] = col[1]; px[o + 2] = col[2]; px[o + 3] = 255;
      }
    }
    const off = document.createElement('canvas');
    off.width = gw;
    off.height = gh;
    off.getContext('2d').putImageData(img, 0, 0);
    g.imageSmoothingEnabled = false;
    const bs = (cell * k) * dpr; // a block's side on the canvas
    g.drawImage(off, 0, 0, gw * bs, gh * bs);
    // relation blocks: a line where the class changes from one block to the next
    if (this.classes) {
      g.strokeStyle = 'rgba(17,17,17,0.55)';
      g.lineWidth = Math.max(1, dpr * (bs >= 6 ? 1.5 : 1));
      // one segment for each run of blocks along a row (or a column) that a boundary follows, one path for all
      g.beginPath();
      for (let by = 0; by + 1 < gh; by++) {
        for (let bx = 0; bx < gw;) {
          if (blockClass[(by + 1) * gw + bx] === blockClass[by * gw + bx]) { bx++; continue; }
          const x0 = bx;
          while (bx < gw && blockClass[(by + 1) * gw + bx] !== blockClass[by * gw + bx]) bx++;
          g.moveTo(x0 * bs, (by + 1) * bs); g.lineTo(bx * bs, (by + 1) * bs);
        }
      }
      for (let bx = 0; bx + 1 < gw; bx++) {
        for (let by = 0; by < gh;) {
          if (blockClass[by * gw + bx + 1] === blockClass[by * gw + bx]) { by++; continue; }
          const y0 = by;
          while (by < gh && blockClass[by * gw + bx + 1] !== blockClass[by * gw + bx]) by++;
          g.moveTo((bx + 1) * bs, y0 * bs); g.lineTo((bx + 1) * bs, by * bs);
        }
      }
      g.stroke();
    }
    this.geom = { v, cell, k, dpr };
    this.back.hidden = !this.view;
    this.legend();
    const fig = this.box.closest('figure');
    if (fig) {
      fig.dataset.heat = 'canvas';
      fig.dataset.folded = String(k);
      fig.dataset.drawn = String(measured);
      fig.dataset.renderMs = (performance.now() - t0).toFixed(1);
      fig.dataset.renderedAt = performance.now().toFixed(1);
    }
  }

  legend() {
    const L = this.keys;
    while (L.firstChild) L.firstChild.remove();
    L.hidden = !this.classes;
    if (!this.classes) return;
    this.classes.names.forEach((name, i) => {
      const sw = h('span', { class: 'heat-swatch', 'aria-hidden': 'true' });
      sw.style.background = CLASS_COLOURS[i % CLASS_COLOURS.length];
      L.append(h('li', { dataset: { cls: String(i) } }, sw, name));
    });
    L.append(h('li', { class: 'heat-classes-note', text: 'a block\'s tint is its relation where no pair of it was measured; lines part the relations' }));
  }

  at(e) {
    const r = this.canvas.getBoundingClientRect();
    const { v, cell } = this.geom;
    const col = v.c0 + Math.floor((e.clientX - r.left) / cell);
    const row = v.r0 + Math.floor((e.clientY - r.top) / cell);
    if (row < v.r0 || col < v.c0 || row >= v.r0 + v.n || col >= v.c0 + v.m) return null;
    return { row, col };
  }

  hover(e) {
    const p = this.at(e);
    if (!p) return;
    const x = this.value(p.row, p.col);
    const cls = this.classes ? this.classes.names[this.classes.of(p.row, p.col)] : null;
    const what = x === x ? `${fmt(x)}${this.unit === 'x' ? '×' : this.unit ? ` ${this.unit}` : ''}` : 'not measured';
    this.tip.textContent = `${this.rows[p.row]} → ${this.cols[p.col]}: ${what}${cls ? ` (${cls})` : ''}${this.geom.k > 1 ? '; click to zoom' : ''}`;
  }

  // Zoom into the block under the pointer: ZOOM rows and columns around it, at a readable size.
  zoom(e) {
    if (!this.geom || this.geom.k === 1) return;
    const p = this.at(e);
    if (!p) return;
    const n = Math.min(ZOOM, this.rows.length);
    const m = Math.min(ZOOM, this.cols.length);
    const r0 = Math.max(0, Math.min(this.rows.length - n, p.row - (n >> 1)));
    const c0 = Math.max(0, Math.min(this.cols.length - m, p.col - (m >> 1)));
    this.view = { r0, c0, n, m };
    this.draw();
  }
}

// A css colour as [r, g, b, a], worked out once on one small canvas and kept.
const RGB = new Map();
let pen = null;
function rgb(css) {
  if (!RGB.has(css)) {
    if (!pen) pen = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
    pen.clearRect(0, 0, 1, 1);
    pen.fillStyle = css;
    pen.fillRect(0, 0, 1, 1);
    RGB.set(css, Array.from(pen.getImageData(0, 0, 1, 1).data));
  }
  return RGB.get(css);
}

const tint = (c) => [Math.round(c[0] * 0.35 + 255 * 0.65), Math.round(c[1] * 0.35 + 255 * 0.65), Math.round(c[2] * 0.35 + 255 * 0.65), 255];
const fmt = (x) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toPrecision(3));
