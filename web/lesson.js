// lesson.js - the classroom's lessons: pick one, read its question, take the class's guess, run its params, draw the answer beside the guess and the article
import { h, clear, $ } from './dom.js';
import { num } from './format.js';
import { globMatch } from './rundoc.js';

const GUESSES = 'numalab.guesses'; // run id -> {exp, lesson, guess}, for this tab

const unitText = (u) => (u === 'x' ? '×' : u || '');
const withUnitText = (v, u) => (u === 'x' ? `${num(v)}×` : `${num(v)}${u ? ` ${u}` : ''}`);

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
  return v && Number.isFinite(Number(v.value)) ? { key, value: Number(v.value) } : null;
}

// What the answer panel shows, decided apart from the page (tests/web/marks.test.mjs):
//   l: the lesson; guess: the class's number or null; ans: answerOf's {key, value} or null;
//   mark: the verdict's mark on ans.key (rundoc.js markFor) or null; judged: the verdict is in (the run ended).
// Returns {rows: [{who, v, cls, text}], machine: 'shown' | 'at_least' | 'disowned' | 'waiting' | 'none', says: a sentence or null}.
// A value the verdict disowns gets no bar, and its reason in the verdict's words; a lower bound says "at least";
// while the verdict is still to come, this machine's number waits for it.
export function answerRows(l, guess, ans, mark, judged) {
  const rows = [];
  let machine = 'none';
  let says = null;
  if (guess !== null && guess !== undefined) rows.push({ who: 'the class guessed', v: guess, cls: 'guess', text: withUnitText(guess, l.unit) });
  if (ans && !judged) machine = 'waiting';
  else if (ans && mark && mark.mark === 'disowned') {
    machine = 'disowned';
    says = `this machine: not a valid measurement${mark.why ? ` — ${mark.why}` : ''}`;
  } else if (ans && mark && mark.mark === 'at_least') {
    machine = 'at_least';
    rows.push({ who: 'this machine', v: ans.value, cls: 'machine', bound: true, text: `at least ${withUnitText(ans.value, l.unit)}` });
    says = `this machine: at least ${withUnitText(ans.value, l.unit)}${mark.why ? ` — ${mark.why}` : ''}`;
  } else if (ans) {
    machine = 'shown';
    rows.push({ who: 'this machine', v: ans.value, cls: 'machine', text: withUnitText(ans.value, l.unit) });
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
        h('label', { for: 'lesson-guess', text: 'The class guesses' }), this.guess, this.guessUnit),
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
      this.armed = null;
    });
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
    this.question.textContent = l.question.charAt(0).toUpperCase() + l.question.slice(1);
    this.guessUnit.textContent = unitText(l.unit);
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
    const { rows, machine, says } = answerRows(l, guess, ans, mark, final);
    el.hidden = !runId || (!ans && guess === null);
    // once answered, the guess is one of the bars
    this.guessRow.hidden = !el.hidden;
    this.el.classList.toggle('answered', !el.hidden);
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
        // "at least" over the number, so the column stays as narrow as the numbers
        r.bound ? h('td', { class: 'answer-value' }, h('small', { class: 'answer-at-least-word', text: 'at least' }), ' ', withUnitText(r.v, l.unit))
          : h('td', { class: 'answer-value', text: r.text }))))));
    // the verdict's own words for a number it does not stand behind
    if (says) el.append(h('p', { class: `answer-mark answer-${machine === 'disowned' ? 'disowned' : 'bound'}`, id: 'answer-mark', text: says }));
    const art = rows.find((r) => r.cls === 'article');
    if (art) el.append(h('p', { class: 'answer-note', text: `The article: ${art.note}.` }));
  }
}
