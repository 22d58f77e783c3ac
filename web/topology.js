// topology.js - the machine as an lstopo-like SVG picture (packages, NUMA nodes, caches, cores, PUs, node distances), with a run's threads and pages drawn on it
import { h } from './dom.js';
import { bytes } from './format.js';
import { isPageCount } from './rundoc.js';
import { FONT, NS, distanceLayout, drawDistances, el, textWidth } from './topology-svg.js';

const FOLD_OVER = 4; // more identical children than this are folded, first and last kept (lstopo's factorize)
// How far repeats fold, least first, while the whole does not fit at 16 px: lstopo's factorize (over:
// runs longer than it folded, first and last kept); then repeated packages (or the machine's other
// repeated parts) behind the first (top: 1); then every run over 2 inside them; then every repeat
// behind its first. A core's two PUs (SMT2) stay drawn.
const FOLDS = [{ over: FOLD_OVER, top: FOLD_OVER }, { over: FOLD_OVER, top: 1 }, { over: 2, top: 1 }, { over: 1, top: 1 }];
const UNFOLDED = { over: Infinity, top: Infinity };
const WRAP = 1180; // a row of children wraps past this width, until the picture knows the width it has
// the smallest text drawn is 11 units: at 16/11 CSS px a unit it reads at 16 px, on a projector from the back row
export const MIN_SCALE = 16 / 11;
const MAX_SCALE = 2.4;
const PAD = 5;
const GAP = 5;
const HEAD = 20; // a caption bar: package, node, cache, core
const PU_W = 64; // at most: as wide as the machine's longest PU caption needs
const PU_H = 46;

// lstopo's colours, a little darker so that they hold up under a projector
const LOOK = {
  machine: { fill: '#ffffff', stroke: '#15181d' },
  package: { fill: '#dedede', stroke: '#15181d' },
  node: { fill: '#d2e7a4', stroke: '#3d5a00' },
  cache: { fill: '#f2f2f2', stroke: '#5a5f66' },
  core: { fill: '#bebebe', stroke: '#15181d' },
  pu: { fill: '#ffffff', stroke: '#15181d' },
  used: { fill: '#0a58a8', stroke: '#002f66', ink: '#ffffff' },
  moved: { fill: '#b33000', stroke: '#5c1800', ink: '#ffffff' },
  fold: { fill: '#ffffff', stroke: '#5a5f66' },
};

const LEVELS = ['package', 'node', 'l3', 'l2', 'l1', 'core'];

// The levels in the order they nest on this machine: fewer groups sit higher (a node spanning
// two packages goes above them, two nodes in a package below it); a level nobody has is left out.
function levelOrder(pus) {
  const count = (lv) => new Set(pus.map((p) => p[lv])).size;
  const present = LEVELS.filter((lv) => pus.some((p) => Number.isInteger(p[lv]) && p[lv] >= 0));
  return present.map((lv, i) => ({ lv, i, n: count(lv) })).sort((a, b) => a.n - b.n || a.i - b.i).map((x) => x.lv);
}

// {kind, level, id, children, pus} from the flat PU list of /api/topology
export function topologyTree(topo) {
  const rank = (p) => (Number.isInteger(p.logical) ? p.logical : p.os);
  const pus = [...(topo.pus || [])].sort((a, b) => rank(a) - rank(b));
  const order = levelOrder(pus);
  const root = { kind: 'machine', id: 0, children: [], pus: [] };
  for (const p of pus) {
    let g = root;
    g.pus.push(p);
    for (const lv of order) {
      const id = p[lv];
      if (!Number.isInteger(id) || id < 0) continue;
      let c = g.children.find((x) => x.level === lv && x.id === id);
      if (!c) {
        c = { kind: lv.startsWith('l') ? 'cache' : lv, level: lv, id, children: [], pus: [] };
        g.children.push(c);
      }
      c.pus.push(p);
      g = c;
    }
    g.children.push({ kind: 'pu', level: 'pu', id: p.os, pu: p, children: [], pus: [p] });
  }
  // nodes no PU is local to (HBM, NVM, CXL, a memory-only guest node): lstopo draws every memory child, so
  // they get a box of their own, in the package whose PUs are their initiators, else beside the packages
  const drawn = new Set(pus.map((p) => p.node));
  for (const n of topo.nodes || []) {
    if (drawn.has(n.os)) continue;
    const near = new Set(cpuList(n.initiators));
    const inside = root.children.find((c) => c.kind === 'package' && near.size && [...near].every((os) => c.pus.some((p) => p.os === os)));
    (inside || root).children.push({ kind: 'node', level: 'node', id: n.os, memoryOnly: true, children: [], pus: [] });
  }
  return root;
}

