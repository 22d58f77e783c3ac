// runs-list.js - the recent runs, newest first, each a link to its permalink
import { h, clear } from './dom.js';
import { badge } from './run-view.js';
import { clock } from './format.js';
import { api } from './api.js';
import { provenance, importedFrom } from './rundoc.js';

const PAGE = 15;

export class RunsList {
  constructor(list, more, titleOf) {
    this.list = list;
    this.more = more;
    this.titleOf = titleOf; // experiment name -> title
    this.runs = [];
    this.total = 0;
    this.current = null;
    this.busy = null;
    more.addEventListener('click', () => this.load(this.runs.length + PAGE));
  }

  // Reloads the newest `count` runs (keeps a list grown with "older runs" as long as it was).
  refresh() {
    return this.load(Math.max(PAGE, this.runs.length));
  }

  async load(count) {
    const seq = (this.busy = Symbol('load'));
    let data;
    try {
      data = await api.runs({ limit: count, offset: 0 });
    } catch (e) {
      if (seq === this.busy) this.renderError(e.message);
      return;
    }
    if (seq !== this.busy) return;
    this.runs = (data && data.runs) || [];
    this.total = (data && data.total) || this.runs.length;
    this.render();
  }

  select(id) {
    this.current = id === null || id === undefined ? null : String(id);
    for (const li of this.list.children) li.classList.toggle('current', li.dataset.id === this.current);
  }

  render() {
    const list = clear(this.list);
    if (!this.runs.length) list.append(h('li', { class: 'run-none', text: 'No runs yet.' }));
    for (const r of this.runs) {
      const id = String(r.id);
      // a row of the list carries a run's imported mark as its document does
      const prov = provenance(r);
      list.append(h('li', { class: id === this.current ? 'current' : null, dataset: { id, status: r.status } },
        h('a', { href: `#/runs/${encodeURIComponent(id)}`, class: 'run-link' },
          h('span', { class: 'run-line' },
            h('span', { class: 'run-id', text: `#${id}` }),
            h('span', { class: 'run-exp', text: this.titleOf(r.experiment) })),
          h('span', { class: 'run-line' },
            badge(r.status),
            h('span', { class: 'run-when', text: clock(r.started_at || r.created_at) })),
          r.headline ? h('span', { class: 'run-headline', text: r.headline }) : null,
          prov ? h('span', { class: 'run-imported', text: importedFrom(prov) }) : null)));
    }
    this.more.hidden = this.runs.length >= this.total;
  }

  renderError(msg) {
    clear(this.list).append(h('li', { class: 'run-none', text: `Could not list the runs: ${msg}` }));
  }
}
