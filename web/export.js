// export.js - a run's downloads: the whole run as JSON, its samples as CSV, each chart as PNG
import { h } from './dom.js';

function save(href, name) {
  const a = h('a', { href, download: name });
  document.body.append(a);
  a.click();
  a.remove();
}

// A PNG of every canvas under el, one button each, on a white ground (a transparent PNG is black on slides).
export function pngButtons(el, prefix) {
  for (const canvas of el.querySelectorAll('canvas')) {
    const fig = canvas.closest('figure') || canvas.parentElement;
    const cap = fig.querySelector('figcaption') || fig;
    if (cap.querySelector('.png-button')) continue;
    const btn = h('button', { type: 'button', class: 'link-button png-button', text: 'PNG' });
    btn.addEventListener('click', () => {
      const out = document.createElement('canvas');
      out.width = canvas.width;
      out.height = canvas.height;
      const g = out.getContext('2d');
      g.fillStyle = '#fff';
      g.fillRect(0, 0, out.width, out.height);
      g.drawImage(canvas, 0, 0);
      const id = fig.dataset.chart || 'chart';
      save(out.toDataURL('image/png'), `${prefix}-${id}.png`);
    });
    cap.append(btn);
  }
}

export function exportBar(run) {
  const id = encodeURIComponent(run.id);
  return h('p', { class: 'export-bar', id: 'export-bar' },
    'Download: ',
    h('a', { href: `/api/runs/${id}?format=json`, download: `numalab-run-${run.id}.json`, text: 'run (JSON, re-importable)' }), ' · ',
    h('a', { href: `/api/runs/${id}/export.csv`, download: '', text: 'samples (CSV)' }), ' · ',
    h('a', { href: `#/compare/${id}`, text: 'compare with…' }));
}
