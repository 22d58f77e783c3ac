// campaign.mjs - a campaign of many machines in the page: one page of them at a time with the totals, and its CSV safe to open in a spreadsheet;
// and one of 1,000 machines at 1280x720: its CSV, baseline picker and one scale cover every machine, its table scrolls inside its card
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, NUMALAB, SHOTS, browserOrSkip, startServer, tempDir } from './setup.mjs';

const chromium = await browserOrSkip('test-browser (campaign)');
const tmp = tempDir('numalab-campaign-');
// the 1,000-machine campaign imports 900 runs from this one client: past the hourly quota of a classroom
const server = await startServer(tmp, {}, ['--import-quota', '2000']);
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

// A campaign of 1,000 machines (issue 36 item 4): 900 with a run each (imported, eight at a time), 100 failed.
const THOUSAND = 1000;
const WITH_RUN = 900;
async function thousandCampaign() {
  const ids = new Array(WITH_RUN);
  let next = 0;
  const one = async () => {
    while (next < WITH_RUN) {
      const i = next++;
      const d = structuredClone(doc);
      d.machine = { ...d.machine, hostname: `n${String(i).padStart(4, '0')}` };
      const [s, r] = await post('api/runs/import', d);
      if (s !== 201) throw new Error(`import ${i}: ${s} ${JSON.stringify(r)}`);
      ids[i] = r.id;
    }
  };
  await Promise.all(Array.from({ length: 8 }, one));
  const many = [];
  for (let i = 0; i < THOUSAND; i++) {
    const node = `n${String(i).padStart(4, '0')}`;
    many.push(i < WITH_RUN ? { node, state: 'done', run_id: ids[i] } : { node, state: 'failed', reason: 'ssh: no route to host' });
  }
  const [s] = await post('api/campaigns', { id: 'thousand', engine: 'clush', experiment: 'false_sharing', params: { threads: '1-2' }, created_at: '2026-12-04T12:00:00Z', finished_at: '2026-12-04T12:01:00Z', nodes: many });
  check(s === 201, `a campaign of ${THOUSAND} machines recorded (${s})`);
}

