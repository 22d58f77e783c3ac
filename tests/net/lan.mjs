// lan.mjs - run by lan.sh in the class's network namespace: the server in the other (listening on 0.0.0.0, then on
// its address), every printed link opened by Chromium from here, the projector's QR code decoded and followed, a
// phone joining by the code, naming itself and guessing, the projector showing the name.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CHROMIUM, NUMALAB, SHOTS, WEB, browserOrSkip, tempDir } from '../browser/setup.mjs';
import { lobbyShows, phoneJoins, projector } from '../browser/join-flow.mjs';

const arg = (name) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? process.argv[i + 1] : null; };
const NS = arg('server-ns');
const HOST = arg('host-name');
const chromium = await browserOrSkip('test-net');
const tmp = tempDir('numalab-net-');
let failed = 0;
const errors = [];
const check = (cond, what) => { console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`); if (!cond) failed++; };

// numalab serve in the server's namespace, with the lab's host name (a UTS namespace of its own): {proc, links}
function serve(listen, name, extra = []) {
  return new Promise((ok, fail) => {
    const p = spawn('ip', ['netns', 'exec', NS, 'unshare', '--uts', 'sh', '-c', 'hostname "$0" && exec "$@"', HOST,
      NUMALAB, 'serve', '--listen', listen, '--db', join(tmp, `${name}.db`), '--web', WEB, ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'] });
    const links = { teacher: [], class: [], log: '' };
    const timer = setTimeout(() => fail(new Error(`no links within 30 s:\n${links.log}`)), 30000);
    const watch = (s) => createInterface({ input: s }).on('line', (line) => {
      links.log += `${line}\n`;
      const m = line.match(/^(teacher|class|join|listening on): ?(\S+)(?: code (\d+))?/);
      if (!m) return;
      if (m[1] === 'join') { links.join = m[2]; links.code = m[3]; clearTimeout(timer); ok({ proc: p, links }); }
      else if (m[1] !== 'listening on') links[m[1]].push(m[2]);
    });
    watch(p.stdout);
    watch(p.stderr);
    p.on('exit', (code) => { clearTimeout(timer); fail(new Error(`the server exited with ${code}:\n${links.log}`)); });
  });
}

const loopback = (url) => /^https?:\/\/(127\.|\[::1\]|localhost)/.test(url);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
const servers = [];
try {
  const wild = await serve('0.0.0.0:0', 'wild');
  servers.push(wild.proc);
  const { links } = wild;
  console.log(links.log.trim().split('\n').map((l) => `  server: ${l.replace(/token=\w+/, 'token=…')}`).join('\n'));
  check(links.teacher.length >= 2 && links.teacher.length === links.class.length, `one teacher and one class link per reachable name (${links.teacher.length})`);
  check(links.teacher.every((u) => !loopback(u)), 'no printed link is a loopback one');
  check(links.teacher.some((u) => u.includes('//198.51.100.1:')), 'a link on the server\'s address');
  check(links.teacher.some((u) => u.includes(`//${HOST}:`)), `a link on the host name, which resolves to it (${HOST})`);
  // every printed link opens from the other namespace: the teacher's signs in the teacher, the class's a phone
  for (const url of links.teacher) {
    const p = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
    p.on('pageerror', (e) => errors.push(String(e)));
    await p.goto(url);
    await p.waitForSelector('#who:not([hidden]) .who-role', { timeout: 20000 });
    check((await p.textContent('#who .who-role')) === 'teacher', `the printed teacher link opens from the class's network (${new URL(url).host})`);
    await p.context().close();
  }
  for (const url of links.class) {
    const p = await (await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true })).newPage();
    p.on('pageerror', (e) => errors.push(String(e)));
    await p.goto(url);
    await p.waitForURL(/\/student\.html$/, { timeout: 20000 });
    await p.waitForSelector('#student-name-form', { timeout: 10000 });
    check(true, `the printed class link opens on a phone there (${new URL(url).host})`);
    await p.context().close();
  }
  // the projector opened by the host name: its QR code still carries an address, which a phone can reach
  const byName = links.teacher.find((u) => u.includes(`//${HOST}:`));
  const named = await projector(browser, byName, check, errors);
  check(/^http:\/\/198\.51\.100\.1:\d+\/\?token=/.test(named.qrRead || ''), `the QR code uses the address, not the name (${named.qrRead})`);
  await named.page.context().close();
  const big = await projector(browser, links.teacher[0], check, errors);
  await big.page.screenshot({ path: join(SHOTS, 'net-projector-1280x720.png') });
  const cam = await (await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true })).newPage();
  await cam.goto(big.qrRead);
  await cam.waitForURL(/\/student\.html$/, { timeout: 20000 });
  await cam.waitForSelector('#student-name-form', { timeout: 10000 });
  check(!cam.url().includes('token'), 'the QR code\'s decoded link signs a phone in over the network, the token gone');
  await cam.click('#student-name-skip');
  await cam.waitForSelector('#student-guess', { timeout: 10000 });
  // the join page is the printed one; the code is the printed one until the
  // teacher opens a question, which makes a new one (the projector shows it)
  check(big.joinLink === links.join && /^\d{6}$/.test(big.code || ''),
    `the projector's join page is the printed one, with the question's code (${big.joinLink}, ${big.code}; printed ${links.code})`);
  const phone = await phoneJoins(browser, big.joinLink, big.code, 'Ada (netns)', 2.5, check, errors, null);
  await lobbyShows(big.page, 'Ada (netns)', check, null);
  await phone.screenshot({ path: join(SHOTS, 'net-phone-390x844.png') });
  await big.page.screenshot({ path: join(SHOTS, 'net-projector-lobby-1280x720.png') });

  // the same server listening on its address only
  const one = await serve('198.51.100.1:0', 'one', ['--token', 'teacher-token-for-the-net-lane']);
  servers.push(one.proc);
  check(one.links.teacher.length === 1 && one.links.teacher[0].startsWith('http://198.51.100.1:'), `listening on an address: its links use it (${one.links.teacher.length})`);
  const t = await (await browser.newContext()).newPage();
  await t.goto(one.links.teacher[0]);
  await t.waitForSelector('#who:not([hidden]) .who-role', { timeout: 20000 });
  check((await t.textContent('#who .who-role')) === 'teacher', 'and the teacher link opens from the class\'s network');
  check(!errors.length, `no page errors ${errors.join('; ')}`);
} catch (e) {
  console.log(`FAIL test-net: ${e.stack || e}`);
  failed++;
} finally {
  await browser.close();
  for (const p of servers) p.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
console.log(failed ? `test-net: ${failed} failed (screenshots in ${SHOTS})` : `test-net: all passed (screenshots in ${SHOTS})`);
process.exit(failed ? 1 : 0);