// "0-3,8" -> [0, 1, 2, 3, 8]
function cpuList(text) {
  const out = [];
  for (const part of String(text || '').split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) continue;
    for (let i = Number(m[1]); i <= Number(m[2] ?? m[1]) && out.length < 4096; i++) out.push(i);
  }
  return out;
}

// What a box says in its caption bar.
function caption(g, topo, pages = null) {
  const nodes = topo.nodes || [];
  switch (g.kind) {
    case 'machine': {
      const mem = nodes.reduce((s, n) => s + (n.mem_total || 0), 0);
      return `Machine${mem ? ` (${bytes(mem)} total)` : ''}${topo.cpu_model && topo.cpu_model.trim() !== 'unknown' ? ` · ${topo.cpu_model.trim()}` : ''}`;
    }
    case 'package': return `Package ${g.id}`;
    case 'node': {
      const n = nodes.find((x) => x.os === g.id) || {};
      const what = [n.mem_total ? bytes(n.mem_total) : '', n.kind || ''].filter(Boolean).join(' ');
      return `NUMA node ${g.id}${what ? ` (${what})` : ''}${g.memoryOnly ? ' · memory only' : ''}${pagesText(g.id, pages)}`;
    }
    case 'cache': {
      const lvl = Number(g.level.slice(1));
      // a machine record keeps one size per level (no logical index): it holds for every instance
      const c = (topo.caches || []).find((x) => x.level === lvl && x.logical === g.id)
        || (topo.caches || []).find((x) => x.level === lvl && !Number.isInteger(x.logical));
      return `L${lvl}${lvl === 1 ? 'd' : ''}${c && c.size ? ` (${bytes(c.size)})` : ''}`;
    }
    case 'core': return `Core ${g.id}`;
    default: return `PU ${g.id}`;
  }
}

// A node's memory-side cache, on a line of its own under the node's caption (lstopo draws it as a box
// above the node); '' for none.
function cacheLine(g, topo) {
  if (g.kind !== 'node') return '';
  const n = (topo.nodes || []).find((x) => x.os === g.id) || {};
  return n.memcaches ? `${bytes(n.memcache_size)} memory-side cache` : '';
}

// Two children are folded together when they draw the same: same kinds, sizes and counts below.
function shape(g, topo) {
  if (g.shape) return g.shape;
  const own = g.kind === 'cache' || g.kind === 'node' ? `${caption(g, topo).replace(/^NUMA node \d+/, 'node')}${cacheLine(g, topo)}` : g.kind;
  g.shape = `${own}[${g.children.map((c) => shape(c, topo)).join(',')}]`;
  return g.shape;
}

// ": 45% of the pages" for a node, when a run counted them
function pagesText(node, pages) {
  if (!pages || !pages.size) return '';
  const total = [...pages.values()].reduce((s, v) => s + v, 0);
  return ` · ${total ? Math.round(((pages.get(node) || 0) / total) * 100) : 0}% of pages`;
}

const kindName = (k, n) => {
  const names = { package: 'package', node: 'NUMA node', cache: 'cache', core: 'core', pu: 'PU' };
  const w = names[k] || k;
  return n === 1 ? w : `${w}s`;
};

