// class_predict.mjs - the class predicts on their own devices: the projector asks, three students (one on a 390x844 phone) guess, the teacher reveals and runs, everyone sees the answer against the class's guesses
// The teacher signs in with the printed teacher link; two students open the printed class link (it lands them on student.html),
// one types the class's token and a name that is markup into the sign-in form and follows the header's Guess link.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, SHOTS, browserOrSkip, startServer, tempDir } from './setup.mjs';

const chromium = await browserOrSkip('test-browser (class_predict)');
const tmp = tempDir('numalab-class-');
const server = await startServer(tmp, {}, ['--token', 'teacher-token-class-predict', '--class-token', 'class-token-class-predict']);
const { proc, base } = server;
let failed = 0;
const check = (cond, what) => { console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`); if (!cond) failed++; };

// the links come on the lines after "listening on"
async function links() {
  for (let i = 0; i < 100; i++) {
    const t = server.log().match(/^teacher: (\S+)$/m);
    const c = server.log().match(/^class: (\S+)$/m);
    if (t && c) return { teacherLink: t[1], classLink: c[1] };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no links printed:\n${server.log()}`);
}
const { teacherLink, classLink } = await links();
const BEARER = { Authorization: `Bearer ${new URL(teacherLink).searchParams.get('token')}` };

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
const errors = [];
const EVIL = '<img src=x onerror="window.pwned=1">';

