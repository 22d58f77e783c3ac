// plan_page.mjs - the experiment form's plan for a Slurm partition, counted by this lane's sinfo through POST /api/campaigns/plan (run by check_fleet.py: node tests/fleet/plan_page.mjs --numalab BIN --nodes N)
import { CHROMIUM, browserOrSkip, startServer, tempDir, SHOTS } from '../browser/setup.mjs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const wide = Number(args[args.indexOf('--nodes') + 1]);
const chromium = await browserOrSkip('test-fleet (plan_page)');
const TEACHER = 'teacher-secret-for-plans';
const server = await startServer(tempDir('numalab-plan-page-'), {}, ['--token', TEACHER, '--fleet', 'slurm']);
let failed = 0;
const check = (cond, what) => { console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`); if (!cond) failed++; };
const plan = (page) => page.textContent('#fleet-plan');

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
try {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.base}?token=${TEACHER}#/experiments/atomic_increment`);
  await page.waitForSelector('#fleet-box', { timeout: 20000 });
  await page.click('#fleet-box summary');
  await page.fill('#fleet-partition', 'wide');
  await page.waitForFunction((n) => new RegExp(`on ${n} nodes`).test(document.querySelector('#fleet-plan')?.textContent || ''), wide, { timeout: 20000 });
  const text = await plan(page);
  check(new RegExp(`Plan: atomic_increment with .* on ${wide} nodes \\(m01, m02, m03 … m${wide}\\) in partition wide, one run each, through slurm`).test(text),
    `sinfo's count of the partition is the plan (${text})`);
  check(!(await page.isDisabled('#fleet-start')), 'and the campaign can start');
  await page.locator('#fleet-box').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SHOTS, 'fleet-plan-slurm.png') });
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.locator('#fleet-plan').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SHOTS, 'fleet-plan-slurm-1400.png') });
  await page.fill('#fleet-partition', 'nope');
  await page.waitForFunction(() => /sinfo lists no node in partition 'nope'/.test(document.querySelector('#fleet-plan')?.textContent || ''), null, { timeout: 20000 });
  check(await page.isDisabled('#fleet-start'), `a partition sinfo does not list is said, and cannot start (${await plan(page)})`);
  await page.fill('#fleet-partition', '');
  await page.fill('#fleet-constraint', 'big');
  await page.waitForFunction(() => /on 1 node \(n2\) with features big/.test(document.querySelector('#fleet-plan')?.textContent || ''), null, { timeout: 20000 });
  check(true, `features are counted too (${await plan(page)})`);
  check(errors.length === 0, `no page errors ${errors.join(' | ')}`);
} catch (e) {
  check(false, `the plan on the page: ${e.message}`);
} finally {
  await browser.close();
  server.proc.kill();
}
process.exit(failed ? 1 : 0);
