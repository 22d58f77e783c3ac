// run-view.js - the results of one run: status, headline, charts, placement, notes, machine
import { h, clear, paragraphs } from './dom.js';
import { ChartSet } from './charts.js';
import { label, withUnit, withInterval, clock, duration, toDate } from './format.js';
import { Eta } from './eta.js';
import { readRun, notesByLevel, placementGroups, summaryEntries, importedFrom, markFor, paramsThatApply } from './rundoc.js';
import { figureLabel, seriesLabel } from './compare.js';

// The page's one fold of a run's events, written against docs/events.md:
// the types it listens to are these, and RunView.event below folds them.
// A placement of more threads than this starts folded: a 1,024-row table laid out costs the page a second.
const OPEN_MAX = 64;

export const FINAL = ['done', 'failed', 'cancelled', 'interrupted'];
export const EVENT_TYPES = ['start', 'status', 'placement', 'sample', 'cell', 'progress', 'note', 'summary', 'mark', 'headline', 'end', ...FINAL];


const STATUS_TEXT = {
  idle: 'No run yet',
  queued: 'Queued: waiting for the run ahead of it to finish',
  running: 'Running',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
  interrupted: 'Interrupted: the server stopped during this run; what it had measured is kept',
};

export function badge(status) {
  return h('span', { class: `badge badge-${status}`, text: status });
}

export class RunView {
  // exp: the experiment's schema; run: {id, ...} or null for the empty view
  constructor(container, exp, run) {
    this.container = clear(container);
    this.exp = exp;
    this.id = run ? run.id : null;
    this.status = run ? run.status || 'queued' : 'idle';
    this.placements = new Map(); // label -> threads
    this.groupOpen = new Map(); // placement signature -> open, once a person chose
    this.notes = new Map(); // "level text" -> note
    this.notesOpen = false;
    this.summary = {};
    this.marks = new Map(); // "key mark" -> the verdict's mark, as the run sent it
    this.progress = null;
    this.error = null;
    this.hooks = new Map(); // event type, or 'load' -> [fn]: what other panels add to the fold

    this.head = h('div', { class: 'run-head' });
    this.statusText = h('span', { class: 'status-text' });
    this.bar = h('progress', { class: 'status-progress', max: 1, value: 0, 'aria-label': 'progress' });
    this.eta = new Eta();
    this.etaEl = h('small', { class: 'status-eta', id: 'eta' });
    this.statusEl = h('div', { class: 'status-line', id: 'status', role: 'status', 'aria-live': 'polite', dataset: { status: this.status } },
      this.statusText, this.bar, this.etaEl);
    this.headlineEl = h('p', { class: 'headline', id: 'headline', 'aria-live': 'polite', hidden: true });
    // an imported run: where from, and what the headline it came with said
    this.importedEl = h('p', { class: 'imported-mark', id: 'imported-mark', hidden: true });
    // every warning and note waits behind one line, so the charts stay in view
    this.notesEl = h('details', { class: 'notes-fold', id: 'notes', hidden: true });
    this.notesEl.addEventListener('toggle', () => { this.notesOpen = this.notesEl.open; });
    this.noisy = null; // {short, el}: the noise warning lab.js adds
    this.summaryEl = h('dl', { class: 'summary-tiles', id: 'summary' });
    this.summaryHead = h('summary', {});
    this.summaryBox = h('details', { class: 'summary-box', hidden: true }, this.summaryHead, this.summaryEl);
    this.summaryHead.addEventListener('click', () => { this.summaryTouched = true; });
    this.chartsEl = h('div', { class: 'charts', id: 'charts' });
    this.placementEl = h('section', { class: 'placement', id: 'placement', hidden: true });
    this.machineEl = h('details', { class: 'machine-details', hidden: true });

    // what a class looks at first comes first: outcome, charts, then the detail
    container.append(this.head, this.headlineEl, this.importedEl, this.statusEl, this.notesEl,
      this.chartsEl, this.placementEl, this.summaryBox, this.machineEl);
    this.charts = new ChartSet(this.chartsEl, exp ? exp.charts : [], exp ? exp.references : [], { seriesLabel: (name) => seriesLabel(name, exp) });
    this.run = run || null;
    this.renderHead();
    this.renderStatus();
  }

  destroy() {
    clearInterval(this.etaTimer);
    this.charts.destroy();
  }

  isFinal() {
    return FINAL.includes(this.status);
  }

  // Another panel's part in the fold: fn(d) after each event of this type
  // ('sample', 'placement', ...) is folded, or fn(doc, reading) after a whole
  // run document ('load'; reading: rundoc.js's readRun of it). The view folds
  // first, so fn sees the view updated.
  on(type, fn) {
    if (!this.hooks.has(type)) this.hooks.set(type, []);
    this.hooks.get(type).push(fn);
    return this;
  }

