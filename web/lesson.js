// lesson.js - the classroom's lessons: pick one, read its question, take the class's guess, run its params, draw the answer beside the guess and the article
import { h, clear, $ } from './dom.js';
import { num } from './format.js';
import { globMatch } from './rundoc.js';
import { api } from './api.js';
import { drawQR } from './qr.js';
import { classLink, joinInfo } from './signin.js';

const LOBBY_HIDDEN = 'numalab.lobby-hidden';
const GUESSES = 'numalab.guesses'; // run id -> {exp, lesson, guess}, for this tab

const unitText = (u) => (u === 'x' ? '×' : u || '');
const withUnitText = (v, u) => (u === 'x' ? `${num(v)}×` : `${num(v)}${u ? ` ${u}` : ''}`);
// the 95% interval the verdict states beside this machine's answer, "(2.4–2.9)", or ''
const ciText = (a) => (Number.isFinite(a.lo) && Number.isFinite(a.hi) ? `(${num(a.lo)}–${num(a.hi)})` : '');
// this machine's answer with that interval: "2.6× (2.4–2.9)"
const answerText = (a, u) => [withUnitText(a.value, u), ciText(a)].filter(Boolean).join(' ');

function readGuesses() {
  try { return JSON.parse(sessionStorage.getItem(GUESSES) || '{}') || {}; } catch (e) { return {}; }
}

function keepGuess(id, g) {
  const all = readGuesses();
  all[String(id)] = g;
  try { sessionStorage.setItem(GUESSES, JSON.stringify(all)); } catch (e) { /* private mode: the answer shows without the guess */ }
}

// The run's value for a lesson: its answer key, or the first summary key its pattern matches.
export function answerOf(lesson, summary) {
  if (!summary) return null;
  const key = Object.keys(summary).find((k) => globMatch(lesson.answer, k));
  const v = key && summary[key];
  if (!v || !Number.isFinite(Number(v.value))) return null;
  // the interval the verdict states beside the value, where it states one
  const ci = typeof v.lo === 'number' && typeof v.hi === 'number' ? { lo: v.lo, hi: v.hi } : {};
  return { key, value: Number(v.value), ...ci };
}

// What the answer panel shows, decided apart from the page (tests/web/marks.test.mjs):
//   l: the lesson; guess: the class's number or null; ans: answerOf's {key, value} or null;
//   mark: the verdict's mark on ans.key (rundoc.js markFor) or null; judged: the verdict is in (the run ended).
// Returns {rows: [{who, v, cls, text}] (this machine's text with its interval where the verdict states one), machine: 'shown' | 'at_least' | 'disowned' | 'waiting' | 'none', says: a sentence or null}.
// A value the verdict disowns gets no bar, and its reason in the verdict's words; a lower bound says "at least";
// while the verdict is still to come, this machine's number waits for it.
// cls: the class's own guesses {median, n} (their median is a row), or null; the guess is then the teacher's.
export function answerRows(l, guess, ans, mark, judged, cls) {
  const rows = [];
  let machine = 'none';
  let says = null;
  if (cls && cls.n && Number.isFinite(cls.median)) rows.push({ who: `the class (median of ${cls.n})`, v: cls.median, cls: 'class', text: withUnitText(cls.median, l.unit) });
  if (guess !== null && guess !== undefined) rows.push({ who: cls && cls.n ? 'the teacher guessed' : 'the class guessed', v: guess, cls: 'guess', text: withUnitText(guess, l.unit) });
  if (ans && !judged) machine = 'waiting';
  else if (ans && mark && mark.mark === 'disowned') {
    machine = 'disowned';
    says = `this machine: not a valid measurement${mark.why ? ` — ${mark.why}` : ''}`;
  } else if (ans && mark && mark.mark === 'at_least') {
    machine = 'at_least';
    rows.push({ who: 'this machine', v: ans.value, cls: 'machine', bound: true, text: `at least ${answerText(ans, l.unit)}`, ci: ciText(ans) });
    says = `this machine: at least ${answerText(ans, l.unit)}${mark.why ? ` — ${mark.why}` : ''}`;
  } else if (ans) {
    machine = 'shown';
    rows.push({ who: 'this machine', v: ans.value, cls: 'machine', text: answerText(ans, l.unit), ci: ciText(ans) });
  }
  if (l.article && Number.isFinite(l.article_value)) {
    rows.push({ who: 'the article (2007)', v: l.article_value, cls: 'article', note: l.article, text: withUnitText(l.article_value, l.unit) });
  }
  return { rows, machine, says };
}

