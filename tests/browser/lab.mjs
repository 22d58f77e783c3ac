// lab.mjs - browser tests of the lab pages: permalink, history, compare, import picker, classroom at 1280x720
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, NUMALAB, SHOTS, browserOrSkip, startServer, tempDir } from './setup.mjs';
import { axeCheck, repeatedButtonNames } from './axe.mjs';

const chromium = await browserOrSkip('test-browser (lab)');
const tmp = tempDir('numalab-lab-');
const server = await startServer(tmp);
const { proc, base } = server;
let failed = 0;
const check = (cond, what) => { console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`); if (!cond) failed++; };

// two runs, as if made on two machines: one by `numalab run --json`, one edited to come from a cluster node
const doc = JSON.parse(execFileSync(NUMALAB, ['run', '--json', 'false_sharing', 'threads=1-2', 'repeat=3', 'warmup=0', 'increments=200000']));
const other = JSON.parse(JSON.stringify(doc));
other.machine.hostname = 'cluster-node-17';
for (const s of other.samples) { s.y *= 2; s.samples = s.samples.map((v) => v * 2); for (const k of ['median', 'min', 'max', 'mean', 'ci_lo', 'ci_hi']) s.stats[k] *= 2; }
// and a noisy one: the rounds of one point far apart
// (under 6 rounds the interval of the median is the whole range, as kernels/harness/stats.c makes it)
// with a headline its numbers do not support: the page leads with today's verdict
other.headline = 'forged: sharing cost 2 threads 99x';
other.samples[0].y = 1; other.samples[0].samples = [1, 1, 3]; Object.assign(other.samples[0].stats, { n: 3, median: 1, min: 1, max: 3, ci_lo: 1, ci_hi: 3 });
const post = async (d) => (await fetch(`${base}api/runs/import`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(d) })).json();
const a = await post(doc);
const b = await post(other);
check(a.id && b.id, `two runs imported (${a.id}, ${b.id})`);

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
const page = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
try {
  await page.goto(`${base}#/runs/${b.id}`);
  await page.waitForSelector('#machine-panel', { timeout: 20000 });
  check((await page.textContent('.run-title')).includes(`Run ${b.id}`), 'the permalink opens that run');
  check((await page.textContent('#machine-panel')).includes('cluster-node-17'), 'the machine panel names its host');
  check((await page.textContent('#machine-panel')).includes('imported from'), 'the run says it was imported');
  check(!(await page.textContent('#headline')).includes('forged'), 'the headline is today\'s verdict, not the one it came with');
  const mark = await page.textContent('#imported-mark');
  check(await page.isVisible('#imported-mark') && mark.includes('as imported it said') && mark.includes('forged'),
    `one line says what the import said (${mark})`);
  check(await page.isVisible(`#run-list li[data-id="${b.id}"] .run-imported`), 'the recent runs mark the import');
  check(await page.isVisible('#noisy-warning'), 'a noisy point is called out');
  check(await page.isVisible('#export-bar a[href$="format=json"]'), 'the JSON download is offered');
  await page.waitForSelector('.png-button', { timeout: 10000 });
  const dl = page.waitForEvent('download', { timeout: 10000 });
  await page.click('.png-button');
  const png = await dl;
  check((await png.suggestedFilename()).endsWith('.png'), 'a chart downloads as PNG');
  // twice the screen's pixels, with the title and where it comes from drawn in
  const pngFile = join(tmp, 'chart.png');
  await png.saveAs(pngFile);
  const { readFileSync } = await import('node:fs');
  const pngBytes = readFileSync(pngFile);
  const pngW = pngBytes.readUInt32BE(16);
  const cssW = await page.evaluate(() => document.querySelector('#charts figure canvas').getBoundingClientRect().width);
  check(pngW >= 2 * cssW, `the PNG is ${pngW} px wide for a chart ${Math.round(cssW)} px wide on screen`);
  const names = await page.$$eval('.png-button', (b) => b.map((x) => x.getAttribute('aria-label')));
  check(new Set(names).size === names.length, `each PNG button has its own name (${names})`);
  writeFileSync(join(SHOTS, 'export-chart.png'), pngBytes);
  await page.screenshot({ path: join(SHOTS, 'lab-run.png'), fullPage: true });

  await page.goto(`${base}#/history?machine=cluster`);
  await page.waitForSelector('#history-table tbody tr[data-id]', { timeout: 20000 });
  const ids = await page.$$eval('#history-table tbody tr[data-id]', (rs) => rs.map((r) => r.dataset.id));
  check(ids.length === 1 && ids[0] === String(b.id), `history filtered by machine shows run ${b.id} only (${ids})`);
  check((await page.textContent(`#history-table tbody tr[data-id="${b.id}"]`)).includes('imported'), 'the history marks the import');
  await axeCheck(page, 'history', check);
  await page.goto(`${base}#/history`);
  await page.waitForFunction(() => document.querySelectorAll('#history-table tbody tr[data-id]').length === 2, null, { timeout: 20000 });
  for (const box of await page.$$('#history-table tbody input[type=checkbox]')) await box.check();
  await page.click('#compare-button');
  await page.waitForSelector('#compare-table tbody tr', { timeout: 20000 });
  check(page.url().endsWith(`#/compare/${b.id},${a.id}`), `the URL says what is compared (${page.url()})`);
  const heads = await page.$$eval('#compare-table thead th', (t) => t.map((x) => x.textContent));
  check(heads.some((t) => t.includes('cluster-node-17')) && heads.some((t) => t.includes(doc.machine.hostname)), 'the comparison names both machines');
  // ratios only for figures with a better way, none for a value its verdict disowns (noise decides which here)
  const cmpBody = await page.textContent('#compare-table tbody');
  check(cmpBody.includes('×') || cmpBody.includes('not a valid measurement'), 'the comparison gives ratios, or says why a value has none');
  const diff = await page.$$eval('#compare-diff-table tbody tr th', (t) => t.map((x) => x.textContent));
  check(diff.some((t) => t.startsWith('host')), `the table of what differs names the host (${diff})`);
  check(!diff.some((t) => t === 'threads'), 'parameters the runs share are folded away');
  check(await page.isVisible('.compare-same summary'), 'the rows that are the same wait behind one line');
  check(/higher is better|lower is better/.test(await page.textContent('#compare-table tbody')), 'each ratio says which way is better');
  await page.waitForTimeout(500);
  const cmp = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('#compare-charts figure canvas'));
    return { legend: c.options.plugins.legend.position, sets: c.data.datasets.filter((d) => !d._ref).map((d) => ({ label: d.label, color: d.borderColor })) };
  });
  const fam = (run) => new Set(cmp.sets.filter((d) => d.label.endsWith(`#${run}`)).map((d) => d.color));
  check(cmp.legend === 'bottom', `the legend sits under the plot (${cmp.legend})`);
  check([...fam(a.id)].every((c) => !fam(b.id).has(c)), `each run has its own colours (${JSON.stringify(cmp.sets)})`);
  await axeCheck(page, 'compare', check);
  const twice = await repeatedButtonNames(page);
  check(!twice.length, `each button of compare has its own name (${twice.join(', ')})`);
  await page.screenshot({ path: join(SHOTS, 'compare-1280x720.png') });
  await page.screenshot({ path: join(SHOTS, 'lab-compare.png'), fullPage: true });

  // import through the file picker
  const file = join(tmp, 'run.json');
  writeFileSync(file, JSON.stringify(doc));
  await page.goto(`${base}#/history`);
  await page.waitForSelector('#import-file');
  await page.setInputFiles('#import-file', file);
  await page.waitForFunction(() => /^#\/runs\/\d+$/.test(location.hash), null, { timeout: 20000 });
  check(page.url().match(/#\/runs\/(\d+)$/)[1] > b.id, 'the file picker imports and opens the run');

  // classroom, at a projector's 1280x720
  await page.goto(`${base}?classroom#/runs/${a.id}`);
  await page.waitForSelector('body.classroom #results figure.chart.classroom-current', { timeout: 20000 });
  await page.waitForTimeout(800);
  const shown = await page.$$eval('#results figure.chart', (f) => f.filter((x) => getComputedStyle(x).display !== 'none').length);
  check(shown === 1, `classroom shows one chart at a time (${shown})`);
  check(!(await page.isVisible('.col-nav')), 'classroom hides the navigation');
  // the chart already drawn takes the projector's type and colours, and gives them back
  const look = () => page.evaluate(() => {
    const c = Object.values(window.Chart.instances).find((x) => x.canvas.closest('figure.classroom-current'))
      || Object.values(window.Chart.instances)[0];
    const ds = c.data.datasets.find((d) => !d._ref);
    return { px: c.scales.y._resolveTickFontOptions(0).size, color: ds && ds.borderColor, width: ds && ds.borderWidth };
  });
  const big = await look();
  check(big.px === 26 && big.color === '#003E8A', `classroom charts use large type and the dark palette (${JSON.stringify(big)})`);
  await axeCheck(page, 'classroom', check);
  await page.screenshot({ path: join(SHOTS, 'lab-classroom.png') });
  await page.click('#classroom-toggle');
  await page.waitForTimeout(600); // past the resize handler's debounce
  const small = await look();
  check(small.px < 26 && small.color === '#0072B2', `leaving classroom gives the laptop's type and palette back (${JSON.stringify(small)})`);
  await page.click('#classroom-toggle');
  await page.waitForTimeout(600);
  const again = await look();
  check(again.px === 26 && again.color === '#003E8A', `a resize in classroom keeps the projector's look (${JSON.stringify(again)})`);
  const before = await page.evaluate(() => location.hash);
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction((h) => location.hash !== h, before, { timeout: 10000 });
  check((await page.evaluate(() => location.hash)).startsWith('#/experiments/'), 'the right arrow steps to the next experiment');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => location.hash === '#/experiments/false_sharing', null, { timeout: 10000 });
  await page.keyboard.press(' ');
  await page.waitForFunction(() => /^#\/runs\/\d+$/.test(location.hash), null, { timeout: 20000 });
  check(true, 'space starts a run');
  await page.waitForTimeout(1500);
  await page.screenshot({ path: join(SHOTS, 'lab-classroom-run.png') });
  check(errors.length === 0, `no page errors ${errors.join('; ')}`);
} catch (e) {
  check(false, `lab pages: ${e.message}`);
} finally {
  await browser.close();
  proc.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