  emit(type, ...args) {
    for (const fn of this.hooks.get(type) || []) fn(...args);
  }

  // Everything a run document holds; safe to apply again (points replace by key).
  // reading: readRun(doc), when the caller has read it already.
  load(doc, reading = readRun(doc)) {
    this.fold(doc, reading);
    this.emit('load', doc, reading);
  }

  // What the document has is folded in; what it lacks leaves the view as it was.
  fold(doc, r) {
    this.run = { ...this.run, ...doc };
    if (r.status) this.status = r.status;
    if (r.error) this.error = r.error;
    for (const p of r.placement) this.placements.set(p.label, p.threads);
    this.chartContext(r.machine);
    for (const s of r.samples) this.charts.sample(s);
    for (const c of r.cells) this.charts.cell(c);
    for (const n of [...r.notes.warn, ...r.notes.info]) this.notes.set(`${n.level} ${n.text}`, n);
    if (r.progress) this.progress = r.progress;
    if (r.estimate_s) this.eta.start(r.estimate_s, toDate(r.started_at)?.getTime());
    if (r.progress) this.eta.progress(r.progress.done, r.progress.total);
    this.addSummary(r.summary);
    for (const m of r.ownMarks) this.marks.set(`${m.key} ${m.mark}`, m);
    if (r.headline) this.setHeadline(r.headline);
    if (r.provenance) this.markImported(r.provenance);
    this.renderHead();
    this.renderStatus();
    this.renderNotes();
    this.renderSummary();
    this.renderPlacement();
    this.renderMachine(r.machine);
  }

  // entries: [{key, value, unit, lo, hi}]; a key seen before keeps its place
  addSummary(entries) {
    for (const e of entries) this.summary[e.key] = { value: e.value, unit: e.unit, lo: e.lo, hi: e.hi };
  }

  // The verdict's mark on summary key (today's rules first, then the run's own), or null.
  markFor(key) {
    return markFor({ marks: [...this.marks.values()], verdict_today: this.run && this.run.verdict_today }, key);
  }

  // The matrices' relation classes: the cpus measured and the machine's node distances.
  chartContext(machine) {
    const m = machine || (this.run && this.run.machine) || {};
    this.charts.setContext({ threads: this.placements.get('cpus measured') || null, distances: m.distances || null });
  }

  // One event of the stream; returns true on the final one.
  event(type, d) {
    const final = this.foldEvent(type, d);
    this.emit(type, d);
    return final;
  }

  foldEvent(type, d) {
    switch (type) {
      case 'start':
        this.run = { ...this.run, params: d.params || (this.run && this.run.params), machine: d.machine };
        if (this.status === 'queued') this.status = 'running';
        this.renderHead();
        this.renderMachine(d.machine);
        break;
      case 'status':
        if (d.status) this.status = d.status;
        if (d.status === 'running') this.eta.start(d.estimate_s);
        break;
      case 'placement':
        this.placements.set(d.label, d.threads || []);
        this.chartContext();
        this.renderPlacement();
        break;
      case 'sample':
        this.charts.sample(d);
        break;
      case 'cell':
        this.charts.cell(d);
        break;
      case 'progress':
        this.progress = d;
        this.eta.progress(d.done, d.total);
        if (this.status === 'queued') this.status = 'running';
        break;
      case 'note':
        this.notes.set(`${d.level} ${d.text}`, d);
        this.renderNotes();
        break;
      case 'summary':
        this.summary[d.key] = { value: d.value, unit: d.unit, lo: d.lo, hi: d.hi };
        this.renderSummary();
        break;
      case 'mark':
        if (d && typeof d.key === 'string') this.marks.set(`${d.key} ${d.mark}`, d);
        this.renderSummary();
        break;
      case 'headline':
        this.setHeadline(d.text);
        break;
      case 'end':
        if (d.error) this.error = d.error;
        break;
      default:
        if (!FINAL.includes(type)) return false;
        this.status = d.status || type;
        if (d.error) this.error = d.error;
        this.addSummary(summaryEntries(d.summary));
        if (d.headline) this.setHeadline(d.headline);
        this.renderSummary();
        this.renderStatus();
        this.renderHead();
        return true;
    }
    this.renderStatus();
    return false;
  }

  // Runs queued or running before this one (null: unknown), while it waits.
  setQueue(ahead) {
    if (this.ahead === ahead) return;
    this.ahead = ahead;
    this.renderStatus();
  }

