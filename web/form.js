// form.js - the parameter form, generated from an experiment's param table
import { h, clear } from './dom.js';
import { label, int, bytes, sizeText } from './format.js';
import { paramApplies, unmetOnly } from './rundoc.js';

// The second skip link: the keyboard lands on the form's first field, the route (the hash) stays as it was.
document.addEventListener('click', (ev) => {
  const a = ev.target.closest && ev.target.closest('#skip-form');
  if (!a) return;
  ev.preventDefault();
  const first = document.querySelector('#form-fields input:not([disabled]), #form-fields select:not([disabled])');
  if (first) first.focus();
});

const GROUPS = [
  ['experiment', 'Experiment', null],
  ['placement', 'Placement', 'which CPUs the threads run on'],
  ['stats', 'Statistics', 'how each point is measured'],
];

const RADIO_MAX = 4; // more choices than this get a drop-down

export class ParamForm {
  constructor(container) {
    this.container = container;
    this.fields = new Map(); // name -> {param, el, get(), set(v)}
    this.rows = new Map(); // name -> schema row, every param of the experiment
    this.busy = false; // the whole form is disabled (a run is starting)
    // a field another one governs (mode=, cpus) is read or not as that one changes
    container.addEventListener('input', () => this.refresh());
    container.addEventListener('change', () => this.refresh());
  }

  // Builds the form for exp; topo (may be null) gives the CPU and node hints.
  build(exp, topo) {
    clear(this.container);
    this.fields.clear();
    this.exp = exp;
    this.rows = new Map(exp.params.map((p) => [p.name, p]));
    for (const [group, title, sub] of GROUPS) {
      // a param the experiment never reads (its row's unread) has no field: the server would refuse it
      const params = exp.params.filter((p) => (p.group || 'experiment') === group && !p.unread);
      if (!params.length) continue;
      const fs = h('fieldset', { class: `group group-${group}` },
        h('legend', {}, title, sub ? h('span', { class: 'legend-sub', text: ` · ${sub}` }) : null));
      for (const p of params) fs.append(this.field(p, topo));
      this.container.append(fs);
    }
    this.refresh();
  }

  field(p, topo) {
    const id = `p-${p.name}`;
    const err = h('p', { class: 'field-error', id: `${id}-error`, role: 'alert', hidden: true });
    // shown while another field's value makes the run not read this one (its row's only)
    const unread = p.only || p.only_here ? h('p', { class: 'field-unread', id: `${id}-unread`, text: onlyText(p.only || p.only_here, this.rows), hidden: true }) : null;
    // one line under the field: what it is, then what may be typed (the range in a quieter voice)
    // the unit said once: beside the name, or after the range when beside the name it would say the name again
    const unitBeside = Boolean(p.unit) && p.unit !== label(p.name);
    const hintText = hint(unitBeside ? { ...p, unit: null } : p, topo);
    const helpEl = p.help || hintText ? h('p', { class: 'help', id: `${id}-help` }, p.help || '',
      hintText ? h('span', { class: 'hint', text: `${p.help ? ' · ' : ''}${hintText}` }) : null) : null;
    const described = [helpEl && `${id}-help`, unread && `${id}-unread`, `${id}-error`].filter(Boolean).join(' ');
    // the unit beside the name, unless it only says the name again ("threads threads")
    const unit = unitBeside ? h('span', { class: 'unit', text: p.unit }) : null;
    const wrap = h('div', { class: `field field-${p.type}`, dataset: { param: p.name } });
    let f;

    if ((p.type === 'enum' && p.choices && p.choices.length <= RADIO_MAX) || p.type === 'set') {
      f = this.choiceGroup(p, id, described);
      wrap.append(h('div', { class: 'field-label', id: `${id}-label` }, label(p.name), unit), f.el);
    } else {
      f = p.type === 'enum' ? this.select(p, id, described) : this.text(p, id, described, topo);
      wrap.append(h('label', { class: 'field-label', for: id }, label(p.name), unit), f.el);
    }
    wrap.append(...[helpEl, unread, err].filter(Boolean));
    const entry = { param: p, wrap, err, unread, reads: true, ...f };
    const mark = () => wrap.classList.toggle('changed', normal(p, entry.get()) !== normal(p, p.default));
    wrap.addEventListener('input', () => { mark(); this.clearError(p.name); });
    wrap.addEventListener('change', mark);
    entry.mark = mark;
    entry.set(p.default);
    mark();
    this.fields.set(p.name, entry);
    return wrap;
  }

