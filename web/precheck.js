// precheck.js - badges under the form: what this machine and the chosen placement can show, before the run
import { h, clear } from './dom.js';
import { keyHeaders } from './key.js';

const WAIT_MS = 300; // after the last keystroke
// a word and a colour for each level, never the colour alone
const LOOK = {
  cannot: { word: 'cannot show', badge: 'badge-failed', warn: true },
  warn: { word: 'weak', badge: 'badge-cancelled', warn: true },
  info: { word: 'note', badge: 'badge-queued', warn: false },
};

async function ask(experiment, params) {
  // checks are the teacher's to run: a student's page does not ask (no 403 on every keystroke)
  if (document.body.classList.contains('role-class')) return null;
  const res = await fetch('/api/runs/check', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...keyHeaders() },
    body: JSON.stringify({ experiment, params }),
  });
  // a bad value is the form's own error to show on submit: no badges then
  return res.ok ? res.json() : null;
}

function render(list, doc) {
  clear(list);
  const notes = (doc && doc.notes) || [];
  const plan = (doc && Array.isArray(doc.plan) && doc.plan) || [];
  list.hidden = !notes.length && !plan.length;
  // where the threads and the memory would go, before the run: folded, a line each
  if (plan.length) {
    list.append(h('li', { class: 'note precheck-plan' },
      h('details', {},
        h('summary', { text: 'the plan: where threads run and memory goes' }),
        h('ul', {}, plan.map((line) => h('li', { text: line }))))));
  }
  for (const n of notes) {
    const look = LOOK[n.level] || LOOK.info;
    list.append(h('li', { class: `note${look.warn ? ' note-warn' : ''}`, dataset: { level: n.level } },
      h('span', { class: `badge ${look.badge}`, text: look.word }),
      h('span', { text: n.text })));
  }
}

// Keeps a list of badges after the form's fields, asked again whenever the form changes.
export function watchPrecheck(form) {
  const list = h('ul', { class: 'notes precheck', 'aria-live': 'polite', hidden: true });
  let timer = 0;
  let asked = 0;
  form.container.after(list);
  const check = () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const mine = ++asked;
      if (!form.exp) return render(list, null);
      let doc = null;
      try {
        doc = await ask(form.exp.name, form.values());
      } catch (e) {
        doc = null; // the server is away: the run button will say so
      }
      if (mine === asked) render(list, doc);
    }, WAIT_MS);
  };
  form.container.addEventListener('input', check);
  form.container.addEventListener('change', check);
  // a new experiment rebuilds the fields
  new MutationObserver(check).observe(form.container, { childList: true });
  return list;
}
