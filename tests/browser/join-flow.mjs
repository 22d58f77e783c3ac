// join-flow.mjs - the lab room as Kahoot runs it, shared by the loopback browser lane (join.mjs) and the network lane
// (tests/net/lan.mjs): the projector asks, a phone types the join code at /join, names itself, guesses; the projector's
// lobby shows the name and the teacher can hide it; screenshots at 1280x720 and 390x844.
import { join } from 'node:path';

const PHONE = { width: 390, height: 844 };
const PROJECTOR = { width: 1280, height: 720 };

// teacherLink: a printed teacher link; returns {classLink, joinLink, code, qrRead} as the projector shows them.
export async function projector(browser, teacherLink, check, errors, size = PROJECTOR) {
  const page = await (await browser.newContext({ viewport: size })).newPage();
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(teacherLink);
  await page.waitForSelector('#who:not([hidden]) .who-role');
  check((await page.textContent('#who .who-role')) === 'teacher', `the teacher link signs the projector in (${size.width}x${size.height})`);
  const base = new URL('/', page.url()).href;
  await page.goto(`${base}?classroom#/experiments/false_sharing`);
  await page.waitForSelector('body.classroom #lesson-pick option', { state: 'attached', timeout: 20000 });
  if (await page.$('#class-open')) await page.click('#class-open');
  await page.waitForSelector('#class-code', { timeout: 10000 });
  const classLink = await page.getAttribute('#class-link a', 'href');
  const joinLink = await page.textContent('#class-join-link');
  check(/^https?:\/\//.test(joinLink), `the link beside the QR code keeps its scheme (${joinLink})`);
  const code = (await page.textContent('#class-code')).replace(/\s+/g, '');
  check(/^[0-9]{6}$/.test(code) && /\/join$/.test(joinLink), `the projector shows the join page and a six-digit code (${joinLink}, ${code})`);
  const { default: jsQR } = await import('jsqr');
  const { PNG } = await import('pngjs');
  const png = PNG.sync.read(await page.locator('#class-qr').screenshot());
  const read = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  check(read && read.data === classLink, `a QR reader reads the class link from the projector (${read ? read.data : 'nothing'})`);
  return { page, classLink, joinLink, code, qrRead: read ? read.data : null };
}

// A phone joins by the code, gives name, guesses value: screenshots of the code and name steps.
export async function phoneJoins(browser, joinLink, code, name, value, check, errors, shots, size = PHONE) {
  const ctx = await browser.newContext({ viewport: size, isMobile: size.width < 600, hasTouch: size.width < 600 });
  const p = await ctx.newPage();
  p.on('pageerror', (e) => errors.push(String(e)));
  const tag = `${size.width}x${size.height}`;
  await p.goto(joinLink);
  await p.waitForSelector('#join-code');
  await p.fill('#join-code', `${code.slice(0, 3)} ${code.slice(3)}`);
  if (shots) await p.screenshot({ path: join(shots, `join-phone-code-${tag}.png`) });
  await p.click('#join-send');
  await p.waitForSelector('#student-name-form', { timeout: 10000 });
  check(/\/student\.html$/.test(p.url()), `the code signs the phone in and it lands on the student page (${tag})`);
  await p.fill('#student-name', name);
  if (shots) await p.screenshot({ path: join(shots, `join-phone-name-${tag}.png`) });
  await p.click('#student-name-send');
  await p.waitForSelector('#student-guess', { timeout: 10000 });
  await p.fill('#student-guess', String(value));
  await p.click('#student-send');
  await p.waitForFunction(() => /your guess/.test(document.getElementById('student-note')?.textContent || ''), null, { timeout: 10000 });
  check(true, `the phone that joined by code as ${JSON.stringify(name)} guessed ${value} (${tag})`);
  const wide = await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  check(wide, `the phone's pages need no sideways scrolling (${tag})`);
  return p;
}

// The projector's lobby lists name (as text), and the teacher can hide the names.
export async function lobbyShows(page, name, check, shots) {
  await page.waitForFunction((n) => [...document.querySelectorAll('#class-lobby-names li')].some((li) => li.textContent === n), name, { timeout: 15000 });
  check(true, `the projector's lobby shows ${JSON.stringify(name)}`);
  check(!(await page.$('#class-lobby-names img')), 'a name is text on the projector, never markup');
  const size = page.viewportSize();
  if (shots) await page.screenshot({ path: join(shots, `join-projector-lobby-${size.width}x${size.height}.png`) });
  await page.click('#lobby-toggle');
  await page.waitForSelector('#class-lobby-names', { state: 'detached', timeout: 5000 });
  check(/joined/.test(await page.textContent('#class-lobby-count')), 'the teacher hides the names: the count stays');
  await page.click('#lobby-toggle');
  await page.waitForSelector('#class-lobby-names', { timeout: 5000 });
}