// The histogram's words, measured where they are drawn: each label beside the top of its own line, no label over a bar,
// a count, another label or another line; every count whole above its bar. Returns the faults, [] when none.
async function histogramFaults(page, sel) {
  // drawn anew every poll (2 s): measured once it is laid out
  await page.waitForFunction((q) => { const t = document.querySelector(`${q} .class-dist-label`); return t && t.getBBox().width > 0; }, sel, { timeout: 10000 }).catch(() => {});
  return page.$eval(sel, (svg) => {
    const box = (el) => el.getBBox();
    const hit = (a, b, pad = 0) => a.x < b.x + b.width + pad && b.x < a.x + a.width + pad && a.y < b.y + b.height + pad && b.y < a.y + a.height + pad;
    const labels = [...svg.querySelectorAll('.class-dist-label')];
    const lines = [...svg.querySelectorAll('.class-dist-mark')];
    const bars = [...svg.querySelectorAll('.class-dist-bar')].map(box);
    const counts = [...svg.querySelectorAll('.class-dist-count')].map(box);
    const out = [];
    labels.forEach((t, i) => {
      const b = box(t);
      const name = t.textContent;
      const line = lines[i];
      const x = Number(line.getAttribute('x1'));
      const y1 = Number(line.getAttribute('y1'));
      if (Math.min(Math.abs(b.x - x), Math.abs(b.x + b.width - x)) > 10) out.push(`${name}: ${Math.round(Math.min(Math.abs(b.x - x), Math.abs(b.x + b.width - x)))} units from its line`);
      if (y1 < b.y - 4 || y1 > b.y + b.height) out.push(`${name}: its line starts at ${Math.round(y1)}, not level with it (${Math.round(b.y)}-${Math.round(b.y + b.height)})`);
      if (b.x < -1 || b.x + b.width > svg.viewBox.baseVal.width + 1) out.push(`${name}: out of the drawing`);
      for (const r of [...bars, ...counts]) if (hit(b, r)) out.push(`${name}: over a bar or its count`);
      labels.forEach((u, j) => { if (j !== i && hit(b, box(u))) out.push(`${name}: over ${u.textContent}`); });
      lines.forEach((l, j) => {
        if (j === i) return;
        const lx = Number(l.getAttribute('x1'));
        if (lx > b.x && lx < b.x + b.width && Number(l.getAttribute('y1')) < b.y + b.height) out.push(`${name}: crossed by ${labels[j].textContent}'s line`);
      });
    });
    // a count's baseline over its bar (its box reaches below the baseline by the font's descent)
    [...svg.querySelectorAll('.class-dist-count')].forEach((c, k) => { if (Number(c.getAttribute('y')) > bars[k].y) out.push(`count ${k} runs into its bar`); });
    return out;
  });
}
try {
  const schema = await (await fetch(`${base}api/experiments`, { headers: BEARER })).json();
  const fs = schema.find((e) => e.name === 'false_sharing');
  const lesson = fs.lessons.find((l) => Number.isFinite(l.article_value)) || fs.lessons[0];

  const teacher = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
  teacher.on('pageerror', (e) => errors.push(String(e)));
  await teacher.goto(teacherLink);
  await teacher.waitForSelector('#who:not([hidden]) .who-role');
  check((await teacher.textContent('#who .who-role')) === 'teacher', 'the teacher link signs the projector in as the teacher');
  await teacher.goto(`${base}?classroom#/experiments/false_sharing`);
  await teacher.waitForSelector('body.classroom #lesson-pick option', { state: 'attached', timeout: 20000 });
  await teacher.selectOption('#lesson-pick', lesson.id);
  await teacher.click('#class-open');
  await teacher.waitForSelector('#class-link', { timeout: 10000 });
  // the link the projector shows (and its QR code encodes) is the one the phones follow: it carries the class token
  const shown = await teacher.getAttribute('#class-link a', 'href');
  const shownText = await teacher.textContent('#class-link a');
  check(shown === classLink, `the projector shows the class link with its token (${shown})`);
  const joinText = await teacher.textContent('#class-join-link');
  check(shownText === 'the class link' && /^https?:\/\/.*\/join$/.test(joinText), `beside it the join page, written out with its scheme (${joinText})`);
  check(await teacher.isVisible('#class-qr svg'), 'and its QR code');
  const qrFor = await teacher.getAttribute('#class-qr svg', 'aria-label');
  check(qrFor === `a QR code of the class link ${classLink}`, `the QR code is drawn from that link (${qrFor})`);
  // and a QR reader (jsQR, as a phone's camera app would) reads that link back from the pixels on the projector
  const { default: jsQR } = await import('jsqr');
  const { PNG } = await import('pngjs');
  const png = PNG.sync.read(await teacher.locator('#class-qr').screenshot());
  const read = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  check(read && read.data === classLink, `a QR reader reads the class link from the projector's code (${read ? read.data : 'nothing read'})`);

  const students = [];
  const sizes = [{ width: 390, height: 844 }, { width: 800, height: 600 }, { width: 800, height: 600 }];
  const guesses = [2, 3, 8];
  for (let i = 0; i < 3; i++) {
    const ctx = await browser.newContext({ viewport: sizes[i], isMobile: i === 0, hasTouch: i === 0 });
    const p = await ctx.newPage();
    p.on('pageerror', (e) => errors.push(String(e)));
    if (i === 1) {
      // the sign-in form: the class's token typed, and a name that is markup
      await p.goto(base);
      await p.waitForSelector('#signin-form');
      await p.fill('#signin-token', new URL(classLink).searchParams.get('token'));
      await p.fill('#signin-name', EVIL);
      await p.click('#signin-form button[type=submit]');
      await p.waitForSelector('#to-student');
      await p.screenshot({ path: join(SHOTS, 'class-student-header-800x600.png') });
      await p.click('#to-student');
    } else {
      // what a phone's camera gets from the projector: the link it shows
      await p.goto(shown);
    }
    await p.waitForURL(/\/student\.html$/, { timeout: 10000 });
    if (i !== 1) check(!p.url().includes('token'), `the class link lands student ${i} on the phone page, the token gone (${p.url()})`);
    // a phone that joined without a name is asked for one first; student 0 skips it
    await p.waitForSelector('#student-name-form, #student-question', { timeout: 10000 });
    if (await p.$('#student-name-form')) await p.click(i === 0 ? '#student-name-skip' : '#student-name-send');
    await p.waitForSelector('#student-question', { timeout: 10000 });
    check((await p.textContent('#student-question')).toLowerCase().includes(lesson.question.slice(0, 30).toLowerCase()), `student ${i} sees the question`);
    // a bad guess first: the server's words, not a crash
    if (i === 0) {
      await p.fill('#student-guess', '0');
      await p.click('#student-send');
      await p.waitForSelector('.student-error', { timeout: 5000 });
      check(/above 0/.test(await p.textContent('#student-note')), 'a guess of 0 is refused, saying what is allowed');
    }
    await p.fill('#student-guess', String(guesses[i]));
    await p.click('#student-send');
    await p.waitForFunction(() => /your guess/.test(document.getElementById('student-note')?.textContent || ''), null, { timeout: 5000 });
    // a student's page never learns the class token back, nor the teacher's
    const who = await p.evaluate(async () => (await fetch('/api/session', { headers: { 'X-Numalab-Key': sessionStorage.getItem('numalab.key') } })).text());
    check(/"role":"class"/.test(who) && !who.includes('class_link') && !who.includes('token-class-predict'), `student ${i}'s session holds no token (${who.trim()})`);
    students.push(p);
  }
  const phone = students[0];
  await phone.screenshot({ path: join(SHOTS, 'class-phone-question-390x844.png') });
  const qpx = await phone.evaluate(() => parseFloat(getComputedStyle(document.getElementById('student-question')).fontSize));
  check(qpx >= 22, `the phone's question is large enough to read (${qpx} px)`);
  const wide = await phone.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  check(wide, 'the phone page needs no sideways scrolling');

  await teacher.waitForFunction(() => /3 answered/.test(document.getElementById('class-count')?.textContent || ''), null, { timeout: 10000 });
  check(true, 'the projector counts 3 answered');
  await teacher.screenshot({ path: join(SHOTS, 'class-projector-asked-1280x720.png') });
  await teacher.click('#class-reveal');
  await teacher.waitForSelector('#class-live .class-dist svg', { timeout: 10000 });
  check(/median 3/.test(await teacher.textContent('#class-live .class-dist svg')), 'the projector marks the median of the guesses');
  await teacher.screenshot({ path: join(SHOTS, 'class-projector-revealed-1280x720.png') });
  const revealed = await histogramFaults(teacher, '#class-live .class-dist svg');
  check(revealed.length === 0, `the revealed histogram's labels sit by their lines, clear of the bars (${revealed.join('; ')})`);

  // a late joiner sees the revealed state at once
  const late = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  await late.goto(classLink);
  await late.waitForSelector('#student-name-form', { timeout: 10000 });
  await late.click('#student-name-skip');
  await late.waitForSelector('.class-dist svg', { timeout: 10000 });
  check(/3 answered/.test(await late.textContent('#student-count')), 'a late joiner sees how many answered and the guesses');

  // the phone page opened without signing in: the server's words and the way to sign in
  const stranger = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  await stranger.goto(`${base}student.html`);
  await stranger.waitForSelector('#student-signin', { timeout: 10000 });
  check(/sign in/.test(await stranger.textContent('.student-error')), 'the phone page says to sign in when not signed in');
  await stranger.screenshot({ path: join(SHOTS, 'class-phone-signed-out-390x844.png') });

  // the run answers it: the answer against the class's distribution
  await teacher.fill('#lesson-guess', '2.5');
  await teacher.click('#run-button');
  await teacher.waitForFunction(() => /^#\/runs\/\d+$/.test(location.hash), null, { timeout: 20000 });
  const id = (await teacher.evaluate(() => location.hash)).match(/(\d+)$/)[1];
  await teacher.waitForSelector('#status[data-status="done"], #status[data-status="failed"]', { timeout: 300000 })
    .catch(async (e) => { await teacher.screenshot({ path: join(SHOTS, 'class-projector-stuck.png') }); throw e; });
  await teacher.waitForSelector('#lesson-result .class-dist svg', { timeout: 20000 });
  await teacher.waitForTimeout(800);
  const rows = await teacher.$$eval('#lesson-result tbody tr th', (t) => t.map((x) => x.textContent));
  check(/class \(median of 3\)/.test(rows[0]) && /teacher/.test(rows[1]), `the answer stands beside the class's median and the teacher's guess (${rows})`);
  if (await teacher.$('#lesson-result .answer-disowned')) check(!rows.some((r) => /machine/.test(r)), 'a disowned answer has no bar');
  const onScreen = () => teacher.evaluate(() => {
    const r = document.querySelector('#lesson-result .class-dist svg').getBoundingClientRect();
    const bar = document.querySelector('.run-bar');
    const limit = bar ? bar.getBoundingClientRect().top : window.innerHeight;
    return { ok: r.height > 0 && r.top >= 0 && r.bottom <= limit + 0.5, why: `histogram ${Math.round(r.top)}-${Math.round(r.bottom)}, room to ${Math.round(limit)}` };
  });
  const whole = await onScreen();
  check(whole.ok, `the class's histogram is on the projector whole at 1280x720 (${whole.why})`);
  await teacher.screenshot({ path: join(SHOTS, 'class-projector-answer-1280x720.png') });
  const answered = await histogramFaults(teacher, '#lesson-result .class-dist svg');
  check(answered.length === 0, `the answer's histogram: each label by its line, none over a bar, a count or a line (${answered.join('; ')})`);
  // the same at the other projector size
  await teacher.setViewportSize({ width: 1400, height: 900 });
  await teacher.waitForTimeout(500);
  await teacher.screenshot({ path: join(SHOTS, 'class-projector-answer-1400x900.png') });
  const wholeBig = await onScreen();
  check(wholeBig.ok, `the class's histogram is on the projector whole at 1400x900 (${wholeBig.why})`);
  const big = await histogramFaults(teacher, '#lesson-result .class-dist svg');
  check(big.length === 0, `and at 1400x900 (${big.join('; ')})`);
  // one colour, one meaning: the class's bars are in no colour a chart series on the same screen takes
  const colours = await teacher.evaluate(() => {
    const bar = getComputedStyle(document.querySelector('#lesson-result .class-dist-bar')).fill;
    const series = [...document.querySelectorAll('#results canvas')].flatMap((c) => {
      const ch = window.Chart && window.Chart.getChart ? window.Chart.getChart(c) : null;
      return ch ? ch.data.datasets.map((d) => String(d.borderColor)) : [];
    });
    const hex = (rgb) => '#' + (rgb.match(/\d+/g) || []).slice(0, 3).map((n) => Number(n).toString(16).padStart(2, '0')).join('');
    return { bar: hex(bar), series };
  });
  check(!colours.series.map((c) => c.toLowerCase()).includes(colours.bar), `the class's bars (${colours.bar}) share no colour with the machine's series (${colours.series})`);
  await teacher.setViewportSize({ width: 1280, height: 720 });
  const run = await (await fetch(`${base}api/runs/${id}`, { headers: BEARER })).json();
  check(run.class && run.class.guesses.length === 3 && run.class.teacher_guess === 2.5, 'the run keeps the class\'s guesses and the teacher\'s');
  check(run.class.guesses.some((g) => g.name === EVIL), 'a name is kept as it was typed');

  // a student cannot start, cancel or import, even by hand from the phone's own page (its cookie, its origin)
  const handMade = await phone.evaluate(async ([rid, doc]) => {
    // with the page's own key: the sign-in whole, and still a student's
    const send = async (method, path, body) => (await fetch(path, { method, headers: { 'Content-Type': 'application/json', 'X-Numalab-Key': sessionStorage.getItem('numalab.key') }, body: body && JSON.stringify(body) })).status;
    return {
      start: await send('POST', '/api/runs', { experiment: 'false_sharing', params: { threads: '1' } }),
      cancel: await send('DELETE', `/api/runs/${rid}`),
      import: await send('POST', '/api/runs/import', doc),
    };
  }, [id, run]);
  check(handMade.start === 403 && handMade.cancel === 403 && handMade.import === 403, `a student's hand-made start, cancel and import are refused (${JSON.stringify(handMade)})`);
  await phone.waitForSelector('#student-answer, .answer-mark', { timeout: 20000 });
  await phone.screenshot({ path: join(SHOTS, 'class-phone-answer-390x844.png'), fullPage: true });
  check(/median/.test(await phone.textContent('#student')), 'the phone shows the answer against the class');
  const said = (run.summary || {})[lesson.answer] || {};
  const mine = await phone.$$eval('#student-answer li.answer-machine', (t) => t.map((x) => x.textContent));
  if (mine.length && typeof said.lo === 'number') check(/\(\S+–\S+\)/.test(mine[0]), `the phone gives this machine's answer with its interval (${mine[0]})`);
  for (const p of [teacher, ...students, late]) check(!(await p.evaluate(() => window.pwned || document.querySelector('img[src="x"]'))), 'no name became markup');
  check(errors.length === 0, `no page errors ${errors.join('; ')}`);
} catch (e) {
  check(false, `class_predict: ${e.message}`);
} finally {
  await browser.close();
  proc.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
