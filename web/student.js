// student.js - a student's phone: the teacher's question, one guess, then the class's guesses and the answer
import { h, clear, $ } from './dom.js';
import { api } from './api.js';
import { num } from './format.js';
import { answerOf, answerRows, drawDistribution, median } from './lesson.js';
import { markFor } from './rundoc.js';
import { openStream } from './sse.js';

const unitText = (u) => (u === 'x' ? '×' : u || '');
const withUnit = (v, u) => (u === 'x' ? `${num(v)}×` : `${num(v)}${u ? ` ${u}` : ''}`);

let shown = null; // "serial|revealed|run|final": what the page was last built for
let lessons = null; // experiment name -> lessons
const runs = new Map(); // run id -> its final document

async function lessonOf(qn) {
  if (!lessons) {
    const exps = await api.experiments();
    lessons = new Map(exps.map((e) => [e.name, e.lessons || []]));
  }
  return (lessons.get(qn.experiment) || []).find((l) => l.id === qn.lesson) || null;
}

function form(st) {
  const unit = st.question.unit;
  const input = h('input', { id: 'student-guess', type: 'number', step: 'any', min: '0', inputmode: 'decimal', autocomplete: 'off', 'aria-describedby': 'student-note' });
  const note = h('p', { id: 'student-note', class: 'student-note', text: st.mine !== null ? `your guess: ${withUnit(st.mine, unit)} (send another to change it)` : 'a number above 0' });
  const send = (ev) => {
    ev.preventDefault();
    const v = input.value.trim() === '' ? NaN : Number(input.value);
    if (!Number.isFinite(v)) { note.textContent = 'write a number, like 2.5'; note.classList.add('student-error'); return; }
    api.classGuess(v).then((s) => { shown = null; render(s); })
      .catch((e) => { note.textContent = e.message; note.classList.add('student-error'); });
  };
  return h('form', { class: 'student-form', id: 'student-form', onsubmit: send },
    h('label', { for: 'student-guess', text: 'My guess' }),
    h('div', { class: 'student-row' }, input, h('span', { class: 'student-unit', text: unitText(unit) }),
      h('button', { type: 'submit', id: 'student-send', text: st.mine !== null ? 'Change' : 'Send' })),
    note);
}

async function answer(st, l) {
  if (st.run === null || !l) return null;
  let doc = runs.get(st.run);
  if (!doc) {
    doc = await api.run(st.run).catch(() => null);
    if (!doc || !['done', 'failed', 'cancelled', 'interrupted'].includes(doc.status)) return null;
    runs.set(st.run, doc);
  }
  const ans = answerOf(l, doc.summary);
  const mark = ans ? markFor(doc, ans.key) : null;
  return answerRows(l, st.teacher_guess, ans, mark, true, st.guesses.length ? { n: st.guesses.length, median: st.median } : null);
}

async function render(st) {
  const main = $('student');
  const l = st.question ? await lessonOf(st.question).catch(() => null) : null;
  const got = st.question && st.revealed ? await answer(st, l) : null;
  const key = st.question ? `${st.question.serial}|${st.revealed}|${st.run}|${!!got}|${st.mine}` : 'none';
  const count = $('student-count');
  if (count && st.question) count.textContent = `${st.answered} answered`;
  // the room does not change when its run ends: look again until it has
  if (st.question && st.revealed && st.run !== null && !got) later();
  if (key === shown) return;
  shown = key;
  clear(main);
  if (!st.question) {
    main.append(h('p', { class: 'student-wait', text: 'waiting for the teacher’s question…' }));
    return;
  }
  const unit = st.question.unit;
  main.append(h('h1', { class: 'student-title', text: st.question.title }),
    h('p', { class: 'student-question', id: 'student-question', text: st.question.question.charAt(0).toUpperCase() + st.question.question.slice(1) }),
    h('p', { class: 'student-count', id: 'student-count', text: `${st.answered} answered` }));
  if (!st.revealed) {
    main.append(form(st));
    return;
  }
  if (st.mine !== null) main.append(h('p', { class: 'student-note', text: `your guess: ${withUnit(st.mine, unit)}` }));
  const marks = [{ v: st.median, cls: 'median', label: 'median' }];
  if (got) for (const r of got.rows) if (r.cls === 'machine' || r.cls === 'article') marks.push({ v: r.v, cls: r.cls, label: r.cls === 'machine' ? 'measured' : 'article' });
  if (st.mine !== null) marks.push({ v: st.mine, cls: 'mine', label: 'you' });
  main.append(h('h2', { class: 'student-sub', text: got ? 'The answer' : 'The class’s guesses' }));
  if (st.guesses.length) main.append(drawDistribution(st.guesses, marks, unit, 'the class’s guesses'));
  if (got) {
    main.append(h('ul', { class: 'student-answer', id: 'student-answer' }, got.rows.map((r) => h('li', { class: `answer-${r.cls}` }, h('span', { text: r.who }), ' ', h('b', { text: r.text })))));
    if (got.says) main.append(h('p', { class: 'answer-mark', text: got.says }));
  } else {
    main.append(h('p', { class: 'student-wait', text: st.run === null ? 'the machine has not measured it yet…' : 'measuring…' }));
  }
  if (st.median !== null) main.append(h('p', { class: 'student-note', text: `the class’s median: ${withUnit(median(st.guesses), unit)}` }));
}

