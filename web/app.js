// app.js - the dashboard: routing, experiment list, form, starting runs and following their events
import { h, clear, $, paragraphs } from './dom.js';
import { api } from './api.js';
import { ParamForm } from './form.js';
import { RunView, EVENT_TYPES } from './run-view.js';
import { RunsList } from './runs-list.js';
import { setupCharts, setChartTheme } from './charts.js';
import { labRoute, decorateRun } from './lab.js';
import { setupClassroom, PROJECTOR_LOOK } from './classroom.js';
import { MyRun } from './my-run.js';
import { readRun } from './rundoc.js';
import { signIn } from './signin.js';
import { openStream } from './sse.js';
import { setupFleetStart } from './fleet-start.js';

const RUNS_POLL_MS = 15000; // runs started elsewhere (curl, another browser) show up within this

const state = {
  exps: [],
  byName: new Map(),
  topo: null,
  exp: null,
  view: null,
  es: null,
  token: 0, // the latest navigation; answers for older ones are dropped
  role: 'teacher', // who signed in (signin.js): 'class' watches, never starts
  chartsReady: false,
};

const form = new ParamForm($('form-fields'));
// the run this page started: Run stays off until it ends
const mine = new MyRun((m) => {
  if (state.view && state.view.id !== null && String(state.view.id) === m.id) state.view.setQueue(m.status === 'queued' ? m.ahead : null);
  updateButtons();
});
import('./precheck.js').then((m) => m.watchPrecheck(form));
const runs = new RunsList($('run-list'), $('runs-more'), (name) => (state.byName.get(name) || { title: name }).title);

function banner(msg) {
  $('banner-text').textContent = msg;
  $('banner').hidden = !msg;
}

// The charts' look for the layout now shown: the projector's in classroom mode.
function chartTheme() {
  if (document.body.classList.contains('classroom')) return PROJECTOR_LOOK;
  const root = parseFloat(getComputedStyle(document.documentElement).fontSize) || 17;
  return { px: Math.round(root * 0.88), contrast: false };
}

async function init() {
  const who = await signIn();
  if (who.sign_in && who.role === 'none') return; // the sign-in form is shown
  state.role = who.role;
  state.chartsReady = setupCharts(chartTheme());
  if (!state.chartsReady) banner('the chart library did not load: web/vendor is missing, run `make` to copy it from node_modules');
  let resizing = null;
  window.addEventListener('resize', () => {
    clearTimeout(resizing);
    resizing = setTimeout(() => setChartTheme(chartTheme()), 150);
  });
  $('banner-close').addEventListener('click', () => banner(''));
  // the links of the page are routes: the skip link moves the focus instead of the hash
  $('skip-link').addEventListener('click', (ev) => { ev.preventDefault(); $('results').focus(); });
  $('run-form').addEventListener('submit', submit);
  $('run-form').addEventListener('input', () => { if ($('run-bar-msg').classList.contains('error')) runMsg(''); });
  $('cancel-button').addEventListener('click', cancel);
  $('defaults-button').addEventListener('click', () => form.reset());

  const [exps, topo] = await Promise.allSettled([api.experiments(), api.topology()]);
  if (topo.status === 'fulfilled') {
    state.topo = topo.value;
    renderMachine(topo.value);
  } else {
    $('machine').textContent = 'machine unknown';
  }
  if (exps.status === 'rejected') {
    banner(`could not load the experiments: ${exps.reason.message}`);
    $('exp-title').textContent = 'No experiments';
    return;
  }
  state.exps = Array.isArray(exps.value) ? exps.value : [];
  for (const e of state.exps) state.byName.set(e.name, e);
  renderExpList();
  runs.refresh();
  window.addEventListener('hashchange', route);
  setInterval(() => { if (!document.hidden) runs.refresh(); }, RUNS_POLL_MS);
  setupClassroom({ exps: () => state.exps, current: () => state.exp, view: () => state.view, restyleCharts: () => setChartTheme(chartTheme()), form });
  setupFleetStart($('fleet-start-box'), { form, exp: () => state.exp, role: () => state.role });
  route();
}

function renderMachine(t) {
  const nodes = t.nnodes ?? (t.nodes || []).length;
  const pus = t.npus ?? (t.pus || []).length;
  const parts = [t.cpu_model || 'unknown CPU'];
  if (t.packages > 1) parts.push(`${t.packages} sockets`);
  if (t.cores) parts.push(`${t.cores} cores`);
  if (pus) parts.push(`${pus} CPUs${t.smt ? ' (SMT)' : ''}`);
  if (t.nallowed && t.nallowed < pus) parts.push(`${t.nallowed} allowed`);
  if (nodes) parts.push(`${nodes} NUMA node${nodes === 1 ? '' : 's'}`);
  $('machine').textContent = parts.join(' · ');
}