// A picture of the machine. opts: {threads: Map(pu os -> [{thread, moved}]), pages: Map(node os -> pages), title}
export class TopologyPicture {
  constructor(topo, opts = {}) {
    this.topo = topo;
    this.opts = opts;
    this.tree = topologyTree(topo);
    // a PU as wide as its longest caption needs (its P# or L#), at most PU_W
    const longest = Math.max(0, ...(topo.pus || []).map((p) => Math.max(p.os, Number.isInteger(p.logical) ? p.logical : 0)));
    this.puW = Math.min(PU_W, Math.max(44, textWidth(`PU L#${longest}`, 11) + 6));
    this.unfolded = new Set(); // fold keys a person opened
    this.all = false; // every fold open
    this.unfoldBtn = h('button', { type: 'button', class: 'link-button topo-unfold', 'aria-pressed': 'false', text: 'show every identical part' });
    // opens every fold while some are left, else folds again what was opened (all, or one by one)
    this.unfoldBtn.addEventListener('click', () => {
      this.all = this.el.dataset.folds !== '0';
      this.unfolded.clear();
      this.render();
    });
    this.svgBtn = h('button', { type: 'button', class: 'link-button topo-svg', text: 'download the topology as SVG' });
    this.svgBtn.addEventListener('click', () => this.download());
    this.box = h('div', { class: 'topo-scroll', tabindex: '0', role: 'region', 'aria-label': opts.title || 'topology picture' });
    this.wrap = WRAP;
    // the picture fills the width it is given: laid out again for it, then drawn at least at MIN_SCALE
    if (typeof ResizeObserver === 'function') {
      this.seen = 0;
      new ResizeObserver(() => {
        const w = this.box.clientWidth;
        if (!w || Math.abs(w - this.seen) < 8) return;
        this.seen = w;
        this.render();
      }).observe(this.box);
    }
    // the height it may take follows the window's: a taller or shorter window lays it out again
    if (typeof window !== 'undefined') {
      let seenH = window.innerHeight;
      window.addEventListener('resize', () => {
        if (!this.el.isConnected || Math.abs(window.innerHeight - seenH) < 8) return;
        seenH = window.innerHeight;
        this.render();
      });
    }
    this.legend = h('p', { class: 'topo-legend' });
    this.el = h('div', { class: 'topo', dataset: { npus: String((topo.pus || []).length), nnodes: String((topo.nodes || []).length) } },
      h('div', { class: 'topo-tools' }, this.unfoldBtn, this.svgBtn), this.box, this.legend, this.textTable());
    this.render();
  }

  set(opts) {
    this.opts = { ...this.opts, ...opts };
    this.render();
  }

  // The box's room: its width, and the height the page lets it take (its max-height, 70% of the window).
  room() {
    const w = this.box.clientWidth || 0;
    const max = typeof getComputedStyle === 'function' ? parseFloat(getComputedStyle(this.box).maxHeight) : NaN;
    const winH = typeof window !== 'undefined' ? window.innerHeight || 0 : 0;
    const h = Number.isFinite(max) && max > 0 ? max : winH * 0.7;
    return { w, h: Math.max(200, h - 4) };
  }

  // One layout at a wrap width and a fold threshold: the body, the distance grid, the whole size.
  // The distance grid goes beside the machine when that leaves the larger picture, else below it.
  trial(wrap, folds, room = null) {
    this.wrap = wrap;
    this.folds = folds;
    const body = this.layout(this.tree, 'm');
    const dist = distanceLayout(this.topo);
    const below = { W: Math.max(body.w, dist ? dist.w : 0) + 2, H: body.h + (dist ? dist.h + 14 : 0) + 2, beside: false };
    let at = below;
    if (dist && room && room.w) {
      const beside = { W: body.w + 14 + dist.w + 2, H: Math.max(body.h, dist.h) + 2, beside: true };
      const fitOf = (a) => Math.min(room.w / a.W, room.h / a.H);
      if (fitOf(beside) > fitOf(below)) at = beside;
    }
    return { body, dist, W: at.W, H: at.H, beside: at.beside, wrap, folds };
  }