const NAME_MAX = 48; // bytes of UTF-8, as the server counts them
const NAMED = 'numalab.named'; // this tab took the name step (a name, or none)

// The step after joining: a name for the projector's lobby (optional, bounded; shown as text).
function nameStep(then) {
  const main = clear($('student'));
  const input = h('input', { id: 'student-name', type: 'text', maxlength: String(NAME_MAX), autocomplete: 'nickname', 'aria-describedby': 'student-name-note' });
  const note = h('p', { id: 'student-name-note', class: 'student-note', text: 'shown on the projector when you join, and beside your guess once the teacher reveals them' });
  const done = () => { try { sessionStorage.setItem(NAMED, '1'); } catch (e) { /* private mode: asked again on reload */ } then(); };
  const send = (ev) => {
    ev.preventDefault();
    // sent as typed: the server says what it refuses (only spaces, a space
    // at an end, an invisible character) and the note shows its words
    const name = input.value;
    if (!name) { done(); return; }
    if (new TextEncoder().encode(name).length > NAME_MAX) { note.textContent = `at most ${NAME_MAX} bytes: a shorter name`; note.classList.add('student-error'); return; }
    api.rename(name).then(done).catch((e) => { note.textContent = e.message; note.classList.add('student-error'); input.focus(); });
  };
  main.append(h('h1', { class: 'student-question', text: 'You are in. Your name?' }),
    h('form', { class: 'student-form', id: 'student-name-form', onsubmit: send },
      h('label', { for: 'student-name', text: 'Name (optional)' }),
      h('div', { class: 'student-row' }, input, h('button', { type: 'submit', id: 'student-name-send', text: 'OK' })),
      note,
      h('p', { class: 'student-note' }, h('button', { type: 'button', class: 'link-button', id: 'student-name-skip', text: 'Skip: join without a name', onclick: done }))));
  input.focus();
}

function tick() {
  api.classState().then(render).catch((e) => {
    const main = clear($('student'));
    // a phone that is not signed in gets words for a student, not the API's
    const text = e.status === 401 ? 'to take part, sign in: scan the QR code on the projector, or open the class link your teacher gave' : e.message;
    main.append(h('p', { class: 'student-error', role: 'alert', text }));
    // not signed in (a page opened without the class link, or a sign-in expired)
    if (e.status === 401) main.append(h('p', { class: 'student-note' }, h('a', { href: './', id: 'student-signin', text: 'Sign in with the class’s token' })));
    shown = null;
  });
}
// The room's state comes through one event stream, not a poll: the page
// reads its own state (its guess too) again only when the question, the
// reveal or the run changes, and shows a new count of answers from the
// event itself. A stream refused (the server's viewers are full) falls
// back to a GET every 2 s.
let seen = null; // "serial|revealed|run" of the last event
let again = null; // a look while the room's run is measuring
function later() {
  if (!again) again = setTimeout(() => { again = null; tick(); }, 2000);
}
function onRoom(type, data) {
  const ev = JSON.parse(data);
  const key = `${ev.serial}|${ev.revealed}|${ev.run}`;
  const count = $('student-count');
  if (key === seen) {
    if (count) count.textContent = `${ev.answered} answered`;
    return;
  }
  seen = key;
  tick();
}
function follow() {
  tick();
  openStream('/api/class/events', onRoom, () => {
    setInterval(() => { if (!document.hidden) tick(); }, 2000);
  });
}

let named = false;
try { named = sessionStorage.getItem(NAMED) === '1'; } catch (e) { /* private mode */ }
// a phone just joined (by the link or the code) and has no name yet: the name step first
api.whoami().then((who) => (who.role === 'class' && !who.name && !named ? nameStep(follow) : follow()), follow);