// A bar of pct percent of its cell (set through the CSSOM: the page's policy refuses style attributes).
function bar(pct) {
  const el = h('span', { class: 'answer-bar' });
  el.style.width = `${Math.max(2, pct).toFixed(1)}%`;
  return el;
}

// app: {current(), view(), form}: the panel in the setup column, filled for the experiment shown.
export class LessonPanel {
  constructor(app) {
    this.app = app;
    this.exp = null;
    this.applied = null; // "hash|lesson" last written into the form
    this.armed = null; // the lesson and guess of a run being started
    this.pick = h('select', { id: 'lesson-pick', onchange: () => { this.applied = null; this.sync(); } });
    this.question = h('p', { class: 'lesson-question', id: 'lesson-question' });
    this.paramsTitle = null;
    this.guess = h('input', { id: 'lesson-guess', type: 'number', step: 'any', inputmode: 'decimal', autocomplete: 'off' });
    this.guessUnit = h('span', { class: 'lesson-unit', id: 'lesson-guess-unit' });
    this.params = h('ul', { class: 'lesson-params', id: 'lesson-params', 'aria-label': 'the parameters this run will use' });
    this.result = h('section', { class: 'lesson-result', id: 'lesson-result', 'aria-label': 'the answer against the guess', hidden: true });
    this.el = h('section', { class: 'lesson', id: 'lesson', 'aria-label': 'lesson' },
      h('div', { class: 'lesson-pick-row' }, h('label', { for: 'lesson-pick', text: 'Lesson' }), this.pick),
      this.question,
      this.guessRow = h('div', { class: 'lesson-guess-row' },
        h('label', { for: 'lesson-guess', text: 'Guess, typed by the teacher' }), this.guess, this.guessUnit),
      this.live = h('section', { class: 'class-live', id: 'class-live', 'aria-label': 'the class’s guesses' }),
      this.paramsTitle = h('p', { class: 'lesson-params-title', text: 'This run will use' }), this.params,
      this.result);
    const head = document.querySelector('.exp-head');
    head.after(this.el);
    // the guess written, Enter runs: the teacher's hands stay on the keyboard
    this.guess.addEventListener('keydown', (ev) => {
      if (ev.key !== 'Enter') return;
      ev.preventDefault();
      const run = $('run-button');
      if (!run.disabled && run.getAttribute('aria-disabled') !== 'true') $('run-form').requestSubmit();
    });
    $('run-form').addEventListener('submit', () => {
      const l = this.lesson();
      if (l && document.body.classList.contains('classroom')) this.armed = { exp: this.exp.name, lesson: l.id, guess: this.guessValue() };
    });
    window.addEventListener('hashchange', () => {
      const m = location.hash.match(/^#\/runs\/(\d+)$/);
      if (m && this.armed) keepGuess(m[1], this.armed);
      // the run answers the class's open question: their guesses are kept with it
      const q = this.state && this.state.question;
      if (m && this.armed && q && q.experiment === this.armed.exp && q.lesson === this.armed.lesson) {
        api.classRun(Number(m[1]), this.armed.guess).then((st) => this.showClass(st)).catch((e) => this.classError(e));
      }
      this.armed = null;
    });
  }

  // The class's part of the panel, on the projector: ask, the link, how many answered, reveal.
  showClass(st) {
    if (st) this.state = st;
    st = this.state;
    const l = this.lesson();
    // the poll brings the same state every 2 s: the panel (its QR code, the focus on its buttons) stays as it is
    let hidden = '';
    try { hidden = sessionStorage.getItem(LOBBY_HIDDEN) || ''; } catch (e) { /* private mode */ }
    const key = JSON.stringify([st, hidden, l && l.id, this.exp && this.exp.name, this.result.hidden, classLink(), this.live.childElementCount > 0]);
    if (key === this.shownClass) return;
    this.shownClass = key;
    const el = clear(this.live);
    if (!l || !this.exp) return;
    const q = st && st.question;
    const mine = q && q.experiment === this.exp.name && q.lesson === l.id;
    if (!mine) {
      el.append(h('button', { type: 'button', id: 'class-open', class: 'class-open', text: 'Ask the class on their phones',
        onclick: () => api.classOpen(this.exp.name, l.id).then((x) => this.showClass(x)).catch((e) => this.classError(e)) }));
      return;
    }
    // the class link with its token signs a phone in; without a token (a loopback lab) the page itself does
    const link = classLink() || new URL('student.html', location.href).href;
    // the code now: GET /api/class brings a new one after each question or a burst of wrong codes
    const join = (st && st.join) || joinInfo();
    // the code for the phones' cameras; the short address and the code for those who type
    const qr = drawQR(link, `a QR code of the class link ${link}`);
    el.append(h('div', { class: 'class-join' }, qr ? h('div', { class: 'class-qr', id: 'class-qr' }, qr) : null,
      h('div', {},
        join ? h('p', { class: 'class-join-how', id: 'class-join-how' }, 'Phones: open ', h('b', { id: 'class-join-link', text: join.link }), ' and type',
          h('b', { class: 'class-code', id: 'class-code', text: `${join.code.slice(0, 3)} ${join.code.slice(3)}` })) : null,
        // the text keeps its scheme: typed as shown, it reaches the server (the long class link is the QR code's)
        join ? h('p', { class: 'class-link', id: 'class-link' }, 'or scan the code (', h('a', { href: link, text: 'the class link' }), ')')
          : h('p', { class: 'class-link', id: 'class-link' }, 'Phones: ', h('a', { href: link, text: link })),
        h('p', { class: 'class-count', id: 'class-count', 'aria-live': 'polite', text: `${st.answered} answered` }),
        st.lobby ? this.lobby(st.lobby) : null)));
    if (!st.revealed) {
      el.append(h('button', { type: 'button', id: 'class-reveal', class: 'class-reveal', text: 'Reveal the guesses',
        onclick: () => api.classReveal().then((x) => this.showClass(x)).catch((e) => this.classError(e)) }));
    } else if (!this.result.hidden) {
      // the answer panel below draws them against the answer
    } else if (st.guesses.length) {
      const fig = drawDistribution(st.guesses, [{ v: st.median, cls: 'median', label: 'median' }], l.unit, 'the class’s guesses');
      el.append(fig);
      // the left column scrolls: the histogram comes into sight once, when it appears
      if (this.shownReveal !== q.serial) { this.shownReveal = q.serial; fig.scrollIntoView({ block: 'nearest' }); }
    }
  }

  // Who joined, as Kahoot's lobby shows it; the teacher may hide the names (kept for this tab).
  lobby(lb) {
    let hidden = false;
    try { hidden = sessionStorage.getItem(LOBBY_HIDDEN) === '1'; } catch (e) { /* private mode */ }
    const toggle = h('button', { type: 'button', class: 'link-button', id: 'lobby-toggle', 'aria-pressed': String(hidden), text: hidden ? 'Show names' : 'Hide names',
      onclick: () => { try { sessionStorage.setItem(LOBBY_HIDDEN, hidden ? '' : '1'); } catch (e) { /* private mode */ } this.showClass(); } });
    const unnamed = lb.signed_in - lb.names.length;
    const box = h('div', { class: 'class-lobby', id: 'class-lobby' },
      h('p', { class: 'class-lobby-count', id: 'class-lobby-count' }, `${lb.signed_in} joined${unnamed > 0 && !hidden ? ` (${unnamed} unnamed)` : ''} · `, toggle));
    if (!hidden && lb.names.length) box.append(h('ul', { class: 'class-lobby-names', id: 'class-lobby-names' }, lb.names.map((n) => h('li', { text: n }))));
    // the left column scrolls: a new name comes into sight as it arrives
    const key = `${hidden}|${lb.names.join('\n')}`;
    if (key !== this.shownLobby) { this.shownLobby = key; requestAnimationFrame(() => box.scrollIntoView({ block: 'nearest' })); }
    return box;
  }

  classError(e) {
    this.live.append(h('p', { class: 'class-error', role: 'alert', text: e.message }));
  }

  // Every 2 s while the projector shows a lesson: a small GET, simpler than a stream for a state of a few numbers.
  poll() {
    if (this.polling) return;
    this.polling = setInterval(() => {
      if (!document.body.classList.contains('classroom') || this.el.hidden || document.hidden) return;
      api.classState().then((st) => { this.showClass(st); if (st.run !== null) this.sync(); }).catch(() => {});
    }, 2000);
    api.classState().then((st) => this.showClass(st)).catch(() => {});
  }

  guessValue() {
    const v = this.guess.value.trim() === '' ? NaN : Number(this.guess.value);
    return Number.isFinite(v) ? v : null;
  }

  lesson() {
    const ls = (this.exp && this.exp.lessons) || [];
    return ls.find((l) => l.id === this.pick.value) || ls[0] || null;
  }

  // The chart to open a view on: the lesson's, for a run started from one (else null).
  chartFor(view) {
    const id = view && view.id !== null && view.id !== undefined ? String(view.id) : null;
    const saved = id ? readGuesses()[id] : null;
    const exp = this.app.current();
    const l = saved && exp && exp.name === saved.exp ? (exp.lessons || []).find((x) => x.id === saved.lesson) : null;
    return l ? l.chart : null;
  }

  // Called whenever the page changed: the experiment, the run shown, its summary.
  sync() {
    const exp = this.app.current();
    if (!exp) return;
    const view = this.app.view();
    const runId = view && view.id !== null && view.id !== undefined ? String(view.id) : null;
    const saved = runId ? readGuesses()[runId] : null;
    if (exp !== this.exp) {
      this.exp = exp;
      clear(this.pick).append(...(exp.lessons || []).map((l) => h('option', { value: l.id, text: l.title })));
      this.guess.value = '';
    }
    if (saved && saved.exp === exp.name && this.pick.value !== saved.lesson) this.pick.value = saved.lesson;
    if (saved && saved.guess !== null && this.guessValue() !== saved.guess) this.guess.value = String(saved.guess);
    const l = this.lesson();
    this.el.hidden = !l;
    if (!l) return;
    this.pick.title = l.title; // a title the picker cuts reads whole on hover
    this.question.textContent = l.question.charAt(0).toUpperCase() + l.question.slice(1);
    if (document.body.classList.contains('classroom')) this.poll();
    // a ratio's unit in words: a lone "×" after a field reads as a button that clears it
    this.guessUnit.textContent = l.unit === 'x' ? 'times' : unitText(l.unit);
    // an experiment page runs the lesson's params; a run's page shows what it ran
    const key = `${location.hash}|${l.id}`;
    if (!runId && this.applied !== key && document.body.classList.contains('classroom')) {
      this.app.form.reset();
      this.app.form.setValues(l.params);
      this.applied = key;
      // the explanation gives the article's figures away: folded until the class has guessed
      const about = document.getElementById('about');
      if (about) about.open = false;
    }
    if (runId) this.applied = null;
    const shown = runId && view.run && view.run.params ? view.run.params : l.params;
    const names = Object.keys(l.params);
    const items = names.map((k) => h('li', {}, h('span', { class: 'k', text: k }), ' = ', h('span', { class: 'v', text: String(shown[k] ?? l.params[k]) })));
    const rest = Object.keys(shown).length > names.length || !runId;
    this.paramsTitle.textContent = runId ? 'This run used' : 'This run will use';
    clear(this.params).append(...items, rest ? h('li', { class: 'lesson-rest', text: 'the others at their defaults' }) : null);
    this.drawResult(l, runId && saved && saved.lesson === l.id ? saved : null, view, runId);
  }

  // The guess, this machine and the article as three bars with their numbers written out.
  drawResult(l, saved, view, runId) {
    const el = clear(this.result);
    const guess = saved ? saved.guess : null;
    const ans = runId ? answerOf(l, view.summary) : null;
    const final = !view.isFinal || view.isFinal();
    const mark = ans && view.markFor ? view.markFor(ans.key) : null;
    // the class's guesses: kept with the run, or the open question's while the run is this one
    const st = this.state;
    const kept = view.run && view.run.class && view.run.class.lesson === l.id ? view.run.class.guesses.map((g) => g.value) : null;
    const live = st && st.run !== null && String(st.run) === runId && st.revealed ? st.guesses : null;
    const values = kept || live || [];
    const cls = values.length ? { n: values.length, median: median(values) } : null;
    const { rows, machine, says } = answerRows(l, guess, ans, mark, final, cls);
    el.hidden = !runId || (!ans && guess === null && !cls);
    // once answered, the guess is one of the bars
    this.guessRow.hidden = !el.hidden;
    this.el.classList.toggle('answered', !el.hidden);
    this.el.classList.toggle('answered-class', !el.hidden && !!cls);
    if (el.hidden) return;
    const most = Math.max(...rows.map((r) => Math.abs(r.v)), 1e-12);
    el.append(h('h2', { class: 'lesson-result-title', text: 'The answer' }));
    if (!ans || machine === 'waiting') {
      el.append(h('p', { class: 'lesson-wait', text: ans || !final ? 'measuring…' : 'this machine could not measure it: the verdict beside the chart says why' }));
    }
    el.append(h('table', { class: 'answer-table' },
      h('caption', { class: 'visually-hidden', text: `${l.question}: the guess, this machine and the article` }),
      h('tbody', {}, rows.map((r) => h('tr', { class: `answer-${r.cls}${r.bound ? ' answer-at-least' : ''}` },
        h('th', { scope: 'row', text: r.who }),
        h('td', { class: 'answer-bar-cell' }, bar((100 * Math.abs(r.v)) / most)),
        // "at least" over the number and the interval under it, so the column stays as narrow as the numbers
        h('td', { class: 'answer-value' }, r.bound ? h('small', { class: 'answer-at-least-word', text: 'at least' }) : null,
          r.bound ? ' ' : null, r.ci !== undefined ? withUnitText(r.v, l.unit) : r.text,
          r.ci ? h('small', { class: 'answer-ci', text: r.ci }) : null))))));
    // the verdict's own words for a number it does not stand behind
    if (says) el.append(h('p', { class: `answer-mark answer-${machine === 'disowned' ? 'disowned' : 'bound'}`, id: 'answer-mark', text: says }));
    // the class's guesses under the lines of the answer (the verdict's words first: they must stay on screen)
    if (cls) {
      const marks = rows.map((r) => ({ v: r.v, cls: r.cls, label: r.cls === 'class' ? 'median' : r.who.replace(/^the /, '').replace(' guessed', '') }));
      el.append(drawDistribution(values, marks, l.unit, `${l.question}: the class’s guesses against the answer`));
    }
    const art = rows.find((r) => r.cls === 'article');
    if (art) el.append(h('p', { class: 'answer-note', text: `The article: ${art.note}.` }));
  }
}

// The middle of the class's guesses (the mean of the two middle ones for an even count); null when none.
export function median(values) {
  const v = (values || []).filter(Number.isFinite).sort((a, b) => a - b);
  if (!v.length) return null;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// The class's guesses as n bins over a scale that also holds the lines (marks: [{v, ...}]);
// a log scale when the numbers span more than 20 times (guesses of 2× and 300× both show).
// Returns {log, bins: [{from, to, count}], most, pos(v) -> 0..1} or null when there is nothing to draw.
export function distribution(values, marks = [], n = 12) {
  const all = [...(values || []), ...marks.map((m) => m.v)].filter((v) => Number.isFinite(v) && v > 0);
  if (!all.length) return null;
  const lo = Math.min(...all);
  const hi = Math.max(...all);
  const log = hi / lo > 20;
  const f = log ? Math.log10 : (x) => x;
  const inv = log ? (x) => 10 ** x : (x) => x;
  let a = log ? f(lo) : 0;
  let b = f(hi);
  const pad = (b - a || 1) * 0.05;
  if (log) a -= pad;
  b += pad;
  const pos = (v) => Math.min(1, Math.max(0, (f(v) - a) / (b - a)));
  const bins = Array.from({ length: n }, (_, i) => ({ from: inv(a + (i * (b - a)) / n), to: inv(a + ((i + 1) * (b - a)) / n), count: 0 }));
  for (const v of values || []) if (Number.isFinite(v) && v > 0) bins[Math.min(n - 1, Math.floor(pos(v) * n))].count++;
  return { log, bins, most: Math.max(1, ...bins.map((x) => x.count)), pos };
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs, text) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

// Where each line's label goes, decided apart from the page (tests/web/class.test.mjs): xs[i] is line i's place and
// widths[i] its label's width, both in the drawing's units of a W-wide drawing. Each label stands beside the top of its
// own line ('start': to its right, 'end': to its left), inside the drawing, in a row; a line runs from its label's row
// down to the axis from level with its label's letters, so no label may lie across a line that starts in its row or one above
// it, nor two labels of a row overlap.
// The order that places every label clear wins, then the fewest rows, then the most labels to the right of their lines.
// Where no order places every label clear inside the drawing (two wide labels whose lines lie far apart near one edge:
// each must cross the other's line), the labels may stand past its edges and the drawing widens to hold them.
// Returns [{row, anchor, x0, x1}], rows, and the drawing's extent [left, right] (0 and W unless a label stands past them).
export function placeLabels(xs, widths, W, gap = 6) {
  let got = placeWithin(xs, widths, 0, W, W, gap);
  if (got.forced) {
    const M = Math.max(0, ...widths) + 2 * gap;
    const wide = placeWithin(xs, widths, -M, W + M, W, gap);
    if (wide.forced < got.forced || (wide.forced === got.forced && wide.rows < got.rows)) got = wide;
  }
  const at = got.at;
  return { labels: at, rows: got.rows, extent: [Math.min(0, ...at.map((o) => o.x0)), Math.max(W, ...at.map((o) => o.x1))] };
}

// placeLabels within [lo, hi]; of its answers, the one that stands least past [0, W]
function placeWithin(xs, widths, lo, hi, W, gap) {
  const n = xs.length;
  const span = (i, anchor) => (anchor === 'start' ? [xs[i] + gap, xs[i] + gap + widths[i]] : [xs[i] - gap - widths[i], xs[i] - gap]);
  const perms = (a) => (a.length <= 1 ? [a] : a.flatMap((x, k) => perms([...a.slice(0, k), ...a.slice(k + 1)]).map((p) => [x, ...p])));
  const order = [...Array(n).keys()];
  const past = ([x0, x1]) => Math.max(0, -x0) + Math.max(0, x1 - W);
  // to the right first, but a side that stays inside the drawing before one that stands past it
  const anchors = (i) => (past(span(i, 'end')) < past(span(i, 'start')) ? ['end', 'start'] : ['start', 'end']);
  let best = null;
  // up to five lines (the median, the teacher, this machine, the article, a phone's own): every order is tried
  for (const p of n <= 5 ? perms(order) : [order]) {
    const at = new Array(n).fill(null);
    let forced = 0; // labels that found no clear place in this order
    for (const i of p) {
      let pick = null;
      for (let row = 0; !pick; row++) {
        for (const anchor of anchors(i)) {
          const [x0, x1] = span(i, anchor);
          if (x0 < lo || x1 > hi) continue;
          // a line starts level with its label's letters: it passes every label of its own row and the rows below
          const clash = at.some((o, j) => o && (
            (o.row === row && x0 < o.x1 + gap && o.x0 < x1 + gap) || // two labels of a row
            (o.row <= row && xs[j] > x0 - 3 && xs[j] < x1 + 3) || // across a line from this row or one above
            (o.row >= row && xs[i] > o.x0 - 3 && xs[i] < o.x1 + 3))); // this line across a label of this row or below
          if (!clash) { pick = { row, anchor, x0, x1 }; break; }
        }
        if (row > n) {
          // a label wider than the drawing: at its row alone, from whichever edge it fits best
          const anchor = xs[i] > (lo + hi) / 2 ? 'end' : 'start';
          const [x0, x1] = span(i, anchor);
          pick = { row: Math.max(-1, ...at.map((o) => (o ? o.row : -1))) + 1, anchor, x0, x1 };
          forced++;
        }
      }
      at[i] = pick;
    }
    const rows = Math.max(...at.map((o) => o.row)) + 1;
    const right = at.filter((o) => o.anchor === 'start').length;
    const out = at.reduce((s, o) => s + past([o.x0, o.x1]), 0);
    const worse = (b) => forced > b.forced || (forced === b.forced && (out > b.out || (out === b.out && (rows > b.rows || (rows === b.rows && right <= b.right)))));
    if (!best || !worse(best)) best = { at, rows, right, forced, out };
  }
  return best || { at: [], rows: 0, forced: 0 };
}

// The width of each text as the page will draw it (its class's font), measured in a hidden copy of the drawing;
// a guess from its length where nothing can be measured.
function textWidths(texts, cls, W, H) {
  const guess = texts.map((t) => t.length * 12.5);
  if (!document.body || !document.body.append) return guess;
  const probe = svg('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, 'aria-hidden': 'true' });
  probe.style.position = 'absolute';
  probe.style.visibility = 'hidden';
  probe.style.left = '-10000px';
  const els = texts.map((t) => svg('text', { class: cls, x: 0, y: 20 }, t));
  probe.append(...els);
  document.body.append(probe);
  const out = els.map((el, i) => { const w = el.getComputedTextLength ? el.getComputedTextLength() : 0; return w > 0 ? w : guess[i]; });
  probe.remove();
  return out;
}

// The class's guesses as a histogram, with a line for each mark ({v, cls, label}: the median, this machine, the article).
// Each label stands beside the top of its line, in rows above the bars; the counts over the bars are drawn last, on a
// white edge, so a line passing through a bar never hides its number. Numbers are text nodes: a name or a guess never becomes markup.
export function drawDistribution(values, marks, unit, title) {
  const d = distribution(values, marks);
  const fig = h('figure', { class: 'class-dist' });
  if (!d) return fig;
  // drawn about 1:1 in the projector's left column, so its 20px labels stay 20px
  const W = 420, ROW = 26;
  const texts = marks.map((m) => `${m.label} ${withUnitText(m.v, unit)}`);
  const xs = marks.map((m) => d.pos(m.v) * W);
  const { labels, rows, extent } = placeLabels(xs, textWidths(texts, 'class-dist-label', W, 200), W);
  // the labels' rows, room for a count over the tallest bar, the bars, the axis and its ticks
  const top = 22 + ROW * Math.max(0, rows - 1) + 6 + 24, H = top + 100, base = H - 28, bw = W / d.bins.length;
  // a label that had to stand past an edge widens the drawing: the bars move right by L, the whole is VW wide
  const L = Math.ceil(-extent[0]), VW = L + Math.ceil(extent[1]);
  const el = svg('svg', { viewBox: `0 0 ${VW} ${H}`, role: 'img', 'aria-label': title || 'the class’s guesses' });
  const counts = [];
  d.bins.forEach((bin, i) => {
    if (!bin.count) return;
    const ht = ((base - top) * bin.count) / d.most;
    el.append(svg('rect', { class: 'class-dist-bar', x: L + i * bw + 3, y: base - ht, width: bw - 6, height: ht }));
    counts.push(svg('text', { class: 'class-dist-count', x: L + i * bw + bw / 2, y: base - ht - 4, 'text-anchor': 'middle' }, String(bin.count)));
  });
  el.append(svg('line', { class: 'class-dist-axis', x1: L, x2: L + W, y1: base, y2: base }));
  el.append(svg('text', { class: 'class-dist-tick', x: L + 2, y: H - 8 }, withUnitText(d.bins[0].from, unit)));
  el.append(svg('text', { class: 'class-dist-tick', x: L + W - 2, y: H - 8, 'text-anchor': 'end' }, withUnitText(d.bins[d.bins.length - 1].to, unit)));
  if (d.log) el.append(svg('text', { class: 'class-dist-tick', x: L + W / 2, y: H - 8, 'text-anchor': 'middle' }, 'log scale'));
  marks.forEach((m, i) => {
    const x = L + Math.min(W - 2, Math.max(2, xs[i]));
    const at = labels[i];
    const y = 22 + ROW * at.row;
    // the line starts level with its label's letters, so the two read as one
    el.append(svg('line', { class: `class-dist-mark mark-${m.cls}`, x1: x, x2: x, y1: y - 16, y2: base }));
    el.append(svg('text', { class: `class-dist-label mark-${m.cls}`, x: L + (at.anchor === 'end' ? at.x1 : at.x0), y, 'text-anchor': at.anchor }, texts[i]));
  });
  el.append(...counts);
  fig.append(el);
  return fig;
}