  text(p, id, described, topo) {
    const input = h('input', {
      type: 'text', id, name: p.name, autocomplete: 'off', spellcheck: 'false',
      inputmode: p.type === 'int' ? 'numeric' : null,
      placeholder: placeholder(p),
      'aria-describedby': described,
    });
    return {
      el: input,
      focus: (o) => input.focus(o),
      get: () => {
        const v = input.value.trim();
        // whole numbers travel as JSON numbers; anything else as typed, for the server to judge
        if ((p.type === 'int' || p.type === 'size') && /^\d+$/.test(v) && Number.isSafeInteger(Number(v))) return Number(v);
        return v;
      },
      set: (v) => { input.value = p.type === 'size' && typeof v === 'number' ? sizeText(v) : v ?? ''; },
      disable: (d) => { input.disabled = d; },
    };
  }

  select(p, id, described) {
    const sel = h('select', { id, name: p.name, 'aria-describedby': described },
      (p.choices || []).map((c) => h('option', { value: c, text: c })));
    return {
      el: sel,
      focus: (o) => sel.focus(o),
      get: () => sel.value,
      set: (v) => { if ((p.choices || []).includes(String(v))) sel.value = String(v); },
      disable: (d) => { sel.disabled = d; },
    };
  }

  // Radios for a short enum, checkboxes for a set: every choice visible at once.
  choiceGroup(p, id, described) {
    const multi = p.type === 'set';
    const boxes = (p.choices || []).map((c, i) => {
      const input = h('input', { type: multi ? 'checkbox' : 'radio', name: p.name, value: c, id: `${id}-${i}` });
      return { c, input, el: h('label', { class: 'choice', for: `${id}-${i}` }, input, h('span', { text: c })) };
    });
    const el = h('div', {
      class: multi ? 'choices choices-set' : 'choices choices-enum', role: multi ? 'group' : 'radiogroup',
      'aria-labelledby': `${id}-label`, 'aria-describedby': described,
    }, boxes.map((b) => b.el));
    return {
      el,
      focus: (o) => boxes[0] && boxes[0].input.focus(o),
      get: () => (multi ? boxes.filter((b) => b.input.checked).map((b) => b.c).join(',')
        : (boxes.find((b) => b.input.checked) || { c: '' }).c),
      set: (v) => {
        const want = String(v ?? '');
        const list = want === 'all' ? (p.choices || []) : want.split(',').map((s) => s.trim());
        for (const b of boxes) b.input.checked = multi ? list.includes(b.c) : b.c === want;
      },
      disable: (d) => { for (const b of boxes) b.input.disabled = d; },
    };
  }

  // Every field's value, read or not.
  allValues() {
    const out = {};
    for (const [name, f] of this.fields) out[name] = f.get();
    return out;
  }

  // What a run is started with: the fields the run reads (paramApplies), never one the server would refuse
  // as not read (a param of another mode, placement beside cpus).
  values() {
    const all = this.allValues();
    const out = {};
    for (const [name, f] of this.fields) if (paramApplies(f.param, all, this.rows)) out[name] = all[name];
    return out;
  }

  // Greys out the fields a run of the form's values would not read, saying when they are read.
  refresh() {
    const all = this.allValues();
    for (const f of this.fields.values()) {
      f.reads = paramApplies(f.param, all, this.rows);
      f.wrap.classList.toggle('not-read', !f.reads);
      if (f.unread) {
        f.unread.hidden = f.reads;
        // the condition not met, of the two a field may have
        const unmet = f.reads ? null : unmetOnly(f.param, all, this.rows);
        if (unmet) f.unread.textContent = onlyText(unmet, this.rows);
      }
      f.disable(this.busy || !f.reads);
    }
  }

