// campaign.js - a fleet campaign compared machine by machine: their components, each one's figure against a baseline, and why to doubt it
import { openStream } from './sse.js';
import { h, clear } from './dom.js';
import { api } from './api.js';
import { bytes, withUnit } from './format.js';
import { noisyPoints, spreadOf } from './machine.js';
import { machinesSection } from './campaign-machines.js';
import { csvText } from './csv.js';
import { readRun, markIn } from './rundoc.js';
import { figureLabel, headlineKey, betterWay } from './compare.js';

// The components a comparison turns on, each a label and how to read it from a run's machine and its node.
// A node's run is the campaign's summary of it (id, status, headline, summary, machine, params), read as a run document is.
const COMPONENTS = [
  ['CPU', (m) => m.cpu_model],
  ['Sockets', (m) => m.packages],
  ['NUMA nodes', (m) => m.nodes],
  ['Cores / CPUs', (m) => (m.cores ? `${m.cores} / ${m.pus}` : null)],
  ['SMT', (m) => (m.smt === undefined ? null : m.smt ? 'on' : 'off')],
  ['Caches', (m) => (m.caches || []).map((c) => `L${c.level} ${bytes(c.size)}`).join(', ') || null],
  ['Kernel', (m) => m.kernel],
  ['Governor', (m) => m.governor],
  ['THP', (m) => m.thp],
  ['Virtual machine', (m) => (m.vm === undefined ? null : m.vm ? 'yes' : 'no')],
  ['Host name', (m) => m.hostname],
  ['Features', (m, n) => (n.features || []).join(', ') || null],
  ['Partition', (m, n) => n.partition],
  ['Exclusive', (m, n) => (n.exclusive ? 'yes' : 'no')],
  ['numalab', (m) => m.version],
];

export function componentRows(nodes) {
  const machines = nodes.map((n) => readRun(n.run).machine || {});
  return COMPONENTS.map(([label, read]) => {
    const vals = nodes.map((n, i) => {
      const v = read(machines[i], n);
      return v === null || v === undefined || v === '' ? '–' : String(v);
    });
    // a machine still running (no run yet) sets nothing apart
    const known = vals.filter((v, i) => nodes[i].run);
    return { label, vals, differs: new Set(known).size > 1 };
  });
}

// What to doubt about one machine's figure: [text]. r: rundoc.js's reading of its whole run, or null.
export function warnings(node, r) {
  const out = [];
  const m = readRun(node.run).machine || {};
  if (!node.exclusive) out.push('not exclusive: other jobs may have shared the machine');
  if (m.vm) out.push('virtual machine: its topology and clocks are the hypervisor’s');
  const noisy = r ? noisyPoints(r) : [];
  if (noisy.length) out.push(`noisy: ${noisy.length} point${noisy.length > 1 ? 's' : ''} spread over 25% between rounds`);
  return out;
}

// The typical relative spread of a run's points (the median of their spreads), or null. r: rundoc.js's reading.
function typicalSpread(r) {
  const s = [...r.samples, ...r.cells].map((p) => spreadOf(p.stats)).filter((v) => v !== null).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : null;
}

// Places el by percentages through the CSSOM: the page's policy refuses style attributes.
function sized(el, left, width) {
  el.style.left = `${left}%`;
  el.style.width = `${width}%`;
  return el;
}

export function tableCsv(nodes, rows, key, values) {
  const lines = [['component', ...nodes.map((n) => n.node)]];
  for (const r of rows) lines.push([r.label, ...r.vals]);
  lines.push(['state', ...nodes.map((n) => (n.reason && (n.state === 'failed' || n.state === 'cancelled') ? `${n.state}: ${n.reason}` : n.state))]);
  if (key) lines.push([key, ...values.map((v) => (v === null ? '' : v))]);
  return csvText(lines);
}

function download(name, text) {
  const a = h('a', { href: URL.createObjectURL(new Blob([text], { type: 'text/csv' })), download: name });
  document.body.append(a);
  a.click();
  a.remove();
}