  // The layout that shows the most at the largest text: the whole picture within the box (packages side
  // by side when they fit, as lstopo draws them), every part drawn while its text stays at 16 px, identical
  // repeats folded (FOLDS, least first) only as far as it takes to keep it so; where no folding does, the
  // largest text. Once a person unfolds parts, the picture keeps MIN_SCALE and scrolls instead.
  choose(room) {
    if (!room.w) return this.trial(WRAP, FOLDS[0]);
    if (this.all || this.unfolded.size) {
      const folds = this.all ? UNFOLDED : this.chosen || FOLDS[0];
      let t = this.trial(Math.max(220, Math.floor(room.w / MIN_SCALE) - 6), folds);
      // the boxes around a row add their padding to it: narrower rows until the whole fits (three tries)
      for (let i = 0; i < 3 && (t.W * MIN_SCALE > room.w) && t.wrap > 220; i++)
        t = this.trial(Math.max(220, t.wrap - Math.ceil(t.W - room.w / MIN_SCALE) - 2), t.folds);
      t.scale = fitScale(t.W, room.w);
      return t;
    }
    const fit = (t) => Math.min(MAX_SCALE, room.w / t.W, room.h / t.H);
    const best = (folds) => {
      let pick = null;
      for (const s of [MAX_SCALE, 2, 1.7, 1.6, 1.5, MIN_SCALE, 1.3, 1.15, 1, 0.85, 0.7, 0.55, 0.4]) {
        const t = this.trial(Math.max(160, Math.floor(room.w / s) - 6), folds, room);
        t.scale = fit(t);
        if (!pick || t.scale > pick.scale + 1e-6) pick = t;
      }
      return pick;
    };
    let pick = best(FOLDS[0]);
    // folding hides parts: a step further only for text clearly larger than the step before gives
    for (let i = 1; i < FOLDS.length && pick.scale < MIN_SCALE - 1e-6; i++) {
      const t = best(FOLDS[i]);
      if (t.scale > pick.scale * 1.05) pick = t;
    }
    this.chosen = pick.folds;
    return pick;
  }

  render() {
    const used = this.opts.threads || new Map();
    this.marked = (g) => g.pus.some((p) => used.has(p.os));
    const room = this.room();
    const pick = this.choose(room);
    // the layout drawn is the one chosen: lay it out once more with its settings
    const { body, dist, W, H, beside } = this.trial(pick.wrap, pick.folds, room.w && !this.all && !this.unfolded.size ? room : null);
    const svg = el('svg', { xmlns: NS, width: W, height: H, viewBox: `0 0 ${W} ${H}`, 'font-family': FONT, 'font-size': 12, role: 'group', 'aria-label': this.opts.title || 'topology of the machine' });
    svg.append(el('rect', { x: 0, y: 0, width: W, height: H, fill: '#ffffff' }));
    this.draw(svg, body, 1, 1);
    if (dist && beside) drawDistances(svg, this.topo, dist, body.w + 15, 1);
    else if (dist) drawDistances(svg, this.topo, dist, 1, body.h + 14);
    this.svg = svg;
    this.box.replaceChildren(svg);
    // within its box, at the scale chosen (text at 16 px where the whole fits so; smaller rather than cut)
    const scale = room.w ? pick.scale : MIN_SCALE;
    svg.style.width = `${Math.round(W * scale)}px`;
    svg.style.height = 'auto';
    this.el.dataset.scale = scale.toFixed(2);
    const folds = svg.querySelectorAll('[data-fold]').length;
    const open = !folds && (this.all || this.unfolded.size > 0);
    this.unfoldBtn.hidden = !folds && !open;
    this.unfoldBtn.textContent = open ? 'fold identical parts again' : 'show every identical part';
    this.unfoldBtn.setAttribute('aria-pressed', String(open));
    this.el.dataset.folds = String(folds);
    this.renderLegend();
  }