  // Fills the form from a run's params (numbers or normalised text); others keep defaults.
  setValues(params) {
    for (const [name, f] of this.fields) {
      f.set(params && name in params ? params[name] : f.param.default);
      f.mark();
    }
    this.refresh();
  }

  reset() {
    this.setValues({});
    this.clearErrors();
  }

  disable(d) {
    this.busy = d;
    this.refresh();
  }

  // Shows msg under the field; false if the form has no such field.
  showError(name, msg) {
    const f = this.fields.get(name);
    if (!f) return false;
    f.err.textContent = msg;
    f.err.hidden = false;
    f.wrap.classList.add('invalid');
    f.wrap.querySelectorAll('input, select').forEach((e) => e.setAttribute('aria-invalid', 'true'));
    f.focus({ preventScroll: true });
    f.wrap.scrollIntoView({ block: 'center' });
    return true;
  }

  clearError(name) {
    const f = this.fields.get(name);
    if (!f || f.err.hidden) return;
    f.err.hidden = true;
    f.err.textContent = '';
    f.wrap.classList.remove('invalid');
    f.wrap.querySelectorAll('[aria-invalid]').forEach((e) => e.removeAttribute('aria-invalid'));
  }

  clearErrors() {
    for (const name of this.fields.keys()) this.clearError(name);
  }
}

// When a param of only {param, values} is read, in words: "read only with mode=loaded", "... while cpus is empty".
function onlyText(only, rows) {
  const on = rows.get(only.param);
  if (only.values.length === 1 && only.values[0] === '') return `read only while ${label(only.param)} is empty`;
  const list = only.values.length > 1
    ? `${only.values.slice(0, -1).join(', ')} or ${only.values[only.values.length - 1]}` : only.values[0];
  if (on && on.type === 'set') return `read only when ${label(only.param)} has ${only.values.length > 1 ? 'one of ' : ''}${list}`;
  return `read only with ${only.param}=${list}`;
}

function normal(p, v) {
  if (p.type === 'size' && typeof v === 'number') return sizeText(v);
  if (p.type === 'set') {
    const s = String(v ?? '');
    return s === 'all' ? (p.choices || []).join(',') : s.split(',').map((x) => x.trim()).filter(Boolean).join(',');
  }
  return String(v ?? '').trim();
}

// The allowed range and what may be typed, from the param table.
function hint(p, topo) {
  const u = p.unit ? ` ${p.unit}` : '';
  const has = Number.isFinite(p.min) && Number.isFinite(p.max);
  switch (p.type) {
    case 'int':
      return has ? `${int(p.min)} to ${int(p.max)}${u}` : '';
    case 'size':
      return has ? `${bytes(p.min)} to ${bytes(p.max)}; a number of bytes or with K, M, G` : 'bytes, or with K, M, G';
    case 'sweep':
      return `${has ? `each ${int(p.min)} to ${int(p.max)}${u}; ` : ''}one value (2), a range (1-4), a list (1,2,4) or a stepped range (2-8:2)`;
    case 'cpulist':
      // the help gives the list's form (e.g. 0,2-3); this says which cpus there are
      return topo && topo.allowed ? `allowed here: ${topo.allowed}` : '';
    case 'nodelist': {
      const nodes = topo && topo.nodes ? topo.nodes.map((n) => n.os) : [];
      return nodes.length ? `NUMA nodes here: ${nodes.join(', ')}` : '';
    }
    case 'set':
      return 'tick one or more';
    default:
      return '';
  }
}

// What an empty list means is the param's own help ("empty: every node"), said once under the field, not again inside it.
function placeholder(p) {
  if (p.type === 'size') return 'e.g. 64K';
  return null;
}
