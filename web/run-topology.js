// run-topology.js - the machine's picture beside a run, with the threads it placed and the pages it counted, and the #/topology page
import { h, clear } from './dom.js';
import { TopologyPicture, countText, threadsOn, pagesOf, pageSeries, sameMachine } from './topology.js';

// A section for a run view: update(run) redraws it from the run's placements and samples.
export class RunTopology {
  constructor(topo, runId) {
    this.topo = topo;
    this.runId = runId;
    this.label = null; // the placement a person picked
    this.series = null;
    this.picker = h('select', { id: 'topo-placement', 'aria-label': 'which part of the run to draw' });
    this.picker.addEventListener('change', () => { this.label = this.picker.value; this.redraw(); });
    this.pagePicker = h('select', { id: 'topo-pages', 'aria-label': 'which page count to draw' });
    this.pagePicker.addEventListener('change', () => { this.series = this.pagePicker.value; this.redraw(); });
    this.picture = new TopologyPicture(topo, { title: `the machine of run ${runId}, with its threads`, file: `numalab-run-${runId}-topology.svg` });
    this.note = h('p', { class: 'topo-note' });
    this.el = h('section', { class: 'run-topology', id: 'run-topology', 'aria-label': 'the machine and where each thread ran' },
      h('h3', { text: 'The machine, and where each thread ran' }),
      h('div', { class: 'topo-pickers' },
        h('label', { class: 'topo-pick', hidden: true }, 'threads of ', this.picker),
        h('label', { class: 'topo-pick', hidden: true }, 'pages ', this.pagePicker)),
      this.note, this.picture.el);
    this.run = null;
  }

  update(run) {
    this.run = run;
    const labels = (run.placement || []).map((p) => p.label);
    fill(this.picker, labels, this.label);
    this.picker.parentNode.hidden = labels.length < 2;
    const series = pageSeries(run.samples);
    fill(this.pagePicker, series, this.series, true);
    this.pagePicker.parentNode.hidden = series.length < 2;
    this.redraw();
  }

  redraw() {
    const run = this.run || {};
    const groups = run.placement || [];
    // the last part measured has the most threads in most experiments
    const g = groups.find((p) => p.label === this.label) || groups[groups.length - 1];
    const series = pageSeries(run.samples);
    const s = series.includes(this.series) ? this.series : series[0];
    const threads = g ? threadsOn(g.threads) : new Map();
    this.picture.set({ threads, pages: s ? pagesOf(run.samples, s) : null });
    const parts = [];
    if (g) parts.push(`Threads of “${g.label}”, drawn on the PU each was seen running on.`);
    else parts.push('This run has not reported where its threads ran yet.');
    if (s) parts.push(`Pages “${s}”: the share of the buffer on each node.`);
    this.note.textContent = parts.join(' ');
  }
}

// first: without a choice, the first value (else the last)
function fill(sel, values, chosen, first = false) {
  const have = [...sel.options].map((o) => o.value);
  if (have.join('\n') === values.join('\n')) return;
  clear(sel).append(...values.map((v) => h('option', { value: v, text: v })));
  sel.value = values.includes(chosen) ? chosen : (first ? values[0] : values[values.length - 1]) || '';
}

// The picture for a run, or null when the run was measured on another machine than this server's.
export function runTopology(topo, run) {
  if (!topo || !Array.isArray(topo.pus) || !topo.pus.length) return null;
  if (run.machine && !sameMachine(topo, run.machine)) return null;
  return new RunTopology(topo, run.id);
}

// How the picture draws caches, or that the topology names none (a VM may pass none on): then experiments judge
// sizes against a plausible cache, which their notes say.
function introCaches(topo) {
  if (Array.isArray(topo.caches) && topo.caches.length) return 'Each box holds what shares it: a cache bar spans the cores that share that cache;';
  return 'Each box holds what shares it. This topology names no cache, so none is drawn (experiments judge sizes against a plausible one and say so);';
}

// #/topology: the server's machine, whole.
export function showTopology(container, topo) {
  clear(container);
  if (!topo || !Array.isArray(topo.pus)) {
    container.append(h('p', { class: 'note note-warn', text: 'the server did not say what this machine is' }));
    return;
  }
  const pic = new TopologyPicture(topo, { title: 'the topology of this machine', file: 'numalab-topology.svg' });
  container.append(
    h('h1', { class: 'run-title', id: 'topology-title', text: 'This machine' }),
    h('p', { class: 'topo-intro', text: `${countText(topo)}${topo.this_system === false ? `; read from ${topo.source}, not this machine` : ''}. ${introCaches(topo)} a PU (hardware thread) is what the operating system calls a CPU.` }),
    pic.el);
}
