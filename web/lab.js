// lab.js - the lab pages beside the dashboard (history, compare) and what every run view gains (machine panel, noise warning, downloads)
import { machinePanel, noisyWarning } from './machine.js';
import { exportBar, pngButtons, runMeta } from './export.js';
import { showHistory } from './history.js';
import { showCompare } from './compare-page.js';
import { runTopology, showTopology } from './run-topology.js';
import { showCampaigns, showCampaign } from './campaign.js';
import { isPageCount, provenance } from './rundoc.js';

function parseQuery(s) {
  return Object.fromEntries(new URLSearchParams(s || ''));
}

// Handles #/topology, #/history, #/compare/1,2, #/campaigns and #/campaigns/ID; returns true when it did.
// ctx: {results, exps, byName, topo, setView, showExperiment(name, params)}
export function labRoute(hash, ctx) {
  if (hash === '#/topology') {
    ctx.setView({ destroy() {}, isFinal: () => true, id: null }, 'This machine');
    showTopology(ctx.results, ctx.topo);
    return true;
  }
  let m = hash.match(/^#\/history(?:\?(.*))?$/);
  if (m) {
    ctx.setView({ destroy() {}, isFinal: () => true, id: null }, 'History');
    const q = parseQuery(m[1]);
    if (q.experiment) ctx.showExperiment(q.experiment);
    showHistory(ctx.results, q, ctx.exps);
    return true;
  }
  if (hash === '#/campaigns') {
    ctx.setView({ destroy() {}, isFinal: () => true, id: null }, 'Campaigns');
    showCampaigns(ctx.results);
    return true;
  }
  m = hash.match(/^#\/campaigns\/([A-Za-z0-9._-]+)$/);
  if (m) {
    // sets: the chart sets of the page shown; es: the campaign's event stream while it runs
    const holder = {
      sets: [], es: null,
      destroySets() { for (const s of this.sets) s.destroy(); this.sets = []; },
      destroy() { this.destroySets(); if (this.es) this.es.close(); this.es = null; },
      isFinal: () => true, id: null,
    };
    ctx.setView(holder, `Campaign ${m[1]}`);
    showCampaign(ctx.results, m[1], { byName: ctx.byName, holder });
    return true;
  }
  m = hash.match(/^#\/compare\/(\d+(?:,\d+)*)$/);
  if (m) {
    const ids = m[1].split(',');
    const holder = { destroy() { if (this.inner) this.inner.destroy(); }, isFinal: () => true, id: null, inner: null };
    ctx.setView(holder, `Compare ${ids.map((i) => `#${i}`).join(', ')}`);
    showCompare(ctx.results, ids, ctx.byName, ctx.showExperiment).then((v) => { holder.inner = v; });
    return true;
  }
  return false;
}

// The run view, with the panels every run gets once its document is loaded.
export function decorateRun(view, topo) {
  const extras = { machine: null, bar: null };
  let reading = null; // the last document's reading: a chart's PNG says which run and machine
  // the machine's picture, drawn again as placements and page counts arrive
  const seen = { placement: new Map(), samples: new Map() };
  let pic = null;
  const drawTopology = () => {
    const run = view.run;
    if (!run || run.id === null || run.id === undefined) return;
    if (!pic) {
      pic = runTopology(topo, run);
      if (!pic) return;
      view.placementEl.parentNode.insertBefore(pic.el, view.placementEl);
    }
    pic.update({ placement: [...seen.placement.values()], samples: [...seen.samples.values()] });
  };
  const keep = (type, d) => {
    if (type === 'placement') seen.placement.set(d.label, d);
    else if (type === 'sample' && isPageCount(d)) seen.samples.set(`${d.series}\n${d.x}`, d);
  };
  view.on('start', () => drawTopology());
  view.on('placement', (d) => { keep('placement', d); drawTopology(); });
  view.on('sample', (d) => {
    if (!isPageCount(d)) return;
    keep('sample', d);
    drawTopology();
  });
  const swap = (key, el, before) => {
    if (extras[key]) extras[key].remove();
    extras[key] = el;
    if (el) before.parentNode.insertBefore(el, before);
  };
  view.on('load', (doc, r) => {
    for (const p of r.placement) keep('placement', p);
    for (const x of r.pages) keep('sample', x);
    drawTopology();
    const run = view.run || doc;
    if (!run || run.id === null || run.id === undefined) return;
    reading = r;
    // the downloads under the charts: the screen's top is for the verdict and the chart
    if (extras.bar) extras.bar.remove();
    extras.bar = exportBar(run, view.exp);
    view.chartsEl.after(extras.bar);
    view.setNoisy(noisyWarning(r));
    // what an earlier document of this run said stands where this one is silent
    swap('machine', machinePanel(r.machine || run.machine, r.provenance || provenance(run)), view.machineEl);
    setTimeout(() => pngButtons(view.chartsEl, `numalab-run-${run.id}`, () => runMeta(reading, view.exp)), 200);
  });
  return view;
}
