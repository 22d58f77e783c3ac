// export.js - a run's downloads: the whole run as JSON, its samples as CSV, each chart as PNG
import { h } from './dom.js';
import { toDate } from './format.js';
import { comparePicker } from './compare-pick.js';
import { download } from './key.js';

function save(href, name) {
  const a = h('a', { href, download: name });
  document.body.append(a);
  a.click();
  a.remove();
}

// Every exported chart is this size, whatever the window: a 16:9 slide at twice 1280x720.
export const PNG_SIZE = { width: 2560, height: 1440 };
const PAD = 56;
const TITLE_PX = 56;
const FOOT_PX = 30;
const SCALE_PX = 34;

// Words in lines no wider than width, measured by measure(text) -> px; a word longer than a line keeps a line of its own.
export function wrapText(text, width, measure) {
  const lines = [];
  let cur = '';
  for (const w of String(text || '').split(/\s+/).filter(Boolean)) {
    const next = cur ? `${cur} ${w}` : w;
    if (cur && measure(next) > width) {
      lines.push(cur);
      cur = w;
    } else cur = next;
  }
  if (cur) lines.push(cur);
  return lines;
}

// The footer of an exported chart: what it is and where it comes from, one fact a line.
// m: {what ("run #12" or "compare #3, #4"), experiment, params ("threads=4 · stride=64"), machine, date}
// A compare's machine names several, split by " | ": then each machine has a line, and the date one of its own.
export function footerLines(m) {
  const machines = String(m.machine || '').split(' | ').filter(Boolean);
  return [
    [`numalab ${m.what || ''}`.trim(), m.experiment].filter(Boolean).join(' · '),
    m.params ? `parameters: ${m.params}` : null,
    ...(machines.length > 1 ? [...machines, m.date] : [[m.machine, m.date].filter(Boolean).join(' · ') || null]),
  ].filter(Boolean);
}

// The chart itself at w x h device pixels (Chart.js draws it again at that size, its legend in it), then put back as it was.
function chartAt(canvas, w, h) {
  const chart = window.Chart && window.Chart.getChart(canvas);
  const copy = document.createElement('canvas');
  copy.width = w;
  copy.height = h;
  const g = copy.getContext('2d');
  if (!chart) {
    // a canvas of its own (a large heatmap): scaled into the box, its shape kept
    const k = Math.min(w / canvas.width, h / canvas.height);
    g.imageSmoothingEnabled = false;
    g.drawImage(canvas, (w - canvas.width * k) / 2, 0, canvas.width * k, canvas.height * k);
    return copy;
  }
  const was = chart.options.devicePixelRatio;
  const dpr = 2;
  chart.options.devicePixelRatio = dpr;
  chart.resize(Math.floor(w / dpr), Math.floor(h / dpr));
  chart.update('none');
  // the same scale both ways: a chart that keeps its own shape (a matrix) is centred, never stretched
  const k = Math.min(w / canvas.width, h / canvas.height);
  g.drawImage(canvas, (w - canvas.width * k) / 2, 0, canvas.width * k, canvas.height * k);
  chart.options.devicePixelRatio = was;
  chart.resize();
  chart.update('none');
  return copy;
}

// A heatmap's colour scale, as its legend on the page shows it: the ramp, and the value at each end.
function drawScale(g, fig, x, y, w) {
  const ramp = fig && fig.querySelector('.heat-legend:not([hidden]) .heat-scale');
  if (!ramp) return 0;
  const lo = fig.querySelector('.heat-lo').textContent;
  const hi = fig.querySelector('.heat-hi').textContent;
  g.font = `${SCALE_PX}px sans-serif`;
  g.fillStyle = '#15181d';
  g.textBaseline = 'middle';
  const barW = Math.min(900, w / 2);
  const lw = g.measureText(lo).width;
  g.fillText(lo, x, y + SCALE_PX / 2);
  g.imageSmoothingEnabled = true;
  g.drawImage(ramp, x + lw + 20, y, barW, SCALE_PX);
  g.fillText(hi, x + lw + 40 + barW, y + SCALE_PX / 2);
  const na = fig.querySelector('.heat-na-label');
  if (na) g.fillText(`hatched: ${na.textContent}`, x + lw + 80 + barW + g.measureText(hi).width, y + SCALE_PX / 2, w / 3);
  return SCALE_PX + 24;
}