  setHeadline(text) {
    // the text in a span of its own: three lines of it can be shown without the box's padding
    const span = document.createElement('span');
    span.textContent = text;
    this.headlineEl.replaceChildren(span);
    this.headlineEl.hidden = !text;
    // a verdict that must say why it cannot compare runs long: it shows
    // three lines (the chart stays on screen) and opens whole on a press
    const long = (text || '').length > 110;
    this.headlineEl.classList.toggle('long', long);
    this.headlineEl.classList.remove('open');
    if (long) {
      this.headlineEl.tabIndex = 0;
      this.headlineEl.setAttribute('role', 'button');
      this.headlineEl.title = 'press to read it all';
      this.headlineEl.setAttribute('aria-expanded', 'false');
    } else {
      this.headlineEl.removeAttribute('tabindex');
      this.headlineEl.removeAttribute('role');
      this.headlineEl.removeAttribute('title');
      this.headlineEl.removeAttribute('aria-expanded');
    }
    if (!this.headlineToggle) {
      this.headlineToggle = (ev) => {
        if (!this.headlineEl.classList.contains('long')) return;
        if (ev.type === 'keydown' && ev.key !== 'Enter' && ev.key !== ' ') return;
        if (ev.type === 'keydown') ev.preventDefault();
        const open = this.headlineEl.classList.toggle('open');
        this.headlineEl.setAttribute('aria-expanded', String(open));
      };
      this.headlineEl.addEventListener('click', this.headlineToggle);
      this.headlineEl.addEventListener('keydown', this.headlineToggle);
    }
  }

  // Today's verdict leads; one line says where the run came from and what changed.
  // prov: rundoc.js's provenance of the run
  markImported(prov) {
    if (prov.today) this.setHeadline(prov.today);
    const from = `${importedFrom(prov)}${prov.client ? ` (sent by ${prov.client})` : ''}`;
    let what = '';
    if (prov.changed) what = prov.headline ? `; as imported it said: “${prov.headline}”` : '; it came without a headline';
    else if (prov.today !== null) what = '; today’s rules say what it said';
    this.importedEl.textContent = from + what;
    this.importedEl.hidden = false;
  }

  renderHead() {
    const head = clear(this.head);
    if (!this.run) {
      // nothing measured yet: the wide column is the place to read about the experiment
      const about = this.exp && this.exp.explain ? paragraphs(this.exp.explain) : [];
      head.append(
        // open to read; the classroom folds it while the class guesses (it quotes the article's figures)
        about.length ? h('details', { class: 'about', id: 'about', open: true },
          h('summary', {}, h('h2', { class: 'run-title', text: 'What this experiment shows' })), about) : null,
        h('p', { class: 'run-empty', text: 'Set the parameters and press Run, or open one of the recent runs. The charts below fill in as each measurement arrives.' }),
        h('p', { class: 'run-empty-classroom', text: 'Ask the class the question on the left, write down its guess, then press Run: the parameters it will use are listed there.' }));
      return;
    }
    const r = this.run;
    const started = toDate(r.started_at || r.created_at);
    const finished = toDate(r.finished_at);
    const meta = [];
    if (started) meta.push(`${this.status === 'queued' && !r.started_at ? 'queued' : 'started'} ${clock(started)}`);
    if (started && finished) meta.push(`took ${duration((finished - started) / 1000)}`);
    head.append(
      h('div', { class: 'run-title-row' },
        h('h2', { class: 'run-title' }, `Run ${r.id}`),
        badge(this.status),
        h('span', { class: 'run-meta', text: meta.join(' · ') }),
        h('a', { class: 'permalink', href: `#/runs/${encodeURIComponent(r.id)}`, title: 'link to this run' }, 'link')),
      paramsLine(r.params, this.exp));
  }

  renderStatus() {
    const s = this.status;
    this.statusEl.dataset.status = s;
    let text = STATUS_TEXT[s] || s;
    const p = this.progress;
    const total = p && Number(p.total) > 0 ? Number(p.total) : 0;
    if (s === 'queued' && Number.isInteger(this.ahead)) {
      text = this.ahead === 0 ? 'Queued: next in line' : `Queued: position ${this.ahead + 1}, ${this.ahead} run${this.ahead === 1 ? '' : 's'} ahead of it`;
    } else if (s === 'running' && p) {
      text = `Running: ${p.what || 'measuring'}`;
      if (total) text += ` (step ${Math.min(Number(p.done) + 1, total)} of ${total})`;
    } else if (s === 'failed' && this.error) {
      text = `Failed: ${this.error}`;
    } else if (s === 'cancelled' && this.error) {
      text = `Cancelled: ${this.error}`;
    } else if (s === 'done' && this.run) {
      const a = toDate(this.run.started_at || this.run.created_at);
      const b = toDate(this.run.finished_at);
      const n = this.charts.measured();
      text = `Done: ${n} measurement${n === 1 ? '' : 's'}${a && b ? ` in ${duration((b - a) / 1000)}` : ''}`;
    }
    this.statusText.textContent = text;
    this.renderEta();
    this.charts.settle(FINAL.includes(s));
    this.bar.hidden = s === 'idle';
    if (s === 'done') {
      this.bar.max = 1;
      this.bar.value = 1;
    } else if (total) {
      this.bar.max = total;
      this.bar.value = Math.min(Number(p.done) || 0, total);
    } else if (s === 'running') {
      this.bar.removeAttribute('value'); // indeterminate until the first progress event
    } else {
      this.bar.value = 0;
    }
  }