export async function showCampaigns(root) {
  clear(root);
  root.append(h('h1', { class: 'campaign-title run-title', text: 'Campaigns' }),
    h('p', { class: 'campaign-help', text: 'One experiment on many machines, started with numalab fleet run (Slurm or ClusterShell), or from an experiment’s form on a server started with --fleet; each appears here when it starts and fills as its machines finish.' }));
  let list;
  try {
    list = (await api.campaigns()).campaigns;
  } catch (e) {
    root.append(h('p', { class: 'run-empty', text: e.message }));
    return;
  }
  if (!list.length) {
    root.append(h('p', { class: 'run-empty', text: 'No campaign yet: numalab fleet run EXPERIMENT --engine slurm --all --db THIS_STORE' }));
    return;
  }
  root.append(h('table', { class: 'campaign-list', id: 'campaign-list' },
    h('thead', null, h('tr', null, ['campaign', 'state', 'experiment', 'engine', 'cluster', 'machines', 'done', 'failed', 'to go', 'created'].map((t) => h('th', { text: t })))),
    h('tbody', null, list.map((c) => h('tr', null,
      h('td', null, h('a', { href: `#/campaigns/${encodeURIComponent(c.id)}`, text: c.id })),
      h('td', { class: `campaign-state-cell state-${c.state}`, text: c.state || '–', title: c.error || '' }),
      h('td', { text: c.experiment }), h('td', { text: c.engine }), h('td', { text: c.cluster || '–' }),
      h('td', { text: c.nodes }), h('td', { text: c.done }), h('td', { class: c.failed ? 'campaign-failed' : '', text: c.failed }),
      h('td', { text: (c.running || 0) + (c.pending || 0) }),
      h('td', { text: (c.created_at || '').replace('T', ' ').slice(0, 19) }))))));
}

// Every node of a campaign (with its run's summary), a page of 1000 at a time: for what must cover every machine.
export async function allNodes(id, total) {
  const out = [];
  for (let off = 0; off < Math.max(total, 1); off += 1000) {
    const p = await api.campaign(id, off, 1000);
    out.push(...p.nodes);
    if (p.nodes.length < 1000) break;
  }
  return out;
}

// "running · 312 of 1000 done · 2 failed": a campaign's state and how far it is.
export function stateLine(c) {
  const n = c.counts || {};
  const parts = [`${c.state || 'running'}`, `${n.done || 0} of ${c.total} done`];
  if (n.failed) parts.push(`${n.failed} failed`);
  if (n.cancelled) parts.push(`${n.cancelled} cancelled`);
  if (n.running) parts.push(`${n.running} running`);
  if (n.pending) parts.push(`${n.pending} pending`);
  return parts.join(' · ');
}

// Machines one page shows: each brings its run, and the side-by-side charts draw each one.
export const CAMPAIGN_PAGE = 24;

// "machines 25–48 of 14000 · done 13990 · failed 10": where this page sits and what every page holds.
export function pageLine(c) {
  const from = c.nodes.length ? c.offset + 1 : 0;
  const to = c.offset + c.nodes.length;
  const states = Object.entries(c.counts || {}).filter(([, n]) => n).map(([k, n]) => `${k} ${n}`);
  return `machine${c.total === 1 ? '' : 's'} ${from}–${to} of ${c.total}${states.length ? ` · ${states.join(' · ')}` : ''}`;
}

