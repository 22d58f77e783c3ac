// topology-svg.js - the topology picture's SVG parts: elements, text widths, and the node distance grid beside it
export const NS = 'http://www.w3.org/2000/svg';
export const FONT = 'DejaVu Sans, Liberation Sans, Arial, sans-serif';
const DIST_TITLE = 'NUMA distances';
const DIST_KEY = ['10 = local;', 'higher is farther']; // one line, or two under a narrow grid

export function el(tag, attrs, ...kids) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) e.setAttribute(k, String(v));
  for (const k of kids.flat()) if (k) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}

let measureCtx = null;
export function textWidth(s, px, bold = false) {
  if (!measureCtx) measureCtx = document.createElement('canvas').getContext('2d');
  measureCtx.font = `${bold ? 'bold ' : ''}${px}px ${FONT}`;
  return Math.ceil(measureCtx.measureText(s).width) + 4;
}

// The node distance matrix: numbers while they fit, shades past 16 nodes.
export function distanceLayout(topo) {
  const nodes = topo.nodes || [];
  if (nodes.length < 2) return null;
  // no grid of question marks: a machine that reports no distance gets a line in the legend instead
  if (!nodes.some((r) => (r.distances || []).some((v) => v > 0))) return null;
  const n = nodes.length;
  const cell = n <= 4 ? 30 : n <= 16 ? 26 : Math.max(7, Math.floor(560 / n));
  const lab = 58;
  const grid = lab + n * cell + 10;
  const key = DIST_KEY.join(' ');
  // the key on two lines rather than widen the picture past its grid
  const keyLines = textWidth(key, 11) + 4 > grid ? DIST_KEY : [key];
  const title = Math.max(textWidth(DIST_TITLE, 12, true), ...keyLines.map((s) => textWidth(s, 11))) + 4;
  const top = 38 + 14 * (keyLines.length - 1);
  return { n, cell, lab, keyLines, top, w: Math.max(grid, title), h: top + lab / 2 + n * cell + 6 };
}

export function drawDistances(svg, topo, d, x, y) {
  const nodes = topo.nodes;
  const known = nodes.some((r) => (r.distances || []).some((v) => v > 0));
  const grp = el('g', { 'data-kind': 'distances' });
  grp.append(el('text', { x, y: y + 14, 'font-weight': 700, fill: '#15181d' },
    known ? DIST_TITLE : 'NUMA distances: not reported by this machine'));
  if (known) d.keyLines.forEach((s, i) => grp.append(el('text', { x, y: y + 28 + 14 * i, 'font-size': 11, fill: '#434952' }, s)));
  const top = y + d.top + d.lab / 2;
  const all = nodes.flatMap((r) => r.distances || []).filter((v) => v > 0);
  const lo = Math.min(...all, 10);
  const hi = Math.max(...all, 10);
  const step = d.n <= 16 ? 1 : Math.ceil(d.n / 8);
  nodes.forEach((r, i) => {
    if (i % step === 0) {
      grp.append(el('text', { x: x + d.lab - 6, y: top + i * d.cell + Math.min(d.cell, 16) / 2 + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#15181d' }, `node ${r.os}`));
      grp.append(el('text', { x: x + d.lab + i * d.cell + d.cell / 2, y: top - 4, 'text-anchor': 'middle', 'font-size': 11, fill: '#15181d' }, String(r.os)));
    }
    (r.distances || []).forEach((v, j) => {
      const t = hi > lo ? (v - lo) / (hi - lo) : 0;
      const shade = v > 0 ? Math.round(245 - t * 150) : 255;
      grp.append(el('rect', { x: x + d.lab + j * d.cell, y: top + i * d.cell, width: d.cell, height: d.cell, fill: `rgb(${shade},${shade},${Math.min(255, shade + 10)})`, stroke: '#9aa1ab', 'stroke-width': 0.5 }));
      if (d.n <= 16)
        grp.append(el('text', { x: x + d.lab + j * d.cell + d.cell / 2, y: top + i * d.cell + d.cell / 2 + 4, 'text-anchor': 'middle', 'font-size': 11, fill: t > 0.6 ? '#ffffff' : '#15181d' }, v > 0 ? String(v) : '?'));
    });
  });
  svg.append(grp);
}