  // "about N s left" beside the bar while running, counted down each second.
  renderEta() {
    const running = this.status === 'running';
    this.etaEl.textContent = running ? this.eta.text() : '';
    this.etaEl.hidden = !this.etaEl.textContent;
    if (running && !this.etaTimer) {
      this.etaTimer = setInterval(() => this.renderEta(), 1000);
    } else if (!running && this.etaTimer) {
      clearInterval(this.etaTimer);
      this.etaTimer = null;
    }
  }

  // The noise warning (an element, and its first words for the folded line), or null.
  setNoisy(noisy) {
    this.noisy = noisy;
    this.renderNotes();
  }

  // One line: the first warning and how many more; the whole list behind it.
  renderNotes() {
    const el = clear(this.notesEl);
    const { warn: warns, info: infos } = notesByLevel([...this.notes.values()]);
    const nwarn = warns.length + (this.noisy ? 1 : 0);
    const item = (n) => h('li', { class: `note note-${n.level === 'warn' ? 'warn' : 'info'}` },
      h('span', { class: 'note-level', text: n.level === 'warn' ? 'warning' : 'note' }), h('span', { text: n.text }));
    el.hidden = !nwarn && !infos.length;
    if (el.hidden) return;
    const first = this.noisy ? this.noisy.short : h('span', { text: (warns[0] || infos[0]).text });
    const count = [nwarn && `${nwarn} warning${nwarn === 1 ? '' : 's'}`, infos.length && `${infos.length} note${infos.length === 1 ? '' : 's'}`]
      .filter(Boolean).join(', ');
    el.classList.toggle('has-warn', nwarn > 0);
    el.open = this.notesOpen;
    el.append(h('summary', {},
      h('span', { class: 'notes-count', text: count }),
      h('span', { class: 'notes-first' }, first)),
    this.noisy ? this.noisy.el : null,
    h('ul', { class: 'notes' }, [...warns, ...infos].map(item)));
  }

  renderSummary() {
    const el = clear(this.summaryEl);
    const keys = Object.keys(this.summary);
    for (const k of keys) {
      const v = this.summary[k] || {};
      const m = this.markFor(k);
      // the figure in words from the experiment's summary_labels; the key itself on hover
      const name = figureLabel(k, this.exp);
      // a value the verdict disowns is struck through and says why; a bound says "at least"
      if (m && m.mark === 'disowned') {
        el.append(h('div', { class: 'tile tile-disowned', title: m.why }, h('dt', { text: name, title: k }),
          h('dd', {}, h('s', { text: withUnit(v.value, v.unit) }),
            h('small', { class: 'tile-mark', text: `not a valid measurement${m.why ? `: ${m.why}` : ''}` }))));
      } else if (m && m.mark === 'at_least') {
        el.append(h('div', { class: 'tile tile-at-least', title: m.why }, h('dt', { text: name, title: k }),
          h('dd', { text: `at least ${withInterval(v.value, v.unit, v.lo, v.hi)}` })));
      } else {
        el.append(h('div', { class: 'tile' }, h('dt', { text: name, title: k }), h('dd', { text: withInterval(v.value, v.unit, v.lo, v.hi) })));
      }
    }
    this.summaryHead.textContent = `Summary figures (${keys.length})`;
    // a handful stays open; dozens wait for a click
    if (!this.summaryTouched) this.summaryBox.open = keys.length <= 8;
    this.summaryBox.hidden = keys.length === 0;
  }

