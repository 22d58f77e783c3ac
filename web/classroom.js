// classroom.js - the projector layout: large type, one chart at a time, space runs or stops, arrows step through experiments
import { $ } from './dom.js';
import { LessonPanel } from './lesson.js';

const KEY = 'numalab.classroom';
// The charts on a projector: large type, the dark palette, thick lines.
export const PROJECTOR_LOOK = { px: 26, contrast: true };

// The chart shown takes the room left under it, so its axis and legend end above the screen's edge.
function fitChart(fig) {
  const box = fig.querySelector('.chart-box');
  if (!box) return;
  const below = [...fig.children].filter((c) => c !== box && box.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING)
    .reduce((n, c) => n + c.getBoundingClientRect().height, 0);
  const hint = $('classroom-hint');
  const room = window.innerHeight - box.getBoundingClientRect().top - below - (hint ? hint.getBoundingClientRect().height : 0) - 12;
  box.style.height = `${Math.max(220, Math.floor(room))}px`;
}

// The machine's picture scaled up to the room left under it, whole.
function fitPicture(sec) {
  const svg = sec.querySelector('svg');
  if (!svg) return;
  $('results').scrollTop = 0;
  const legend = sec.querySelector('.topo-legend');
  const hint = $('classroom-hint');
  const room = window.innerHeight - svg.getBoundingClientRect().top - (legend ? legend.getBoundingClientRect().height : 0) - (hint ? hint.getBoundingClientRect().height : 0) - 16;
  svg.style.height = `${Math.max(160, Math.floor(room))}px`;
}

// app: {exps(), current(), view(), restyleCharts(), form}
export function setupClassroom(app) {
  const btn = $('classroom-toggle');
  let chartIndex = 0;
  let shownView = null;
  const lessons = new LessonPanel(app);

  const on = () => document.body.classList.contains('classroom');
  function showChart() {
    // the charts, then the machine's picture with the run's threads on it
    const figs = [...document.querySelectorAll('#results .charts > figure.chart, #results #run-topology')].filter((f) => !f.hidden);
    if (!figs.length) return;
    // a run started from a lesson opens on the chart that answers it
    if (app.view() !== shownView) {
      shownView = app.view();
      const want = lessons.chartFor(shownView);
      const i = want ? figs.findIndex((f) => f.dataset.chart === want) : -1;
      chartIndex = Math.max(0, i);
    }
    chartIndex = ((chartIndex % figs.length) + figs.length) % figs.length;
    figs.forEach((f, i) => f.classList.toggle('classroom-current', i === chartIndex));
    figs.forEach((f, i) => { if (i !== chartIndex) { const b = f.querySelector('.chart-box'); if (b) b.style.height = ''; } });
    const hint = $('classroom-hint');
    const cur = figs[chartIndex];
    const what = cur.id === 'run-topology' ? ': the machine' : '';
    if (hint) hint.textContent = `view ${chartIndex + 1} of ${figs.length}${what} (↑↓) · experiments ←→ · space runs or stops`;
    if (cur.id === 'run-topology') fitPicture(cur);
    else fitChart(cur);
    window.dispatchEvent(new Event('resize')); // the chart that was hidden takes its size
  }
  function set(v) {
    document.body.classList.toggle('classroom', v);
    btn.setAttribute('aria-pressed', String(v));
    btn.textContent = v ? 'Leave classroom' : 'Classroom';
    try { sessionStorage.setItem(KEY, v ? '1' : ''); } catch (e) { /* private mode */ }
    app.restyleCharts(); // the projector's type and colours, or back
    shownView = null; // opens on the lesson's chart
    lessons.sync(); // the lesson's params go into the form
    if (!v) for (const b of document.querySelectorAll('#results .chart-box')) b.style.height = '';
    if (!v) for (const svg of document.querySelectorAll('#run-topology svg')) svg.style.height = 'auto';
    showChart();
  }
  btn.addEventListener('click', () => set(!on()));
  const hint = document.createElement('p');
  hint.id = 'classroom-hint';
  hint.className = 'classroom-hint';
  document.querySelector('main').append(hint); // inside a landmark, like everything else

  // the results column is rebuilt on each navigation and each chart arrives with its first point
  let fitting = null;
  new MutationObserver(() => {
    lessons.sync();
    if (!on()) return;
    // live points change the results many times a second: fit once they settle
    cancelAnimationFrame(fitting);
    fitting = requestAnimationFrame(showChart);
  }).observe($('results'), { childList: true, subtree: true, attributes: false, characterData: true });
  window.addEventListener('resize', () => { if (on()) { cancelAnimationFrame(fitting); fitting = requestAnimationFrame(() => { const f = document.querySelector('#results .classroom-current'); if (f) (f.id === 'run-topology' ? fitPicture : fitChart)(f); }); } });
  window.addEventListener('hashchange', () => {
    if (location.hash === '#/classroom') {
      set(true);
      history.replaceState(null, '', '#/');
      window.dispatchEvent(new HashChangeEvent('hashchange'));
    }
  });
  document.addEventListener('keydown', (ev) => {
    if (!on() || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const t = ev.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA')) return;
    if (ev.key === ' ') {
      ev.preventDefault();
      const v = app.view();
      if (v && v.id && !v.isFinal()) $('cancel-button').click();
      else if (!$('run-button').disabled && $('run-button').getAttribute('aria-disabled') !== 'true') $('run-form').requestSubmit();
    } else if (ev.key === 'ArrowLeft' || ev.key === 'ArrowRight') {
      ev.preventDefault();
      const exps = app.exps().filter((e) => e.available !== false);
      if (!exps.length) return;
      const cur = exps.findIndex((e) => app.current() && e.name === app.current().name);
      const next = exps[(cur + (ev.key === 'ArrowRight' ? 1 : -1) + exps.length) % exps.length];
      location.hash = `#/experiments/${encodeURIComponent(next.name)}`;
    } else if (ev.key === 'ArrowUp' || ev.key === 'ArrowDown') {
      ev.preventDefault();
      chartIndex += ev.key === 'ArrowDown' ? 1 : -1;
      showChart();
    }
  });
  const wanted = new URLSearchParams(location.search).has('classroom') || location.hash === '#/classroom';
  if (location.hash === '#/classroom') history.replaceState(null, '', '#/');
  let stored = false;
  try { stored = sessionStorage.getItem(KEY) === '1'; } catch (e) { /* private mode */ }
  set(wanted || stored);
}
