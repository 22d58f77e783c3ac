// fleet-start.js - starting a campaign from the experiment form (numalab serve --fleet): where, the plan it makes, then its page
import { h, clear } from './dom.js';
import { api } from './api.js';

// A host list in Slurm's syntax ("lab[01-03],n7") into names; throws on what it cannot read.
// Bounded: a plan is for showing, the engine reads the list again.
export function expandHosts(list, max = 100000) {
  const out = [];
  const parts = [];
  let depth = 0, start = 0;
  for (let i = 0; i < list.length; i++) {
    if (list[i] === '[') depth++;
    else if (list[i] === ']') depth--;
    else if (list[i] === ',' && depth === 0) {
      parts.push(list.slice(start, i));
      start = i + 1;
    }
    if (depth < 0 || depth > 1) throw new Error(`unbalanced '[' in '${list}'`);
  }
  if (depth) throw new Error(`unbalanced '[' in '${list}'`);
  parts.push(list.slice(start));
  for (const p of parts) {
    if (!p) continue;
    const m = p.match(/^([^[\]]*)\[([^\]]+)\](.*)$/);
    if (!m) {
      if (/[[\]]/.test(p)) throw new Error(`cannot read '${p}'`);
      out.push(p);
      continue;
    }
    for (const r of m[2].split(',')) {
      const [a, b = a] = r.split('-');
      if (!/^\d+$/.test(a) || !/^\d+$/.test(b) || Number(b) < Number(a)) throw new Error(`bad range '${r}' in '${p}'`);
      for (let k = Number(a); k <= Number(b); k++) {
        out.push(`${m[1]}${String(k).padStart(a.length, '0')}${m[3]}`);
        if (out.length > max) throw new Error(`more than ${max} nodes`);
      }
    }
  }
  return out;
}

// "a, b, c" or "a, b, c … z" past four names.
function shownNames(names) {
  return names.length > 4 ? `${names.slice(0, 3).join(', ')} … ${names[names.length - 1]}` : names.join(', ');
}

// What will run where, said before it starts: {text, ok}. counted: what the
// server's engine listed for a Slurm partition or features (POST
// /api/campaigns/plan: {count, nodes, unavailable} or {error}); undefined
// while it is being asked.
export function planText(engine, exp, params, where, counted) {
  const ps = Object.entries(params).map(([k, v]) => `${k}=${v}`).join(' ') || 'its defaults';
  let nodes;
  if (where.nodes) {
    let names;
    try {
      names = expandHosts(where.nodes);
    } catch (e) {
      return { ok: false, text: `nodes: ${e.message}` };
    }
    if (!names.length) return { ok: false, text: 'no node named' };
    nodes = `${names.length} node${names.length === 1 ? '' : 's'} (${shownNames(names)})`;
  } else if (engine === 'slurm' && (where.partition || where.constraint || where.all)) {
    const scope = `${where.partition ? ` in partition ${where.partition}` : ''}${where.constraint ? ` with features ${where.constraint}` : ''}`;
    if (!counted) {
      nodes = `every node sinfo lists${scope} (counting them…)`;
    } else if (counted.error) {
      return { ok: false, text: counted.error };
    } else if (!counted.count) {
      return { ok: false, text: `no node sinfo lists${scope} can take a run` };
    } else {
      const left = counted.unavailable || [];
      const none = left.length ? `; ${left.map((u) => u.node).join(', ')} get${left.length === 1 ? 's' : ''} no run (${left[0].reason})` : '';
      nodes = `${counted.count} node${counted.count === 1 ? '' : 's'} (${shownNames(counted.nodes)})${scope}${none}`;
    }
  } else {
    return { ok: false, text: engine === 'slurm' ? 'name nodes, a partition or features' : 'name the nodes: lab[01-30] or a,b' };
  }
  return { ok: true, text: `${exp.name} with ${ps} on ${nodes}, one run each, through ${engine}` };
}

