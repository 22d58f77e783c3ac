// campaign.mjs - a campaign of many machines in the page: one page of them at a time with the totals, and its CSV safe to open in a spreadsheet
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, NUMALAB, SHOTS, browserOrSkip, startServer, tempDir } from './setup.mjs';

const chromium = await browserOrSkip('test-browser (campaign)');
const tmp = tempDir('numalab-campaign-');
const server = await startServer(tmp);
const { proc, base } = server;
let failed = 0;
const check = (cond, what) => { console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`); if (!cond) failed++; };
const post = async (path, d) => {
  const r = await fetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: base.replace(/\/$/, '') }, body: JSON.stringify(d) });
  return [r.status, await r.json()];
};

// one machine ran, under a name a spreadsheet would run as a formula; 59 others failed
const doc = JSON.parse(execFileSync(NUMALAB, ['run', '--json', 'false_sharing', 'threads=1-2', 'repeat=3', 'warmup=0', 'increments=200000']));
const [st, run] = await post('api/runs/import', doc);
check(st === 201, `a run imported (${st})`);
const EVIL = '=HYPERLINK("http://evil.example/","n0")';
const nodes = [{ node: EVIL, state: 'done', run_id: run.id }];
for (let i = 1; i < 60; i++) nodes.push({ node: `lab${String(i).padStart(2, '0')}`, state: 'failed', reason: i === 1 ? '@SUM(1+1)' : 'ssh: no route to host' });
const [cs] = await post('api/campaigns', { id: 'paged', engine: 'clush', experiment: 'false_sharing', params: { threads: '1-2' }, created_at: '2026-12-03T12:00:00Z', nodes });
check(cs === 201, `a campaign of 60 machines recorded (${cs})`);

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true })).newPage();
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
const columns = () => page.$$eval('#campaign-table th.campaign-node', (t) => t.length);
const pager = () => page.textContent('#campaign-pager');
try {
  await page.goto(`${base}#/campaigns/paged`);
  await page.waitForSelector('#campaign-table', { timeout: 20000 });
  check(await columns() === 24, `the first page shows 24 machines (${await columns()})`);
  check((await pager()).includes('machines 1–24 of 60 · done 1 · failed 59'), `the pager says where it is and what all pages hold (${await pager()})`);
  check(await page.isDisabled('#campaign-prev'), 'no previous page on the first');
  await page.click('#campaign-next');
  await page.waitForFunction(() => document.querySelector('#campaign-pager')?.textContent.includes('25–48'), null, { timeout: 20000 });
  check(await columns() === 24 && (await page.textContent('#campaign-table')).includes('lab24'), 'the next page shows the next 24');
  await page.click('#campaign-next');
  await page.waitForFunction(() => document.querySelector('#campaign-pager')?.textContent.includes('49–60'), null, { timeout: 20000 });
  check(await columns() === 12, `the last page shows the last 12 (${await columns()})`);
  check(await page.isDisabled('#campaign-next'), 'no next page on the last');
  await page.screenshot({ path: join(SHOTS, 'campaign-paged.png') });
  await page.goto(`${base}#/campaigns`);
  await page.goto(`${base}#/campaigns/paged`);
  await page.waitForSelector('#campaign-csv', { timeout: 20000 });
  const dl = page.waitForEvent('download', { timeout: 10000 });
  await page.click('#campaign-csv');
  const file = join(tmp, 'table.csv');
  await (await dl).saveAs(file);
  const csv = readFileSync(file, 'utf8');
  check(csv.includes(`"'=HYPERLINK(""http://evil.example/"",""n0"")"`), 'the formula in a node name is quoted with a leading \'');
  const fields = csv.split(/\r\n/).flatMap((l) => l.split(','));
  check(!fields.some((f) => /^[=+@\t\r]/.test(f) || /^-[^0-9.]/.test(f)), 'no cell of the CSV starts as a formula');
  check(errors.length === 0, `no page errors ${errors.join('; ')}`);
} catch (e) {
  check(false, `campaign page: ${e.message}`);
} finally {
  await browser.close();
  proc.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