// The page of the 1,000-machine campaign at 1280x720: the CSV, the baseline picker and the one scale
// cover every machine, not the 24 on screen; the machine table scrolls inside its card, the page does not.
async function thousand() {
  const t0 = Date.now();
  await thousandCampaign();
  console.log(`     (${WITH_RUN} runs imported and the campaign recorded in ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  const small = await (await browser.newContext({ viewport: { width: 1280, height: 720 }, acceptDownloads: true })).newPage();
  small.on('pageerror', (e) => errors.push(String(e)));
  await small.goto(`${base}#/campaigns/thousand`);
  await small.waitForSelector('#campaign-table', { timeout: 20000 });
  const line = await small.textContent('#campaign-pager');
  check(line.includes(`machines 1–24 of ${THOUSAND} · done ${WITH_RUN} · failed ${THOUSAND - WITH_RUN}`), `the pager of 1,000 machines (${line})`);
  // the baseline picker: every machine with a run, read in pages of 1000
  await small.waitForFunction((n) => document.querySelectorAll('#campaign-baseline option').length === n, WITH_RUN, { timeout: 60000 });
  const note = await small.textContent('#campaign-baseline-note');
  check(note.includes(`any of the ${WITH_RUN} machines with a run`), `the baseline picker offers every machine with a run (${note})`);
  await small.selectOption('#campaign-baseline', 'n0899');
  check((await small.textContent('#campaign-bars')).includes('divided by n0899'), 'a machine of the last page is the baseline of this page\'s bars');
  // the one scale: every machine's run read, not only this page's
  await small.waitForFunction((n) => (document.getElementById('campaign-scale-note') || {}).textContent?.includes(`that of all ${n} machines`), THOUSAND, { timeout: 120000 });
  check(true, 'the one scale is that of all 1,000 machines');
  // the machine table: inside its card, scrolled there; the page itself no wider than the window
  const box = await small.evaluate(() => {
    const s = document.getElementById('campaign-table-scroll');
    const card = s.closest('.campaign-section').getBoundingClientRect();
    const r = s.getBoundingClientRect();
    const th = s.querySelector('thead th.campaign-node');
    return { sw: s.scrollWidth, cw: s.clientWidth, left: r.left, right: r.right, cardLeft: card.left, cardRight: card.right,
      pageW: document.documentElement.scrollWidth, winW: window.innerWidth, font: parseFloat(getComputedStyle(th).fontSize),
      overflow: getComputedStyle(s).overflowX };
  });
  check(box.sw > box.cw && /auto|scroll/.test(box.overflow), `the machine table scrolls inside its box (${box.sw} px of table in ${box.cw})`);
  check(box.left >= box.cardLeft && box.right <= box.cardRight + 0.5, `the table's box stays inside its card (${Math.round(box.left)}–${Math.round(box.right)} in ${Math.round(box.cardLeft)}–${Math.round(box.cardRight)})`);
  check(box.pageW <= box.winW, `the page is no wider than the window (${box.pageW} px in ${box.winW})`);
  check(box.font >= 14, `the table's text is ${box.font} px`);
  // scrolled sideways, the row names stay at the box's left edge, the corner with them
  const kept = await small.evaluate(() => {
    const s = document.getElementById('campaign-table-scroll');
    s.scrollLeft = s.scrollWidth;
    const left = s.getBoundingClientRect().left;
    const at = (el) => Math.round(el.getBoundingClientRect().left - left);
    return { scrolled: s.scrollLeft, corner: at(s.querySelector('thead th')), rows: [...s.querySelectorAll('tbody th')].map(at) };
  });
  check(kept.scrolled > 0 && Math.abs(kept.corner) <= 1 && kept.rows.every((x) => Math.abs(x) <= 1), `scrolled ${kept.scrolled} px, the row names stay at the left (${kept.corner}, ${kept.rows.join(', ')})`);
  await small.evaluate(() => { document.getElementById('campaign-table-scroll').scrollLeft = 0; });
  await small.evaluate(() => window.scrollTo(0, 0));
  await small.screenshot({ path: join(SHOTS, 'campaign-1000-1280x720.png') });
  // the machines' card below the page's bar, and the figures under it
  await small.evaluate(() => {
    document.getElementById('campaign-table-scroll').closest('.campaign-section').scrollIntoView({ block: 'start' });
    window.scrollBy(0, -64);
  });
  await small.screenshot({ path: join(SHOTS, 'campaign-1000-table-1280x720.png') });
  // each machine side by side on one scale
  await small.evaluate(() => {
    document.getElementById('campaign-machines').closest('.campaign-section').scrollIntoView({ block: 'start' });
    window.scrollBy(0, -64);
  });
  await small.screenshot({ path: join(SHOTS, 'campaign-1000-machines-1280x720.png') });
  // the CSV: every machine, with each one's figure
  const dl = small.waitForEvent('download', { timeout: 60000 });
  check((await small.textContent('#campaign-csv')) === `CSV of all ${THOUSAND} machines`, 'the CSV button says it holds every machine');
  await small.click('#campaign-csv');
  const file = join(tmp, 'thousand.csv');
  await (await dl).saveAs(file);
  const rows = readFileSync(file, 'utf8').split(/\r\n/).filter(Boolean).map((l) => l.split(','));
  check(rows[0].length === THOUSAND + 1 && rows[0][THOUSAND] === 'n0999', `the CSV has a column for each of the ${THOUSAND} machines (${rows[0].length - 1})`);
  const figures = rows[rows.length - 1].slice(1);
  check(figures.filter((v) => v !== '').length === WITH_RUN, `the CSV's figure row has a value for each of the ${WITH_RUN} machines with a run (${figures.filter((v) => v !== '').length})`);
  await small.close();
}

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
  await thousand();
  check(errors.length === 0, `no page errors ${errors.join('; ')}`);
} catch (e) {
  check(false, `campaign page: ${e.message}`);
} finally {
  await browser.close();
  proc.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