// ctx: {byName: experiments by name, holder: {sets: []} collecting what to destroy when the page changes}
// offset: the first machine of the page; a campaign of any size is read one page (and its runs) at a time.
export async function showCampaign(root, id, ctx = {}, offset = 0) {
  if (ctx.holder) ctx.holder.offset = offset;
  let c;
  try {
    c = await api.campaign(id, offset, CAMPAIGN_PAGE);
  } catch (e) {
    clear(root);
    root.append(h('p', { class: 'run-empty', text: e.message }));
    return;
  }
  // only this page's runs, fetched now
  const runs = await Promise.all(c.nodes.map((n) => (n.run_id ? api.run(n.run_id).then(readRun, () => null) : null)));
  const summaries = c.nodes.map((n) => readRun(n.run));
  if (ctx.holder && ctx.holder.destroySets) ctx.holder.destroySets();
  else if (ctx.holder && ctx.holder.destroy) ctx.holder.destroy();
  const scrolled = [root.scrollTop, window.scrollY];
  clear(root);
  const params = Object.entries(c.params || {}).map(([k, v]) => `${k}=${v}`).join(' ');
  const turn = (to) => () => showCampaign(root, id, ctx, to);
  const pager = c.total > c.nodes.length ? h('p', { class: 'campaign-pager', id: 'campaign-pager' },
    h('button', { type: 'button', class: 'link-button', id: 'campaign-prev', text: '‹ previous', disabled: c.offset === 0, onclick: turn(Math.max(0, c.offset - CAMPAIGN_PAGE)) }),
    ` ${pageLine(c)} `,
    h('button', { type: 'button', class: 'link-button', id: 'campaign-next', text: 'next ›', disabled: c.offset + c.nodes.length >= c.total, onclick: turn(c.offset + CAMPAIGN_PAGE) })) : null;
  const running = c.state === 'running';
  const cancel = running && !c.cancel_requested ? h('button', { type: 'button', class: 'link-button', id: 'campaign-cancel', text: 'cancel the campaign' }) : null;
  if (cancel) cancel.addEventListener('click', async () => {
    cancel.disabled = true;
    try {
      await api.cancelCampaign(c.id);
      cancel.textContent = 'cancelling: its jobs are being stopped';
    } catch (e) {
      cancel.textContent = `not cancelled: ${e.message}`;
    }
  });
  const done = (c.counts && c.total) ? Math.round((100 * ((c.counts.done || 0) + (c.counts.failed || 0) + (c.counts.cancelled || 0))) / c.total) : running ? 0 : 100;
  const status = h('div', { class: `campaign-status state-${c.state}`, id: 'campaign-status', role: 'status' },
    h('strong', { id: 'campaign-state', text: stateLine(c) }),
    h('span', { class: 'campaign-progress', 'aria-hidden': 'true' }, sized(h('span', { class: 'campaign-progress-fill' }), 0, done)),
    c.error ? h('span', { class: 'campaign-error', id: 'campaign-error', text: c.error }) : null,
    c.cancel_requested && running ? h('span', { text: 'a cancel was asked for: its coordinator is stopping its jobs' }) : null,
    running ? h('span', { class: 'campaign-help', text: 'live: each machine appears here as it finishes' }) : null, cancel);
  root.append(h('h1', { class: 'campaign-title run-title', id: 'campaign-title', text: `Campaign ${c.id}` }),
    h('p', { class: 'campaign-help' }, `${c.experiment} ${params} · ${c.engine}${c.cluster ? ` on cluster ${c.cluster}` : ''} · ${pageLine(c)} · `,
      h('a', { href: '#/campaigns', text: 'all campaigns' })), status, pager || '');
  follow(root, id, ctx, c);

  // the machines' components: differing rows first and marked, the same ones folded
  const rows = componentRows(c.nodes);
  const head = h('tr', null, h('th', { text: 'component' }), c.nodes.map((n, i) => h('th', { class: `campaign-node state-${n.state}` },
    n.run_id ? h('a', { href: `#/runs/${n.run_id}`, text: n.node }) : n.node,
    warnings(n, runs[i]).length ? h('span', { class: 'campaign-warn-mark', title: warnings(n, runs[i]).join('; '), text: ' ⚠' }) : null)));
  const stateRow = h('tr', { class: 'campaign-state' }, h('th', { text: 'state' }),
    c.nodes.map((n) => h('td', { class: `state-${n.state}`, text: n.state === 'failed' ? `failed: ${n.reason || 'no reason given'}` : n.state === 'cancelled' && n.reason ? `cancelled: ${n.reason}` : n.state })));
  const rowEl = (r) => h('tr', { class: r.differs ? 'differs' : 'same' }, h('th', { text: r.label }), r.vals.map((v) => h('td', { text: v })));
  const differ = rows.filter((r) => r.differs), same = rows.filter((r) => !r.differs);
  const table = h('table', { class: 'campaign-table', id: 'campaign-table' }, h('thead', null, head), h('tbody', null, stateRow, differ.map(rowEl)));
  const folded = same.length ? h('details', { class: 'campaign-same' },
    h('summary', { text: `${same.length} component${same.length > 1 ? 's are' : ' is'} the same on every machine` }),
    h('table', { class: 'campaign-table' }, h('tbody', null, same.map(rowEl)))) : null;

  // each machine's figure for one summary key, against a baseline machine
  const keys = [];
  for (const s of summaries) for (const e of s.summary) if (typeof e.value === 'number' && !keys.includes(e.key)) keys.push(e.key);
  // every machine, not only this page's: read when the CSV or the baseline needs them (a page of 1000 at a time)
  let every = null;
  const everyone = () => {
    if (c.total <= c.nodes.length) return Promise.resolve(c.nodes);
    if (!every) every = allNodes(c.id, c.total).catch((e) => { every = null; throw e; });
    return every;
  };
  const exp = ctx.byName ? ctx.byName.get(c.experiment) : null;
  const keySel = h('select', { id: 'campaign-key', 'aria-label': 'figure' }, keys.map((k) => h('option', { value: k, text: figureLabel(k, exp) })));
  if (keys.length) keySel.value = headlineKey(keys, exp);
  // the baseline: any machine of the campaign with a run; this page's first, the others once read
  const baseSel = h('select', { id: 'campaign-baseline', 'aria-label': 'baseline' },
    c.nodes.filter((n) => n.run).map((n) => h('option', { value: n.node, text: n.node })));
  const baseRun = new Map(c.nodes.filter((n) => n.run).map((n) => [n.node, readRun(n.run)]));
  const moreBases = () => everyone().then((all) => {
    const have = new Set([...baseSel.options].map((o) => o.value));
    for (const n of all) if (n.run && !have.has(n.node)) {
      baseRun.set(n.node, readRun(n.run));
      baseSel.append(h('option', { value: n.node, text: n.node }));
    }
    const note = document.getElementById('campaign-baseline-note');
    if (note) note.textContent = ` (any of the ${baseSel.options.length} machines with a run)`;
  }, () => {});
  if (c.total > c.nodes.length) {
    if (c.state !== 'running') moreBases();
    else baseSel.addEventListener('focus', moreBases, { once: true });
  }
  const baseValue = (k) => {
    const r = baseRun.get(baseSel.value);
    const e = r && r.figures.get(k);
    const i = c.nodes.findIndex((n) => n.node === baseSel.value);
    return e && typeof e.value === 'number' && !(i >= 0 && disowned(k, i)) ? e.value : null;
  };
  const bars = h('div', { class: 'campaign-bars', id: 'campaign-bars' });
  const csvBtn = h('button', { type: 'button', class: 'link-button', id: 'campaign-csv', text: c.total > c.nodes.length ? `CSV of all ${c.total} machines` : 'CSV of the table' });
  // a figure its run's verdict disowns is no figure: it gets no bar and says why
  const disowned = (k, i) => {
    const m = runs[i] ? markIn(runs[i].marks, k) : null;
    return m && m.mark === 'disowned' ? m : null;
  };
  const valuesOf = (k) => summaries.map((s, i) => {
    const e = s.figures.get(k);
    return e && typeof e.value === 'number' && !disowned(k, i) ? e.value : null;
  });
  const draw = () => {
    clear(bars);
    const k = keySel.value;
    if (!k) {
      bars.append(h('p', { class: 'run-empty', text: 'No machine has a figure to compare.' }));
      return;
    }
    const vals = valuesOf(k);
    const base = baseValue(k);
    const unit = (summaries.map((s) => s.figures.get(k)).find(Boolean) || {}).unit || '';
    // a figure better neither way is no ratio: its bars are its values, against the largest
    const way = betterWay(k, unit);
    const big = Math.max(...vals.filter((v) => v !== null).map(Math.abs), 0);
    const ratios = vals.map((v) => (v === null ? null : way ? (base ? v / base : null) : (big ? v / big : 0)));
    // each bar's whisker with its own run's spread: a machine without a figure takes no index from the others
    const top = Math.max(1, ...ratios.map((r, i) => (r === null ? 0 : r * (1 + ((runs[i] && typicalSpread(runs[i])) || 0) / 2))));
    const unitText = unit === 'x' ? '×' : unit;
    bars.append(h('p', { class: 'campaign-help', text: way
      ? `${figureLabel(k, exp)}${unitText ? ` (${unitText})` : ''} of each machine, divided by ${baseSel.value}'s (${way} is better); the whisker spans the typical 95% interval of its points`
      : `${figureLabel(k, exp)}${unitText ? ` (${unitText})` : ''} of each machine; better neither way, so no ratio to a baseline: each bar against the largest; the whisker spans the typical 95% interval of its points` }));
    // a warning every machine shares is said once, above the bars; under a bar only what sets its machine apart
    const all = c.nodes.map((n, i) => (n.run ? warnings(n, runs[i]) : []));
    const withRun = all.filter((w, i) => c.nodes[i].run);
    const common = withRun.length > 1 ? withRun[0].filter((w) => withRun.every((x) => x.includes(w))) : [];
    if (common.length) bars.append(h('p', { class: 'campaign-warn campaign-warn-all', text: `⚠ every machine: ${common.join('; ')}` }));
    c.nodes.forEach((n, i) => {
      const r = ratios[i];
      const spread = runs[i] ? typicalSpread(runs[i]) : null;
      const warn = all[i].filter((w) => !common.includes(w));
      bars.append(h('div', { class: 'campaign-bar-row' },
        h('span', { class: 'campaign-bar-name', text: n.node }),
        h('span', { class: 'campaign-bar-track' },
          r === null ? h('span', { class: 'campaign-bar-none', text: n.state === 'failed' ? `failed: ${n.reason || ''}` : disowned(k, i) ? `not a valid measurement: ${disowned(k, i).why}` : 'no figure' })
            : [sized(h('span', { class: `campaign-bar${Number(baseSel.value) === i ? ' baseline' : ''}` }), 0, (100 * r) / top),
              spread ? sized(h('span', { class: 'campaign-whisker' }), (100 * r * (1 - spread / 2)) / top, (100 * r * spread) / top) : null]),
        h('span', { class: 'campaign-bar-value', text: r === null ? '' : way ? `${r.toFixed(2)}× (${withUnit(vals[i], unit)})` : withUnit(vals[i], unit) }),
        warn.length ? h('span', { class: 'campaign-warn', text: `⚠ ${warn.join('; ')}` }) : null));
    });
  };
  keySel.addEventListener('change', draw);
  baseSel.addEventListener('change', draw);
  // the CSV holds every machine of the campaign, whatever page is shown
  csvBtn.addEventListener('click', async () => {
    csvBtn.disabled = true;
    try {
      const all = await everyone();
      const k = keySel.value;
      const vals = all.map((n) => {
        const e = readRun(n.run).figures.get(k);
        return e && typeof e.value === 'number' ? e.value : null;
      });
      download(`numalab-campaign-${c.id}.csv`, tableCsv(all, componentRows(all), k, vals));
    } catch (e) {
      csvBtn.textContent = `CSV not made: ${e.message}`;
    } finally {
      csvBtn.disabled = false;
    }
  });
  root.append(h('section', { class: 'campaign-section' }, h('h2', { text: 'Machines' }),
    h('div', { class: 'campaign-scroll', id: 'campaign-table-scroll', tabindex: '0', 'aria-label': 'the machines, side by side (scrolls)' }, table), folded, csvBtn),
    h('section', { class: 'campaign-section' }, h('h2', { text: 'Figures' }),
      h('div', { class: 'campaign-controls' }, h('label', null, 'figure ', keySel), h('label', null, ' baseline ', baseSel),
        h('span', { class: 'campaign-help', id: 'campaign-baseline-note', text: c.total > c.nodes.length ? ' (this page’s machines; the others are read when the list is opened)' : '' })), bars),
    machinesSection(c.nodes, runs, ctx.byName ? ctx.byName.get(c.experiment) : null, ctx.holder,
      c.total > c.nodes.length ? { total: c.total, runIds: () => everyone().then((all) => all.map((n) => n.run_id).filter(Boolean)), key: `${c.id}/${c.counts.done}/${c.counts.failed}` } : null));
  draw();
  root.scrollTop = scrolled[0];
  if (window.scrollY !== scrolled[1]) window.scrollTo(0, scrolled[1]);
}

// While a campaign runs its page follows its event stream and draws itself again (at most every 1.5 s).
function follow(root, id, ctx, c) {
  const holder = ctx.holder;
  if (!holder) return;
  if (c.state !== 'running') {
    if (holder.es) holder.es.close();
    holder.es = null;
    return;
  }
  if (holder.es) return;
  let timer = null;
  // read through fetch, not EventSource: the stream carries the page's key with the cookie
  const es = openStream(api.campaignEventsUrl(id), (type) => {
    if (type !== 'campaign' || timer) return;
    timer = setTimeout(() => {
      timer = null;
      if (holder.es === es && document.getElementById('campaign-title')) showCampaign(root, id, ctx, holder.offset || 0);
    }, 1500);
  }, () => { if (holder.es === es) holder.es = null; });
  holder.es = es;
}