  // Identical placements (same CPUs for the same threads) are shown once, with every part that used them.
  renderPlacement() {
    const el = clear(this.placementEl);
    if (!this.placements.size) {
      el.hidden = true;
      return;
    }
    el.hidden = false;
    const multiPkg = new Set([...this.placements.values()].flat().map((t) => t.package)).size > 1;
    el.append(h('h3', { text: 'Where each thread ran' }),
      h('p', { class: 'placement-intro', text: 'Each thread reports the CPU it ran on from inside the thread. A row marked “moved” ran somewhere other than the CPU it asked for.' }));
    const list = placementGroups(this.placements);
    list.forEach((g, i) => {
      const moved = g.threads.some(mismatch);
      const shown = g.labels.length > 3 ? `${g.labels.slice(0, 3).join('; ')}; and ${g.labels.length - 3} more` : g.labels.join('; ');
      const chosen = this.groupOpen.get(g.sig);
      const details = h('details', { class: `placement-group${moved ? ' has-moved' : ''}`, open: chosen ?? ((i === list.length - 1 && g.threads.length <= OPEN_MAX) || moved) },
        h('summary', {},
          h('strong', { text: `${g.threads.length} thread${g.threads.length === 1 ? '' : 's'}` }),
          moved ? h('span', { class: 'moved-flag', text: 'moved' }) : null,
          h('span', { class: 'placement-labels', text: shown })),
        placementTable(g.threads, multiPkg));
      // what a person opened or closed stays so while more events arrive
      details.querySelector('summary').addEventListener('click', () => this.groupOpen.set(g.sig, !details.open));
      el.append(details);
    });
  }

  renderMachine(m) {
    if (!m || typeof m !== 'object' || !Object.keys(m).length) return;
    const el = clear(this.machineEl);
    el.hidden = false;
    const rows = [];
    for (const [k, v] of Object.entries(m)) {
      let text;
      if (v === null || v === undefined) continue;
      if (Array.isArray(v)) text = v.every((x) => typeof x !== 'object') ? v.join(', ') : JSON.stringify(v);
      else if (typeof v === 'object') text = JSON.stringify(v);
      else if (typeof v === 'boolean') text = v ? 'yes' : 'no';
      else text = String(v);
      rows.push(h('dt', { text: label(k) }), h('dd', { text }));
    }
    el.append(h('summary', { text: 'Machine and build this run was measured on' }), h('dl', { class: 'machine-list' }, rows));
  }
}

function mismatch(t) {
  return Number.isInteger(t.cpu) && t.cpu >= 0 && t.cpu_observed !== undefined && t.cpu_observed !== t.cpu;
}

function placementTable(threads, withPackage) {
  const cell = (v) => h('td', { text: v === null || v === undefined || v < 0 ? '–' : String(v) });
  return h('table', { class: 'placement-table' },
    h('thead', {}, h('tr', {},
      ['thread', 'requested CPU', 'observed CPU', 'core', withPackage ? 'package' : null, 'L2', 'L3', 'node']
        .filter(Boolean).map((t) => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, threads.map((t) => {
      const moved = mismatch(t);
      // two threads on one CPU take turns: worth seeing when the scheduler placed them
      const twin = threads.find((o) => o !== t && o.cpu_observed === t.cpu_observed && t.cpu_observed >= 0);
      return h('tr', { class: moved ? 'mismatch' : null },
        h('th', { scope: 'row', text: String(t.thread) }),
        h('td', { text: Number.isInteger(t.cpu) && t.cpu >= 0 ? String(t.cpu) : 'any' }),
        h('td', { class: moved ? 'observed-moved' : null }, String(t.cpu_observed ?? '–'),
          moved ? h('span', { class: 'moved-flag', text: 'moved' }) : null,
          twin ? h('span', { class: 'twin-flag', text: `shared with thread ${twin.thread}` }) : null),
        cell(t.core), withPackage ? cell(t.package) : null, cell(t.l2), cell(t.l3), cell(t.node));
    })));
}

// An empty cpus list means the placement strategy chose them.
function shownValue(k, v) {
  if (v !== '') return String(v);
  return k === 'cpus' ? '(by placement)' : '(empty)';
}

// One line of k=v (the whole list when opened): the chart, not the parameters, is what the screen is for.
function paramsLine(params, exp) {
  if (!params || typeof params !== 'object') return null;
  const entries = paramsThatApply(params, exp && exp.params);
  const items = entries.map(([k, v]) =>
    h('li', { class: 'param-chip' }, h('span', { class: 'k', text: k }), '=', h('span', { class: 'v', text: shownValue(k, v) })));
  return h('details', { class: 'params-fold' },
    h('summary', {}, h('span', { class: 'params-count', text: `${entries.length} parameters` }),
      h('span', { class: 'params-short', text: entries.map(([k, v]) => `${k}=${shownValue(k, v)}`).join(' · ') })),
    h('ul', { class: 'params-line', 'aria-label': 'parameters of this run' }, items));
}

