// history.js - every stored run, filtered by experiment and machine, newest first, paged; import a run from a file
import { api } from './api.js';
import { h, clear } from './dom.js';
import { clock } from './format.js';
import { badge } from './run-view.js';
import { provenance } from './rundoc.js';
import { paramsRead, paramsThatDiffer, paramText } from './compare-pick.js';

const PAGE = 20;

export async function importFile(file) {
  return api.importRun(await file.text());
}

// The parameters of runs[i] that differ among its experiment's runs on the page (keys), those that set it apart from
// its neighbours of the same experiment first: two runs side by side that differ in stride read so at once.
export function differFirst(runs, i, keys) {
  const r = runs[i];
  const near = [];
  for (const step of [-1, 1]) {
    for (let j = i + step; j >= 0 && j < runs.length; j += step) {
      if (runs[j].experiment !== r.experiment) continue;
      near.push(runs[j]);
      break;
    }
  }
  const val = (p, k) => JSON.stringify((p || {})[k]);
  const close = keys.filter((k) => near.some((o) => val(o.params, k) !== val(r.params, k)));
  return [...close, ...keys.filter((k) => !close.includes(k))];
}

// q: {experiment, machine, offset}; exps: the schema list
export async function showHistory(container, q, exps) {
  clear(container);
  const offset = Math.max(0, parseInt(q.offset, 10) || 0);
  const expSel = h('select', { id: 'history-experiment', 'aria-label': 'experiment' },
    h('option', { value: '', text: 'every experiment' }),
    exps.map((e) => h('option', { value: e.name, text: e.title || e.name, selected: e.name === q.experiment })));
  const machine = h('input', { id: 'history-machine', type: 'search', placeholder: 'host name or CPU model', value: q.machine || '' });
  const msg = h('p', { class: 'history-msg', id: 'history-msg', 'aria-live': 'polite' });
  const picker = h('input', { type: 'file', id: 'import-file', accept: '.json,application/json' });
  const go = (o) => {
    const p = new URLSearchParams();
    if (expSel.value) p.set('experiment', expSel.value);
    if (machine.value.trim()) p.set('machine', machine.value.trim());
    if (o) p.set('offset', String(o));
    location.hash = `#/history${p.toString() ? `?${p}` : ''}`;
  };
  expSel.addEventListener('change', () => go(0));
  machine.addEventListener('change', () => go(0));
  picker.addEventListener('change', async () => {
    if (!picker.files[0]) return;
    try {
      const r = await importFile(picker.files[0]);
      location.hash = `#/runs/${r.id}`;
    } catch (e) {
      msg.textContent = `not imported: ${e.message}`;
      msg.classList.add('error');
    }
  });
  const compareBtn = h('button', { type: 'button', class: 'primary', id: 'compare-button', disabled: true, text: 'Compare selected' });
  const tbody = h('tbody');
  container.append(
    h('h2', { class: 'run-title', text: 'History' }),
    h('div', { class: 'history-filters' }, h('label', {}, 'Experiment ', expSel), h('label', {}, 'Machine ', machine),
      h('label', { class: 'import-label' }, 'Import a run (JSON from another numalab or numalab run --json) ', picker)),
    msg,
    h('table', { class: 'history-table', id: 'history-table' },
      // the first column's header is for a screen reader: the boxes say what they pick
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, h('span', { class: 'visually-hidden', text: 'compare' })),
        ['run', 'experiment', 'parameters', 'status', 'machine', 'started', 'outcome'].map((t) => h('th', { scope: 'col', text: t })))),
      tbody),
    h('div', { class: 'history-pager' }, compareBtn));
  let data;
  try {
    data = await api.runs({ experiment: q.experiment, machine: q.machine, limit: PAGE, offset });
  } catch (e) {
    msg.textContent = `could not list the runs: ${e.message}`;
    return;
  }
  const chosen = new Set();
  const titleOf = (n) => (exps.find((e) => e.name === n) || { title: n }).title;
  // each run's params as it read them: older runs kept the ones they did not read too
  const read = new Map(data.runs.map((r) => [r, paramsRead(r.params, (exps.find((e) => e.name === r.experiment) || {}).params)]));
  const runsRead = data.runs.map((r) => ({ ...r, params: read.get(r) }));
  // the parameters that set a run apart from the others of its experiment on this page
  const differ = new Map();
  for (const e of new Set(data.runs.map((r) => r.experiment))) {
    differ.set(e, paramsThatDiffer(runsRead.filter((r) => r.experiment === e).map((r) => r.params)));
  }
  data.runs.forEach((r, i) => {
    const keys = differFirst(runsRead, i, differ.get(r.experiment));
    const mine = read.get(r);
    const ptext = paramText(mine, keys) || paramText(mine, Object.keys(mine));
    const mtext = [r.hostname, provenance(r) ? 'imported' : null, r.cpu_model].filter(Boolean).join(' · ') || '–';
    const box = h('input', { type: 'checkbox', 'aria-label': `select run ${r.id}`, dataset: { id: String(r.id), experiment: r.experiment } });
    box.addEventListener('change', () => {
      if (box.checked) chosen.add(box); else chosen.delete(box);
      const kinds = new Set([...chosen].map((b) => b.dataset.experiment));
      compareBtn.disabled = chosen.size < 2 || kinds.size !== 1;
      compareBtn.title = kinds.size > 1 ? 'compare runs of one experiment' : '';
    });
    tbody.append(h('tr', { dataset: { id: String(r.id) }, title: r.headline || null },
      h('td', {}, box),
      h('td', {}, h('a', { href: `#/runs/${r.id}`, text: `#${r.id}` })),
      h('td', { text: titleOf(r.experiment) }),
      h('td', { class: 'history-params', text: ptext || '–', title: paramText(mine, Object.keys(mine)) }),
      h('td', {}, badge(r.status)),
      h('td', { class: 'history-machine', text: mtext, title: mtext }),
      h('td', { text: clock(r.started_at || r.created_at) }),
      h('td', { class: 'history-headline', text: r.headline || '', title: r.headline || '' })));
  });
  if (!data.runs.length) tbody.append(h('tr', {}, h('td', { colspan: 8, text: 'No runs match.' })));
  compareBtn.addEventListener('click', () => {
    location.hash = `#/compare/${[...chosen].map((b) => b.dataset.id).join(',')}`;
  });
  const pager = container.querySelector('.history-pager');
  const shown = `${data.total ? offset + 1 : 0}–${offset + data.runs.length} of ${data.total}`;
  pager.append(
    h('button', { type: 'button', disabled: offset === 0, onclick: () => go(Math.max(0, offset - PAGE)), text: '← newer' }),
    h('span', { class: 'history-count', text: shown }),
    h('button', { type: 'button', disabled: offset + PAGE >= data.total, onclick: () => go(offset + PAGE), text: 'older →' }));
}