  renderLegend() {
    const t = this.opts.threads;
    const logical = (this.topo.pus || []).some((p) => Number.isInteger(p.logical));
    const parts = [logical ? 'PU L#n is hwloc’s logical index, P#n the operating system’s number (the one taskset and /proc/cpuinfo use). '
      : 'P#n is the operating system’s number of a PU (the one taskset and /proc/cpuinfo use); a run’s record keeps no logical index. '];
    const nodes = this.topo.nodes || [];
    if (nodes.length > 1 && !nodes.some((r) => (r.distances || []).some((v) => v > 0))) parts.push('This machine reports no NUMA distances. ');
    // a PU no node holds (its node offline, or hidden by a cgroup) sits outside every node box
    const outside = (this.topo.pus || []).filter((p) => Number.isInteger(p.node) && p.node < 0).map((p) => `P#${p.os}`);
    if (outside.length) parts.push(`${outside.length === 1 ? 'PU' : 'PUs'} ${outside.slice(0, 8).join(', ')}${outside.length > 8 ? '…' : ''} ${outside.length === 1 ? 'belongs' : 'belong'} to no NUMA node (its node offline, or hidden from this process). `);
    if (this.topo.offline_pus > 0) parts.push(`${this.topo.offline_pus} ${this.topo.offline_pus === 1 ? 'PU is' : 'PUs are'} offline and not drawn. `);
    if (t && t.size) {
      const moved = [...t.values()].flat().some((x) => x.moved);
      parts.push(h('span', { class: 'topo-key topo-key-used' }, 't0, t1…'), ' a PU a thread of this run was seen running on');
      if (moved) parts.push('; ', h('span', { class: 'topo-key topo-key-moved' }, 'red'), ' one that ran elsewhere than it asked');
      parts.push('. ');
    }
    if (this.opts.pages && this.opts.pages.size) parts.push('The green bar in a NUMA node is the share of the buffer\u2019s pages found there. ');
    if (this.el.dataset.folds !== '0') parts.push('“… more” boxes stand for identical parts; activate one to unfold it.');
    this.legend.replaceChildren(...parts);
    this.legend.hidden = !parts.length;
  }

  // The children of g with runs of identical, unmarked ones folded: [{g} | {fold: [g...], key}]; a run
  // longer than its threshold keeps its first and last, or its first alone when the threshold is 1
  items(g, key) {
    const folds = this.folds || FOLDS[0];
    const over = g.kind === 'machine' ? folds.top : g.kind === 'core' ? Math.max(2, folds.over) : folds.over;
    const out = [];
    const kids = g.children;
    let i = 0;
    while (i < kids.length) {
      let j = i + 1;
      if (!this.marked(kids[i])) {
        const s = shape(kids[i], this.topo);
        while (j < kids.length && !this.marked(kids[j]) && shape(kids[j], this.topo) === s) j++;
      }
      const run = kids.slice(i, j);
      const fk = `${key}/${i}`;
      if (run.length > over && !this.all && !this.unfolded.has(fk)) {
        if (over > 1) out.push({ g: run[0] }, { fold: run.slice(1, -1), key: fk }, { g: run[run.length - 1] });
        else out.push({ g: run[0] }, { fold: run.slice(1), key: fk });
      } else {
        for (const c of run) out.push({ g: c });
      }
      i = j;
    }
    return out;
  }

