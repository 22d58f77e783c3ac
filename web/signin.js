// signin.js - the lab room's sign-in: the link's token traded for a cookie, the sign-in form, who is signed in, sign-out
import { h, clear, $ } from './dom.js';
import { keyHeaders, setKey } from './key.js';

const NAME_MAX = 48; // bytes of UTF-8, as the server counts them

export async function call(method, body) {
  const opts = { method, headers: { Accept: 'application/json', ...keyHeaders() } };
  if (method !== 'GET') opts.headers['Content-Type'] = 'application/json';
  if (body !== undefined) opts.body = JSON.stringify(body);
  const res = await fetch('/api/session', opts);
  let doc = {};
  try { doc = await res.json(); } catch (e) { /* an empty or odd answer: the status says enough */ }
  if (!res.ok) {
    // the server's words, and the field they concern ('name': the person's to fix)
    const err = new Error(doc.error || `sign-in answered ${res.status}`);
    err.field = doc.field;
    throw err;
  }
  // a sign-in's answer carries the key this page sends beside the cookie from now on
  if (method === 'POST' && typeof doc.key === 'string') setKey(doc.key);
  if (method === 'DELETE') setKey(null);
  return doc;
}

// The token of a teacher's or class link, taken out of the address bar at
// once: it is not to stay in the history, a bookmark or a screenshot.
function takeToken() {
  const q = new URLSearchParams(location.search);
  const token = q.get('token');
  if (token === null) return null;
  q.delete('token');
  const rest = q.toString();
  history.replaceState(null, '', location.pathname + (rest ? `?${rest}` : '') + location.hash);
  return token;
}

function showWho(who) {
  const el = $('who');
  if (!el || !who.sign_in || who.role === 'none') return;
  const label = who.role === 'teacher' ? 'teacher' : `student${who.name ? `: ${who.name}` : ''}`;
  clear(el).append(
    ...(who.role === 'class' ? [h('a', { href: 'student.html', class: 'top-link', id: 'to-student', text: 'Guess', title: 'the teacher\'s question, on a page made for a phone' })] : []),
    h('span', { class: 'who-role', text: label, title: who.role === 'class' ? 'signed in with the class link: you may watch runs and send predictions, not start runs' : 'signed in with the teacher\'s link' }),
    h('button', { type: 'button', class: 'link-button who-out', id: 'sign-out', text: 'Sign out', onclick: signOut }),
  );
  el.hidden = false;
}

async function signOut() {
  try { await call('DELETE'); } catch (e) { /* signed out or not, the page starts over */ }
  location.reload();
}

// The form a signed-out browser sees in place of the page.
function showForm(message) {
  const err = h('p', { class: 'signin-error', id: 'signin-error', role: 'alert', text: message || '' });
  err.hidden = !message;
  const token = h('input', { type: 'password', id: 'signin-token', name: 'token', autocomplete: 'current-password', required: true });
  const name = h('input', { type: 'text', id: 'signin-name', name: 'name', maxlength: String(NAME_MAX), autocomplete: 'nickname' });
  const form = h('form', { class: 'signin-form', id: 'signin-form' },
    h('h1', { text: 'Sign in to numalab' }),
    h('p', { class: 'signin-lead', text: 'Open the link your teacher gave you, or paste its token here. The teacher\'s token lets you start runs; the class\'s lets you watch them and send predictions.' }),
    h('label', { for: 'signin-token', text: 'Token' }), token,
    h('label', { for: 'signin-name', text: 'Your name (optional, shown to the class)' }), name,
    err,
    h('button', { type: 'submit', class: 'primary', text: 'Sign in' }));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (new TextEncoder().encode(name.value).length > NAME_MAX) {
      err.textContent = `the name is too long: at most ${NAME_MAX} bytes`;
      err.hidden = false;
      return;
    }
    try {
      await call('POST', { token: token.value, name: name.value });
      location.reload();
    } catch (e) {
      err.textContent = e.message;
      err.hidden = false;
      (e.field === 'name' ? name : token).select();
    }
  });
  document.querySelector('main.layout').hidden = true;
  document.body.classList.add('signed-out');
  document.querySelector('header.top').after(h('section', { class: 'signin', id: 'signin', 'aria-label': 'sign in' }, form));
  token.focus();
}

let classLinkSeen = null; // the class's sign-in link: the teacher's answer alone carries it
let joinSeen = null; // {link, code}: where a phone types the join code, and the code

// The link that signs a student in (its token included), for the projector's
// QR code; null for anyone but the teacher, or on a server without a token.
export function classLink() { return classLinkSeen; }
// The join page and its code for the projector ({link, code}); null as classLink.
export function joinInfo() { return joinSeen; }

// Signs in with a link's token if the address carries one, then says who
// the browser is: {role: 'teacher'|'class'|'none', name, sign_in}. A
// signed-out browser on a server with a token gets the form instead, and
// the promise resolves with role 'none'.
export async function signIn() {
  const token = takeToken();
  let failed = '';
  if (token !== null) {
    try { await call('POST', { token }); } catch (e) { failed = e.message; }
  }
  let who;
  try { who = await call('GET'); } catch (e) { return { role: 'teacher', name: '', sign_in: false }; }
  // the class link with no page named: a student's phone, so the page for
  // one (student.html); nothing more is drawn here while it loads
  if (token !== null && !failed && who.role === 'class' && !location.hash) {
    location.replace('student.html');
    return { role: 'none', name: '', sign_in: true };
  }
  classLinkSeen = who.role === 'teacher' && typeof who.class_link === 'string' ? who.class_link : null;
  joinSeen = who.role === 'teacher' && typeof who.join_code === 'string' ? { link: who.join_link, code: who.join_code } : null;
  document.body.classList.toggle('role-class', who.role === 'class');
  if (who.sign_in && who.role === 'none') showForm(failed);
  else showWho(who);
  return who;
}
