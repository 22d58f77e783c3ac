// export.js - a run's downloads: the whole run as JSON, its samples as CSV, each chart as PNG
import { h } from './dom.js';
import { toDate } from './format.js';
import { comparePicker } from './compare-pick.js';

function save(href, name) {
  const a = h('a', { href, download: name });
  document.body.append(a);
  a.click();
  a.remove();
}

const SCALE = 2; // a slide wants twice the screen's pixels

// The chart drawn again at SCALE device pixels per CSS pixel, then put back as it was.
function sharpCanvas(canvas) {
  const chart = window.Chart && window.Chart.getChart(canvas);
  if (!chart) return canvas;
  const was = chart.options.devicePixelRatio;
  chart.options.devicePixelRatio = SCALE;
  chart.resize();
  chart.update('none');
  const copy = document.createElement('canvas');
  copy.width = canvas.width;
  copy.height = canvas.height;
  copy.getContext('2d').drawImage(canvas, 0, 0);
  chart.options.devicePixelRatio = was;
  chart.resize();
  chart.update('none');
  return copy;
}

// The chart with its title above and what it is (run, experiment, machine, date) below, on white.
export function chartPng(canvas, title, meta) {
  const img = sharpCanvas(canvas);
  const pad = 16 * SCALE;
  const titlePx = 22 * SCALE;
  const metaPx = 13 * SCALE;
  const out = document.createElement('canvas');
  out.width = img.width + 2 * pad;
  out.height = img.height + titlePx + metaPx * 2 + 4 * pad;
  const g = out.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, out.width, out.height);
  g.fillStyle = '#15181d';
  g.textBaseline = 'top';
  g.font = `bold ${titlePx}px sans-serif`;
  g.fillText(title, pad, pad, out.width - 2 * pad);
  g.drawImage(img, pad, 2 * pad + titlePx);
  g.font = `${metaPx}px sans-serif`;
  g.fillStyle = '#434952';
  const lines = [meta.line1, meta.line2].filter(Boolean);
  lines.forEach((t, i) => g.fillText(t, pad, out.height - pad - (lines.length - i) * metaPx * 1.25, out.width - 2 * pad));
  out.dataset.scale = String(SCALE);
  return out;
}

// A PNG of every canvas under el, one button each, named for its chart. meta: {line1, line2} or a function giving them.
export function pngButtons(el, prefix, meta = {}) {
  for (const canvas of el.querySelectorAll('canvas')) {
    const fig = canvas.closest('figure') || canvas.parentElement;
    const cap = fig.querySelector('figcaption') || fig;
    if (cap.querySelector('.png-button')) continue;
    const title = (fig.querySelector('.chart-title') || {}).textContent || fig.dataset.chart || 'chart';
    const btn = h('button', { type: 'button', class: 'link-button png-button', text: 'PNG', 'aria-label': `download “${title}” as PNG` });
    btn.addEventListener('click', () => {
      const out = chartPng(canvas, title, typeof meta === 'function' ? meta() : meta);
      const id = fig.dataset.chart || 'chart';
      save(out.toDataURL('image/png'), `${prefix}-${id}.png`);
    });
    cap.append(btn);
  }
}

// What a run's exported chart says about where it comes from. r: rundoc.js's reading of the run.
export function runMeta(r, exp) {
  const m = r.machine || {};
  const date = toDate(r.when);
  return {
    line1: `numalab run #${r.id} · ${(exp && (exp.title || exp.name)) || r.experiment || ''}${date ? ` · ${date.toISOString().slice(0, 16).replace('T', ' ')} UTC` : ''}`,
    line2: [m.hostname, m.cpu_model && m.cpu_model.trim(), m.pus && `${m.pus} CPUs`, m.nodes && `${m.nodes} NUMA node${m.nodes > 1 ? 's' : ''}`].filter(Boolean).join(' · '),
  };
}

// The downloads, and "compare with…", which opens its picker under the bar, in view.
export function exportBar(run) {
  const id = encodeURIComponent(run.id);
  const cmp = h('button', { type: 'button', class: 'link-button', id: 'compare-with', 'aria-expanded': 'false', text: 'compare with…' });
  const bar = h('p', { class: 'export-bar', id: 'export-bar' },
    'Download: ',
    h('a', { href: `/api/runs/${id}?format=json`, download: `numalab-run-${run.id}.json`, text: 'run (JSON, re-importable)' }), ' · ',
    h('a', { href: `/api/runs/${id}/export.csv`, download: '', text: 'samples (CSV)' }), ' · ', cmp);
  let picker = null;
  cmp.addEventListener('click', () => {
    if (picker) {
      picker.remove();
      picker = null;
      cmp.setAttribute('aria-expanded', 'false');
      return;
    }
    picker = comparePicker(run);
    bar.after(picker);
    cmp.setAttribute('aria-expanded', 'true');
    picker.scrollIntoView({ block: 'nearest' });
    picker.querySelector('h3').focus({ preventScroll: true });
  });
  return bar;
}
