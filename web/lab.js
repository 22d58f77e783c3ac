// lab.js - the lab pages beside the dashboard (history, compare) and what every run view gains (machine panel, noise warning, downloads)
import { h } from './dom.js';
import { machinePanel, noisyWarning } from './machine.js';
import { exportBar, pngButtons } from './export.js';
import { showHistory } from './history.js';
import { showCompare } from './compare.js';
import { showCampaigns, showCampaign } from './campaign.js';

function parseQuery(s) {
  return Object.fromEntries(new URLSearchParams(s || ''));
}

// Handles #/history, #/compare/1,2, #/campaigns and #/campaigns/ID; returns true when it did. ctx: {results, exps, byName, setView}
export function labRoute(hash, ctx) {
  let m = hash.match(/^#\/history(?:\?(.*))?$/);
  if (m) {
    ctx.setView({ destroy() {}, isFinal: () => true, id: null }, 'History');
    showHistory(ctx.results, parseQuery(m[1]), ctx.exps);
    return true;
  }
  if (hash === '#/campaigns') {
    ctx.setView({ destroy() {}, isFinal: () => true, id: null }, 'Campaigns');
    showCampaigns(ctx.results);
    return true;
  }
  m = hash.match(/^#\/campaigns\/([A-Za-z0-9._-]+)$/);
  if (m) {
    ctx.setView({ destroy() {}, isFinal: () => true, id: null }, `Campaign ${m[1]}`);
    showCampaign(ctx.results, m[1]);
    return true;
  }
  m = hash.match(/^#\/compare\/(\d+(?:,\d+)*)$/);
  if (m) {
    const ids = m[1].split(',');
    const holder = { destroy() { if (this.inner) this.inner.destroy(); }, isFinal: () => true, id: null, inner: null };
    ctx.setView(holder, `Compare ${ids.map((i) => `#${i}`).join(', ')}`);
    if (ids.length < 2) {
      ctx.results.append(h('p', { class: 'run-empty' }, `Pick the runs to compare with run ${ids[0]} in the `, h('a', { href: '#/history', text: 'history' }), '.'));
      return true;
    }
    showCompare(ctx.results, ids, ctx.byName).then((v) => { holder.inner = v; });
    return true;
  }
  return false;
}

// The run view, with the panels every run gets once its document is loaded.
export function decorateRun(view) {
  const load = view.load.bind(view);
  const extras = { machine: null, noisy: null, bar: null };
  const swap = (key, el, before) => {
    if (extras[key]) extras[key].remove();
    extras[key] = el;
    if (el) before.parentNode.insertBefore(el, before);
  };
  view.load = (doc) => {
    load(doc);
    const run = view.run || doc;
    if (!run || run.id === null || run.id === undefined) return;
    swap('bar', exportBar(run), view.statusEl);
    swap('noisy', noisyWarning({ samples: doc.samples, cells: doc.cells }), view.chartsEl);
    swap('machine', machinePanel(run.machine || doc.machine, run.imported || doc.imported), view.machineEl);
    setTimeout(() => pngButtons(view.chartsEl, `numalab-run-${run.id}`), 200);
  };
  return view;
}
