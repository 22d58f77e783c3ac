// campaign_live.mjs - a campaign started from the experiment form (serve --fleet clush, ClusterShell's exec worker on this host) watched as it fills; a student's page offers no start
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CHROMIUM, NUMALAB, SHOTS, browserOrSkip, startServer, tempDir } from './setup.mjs';
import { execFileSync } from 'node:child_process';

const chromium = await browserOrSkip('test-browser (campaign_live)');
let clush = null;
try {
  clush = execFileSync('sh', ['-c', 'command -v clush'], { encoding: 'utf8' }).trim();
} catch (e) {
  // said below
}
if (!clush) {
  console.log('SKIP campaign_live: no clush (scripts/deps.sh test installs clustershell)');
  process.exit(0);
}
const tmp = tempDir('numalab-campaign-live-');
// four at a time, as a room's clush would go
mkdirSync(join(tmp, 'xdg', 'clustershell'), { recursive: true });
writeFileSync(join(tmp, 'xdg', 'clustershell', 'clush.conf'), '[Main]\nfanout: 4\n');
// the machines' runs read the rates from a cache of this test's own, measured once here
const cache = join(tmp, 'cache');
execFileSync(NUMALAB, ['rates'], { env: { ...process.env, XDG_CACHE_HOME: cache }, stdio: 'ignore' });
// A run of a few ms a machine fills all 40 in a second or two on a quiet machine, before the page
// can see it running. So "numalab on the nodes" is a gate in front of this one: the first run to
// come goes on, the others wait until the page has been seen running (or 5 minutes at most).
const gate = join(tmp, 'gate');
const nodeBin = join(tmp, 'bin');
mkdirSync(nodeBin);
writeFileSync(join(nodeBin, 'numalab'), `#!/bin/sh
if ! mkdir '${join(tmp, 'first')}' 2>/dev/null; then
	i=0
	while [ ! -e '${gate}' ] && [ $i -lt 3000 ]; do sleep 0.1; i=$((i + 1)); done
fi
exec '${NUMALAB}' "$@"
`);
chmodSync(join(nodeBin, 'numalab'), 0o755);
const openGate = () => writeFileSync(gate, '');
const TEACHER = 'teacher-secret-for-campaigns';
const CLASS = 'class-secret-for-campaigns';
const server = await startServer(tmp, {
  NUMALAB_FLEET_CLUSH_WORKER: 'exec',
  XDG_CACHE_HOME: cache,
  XDG_CONFIG_HOME: join(tmp, 'xdg'),
  // numalab on the "nodes" is this one, behind the gate
  PATH: `${nodeBin}:${dirname(NUMALAB)}:${process.env.PATH}`,
}, ['--token', TEACHER, '--class-token', CLASS, '--fleet', 'clush']);
const { proc, base } = server;
let failed = 0;
const check = (cond, what) => { console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`); if (!cond) failed++; };

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
try {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${base}?token=${TEACHER}#/experiments/memory_policy_semantics`);
  await page.waitForSelector('#fleet-box', { timeout: 20000 });
  check((await page.textContent('#fleet-box summary')).includes('clush'), 'the teacher is offered a campaign through clush');
  await page.click('#fleet-box summary');
  // a run of a few ms a machine
  for (const [k, v] of [['size', '64K'], ['repeat', '1']]) await page.fill(`#run-form [name="${k}"]`, v).catch(() => {});
  await page.fill('#fleet-nodes', 'lab[01-40]');
  await page.waitForFunction(() => /40 nodes/.test(document.querySelector('#fleet-plan')?.textContent || ''), null, { timeout: 10000 });
  const plan = await page.textContent('#fleet-plan');
  check(/Plan: memory_policy_semantics with .* on 40 nodes \(lab01, lab02, lab03 … lab40\)/.test(plan), `the plan is said before it starts (${plan})`);
  await page.fill('#fleet-nodes', 'lab[01-');
  check(/unbalanced/.test(await page.textContent('#fleet-plan')) && await page.isDisabled('#fleet-start'), 'a list that cannot be read is said, and cannot start');
  await page.fill('#fleet-nodes', 'lab[01-40]');
  await page.click('#fleet-start');
  await page.waitForSelector('#campaign-status', { timeout: 20000 });
  check(/#\/campaigns\/\d{8}-\d{6}-[0-9a-f]{4}$/.test(page.url()), `the page goes to the campaign (${page.url()})`);
  // there from its first second, then filling as the machines finish
  await page.waitForFunction(() => /^running · [1-9]\d* of 40 done/.test(document.querySelector('#campaign-state')?.textContent || ''), null, { timeout: 120000 });
  const running = await page.textContent('#campaign-state');
  check(/running · \d+ of 40 done/.test(running), `seen running with its progress (${running})`);
  await page.screenshot({ path: join(SHOTS, 'campaign-live-running.png') });
  openGate();
  await page.waitForFunction(() => /^done · 40 of 40 done/.test(document.querySelector('#campaign-state')?.textContent || ''), null, { timeout: 240000 });
  check(true, 'seen done, 40 of 40');
  await page.waitForSelector('#campaign-table th.campaign-node a', { timeout: 20000 });
  check((await page.$$eval('#campaign-table th.campaign-node', (t) => t.length)) === 24, 'its first page of machines is drawn');
  const scroll = await page.$eval('#campaign-table-scroll', (e) => ({ over: e.scrollWidth > e.clientWidth, inside: e.getBoundingClientRect().right <= document.documentElement.clientWidth }));
  check(scroll.over && scroll.inside, 'the machines\' table scrolls inside its card at 1280 px');
  await page.screenshot({ path: join(SHOTS, 'campaign-live-done.png') });
  await page.goto(`${base}#/campaigns`);
  await page.waitForSelector('#campaign-list', { timeout: 20000 });
  check(/done/.test(await page.textContent('#campaign-list tbody tr td.campaign-state-cell')), 'the list says the campaign is done');
  check(errors.length === 0, `no page errors ${errors.join('; ')}`);

  // a student, signed in with the class link: no start offered, and the server refuses one
  const student = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
  await student.goto(`${base}?token=${CLASS}#/experiments/memory_policy_semantics`);
  await student.waitForSelector('#run-button', { timeout: 20000 });
  await student.waitForTimeout(1500);
  check(!(await student.$('#fleet-box')), 'a student is offered no campaign');
  // with the page's own key, as the page's calls go
  const st = await student.evaluate(async () => {
    const { keyHeaders } = await import('/key.js');
    return (await fetch('/api/campaigns/start', { method: 'POST', headers: { 'Content-Type': 'application/json', ...keyHeaders() }, body: JSON.stringify({ experiment: 'atomic_increment', nodes: 'lab01' }) })).status;
  });
  check(st === 403, `and the server refuses a student's start (${st})`);
} catch (e) {
  check(false, `the page works: ${e.message}`);
} finally {
  openGate();
  await browser.close();
  proc.kill();
}
process.exit(failed ? 1 : 0);
