// join.mjs - joining as Kahoot does, on loopback: the projector's join code and lobby, a phone's code and name steps at 1280x720 and 390x844
import { rmSync } from 'node:fs';
import { CHROMIUM, SHOTS, browserOrSkip, startServer, tempDir } from './setup.mjs';
import { lobbyShows, phoneJoins, projector } from './join-flow.mjs';

const chromium = await browserOrSkip('test-browser (join)');
const tmp = tempDir('numalab-join-');
const server = await startServer(tmp, {}, ['--token', 'teacher-token-for-the-join-test']);
let failed = 0;
const errors = [];
const check = (cond, what) => { console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`); if (!cond) failed++; };
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
try {
  const teacher = `${server.base}?token=teacher-token-for-the-join-test`;
  const big = await projector(browser, teacher, check, errors);
  const EVIL = '<img src=x onerror="window.pwned=1">';
  const phones = [
    await phoneJoins(browser, big.joinLink, big.code, 'Grace', 3, check, errors, SHOTS),
    await phoneJoins(browser, big.joinLink, big.code, EVIL, 4, check, errors, SHOTS, { width: 1280, height: 720 }),
  ];
  await lobbyShows(big.page, 'Grace', check, SHOTS);
  await lobbyShows(big.page, EVIL, check, null);
  // the projector at a phone's size too (a teacher's tablet)
  const small = await projector(browser, teacher, check, errors, { width: 390, height: 844 });
  await lobbyShows(small.page, 'Grace', check, SHOTS);
  // a wrong code: the server's words, no sign-in
  const p = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
  await p.goto(big.joinLink);
  await p.fill('#join-code', String((Number(big.code) + 1) % 1000000).padStart(6, '0'));
  await p.click('#join-send');
  await p.waitForSelector('.student-error', { timeout: 5000 });
  check(/wrong join code/.test(await p.textContent('#join-note')), 'a wrong code is refused in words');
  // a name the server refuses (a right-to-left override): its words on the
  // phone, the name step still there to fix it, then a good name goes
  await p.fill('#join-code', big.code);
  await p.click('#join-send');
  await p.waitForSelector('#student-name-form', { timeout: 10000 });
  await p.fill('#student-name', 'Ada\u202eecalevoL');
  await p.click('#student-name-send');
  await p.waitForFunction(() => /text-direction control \(U\+202E\)/.test(document.getElementById('student-name-note')?.textContent || ''), null, { timeout: 5000 });
  check(true, `a name with U+202E is refused in the server's words: "${await p.textContent('#student-name-note')}"`);
  await p.fill('#student-name', 'Ada ');
  await p.click('#student-name-send');
  await p.waitForFunction(() => /ends with a space/.test(document.getElementById('student-name-note')?.textContent || ''), null, { timeout: 5000 });
  check(await p.isVisible('#student-name-form'), 'a name with a space at its end is said, not trimmed');
  await p.fill('#student-name', 'Ada');
  await p.click('#student-name-send');
  await p.waitForSelector('#student-guess', { timeout: 10000 });
  await lobbyShows(big.page, 'Ada', check, null);
  for (const ph of phones) check(!(await ph.evaluate(() => window.pwned)), 'no name became markup');
  check(!(await big.page.evaluate(() => window.pwned)), 'no name became markup on the projector');
  check(!errors.length, `no page errors ${errors.join('; ')}`);
} catch (e) {
  console.log(`FAIL join: ${e.stack || e}`);
  failed++;
} finally {
  await browser.close();
  server.proc.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
console.log(failed ? `${failed} failed (screenshots in ${SHOTS})` : `join: all passed (screenshots in ${SHOTS})`);
process.exit(failed ? 1 : 0);