  // Sizes and positions, relative to the box: {g, w, h, head, kids: [{x, y, ...}]}
  layout(g, key) {
    if (g.kind === 'pu') return { g, w: this.puW, h: PU_H, kids: [] };
    const cache = cacheLine(g, this.topo);
    const head = HEAD + (cache ? 14 : 0);
    const items = this.items(g, key).map((it, i) => (it.fold ? this.foldLayout(it) : this.layout(it.g, `${key}.${i}`)));
    const bold = g.kind === 'machine' || g.kind === 'package' || (g.kind === 'node' && this.opts.pages && this.opts.pages.size);
    const minW = Math.max(textWidth(caption(g, this.topo, this.opts.pages), g.kind === 'machine' ? 13 : 12, bold), cache ? textWidth(cache, 11) : 0) + 2 * PAD;
    // one child that is not a PU: this box is a caption bar on top of it, as lstopo draws a core's
    // caches, so that nesting costs height and no width
    if (items.length === 1 && !items[0].fold && items[0].g.kind !== 'pu' && g.kind !== 'machine') {
      const k = items[0];
      k.x = 0;
      k.y = head;
      return { g, w: Math.max(k.w, minW), h: head + k.h, head, kids: [k], bar: true };
    }
    // a cache or node with one child sits on it as a bar, as lstopo draws them
    let x = PAD;
    let y = head + PAD;
    let rowH = 0;
    let w = 0;
    for (const k of items) {
      if (x > PAD && x + k.w > this.wrap) {
        x = PAD;
        y += rowH + GAP;
        rowH = 0;
      }
      k.x = x;
      k.y = y;
      x += k.w + GAP;
      rowH = Math.max(rowH, k.h);
      w = Math.max(w, x - GAP + PAD);
    }
    if (!items.length) return { g, w: minW, h: head + PAD, head, kids: [] };
    return { g, w: Math.max(w, minW), h: y + rowH + PAD, head, kids: items };
  }

  foldLayout(it) {
    const gs = it.fold;
    const kind = gs[0].kind === 'cache' ? `L${gs[0].level.slice(1)} cache` : kindName(gs[0].kind, gs.length);
    const ids = gs.map((g) => g.id);
    const label = `… ${gs.length} more`;
    const sub = gs[0].kind === 'cache' ? (gs.length === 1 ? kind : `${kind}s`) : kind;
    const range = ids.length === 1 ? `${ids[0]}` : `${ids[0]}–${ids[ids.length - 1]}`;
    return { fold: it, w: Math.max(70, textWidth(label, 12) + 14, textWidth(sub, 11) + 14), h: Math.max(PU_H, 52), label, sub, range, kids: [] };
  }

  draw(svg, b, ox, oy) {
    const x = ox + (b.x || 0);
    const y = oy + (b.y || 0);
    if (b.fold) return this.drawFold(svg, b, x, y);
    const g = b.g;
    if (g.kind === 'pu') return this.drawPU(svg, g, x, y);
    const look = LOOK[g.kind] || LOOK.cache;
    const grp = el('g', { 'data-kind': g.kind, 'data-id': g.id });
    grp.append(el('rect', { x, y, width: b.w, height: b.h, fill: look.fill, stroke: look.stroke, 'stroke-width': g.kind === 'package' || g.kind === 'machine' ? 1.6 : 1 }));
    if (g.kind === 'node' && this.opts.pages && this.opts.pages.size) this.drawPages(grp, g, x, y, b.w);
    const pages = g.kind === 'node' && this.opts.pages && this.opts.pages.size;
    grp.append(el('text', { x: x + PAD, y: y + 14, fill: '#15181d', 'font-weight': g.kind === 'machine' || g.kind === 'package' || pages ? 700 : 400, 'font-size': g.kind === 'machine' ? 13 : 12 }, caption(g, this.topo, this.opts.pages)));
    const cache = cacheLine(g, this.topo);
    if (cache) grp.append(el('text', { x: x + PAD, y: y + 28, fill: '#15181d', 'font-size': 11 }, cache));
    svg.append(grp);
    for (const k of b.kids) this.draw(svg, k, x, y);
  }

