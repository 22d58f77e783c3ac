// links.mjs - every view opened from its link alone, in a fresh browser context (what a colleague gets from a pasted
// link): complete and usable, its setup column ready to run, axe-core clean of serious and moderate problems
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, NUMALAB, ONLY, SHOTS, browserOrSkip, startServer, tempDir } from './setup.mjs';
import { axeCheck } from './axe.mjs';

const chromium = await browserOrSkip('test-browser (links)');
const tmp = tempDir('numalab-links-i39-');
let failed = 0;
const check = (cond, what) => { console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`); if (!cond) failed++; };
const servers = [];

async function post(base, path, d) {
  const r = await fetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: base.replace(/\/$/, '') }, body: JSON.stringify(d) });
  return [r.status, await r.json()];
}

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
try {
  const server = await startServer(join(tmp));
  servers.push(server);
  const { base } = server;
  const fs = JSON.parse(execFileSync(NUMALAB, ['run', '--json', 'false_sharing', 'threads=1-2', 'repeat=3', 'warmup=0', 'increments=100000']));
  const ids = [];
  for (const stride of ['64', '128']) {
    const [st, r] = await post(base, 'api/runs/import', { ...fs, params: { ...fs.params, stride } });
    check(st === 201, `a run with stride=${stride} imported (${st})`);
    ids.push(r.id);
  }
  const [cs] = await post(base, 'api/campaigns', { id: 'pair', engine: 'clush', experiment: 'false_sharing', params: {}, created_at: '2026-12-03T12:00:00Z',
    nodes: ids.map((id, i) => ({ node: `lab-${i}`, state: 'done', run_id: id })) });
  check(cs === 201, `a campaign recorded (${cs})`);

  // [name, link, a selector the complete view has, the experiment its setup column shows]
  const VIEWS = [
    ['experiment', '#/experiments/atomic_increment', '#results', 'Atomic increments'],
    ['run', `#/runs/${ids[0]}`, '#charts figure.chart canvas', 'False sharing'],
    ['compare', `#/compare/${ids.join(',')}`, '#compare-table tbody tr', 'False sharing'],
    ['compare-pick', `#/compare/${ids[0]}`, '#compare-pick-list input[type=checkbox]', 'False sharing'],
    ['history', '#/history', '#history-table tbody tr[data-id]', null],
    ['history-filtered', '#/history?experiment=false_sharing', '#history-table tbody tr[data-id]', 'False sharing'],
    ['campaigns', '#/campaigns', '#results h1', null],
    ['campaign', '#/campaigns/pair', '#campaign-machines', null],
    ['topology', '#/topology', '.topo svg', null],
    ['classroom', '#/classroom', 'body.classroom #results', null],
  ];
  for (const [name, link, ready, exp] of VIEWS) {
    if (ONLY && !name.includes(ONLY)) continue;
    for (const [w, hgt] of [[1280, 720], [1400, 900]]) {
      const ctx = await browser.newContext({ viewport: { width: w, height: hgt } });
      const page = await ctx.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      try {
        await page.goto(`${base}${link}`);
        await page.waitForSelector(ready, { timeout: 20000 });
        await page.waitForTimeout(400);
        const st = await page.evaluate(() => ({
          title: document.getElementById('exp-title').textContent,
          run: document.getElementById('run-button').disabled,
          h1: document.querySelectorAll('h1').length,
          results: document.getElementById('results').textContent.trim().length,
          reading: !!document.getElementById('compare-reading'),
        }));
        check(!/loading/i.test(st.title) && (!exp || st.title === exp), `${name} at ${w}x${hgt}: the setup column shows an experiment (${st.title})`);
        check(!st.run, `${name} at ${w}x${hgt}: Run is ready`);
        check(st.results > 0 && !st.reading, `${name} at ${w}x${hgt}: the view is drawn`);
        check(st.h1 >= 1, `${name} at ${w}x${hgt}: the page has a first-level heading`);
        await page.screenshot({ path: join(SHOTS, `links-${name}-${w}x${hgt}.png`) });
        if (w === 1280) await axeCheck(page, `${name} from its link`, check, { moderate: true });
        check(errors.length === 0, `${name}: no page errors ${errors.join('; ')}`);
      } catch (e) {
        check(false, `${name} at ${w}x${hgt}: ${e.message}`);
      } finally {
        await ctx.close();
      }
    }
  }
  // the largest picture: 1,024 PUs in folds, each fold box named as it reads
  if (!ONLY || 'topology-1024'.includes(ONLY)) {
    mkdirSync(join(tmp, 'big'), { recursive: true });
    const big = await startServer(join(tmp, 'big'), { HWLOC_SYNTHETIC: 'pack:8 numa:8 l3:1 l2:8 core:1 pu:2' });
    servers.push(big);
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await ctx.newPage();
    await page.goto(`${big.base}#/topology`);
    await page.waitForSelector('.topo svg', { timeout: 30000 });
    await page.waitForTimeout(500);
    await page.screenshot({ path: join(SHOTS, 'links-topology-1024-1280x720.png') });
    await axeCheck(page, 'the topology of 1,024 PUs', check, { moderate: true });
    await ctx.close();
  }
} catch (e) {
  check(false, `links: ${e.stack}`);
} finally {
  await browser.close();
  for (const s of servers) s.proc.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
