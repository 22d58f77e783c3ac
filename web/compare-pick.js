// compare-pick.js - "compare with…" on a run: its experiment's recent runs, in view, each with the parameters that set it apart
import { api } from './api.js';
import { h } from './dom.js';
import { clock } from './format.js';
import { paramsThatApply } from './rundoc.js';

// The parameter names whose values are not the same in every one of the param objects, in first-seen order.
export function paramsThatDiffer(list) {
  const keys = [];
  for (const p of list) for (const k of Object.keys(p || {})) if (!keys.includes(k)) keys.push(k);
  const val = (p, k) => (p && k in p ? JSON.stringify(p[k]) : '–');
  return keys.filter((k) => list.some((p) => val(p, k) !== val(list[0], k)));
}

// "threads=4 · stride=64", the values of keys in params; '' when there are none
export function paramText(params, keys) {
  return keys.filter((k) => params && k in params).map((k) => `${k}=${params[k]}`).join(' · ');
}

// The params a run read, as an object (paramsThatApply): runs recorded before numalab left the others out keep
// them, and a value no run read is no difference. expParams: the experiment's schema params (none: every one).
export function paramsRead(params, expParams) {
  return Object.fromEntries(paramsThatApply(params, expParams));
}

// The picker for run (a run list row or document: {id, experiment, params}); returns its element. expParams: the
// experiment's schema params, so that only what the runs read sets them apart.
export function comparePicker(run, expParams) {
  const list = h('ul', { class: 'pick-list', id: 'compare-pick-list' }, h('li', { text: 'reading the recent runs…' }));
  const go = h('button', { type: 'button', class: 'primary', id: 'compare-pick-go', disabled: true, text: 'Compare' });
  const msg = h('p', { class: 'pick-msg', id: 'compare-pick-msg', 'aria-live': 'polite', text: 'Pick one run or more.' });
  const el = h('section', { class: 'compare-pick', id: 'compare-pick', 'aria-label': `compare run ${run.id} with` },
    h('h3', { id: 'compare-pick-title', tabindex: '-1', text: `Compare run #${run.id} with…` }), list, h('div', { class: 'pick-bar' }, go, msg));
  const chosen = new Set();
  go.addEventListener('click', () => { location.hash = `#/compare/${[run.id, ...chosen].join(',')}`; });
  api.runs({ experiment: run.experiment, limit: 20 }).then((data) => {
    const others = (data.runs || []).filter((r) => String(r.id) !== String(run.id) && r.status === 'done');
    list.replaceChildren();
    if (!others.length) {
      list.append(h('li', { text: 'No other finished run of this experiment yet: run it again with other parameters, or on another machine.' }));
      return;
    }
    const read = (r) => paramsRead(r.params, expParams);
    const mine = read(run);
    const keys = paramsThatDiffer([mine, ...others.map(read)]);
    for (const r of others) {
      const box = h('input', { type: 'checkbox', id: `pick-${r.id}`, value: String(r.id) });
      box.addEventListener('change', () => {
        if (box.checked) chosen.add(String(r.id)); else chosen.delete(String(r.id));
        go.disabled = !chosen.size;
        msg.textContent = chosen.size ? `${chosen.size + 1} runs will be compared` : 'Pick one run or more.';
      });
      const theirs = read(r);
      const diff = paramText(theirs, keys.filter((k) => JSON.stringify(theirs[k]) !== JSON.stringify(mine[k])));
      list.append(h('li', {}, h('label', { for: `pick-${r.id}` }, box,
        h('span', { class: 'pick-id', text: `#${r.id}` }),
        h('span', { class: 'pick-when', text: clock(r.started_at || r.created_at) }),
        h('span', { class: 'pick-host', text: r.hostname || '' }),
        h('span', { class: 'pick-params', text: diff || 'same parameters' }))));
    }
  }).catch((e) => { list.replaceChildren(h('li', { class: 'error', text: `could not list the runs: ${e.message}` })); });
  return el;
}
