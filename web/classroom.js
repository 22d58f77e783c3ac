// classroom.js - the projector layout: large type, one chart at a time, space runs or stops, arrows step through experiments
import { $ } from './dom.js';

const KEY = 'numalab.classroom';
// The charts on a projector: large type, the dark palette, thick lines.
export const PROJECTOR_LOOK = { px: 26, contrast: true };

// app: {exps(), current(), view(), restyleCharts()}
export function setupClassroom(app) {
  const btn = $('classroom-toggle');
  let chartIndex = 0;

  const on = () => document.body.classList.contains('classroom');
  function showChart() {
    const figs = [...document.querySelectorAll('#results .charts > figure.chart')];
    if (!figs.length) return;
    chartIndex = ((chartIndex % figs.length) + figs.length) % figs.length;
    figs.forEach((f, i) => f.classList.toggle('classroom-current', i === chartIndex));
    const hint = $('classroom-hint');
    if (hint) hint.textContent = `chart ${chartIndex + 1} of ${figs.length} (↑↓) · experiments ←→ · space runs or stops`;
    window.dispatchEvent(new Event('resize')); // the chart that was hidden takes its size
  }
  function set(v) {
    document.body.classList.toggle('classroom', v);
    btn.setAttribute('aria-pressed', String(v));
    btn.textContent = v ? 'Leave classroom' : 'Classroom';
    try { sessionStorage.setItem(KEY, v ? '1' : ''); } catch (e) { /* private mode */ }
    app.restyleCharts(); // the projector's type and colours, or back
    chartIndex = 0;
    showChart();
  }
  btn.addEventListener('click', () => set(!on()));
  const hint = document.createElement('p');
  hint.id = 'classroom-hint';
  hint.className = 'classroom-hint';
  document.body.append(hint);

  // the results column is rebuilt on each navigation and each chart arrives with its first point
  new MutationObserver(() => { if (on()) showChart(); }).observe($('results'), { childList: true, subtree: true, attributes: false });
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
