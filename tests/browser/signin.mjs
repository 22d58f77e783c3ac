// signin.mjs - the lab room's sign-in: the teacher's printed link signs a browser in and leaves the address bar clean, the class link watches and is refused a start, a signed-out page shows the form, and the same over HTTPS with a certificate made here
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, SHOTS, browserOrSkip, startServer, tempDir } from './setup.mjs';

const chromium = await browserOrSkip('test-browser (signin)');
const tmp = tempDir('numalab-signin-');
const server = await startServer(tmp, {}, ['--token', 'teacher-secret-for-the-browser-test']);
let failed = 0;
const check = (cond, what) => { console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`); if (!cond) failed++; };
const shot = (page, name) => page.screenshot({ path: join(SHOTS, `${name}.png`) });

// the links come on the lines after "listening on"
async function links() {
  for (let i = 0; i < 100; i++) {
    const t = server.log().match(/^teacher: (\S+)$/m);
    const c = server.log().match(/^class: (\S+)$/m);
    if (t && c) return { teacher: t[1], klass: c[1] };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no links printed:\n${server.log()}`);
}

const { teacher, klass } = await links();
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
try {
  // the teacher: the printed link, then a run from the form
  {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await ctx.newPage();
    await page.goto(teacher);
    await page.waitForSelector('#who:not([hidden]) .who-role');
    check(!page.url().includes('token'), `the token is gone from the address bar (${page.url()})`);
    check((await page.textContent('#who .who-role')) === 'teacher', 'the header says teacher');
    const cookies = await ctx.cookies();
    const c = cookies.find((x) => x.name === `numalab_session_${new URL(server.base).port}`);
    check(c && c.httpOnly && c.sameSite === 'Strict', 'an HttpOnly SameSite=Strict session cookie');
    await page.goto(`${server.base}#/experiments/false_sharing`);
    await page.waitForSelector('#p-threads');
    await page.fill('#p-threads', '1');
    await page.fill('#p-increments', '100000');
    await page.click('#run-button');
    await page.waitForFunction(() => /^#\/runs\/[^/]+$/.test(location.hash), null, { timeout: 10000 });
    await page.waitForSelector('#status[data-status="done"]', { timeout: 60000 });
    check(true, 'the teacher started a run from the form and it finished');
    await shot(page, 'signin-teacher-1280x720');
    await page.click('#sign-out');
    await page.waitForSelector('#signin-form');
    check(true, 'sign-out brings the sign-in form back');
    await ctx.close();
  }
  // a student: the class link, with a name that is markup
  for (const [w, hgt] of [[1280, 720], [390, 844]]) {
    const ctx = await browser.newContext({ viewport: { width: w, height: hgt } });
    const page = await ctx.newPage();
    await page.goto(`${server.base}?token=${encodeURIComponent(new URL(klass).searchParams.get('token'))}#/experiments/false_sharing`);
    await page.waitForSelector('#who:not([hidden]) .who-role');
    check(!page.url().includes('token'), `the class's token is gone from the address bar (${w}x${hgt})`);
    check(/#\/experiments\/false_sharing$/.test(page.url()), 'the route after the token is kept');
    await page.waitForSelector('#p-threads');
    const run = await page.$eval('#run-button', (b) => ({ disabled: b.disabled, title: b.title }));
    check(run.disabled && /teacher/.test(run.title), `Run is off for a student and says why: "${run.title}"`);
    const status = await page.evaluate(async () => (await fetch('/api/runs', {
      // with the page's own key: the sign-in whole, and still a student's
      method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Numalab-Key': sessionStorage.getItem('numalab.key') },
      body: JSON.stringify({ experiment: 'false_sharing', params: { threads: '1' } }),
    })).status);
    check(status === 403, `a hand-made POST /api/runs from the student's page gets ${status}`);
    await page.waitForSelector('#run-list li');
    check((await page.$$('#run-list li')).length > 0, "the student sees the teacher's run in the list");
    await shot(page, `signin-student-${w}x${hgt}`);
    await ctx.close();
  }
  // a student who gives a name from the form: shown as text, never as markup
  {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await ctx.newPage();
    await page.goto(server.base);
    await page.waitForSelector('#signin-form');
    check(await page.isVisible('#signin-token') && (await page.getAttribute('#signin-token', 'type')) === 'password', 'a signed-out page shows a password field');
    check(!(await page.isVisible('#run-button')), 'and not the dashboard');
    await shot(page, 'signin-form-1280x720');
    await page.fill('#signin-token', 'wrong');
    await page.click('#signin-form button[type=submit]');
    await page.waitForSelector('#signin-error:not([hidden])');
    check(/wrong token/.test(await page.textContent('#signin-error')), 'a wrong token is said so');
    await page.fill('#signin-token', new URL(klass).searchParams.get('token'));
    // a name of spaces: the server's words, and the name field to fix
    await page.fill('#signin-name', '   ');
    await page.click('#signin-form button[type=submit]');
    await page.waitForFunction(() => /name is only spaces/.test(document.getElementById('signin-error')?.textContent || ''), null, { timeout: 5000 });
    check(await page.evaluate(() => document.activeElement?.id === 'signin-name'), 'a refused name is said and its field chosen');
    await page.fill('#signin-name', '<img src=x onerror=alert(1)>Ana');
    await page.click('#signin-form button[type=submit]');
    await page.waitForSelector('#who:not([hidden]) .who-role');
    const who = await page.textContent('#who .who-role');
    check(who === 'student: <img src=x onerror=alert(1)>Ana', `the name is shown as text: "${who}"`);
    check((await page.$$('#who img')).length === 0, 'no element made of the name');
    await ctx.close();
    const small = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const p2 = await small.newPage();
    await p2.goto(server.base);
    await p2.waitForSelector('#signin-form');
    await shot(p2, 'signin-form-390x844');
    await small.close();
  }
} catch (e) {
  console.log(`FAIL ${e.stack || e}`);
  failed++;
} finally {
  await browser.close();
  server.proc.kill('SIGTERM');
}

// HTTPS with a certificate made here: the browser trusts that certificate's key alone (as a lab's
// browsers would after importing it), never any certificate
if (!spawnSync('openssl', ['version']).stdout) {
  console.log('SKIP signin over HTTPS: no openssl to make a certificate (make test-deps installs it)');
} else {
  const cert = join(tmp, 'lab.crt');
  const key = join(tmp, 'lab.key');
  spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=numalab browser test', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert]);
  chmodSync(key, 0o600);
  const der = spawnSync('openssl', ['pkey', '-in', key, '-pubout', '-outform', 'DER']).stdout;
  const spki = createHash('sha256').update(der).digest('base64');
  const tls = await startServer(tmp, {}, ['--token', 'teacher-secret-over-https', '--tls-cert', cert, '--tls-key', key]);
  const secure = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', `--ignore-certificate-errors-spki-list=${spki}`] });
  try {
    check(tls.base.startsWith('https://127.0.0.1:'), `the server says https (${tls.base})`);
    const ctx = await secure.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await ctx.newPage();
    await page.goto(`${tls.base}?token=teacher-secret-over-https`);
    await page.waitForSelector('#who:not([hidden]) .who-role');
    check((await page.textContent('#who .who-role')) === 'teacher', 'over HTTPS the teacher link signs the browser in');
    check(page.url().startsWith('https://') && !page.url().includes('token'), `the token is gone from the address bar (${page.url()})`);
    const c = (await ctx.cookies()).find((x) => x.name === `numalab_session_${new URL(tls.base).port}`);
    check(c && c.secure && c.httpOnly && c.sameSite === 'Strict', 'the session cookie is Secure, HttpOnly, SameSite=Strict');
    await page.goto(`${tls.base}#/experiments/false_sharing`);
    await page.waitForSelector('#p-threads');
    check(!(await page.$eval('#run-button', (b) => b.disabled)), 'the teacher may run over HTTPS');
    await shot(page, 'signin-https-1280x720');
    await ctx.close();
  } catch (e) {
    console.log(`FAIL https: ${e.stack || e}`);
    failed++;
  } finally {
    await secure.close();
    tls.proc.kill('SIGTERM');
  }
}
rmSync(tmp, { recursive: true, force: true });
check(!/teacher-secret/.test(server.log().split('\n').filter((l) => !/^(teacher|class): /.test(l)).join('\n')), 'the token is in no line but its link');
console.log(failed ? `${failed} failed (screenshots in ${SHOTS})` : `signin: all passed (screenshots in ${SHOTS})`);
process.exit(failed ? 1 : 0);
