// join.js - a phone joins the class by the code the projector shows (as Kahoot does), then picks a name on the student page
import { $ } from './dom.js';
import { call } from './signin.js';

const form = $('join-form');
const input = $('join-code');
const note = $('join-note');

form.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const code = input.value.replace(/\s+/g, '');
  if (!/^[0-9]{6}$/.test(code)) {
    note.textContent = 'the code is six digits, like 482913';
    note.classList.add('student-error');
    input.focus();
    return;
  }
  $('join-send').disabled = true;
  try {
    await call('POST', { code });
    location.replace('student.html');
  } catch (e) {
    note.textContent = e.message;
    note.classList.add('student-error');
    $('join-send').disabled = false;
    input.select();
  }
});
input.focus();