  drawPages(grp, g, x, y, w) {
    const pages = this.opts.pages;
    const total = [...pages.values()].reduce((s, v) => s + v, 0);
    const here = pages.get(g.id) || 0;
    const share = total ? here / total : 0;
    grp.append(el('rect', { x: x + 1, y: y + 1, width: Math.max(0, (w - 2) * share), height: HEAD - 2, fill: '#8fc23a', 'data-pages': String(here) }));
  }

  drawPU(svg, g, x, y) {
    const who = (this.opts.threads && this.opts.threads.get(g.id)) || [];
    const moved = who.some((t) => t.moved);
    const look = who.length ? (moved ? LOOK.moved : LOOK.used) : LOOK.pu;
    const p = g.pu;
    const grp = el('g', { 'data-kind': 'pu', 'data-os': p.os, 'data-threads': who.map((t) => t.thread).join(',') || null });
    grp.append(el('rect', { x, y, width: this.puW, height: PU_H, fill: look.fill, stroke: look.stroke, 'stroke-width': who.length ? 2 : 1, 'stroke-dasharray': p.allowed === false ? '3 2' : null }));
    // lstopo's two numbers: L# the logical index (hwloc's order), P# the OS's (taskset, /proc/cpuinfo)
    // a run's record has no logical index: then the PU says only its OS number
    const known = Number.isInteger(p.logical);
    grp.append(el('text', { x: x + this.puW / 2, y: y + 13, 'text-anchor': 'middle', fill: look.ink || '#15181d', 'font-size': 11 }, known ? `PU L#${p.logical}` : 'PU'));
    grp.append(el('text', { x: x + this.puW / 2, y: y + 26, 'text-anchor': 'middle', fill: look.ink || '#15181d', 'font-size': 11 }, `P#${p.os}`));
    if (who.length) {
      const names = who.map((t) => `t${t.thread}`);
      const line = names.length > 2 ? `${names[0]}+${names.length - 1}` : names.join(',');
      grp.append(el('text', { x: x + this.puW / 2, y: y + 40, 'text-anchor': 'middle', fill: look.ink, 'font-weight': 700, 'font-size': 12 }, line));
    }
    svg.append(grp);
  }