// The chart on a slide of PNG_SIZE: its title wrapped above, its colour scale (a heatmap's) and a footer saying what it is below.
// meta: footerLines's input; fig: the chart's figure on the page (for its colour scale)
export function chartPng(canvas, title, meta, fig = null) {
  const { width: W, height: H } = PNG_SIZE;
  const out = document.createElement('canvas');
  out.width = W;
  out.height = H;
  const g = out.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, W, H);
  g.fillStyle = '#15181d';
  g.textBaseline = 'top';
  g.font = `bold ${TITLE_PX}px sans-serif`;
  const titles = wrapText(title, W - 2 * PAD, (t) => g.measureText(t).width).slice(0, 3);
  titles.forEach((t, i) => g.fillText(t, PAD, PAD + i * TITLE_PX * 1.2));
  const top = PAD + titles.length * TITLE_PX * 1.2 + PAD / 2;
  // the footer wrapped, never squeezed: a compare of three machines has a long machine line
  g.font = `${FOOT_PX}px sans-serif`;
  const foot = footerLines(meta || {}).flatMap((t) => wrapText(t, W - 2 * PAD, (x) => g.measureText(x).width)).slice(0, 8);
  const footH = foot.length * FOOT_PX * 1.3;
  const hasScale = !!(fig && fig.querySelector('.heat-legend:not([hidden]) .heat-scale'));
  const scaleH = hasScale ? SCALE_PX + 24 : 0;
  const chartH = H - top - scaleH - footH - 2 * PAD;
  g.drawImage(chartAt(canvas, W - 2 * PAD, Math.floor(chartH)), PAD, top);
  drawScale(g, fig, PAD, top + chartH + 12, W - 2 * PAD);
  g.font = `${FOOT_PX}px sans-serif`;
  g.fillStyle = '#434952';
  g.textBaseline = 'top';
  foot.forEach((t, i) => g.fillText(t, PAD, H - PAD - footH + i * FOOT_PX * 1.3, W - 2 * PAD));
  return out;
}

// A PNG of every canvas under el, one button each, named for its chart. meta: footerLines's input or a function giving it.
export function pngButtons(el, prefix, meta = {}) {
  for (const canvas of el.querySelectorAll('canvas')) {
    const fig = canvas.closest('figure') || canvas.parentElement;
    const cap = fig.querySelector('figcaption') || fig;
    if (cap.querySelector('.png-button')) continue;
    const title = (fig.querySelector('.chart-title') || {}).textContent || fig.dataset.chart || 'chart';
    const btn = h('button', { type: 'button', class: 'link-button png-button', text: 'PNG', 'aria-label': `download “${title}” as PNG` });
    btn.addEventListener('click', () => {
      const out = chartPng(canvas, title, typeof meta === 'function' ? meta() : meta, fig);
      const id = fig.dataset.chart || 'chart';
      save(out.toDataURL('image/png'), `${prefix}-${id}.png`);
    });
    cap.append(btn);
  }
}

// "threads=4 · pin=spread": the parameters a run set away from the experiment's defaults (all of them when none is known)
export function paramsLine(params, exp) {
  const defs = new Map(((exp && exp.params) || []).map((p) => [p.name, p.default]));
  const keys = Object.keys(params || {}).filter((k) => !defs.has(k) || String(defs.get(k)) !== String(params[k]));
  return keys.map((k) => `${k}=${params[k]}`).join(' · ');
}

// What a run's exported chart says about where it comes from (footerLines's input). r: rundoc.js's reading of the run.
export function runMeta(r, exp) {
  const m = r.machine || {};
  const date = toDate(r.when);
  return {
    what: `run #${r.id}`,
    experiment: (exp && (exp.title || exp.name)) || r.experiment || '',
    params: paramsLine(r.params, exp),
    machine: [m.hostname, m.cpu_model && m.cpu_model.trim(), m.pus && `${m.pus} CPUs`, m.nodes && `${m.nodes} NUMA node${m.nodes > 1 ? 's' : ''}`].filter(Boolean).join(' · ') || 'machine unknown',
    date: date ? `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC` : '',
  };
}

// A download link fetched with the page's key (the link alone carries only the cookie).
function saveWithKey(ev) {
  ev.preventDefault();
  const a = ev.currentTarget;
  download(a.getAttribute('href'), a.getAttribute('download')).catch((e) => { a.title = e.message; });
}

// The downloads, and "compare with…", which opens its picker under the bar, in view.
export function exportBar(run, exp) {
  const id = encodeURIComponent(run.id);
  const cmp = h('button', { type: 'button', class: 'link-button', id: 'compare-with', 'aria-expanded': 'false', text: 'compare with…' });
  const bar = h('p', { class: 'export-bar', id: 'export-bar' },
    'Download: ',
    h('a', { href: `/api/runs/${id}?format=json`, download: `numalab-run-${run.id}.json`, text: 'run (JSON, re-importable)', onclick: saveWithKey }), ' · ',
    h('a', { href: `/api/runs/${id}/export.csv`, download: `numalab-run-${run.id}.csv`, text: 'samples (CSV)', onclick: saveWithKey }), ' · ', cmp);
  let picker = null;
  cmp.addEventListener('click', () => {
    if (picker) {
      picker.remove();
      picker = null;
      cmp.setAttribute('aria-expanded', 'false');
      return;
    }
    picker = comparePicker(run, exp && exp.params);
    bar.after(picker);
    cmp.setAttribute('aria-expanded', 'true');
    picker.scrollIntoView({ block: 'nearest' });
    picker.querySelector('h3').focus({ preventScroll: true });
  });
  return bar;
}