// The panel under the form; shown only to the teacher, and only where this server starts campaigns.
// ctx: {form: the ParamForm, exp: () => the experiment shown, role: () => the signed-in role}
export async function setupFleetStart(box, ctx) {
  let engine;
  try {
    engine = (await api.campaigns()).fleet;
  } catch (e) {
    return;
  }
  if (!engine || ctx.role() === 'class') return;
  const nodes = h('input', { id: 'fleet-nodes', type: 'text', placeholder: engine === 'slurm' ? 'n[1-32] (or leave empty)' : 'lab[01-30]', autocomplete: 'off', spellcheck: false });
  const partition = h('input', { id: 'fleet-partition', type: 'text', placeholder: 'lab', autocomplete: 'off' });
  const features = h('input', { id: 'fleet-constraint', type: 'text', placeholder: 'gen2&big', autocomplete: 'off' });
  const plan = h('p', { class: 'fleet-plan', id: 'fleet-plan', 'aria-live': 'polite' });
  const msg = h('p', { class: 'run-bar-msg', id: 'fleet-msg', 'aria-live': 'polite' });
  const go = h('button', { type: 'button', class: 'primary', id: 'fleet-start', text: 'Start the campaign' });
  const where = () => {
    const w = {};
    if (nodes.value.trim()) w.nodes = nodes.value.trim();
    if (engine === 'slurm' && partition.value.trim()) w.partition = partition.value.trim();
    if (engine === 'slurm' && features.value.trim()) w.constraint = features.value.trim();
    if (engine === 'slurm' && !w.nodes && !w.constraint) w.all = true;
    return w;
  };
  // a Slurm partition or features: the server asks sinfo how many nodes
  // that is, once the fields rest for a moment
  let counted = { key: '' }, asking;
  const count = (exp, w) => {
    const req = { experiment: exp.name, params: ctx.form.values(), ...w };
    const key = JSON.stringify(req);
    if (counted.key === key) return counted.plan;
    counted = { key };
    clearTimeout(asking);
    asking = setTimeout(async () => {
      let plan;
      try {
        plan = await api.planCampaign(req);
      } catch (e) {
        plan = { error: e.message };
      }
      if (counted.key !== key) return;
      counted.plan = plan;
      update();
    }, 300);
    return undefined;
  };
  const update = () => {
    const exp = ctx.exp();
    if (!exp) return;
    const w = where();
    const listed = engine === 'slurm' && !w.nodes ? count(exp, w) : undefined;
    const p = planText(engine, exp, ctx.form.values(), w, listed);
    plan.textContent = `Plan: ${p.text}`;
    plan.classList.toggle('error', !p.ok);
    go.disabled = !p.ok;
  };
  const field = (label, input, help) => h('label', { class: 'fleet-field' }, h('span', { text: label }), input, help ? h('span', { class: 'field-help', text: help }) : null);
  clear(box).append(h('details', { class: 'fleet-box', id: 'fleet-box' },
    h('summary', { text: `Run on many machines (${engine})` }),
    h('p', { class: 'field-help', text: `One run of this experiment with the params above on each machine, through ${engine === 'slurm' ? 'Slurm (one exclusive job per node)' : 'ClusterShell (ssh)'}; its page fills as each machine finishes.` }),
    field('nodes', nodes, 'a host list: lab[01-30], n1,n2'),
    engine === 'slurm' ? field('partition', partition) : null,
    engine === 'slurm' ? field('features', features, 'F1&F2: all of them, F1|F2: any') : null,
    plan, h('div', { class: 'fleet-actions' }, go, msg)));
  box.addEventListener('input', update);
  document.getElementById('run-form').addEventListener('input', update);
  box.querySelector('details').addEventListener('toggle', update);
  go.addEventListener('click', async () => {
    const exp = ctx.exp();
    go.disabled = true;
    msg.textContent = 'starting…';
    msg.classList.remove('error');
    try {
      const r = await api.startCampaign({ experiment: exp.name, params: ctx.form.values(), ...where() });
      msg.textContent = '';
      location.hash = `#/campaigns/${encodeURIComponent(r.id)}`;
    } catch (e) {
      msg.textContent = `not started: ${e.message}`;
      msg.classList.add('error');
    } finally {
      go.disabled = false;
    }
  });
  return { update };
}