  drawFold(svg, b, x, y) {
    const look = LOOK.fold;
    const it = b.fold;
    const pus = it.fold.reduce((s, g) => s + g.pus.length, 0);
    const grp = el('g', { 'data-fold': it.key, 'data-pus': pus, role: 'button', tabindex: 0, cursor: 'pointer' });
    grp.append(el('rect', { x, y, width: b.w, height: b.h, fill: look.fill, stroke: look.stroke, 'stroke-dasharray': '4 3' }));
    grp.append(el('text', { x: x + b.w / 2, y: y + 17, 'text-anchor': 'middle', fill: '#15181d', 'font-weight': 700 }, b.label));
    grp.append(el('text', { x: x + b.w / 2, y: y + 32, 'text-anchor': 'middle', fill: '#434952', 'font-size': 11 }, b.sub));
    grp.append(el('text', { x: x + b.w / 2, y: y + 46, 'text-anchor': 'middle', fill: '#434952', 'font-size': 11 }, b.range));
    const open = () => {
      this.unfolded.add(it.key);
      this.render();
    };
    grp.addEventListener('click', open);
    grp.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        open();
      }
    });
    svg.append(grp);
  }

  // The same facts as text a screen reader reaches: each node with its PUs, memory and distances.
  textTable() {
    const nodes = this.topo.nodes || [];
    const pus = this.topo.pus || [];
    const rows = nodes.map((n) => h('tr', {},
      h('th', { scope: 'row', text: `node ${n.os}` }),
      h('td', { text: n.cpus || (n.cpuless ? `memory only, nearest ${n.initiators || 'none'}` : '–') }),
      h('td', { text: n.mem_total ? bytes(n.mem_total) : '–' }),
      h('td', { text: `${n.kind || 'not stated'}${n.memcaches ? `, ${bytes(n.memcache_size)} memory-side cache` : ''}` }),
      h('td', { text: (n.distances || []).map((v) => (v > 0 ? v : '?')).join(' ') || '–' })));
    const caches = [...new Set((this.topo.caches || []).map((c) => c.level))].sort().map((lvl) => {
      const c = this.topo.caches.find((x) => x.level === lvl);
      const count = this.topo.caches.filter((x) => x.level === lvl).length;
      return `${count} × L${lvl} of ${bytes(c.size)} (each for ${c.npus} PU${c.npus === 1 ? '' : 's'})`;
    });
    return h('details', { class: 'topo-text' },
      h('summary', { text: 'The topology as text' }),
      h('p', { text: `${countText(this.topo)}. Caches: ${caches.join('; ') || 'none reported'}.` }),
      h('table', { class: 'topo-table' },
        h('caption', { text: 'NUMA nodes' }),
        h('thead', {}, h('tr', {}, ['node', 'PUs', 'memory', 'kind', 'distances to nodes in order'].map((t) => h('th', { scope: 'col', text: t })))),
        h('tbody', {}, rows)));
  }

  svgText() {
    return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(this.svg)}`;
  }

  download() {
    const clone = this.svg.cloneNode(true);
    clone.removeAttribute('style');
    const text = `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(clone)}`;
    const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
    const a = h('a', { href: url, download: this.opts.file || 'numalab-topology.svg' });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }
}

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

// "2 packages, 8 cores, 16 PUs (SMT), 2 NUMA nodes": counts as the topology gives them, no package invented
export function countText(topo) {
  const pus = (topo.pus || []).length;
  const nodes = (topo.nodes || []).length;
  const pk = Number.isInteger(topo.packages) ? (topo.packages ? plural(topo.packages, 'package') : 'no package named') : null;
  const only = (topo.nodes || []).filter((n) => n.cpuless).length;
  return [pk, Number.isInteger(topo.cores) ? plural(topo.cores, 'core') : null, `${plural(pus, 'PU')}${topo.smt ? ' (SMT)' : ''}`,
    `${plural(nodes, 'NUMA node')}${only ? ` (${only} memory only)` : ''}`].filter(Boolean).join(', ');
}

// The picture's CSS pixels per unit: as wide as room, within MIN_SCALE..MAX_SCALE (room unknown: MIN_SCALE).
export function fitScale(w, room) {
  if (!(w > 0)) return MIN_SCALE;
  return Math.min(MAX_SCALE, Math.max(MIN_SCALE, room > 0 ? room / w : MIN_SCALE));
}

// Where a run's threads ran, as observed: PU os -> [{thread, moved}], from one placement group.
export function threadsOn(threads) {
  const m = new Map();
  for (const t of threads || []) {
    const cpu = Number.isInteger(t.cpu_observed) && t.cpu_observed >= 0 ? t.cpu_observed : null;
    if (cpu === null) continue;
    if (!m.has(cpu)) m.set(cpu, []);
    m.get(cpu).push({ thread: t.thread, moved: Number.isInteger(t.cpu) && t.cpu >= 0 && t.cpu !== cpu });
  }
  return m;
}

// Pages per node for one series of a run's page counts (rundoc.js's isPageCount, x the node): Map(node os -> pages).
export function pagesOf(samples, series) {
  const m = new Map();
  for (const s of samples || []) if (isPageCount(s) && s.series === series && Number.isFinite(s.x)) m.set(s.x, s.y || 0);
  return m;
}

// The series names of a run's page counts, in the order they came.
export function pageSeries(samples) {
  return [...new Set((samples || []).filter(isPageCount).map((s) => s.series))];
}

// Whether a run was measured on the machine this picture is of (a run's document keeps a summary, not the topology).
export function sameMachine(topo, m) {
  if (!topo || !m) return false;
  return m.pus === (topo.pus || []).length && m.nodes === (topo.nodes || []).length
    && (m.packages === undefined || m.packages === topo.packages) && (m.cores === undefined || m.cores === topo.cores);
}