function renderExpList() {
  const ul = clear($('exp-list'));
  if (!state.exps.length) ul.append(h('li', { class: 'run-none', text: 'This server offers no experiments.' }));
  for (const e of state.exps) {
    const off = e.available === false;
    ul.append(h('li', { class: off ? 'unavailable' : null, dataset: { name: e.name } },
      h('a', { href: `#/experiments/${encodeURIComponent(e.name)}`, class: 'exp-link' },
        h('span', { class: 'exp-line' },
          h('span', { class: 'exp-name', text: e.title || e.name }),
          e.section ? h('span', { class: 'exp-sec', text: `§${e.section}` }) : null),
        h('span', { class: 'exp-summary', text: e.summary || '' }),
        off ? h('span', { class: 'exp-reason', text: `unavailable: ${e.unavailable_reason || 'not on this machine'}` }) : null,
        !off && e.limited ? h('span', { class: 'exp-reason exp-limited', text: e.limited }) : null)));
  }
}

function route() {
  let hash = location.hash || '';
  try {
    hash = decodeURIComponent(hash);
  } catch (e) {
    // a malformed link: read it as it is
  }
  // the machine's picture, and a campaign's machines side by side, take the setup column's room too
  document.body.classList.toggle('page-wide', hash === '#/topology' || hash.startsWith('#/campaigns'));
  if (labRoute(hash, { results: $('results'), exps: state.exps, byName: state.byName, topo: state.topo, setView: labView, showExperiment })) return;
  let m = hash.match(/^#\/runs\/([^/?#]+)$/);
  if (m) return openRun(m[1]);
  m = hash.match(/^#\/experiments\/([^/?#]+)$/);
  if (m && state.byName.has(m[1])) return openExperiment(m[1]);
  if (m) banner(`there is no experiment '${m[1]}' on this server`);
  return openDefault();
}

function openDefault() {
  const first = state.exps.find((e) => e.available !== false) || state.exps[0];
  if (!first) return;
  history.replaceState(null, '', `#/experiments/${encodeURIComponent(first.name)}`);
  openExperiment(first.name);
}

// The setup column for exp (form filled with defaults unless told otherwise).
function selectExperiment(exp) {
  if (state.exp !== exp) {
    state.exp = exp;
    $('exp-section').textContent = exp.section ? `Article section ${exp.section}` : '';
    $('exp-title').textContent = exp.title || exp.name;
    $('exp-summary').textContent = exp.summary || '';
    const why = exp.available === false ? `Not available here: ${exp.unavailable_reason || 'this machine lacks what it needs'}` : exp.limited || '';
    $('exp-limited').textContent = why;
    $('exp-limited').hidden = !why;
    $('exp-limited').classList.toggle('off', exp.available === false);
    clear($('exp-explain')).append(...paragraphs(exp.explain));
    form.build(exp, state.topo);
  }
  for (const li of $('exp-list').children) li.classList.toggle('current', li.dataset.name === exp.name);
}

function closeStream() {
  if (state.es) state.es.close();
  state.es = null;
}

function showView(exp, run) {
  if (state.view) state.view.destroy();
  state.view = decorateRun(new RunView($('results'), exp, run), state.topo);
  return state.view;
}

// A page of lab.js (history, compare) in the results column. Opened from its link alone, the setup column
// still shows an experiment ready to run (the first one) until the page names its own (showExperiment).
function labView(view, title) {
  state.token++;
  closeStream();
  if (state.view) state.view.destroy();
  state.view = view;
  runs.select(null);
  if (!state.exp) {
    const first = state.exps.find((e) => e.available !== false) || state.exps[0];
    if (first) selectExperiment(first);
  }
  document.title = `${title} · numalab`;
  updateButtons();
}

// A lab page's experiment (the runs a comparison holds) in the setup column, with params when given.
function showExperiment(name, params) {
  const exp = state.byName.get(name);
  if (!exp) return;
  selectExperiment(exp);
  if (params && Object.keys(params).length) form.setValues(params);
  form.clearErrors();
  updateButtons();
}

function openExperiment(name) {
  state.token++;
  runMsg('');
  closeStream();
  const exp = state.byName.get(name);
  selectExperiment(exp);
  form.clearErrors();
  showView(exp, null);
  // the empty results column shows the explanation itself, in wide type
  $('exp-explain-box').hidden = true;
  runs.select(null);
  document.title = `${exp.title || exp.name} · numalab`;
  updateButtons();
}

async function openRun(id) {
  const token = ++state.token;
  closeStream();
  let doc;
  try {
    doc = await api.run(id);
  } catch (e) {
    if (token !== state.token) return;
    banner(e.status === 404 ? `there is no run ${id}` : `could not open run ${id}: ${e.message}`);
    // show something real, and say so in the URL
    if (!state.exp) openDefault();
    return;
  }
  if (token !== state.token) return;
  doc.id = doc.id ?? id;
  const r = readRun(doc);
  const exp = state.byName.get(r.experiment) || unknownExperiment(r.experiment);
  selectExperiment(exp);
  if (Object.keys(r.params).length) form.setValues(r.params);
  form.clearErrors();
  const view = showView(exp, doc);
  if (mine.id === String(doc.id)) view.setQueue(mine.status === 'queued' ? mine.ahead : null);
  $('exp-explain-box').hidden = !exp.explain;
  view.load(doc, r);
  runs.select(r.id);
  document.title = `Run ${r.id} · ${exp.title || exp.name} · numalab`;
  if (!view.isFinal()) follow(r.id, view, token);
  updateButtons();
}

// A stored run of an experiment this server no longer offers still opens, with charts made from its points.
function unknownExperiment(name) {
  const exp = { name, title: name, summary: 'this server no longer offers this experiment', explain: '', params: [], charts: [], available: false, unavailable_reason: 'not offered by this server' };
  state.byName.set(name, exp);
  return exp;
}

function follow(id, view, token) {
  const finish = () => {
    es.close();
    if (state.es === es) state.es = null;
    runs.refresh();
    // the document has the finish time and anything folded in at the end
    api.run(id).then((doc) => { if (token === state.token) { view.load(doc); mine.saw(id, view.status); updateButtons(); } }, () => {});
  };
  // read through fetch, not EventSource: the stream carries the page's key with the cookie
  const es = openStream(api.eventsUrl(id), (type, data) => {
    if (state.es !== es || !EVENT_TYPES.includes(type)) return;
    let d;
    try {
      d = JSON.parse(data);
    } catch (e) {
      return;
    }
    const final = view.event(type, d);
    mine.saw(id, view.status);
    if (type === 'status' || type === 'start') runs.refresh();
    updateButtons();
    if (final) finish();
  }, () => {
    // reconnections (with Last-Event-ID) are over: the server refused the stream, or is gone
    if (state.es !== es) return;
    state.es = null;
    api.run(id).then((doc) => {
      if (token !== state.token) return;
      view.load(doc);
      updateButtons();
      if (!view.isFinal()) banner(`lost the live stream of run ${id}; reload the page to follow it again`);
    }, (e) => banner(`lost the live stream of run ${id}: ${e.message}`));
  });
  state.es = es;
}

async function submit(ev) {
  ev.preventDefault();
  const exp = state.exp;
  if (!exp || exp.available === false || mine.busy()) return;
  form.clearErrors();
  banner('');
  // the button keeps the focus (aria-disabled, not disabled): the person stays where they were
  mine.start();
  runMsg('starting…');
  try {
    const r = await api.start(exp.name, form.values());
    runMsg('');
    mine.started(r.id);
    location.hash = `#/runs/${encodeURIComponent(r.id)}`;
    runs.refresh();
  } catch (e) {
    mine.failed();
    const shown = e.field && form.showError(e.field, e.message);
    // the bar is always in view, the field may not be
    runMsg(shown ? `not started: ${e.message}` : '', true);
    if (!shown) banner(e.message);
  } finally {
    updateButtons();
  }
}

async function cancel() {
  const v = state.view;
  if (!v || !v.id || v.isFinal()) return;
  $('cancel-button').disabled = true;
  runMsg('cancelling…');
  try {
    await api.cancel(v.id);
  } catch (e) {
    banner(`could not cancel run ${v.id}: ${e.message}`);
  }
  runMsg('');
  // the stream brings the final "cancelled"; without one, read the document
  if (!state.es) api.run(v.id).then((doc) => { if (state.view === v) { v.load(doc); updateButtons(); runs.refresh(); } }, () => {});
}

function runMsg(text, error = false) {
  const el = $('run-bar-msg');
  el.textContent = text;
  el.classList.toggle('error', error && !!text);
}

function updateButtons() {
  const exp = state.exp;
  const v = state.view;
  const off = !exp || exp.available === false || !state.chartsReady;
  const btn = $('run-button');
  btn.disabled = off;
  // busy: still focusable, so the keyboard stays on it; a press does nothing
  const busy = mine.busy();
  btn.setAttribute('aria-disabled', String(off || busy));
  btn.classList.toggle('busy', busy);
  btn.title = exp && exp.available === false ? exp.unavailable_reason || 'not available here' : '';
  if (state.role === 'class') {
    // a student watches: the server would answer 403 (server/http/auth.c)
    btn.disabled = true;
    btn.title = 'signed in with the class link: only the teacher starts runs';
    runMsg('Only the teacher starts runs: watch them here.');
  }
  if (busy) {
    const where = mine.status === 'queued' ? `queued${mine.ahead !== null ? `, ${aheadText(mine.ahead)}` : ''}` : (mine.status || 'starting');
    btn.title = mine.id ? `run ${mine.id} is ${where}: Run is back when it ends` : 'starting a run';
    if (!$('run-bar-msg').classList.contains('error')) runMsg(mine.id ? `Run ${mine.id} is ${where}.` : 'starting…');
  } else if ($('run-bar-msg').textContent.startsWith('Run ') || $('run-bar-msg').textContent === 'starting…') {
    runMsg('');
  }
  $('cancel-button').disabled = state.role === 'class' || !(v && v.id && !v.isFinal());
}

function aheadText(n) {
  return n === 0 ? 'next in line' : `${n} run${n === 1 ? '' : 's'} ahead of it`;
}

init();
