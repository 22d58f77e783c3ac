// comparing.mjs - comparing runs and machines as an engineer would: "compare with…" in view, a chosen baseline, one scale
// across a campaign's machines, a heatmap exported as a 2560x1440 slide with its colour scale, the form a few Tab stops away
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CHROMIUM, NUMALAB, SHOTS, browserOrSkip, startServer, tempDir } from './setup.mjs';

const chromium = await browserOrSkip('test-browser (comparing)');
const tmp = tempDir('numalab-comparing-');
mkdirSync(SHOTS, { recursive: true });
const server = await startServer(tmp);
const { proc, base } = server;
let failed = 0;
const check = (cond, what) => { console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`); if (!cond) failed++; };
const post = async (path, d) => {
  const r = await fetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: base.replace(/\/$/, '') }, body: JSON.stringify(d) });
  return [r.status, await r.json()];
};
// a document as another machine would have measured it: its figures times k
const scaled = (doc, k, host, params = {}) => {
  const d = JSON.parse(JSON.stringify(doc));
  d.machine.hostname = host;
  Object.assign(d.params, params);
  for (const e of Object.values(d.summary || {})) if (e && typeof e.value === 'number') e.value *= k;
  // every figure of a point scaled alike: its rounds, their spread and the median's interval
  for (const s of d.samples || []) {
    s.y *= k;
    for (const f of ['min', 'max', 'median', 'mean', 'ci_lo', 'ci_hi']) if (s.stats && typeof s.stats[f] === 'number') s.stats[f] *= k;
    if (Array.isArray(s.samples)) s.samples = s.samples.map((v) => (typeof v === 'number' ? v * k : v));
  }
  for (const c of d.cells || []) if (typeof c.value === 'number') c.value *= k;
  return d;
};

const fs = JSON.parse(execFileSync(NUMALAB, ['run', '--json', 'false_sharing', 'threads=1-2', 'repeat=3', 'warmup=0', 'increments=200000']));
const ids = [];
for (const [k, host, threads] of [[1, 'lab-a', '1-2'], [1.5, 'lab-b', '1-3'], [2, 'lab-c', '1-4']]) {
  const [st, r] = await post('api/runs/import', scaled(fs, k, host, { threads }));
  check(st === 201, `run on ${host} imported (${st})`);
  ids.push(r.id);
}
// two runs of different sizes: their wall times are compared per increment
const small = JSON.parse(execFileSync(NUMALAB, ['run', '--json', 'atomic_increment', 'threads=1-2', 'variants=fetch_add,cas', 'increments=100000', 'repeat=2', 'warmup=0']));
const sized = [];
for (const [k, host, increments] of [[1, 'lab-a', 100000], [4, 'lab-a', 400000]]) {
  const [st, r] = await post('api/runs/import', scaled(small, k, host, { increments }));
  check(st === 201, `atomic_increment with increments=${increments} imported (${st})`);
  sized.push(r.id);
}
// measured with a captured shape, not this machine's: two cores of one package, an L3 each, so the
// headline figure is the round trip between cores that share no cache, wherever the test runs
const c2c = JSON.parse(execFileSync(NUMALAB, ['run', '--json', 'core_to_core'], { env: { ...process.env, HWLOC_XMLFILE: resolve('tests/data/l3_per_core.xml') } }));
const heat = [];
for (const [k, host] of [[1, 'node-1'], [1.08, 'node-2'], [3, 'node-3']]) {
  const [st, r] = await post('api/runs/import', scaled(c2c, k, host));
  check(st === 201, `core_to_core on ${host} imported (${st})`);
  heat.push({ node: host, state: 'done', run_id: r.id });
}
const [cs] = await post('api/campaigns', { id: 'three', engine: 'clush', experiment: 'core_to_core', params: {}, created_at: '2026-12-03T12:00:00Z', nodes: heat });
check(cs === 201, `a campaign of 3 machines recorded (${cs})`);

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
const errors = [];
const open = async (w, hgt) => {
  const p = await (await browser.newContext({ viewport: { width: w, height: hgt }, acceptDownloads: true })).newPage();
  p.on('pageerror', (e) => errors.push(String(e)));
  return p;
};
try {
  const page = await open(1280, 720);
  // 1. "compare with…" opens its picker in view, with what sets the other runs apart
  await page.goto(`${base}#/runs/${ids[0]}`);
  await page.waitForSelector('#compare-with', { timeout: 20000 });
  await page.click('#compare-with');
  await page.waitForSelector('#compare-pick-list input[type=checkbox]', { timeout: 20000 });
  const box = await (await page.$('#compare-pick')).boundingBox();
  check(box && box.y >= 0 && box.y < 720, `the picker opens in view (top at ${box && Math.round(box.y)} px)`);
  const items = await page.$$eval('#compare-pick-list li', (l) => l.map((x) => x.textContent));
  check(items.length === 2 && items.some((t) => t.includes('threads=1-3')) && items.some((t) => t.includes('threads=1-4')), `the picker lists the other runs with their parameters (${items.join(' | ')})`);
  await page.screenshot({ path: join(SHOTS, 'comparing-picker-1280x720.png') });
  for (const b of await page.$$('#compare-pick-list input[type=checkbox]')) await b.check();
  await page.click('#compare-pick-go');
  await page.waitForSelector('#compare-table tbody tr', { timeout: 20000 });
  const heads = () => page.$$eval('#compare-table thead th', (t) => t.map((x) => x.textContent));
  check((await heads()).filter((t) => /^#\d+ threads=1-\d · lab-/.test(t)).length === 3, `compare shows 3 runs, each named by what differs (${await heads()})`);
  // the baseline is chosen at the top, in view without a scroll
  const ctl = await (await page.$('#compare-controls')).boundingBox();
  check(ctl && ctl.y >= 0 && ctl.y + ctl.height < 300, `the baseline choice is at the top (at ${ctl && Math.round(ctl.y)} px)`);
  const fits = await page.$eval('#compare-table', (t) => { const box = t.closest('.compare-scroll'); return { box: box ? box.clientWidth : 0, page: document.documentElement.scrollWidth }; });
  check(fits.box > 0 && fits.page <= 1280, `the table scrolls inside its card, the page is not wider than the window (${JSON.stringify(fits)})`);
  // every chart is drawn relative to the baseline: the baseline's own series at 1
  const relY = () => page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('#compare-charts figure[data-chart=time] canvas'));
    return { title: c.options.scales.y.title.text, ys: Object.fromEntries(c.data.datasets.filter((d) => !d._ref).map((d) => [d._name, d.data.map((p) => p.y)])) };
  });
  let rel = await relY();
  const at1 = (ys, id) => Object.entries(ys).filter(([k]) => k.endsWith(`run #${id}`)).every(([, v]) => v.length && v.every((y) => Math.abs(y - 1) < 1e-9));
  check(/÷ baseline/.test(rel.title) && at1(rel.ys, ids[0]), `the charts are relative to the baseline, its series at 1 (${rel.title})`);
  check((await heads()).some((t) => t.includes(`#${ids[0]}`) && t.includes('(baseline)')), 'the first run is the baseline at first');
  // the whiskers of a ratio are the ratio's interval (from the two medians' intervals), the baseline's own none
  const whiskers = await page.evaluate((baseId) => {
    const c = window.Chart.getChart(document.querySelector('#compare-charts figure[data-chart=time] canvas'));
    const out = { base: 0, other: 0, wrong: [] };
    for (const d of c.data.datasets.filter((x) => !x._ref)) {
      for (const p of d.data) {
        if (p.yMax === undefined) continue;
        if (d._name.endsWith(`run #${baseId}`)) out.base++;
        else if (p._s.interval && /interval of the ratio/.test(p._s.interval.what) && p.yMin <= p.y && p.y <= p.yMax) out.other++;
        else out.wrong.push(`${d._name}: ${p.yMin}-${p.yMax}`);
      }
    }
    return out;
  }, ids[0]);
  check(whiskers.base === 0 && whiskers.other > 0 && !whiskers.wrong.length, `relative whiskers: the ratio's interval, none on the baseline (${JSON.stringify(whiskers)})`);
  // the baseline switch: every ratio is against the run chosen
  const cIdx = await page.$$eval('#compare-baseline option', (o) => o.findIndex((x) => x.textContent.includes('lab-c')));
  await page.selectOption('#compare-baseline', String(cIdx));
  await page.waitForFunction(() => [...document.querySelectorAll('#compare-table thead th')].some((t) => t.textContent.includes('lab-c') && t.textContent.includes('(baseline)')));
  check((await heads()).some((t) => t.includes(`÷ baseline #${ids[2]}`)), `ratios are against the chosen baseline (${await heads()})`);
  await page.waitForTimeout(300);
  rel = await relY();
  check(at1(rel.ys, ids[2]) && !at1(rel.ys, ids[0]), `the charts are redrawn against the new baseline (${JSON.stringify(rel.ys)})`);
  const ratios = await page.$$eval('#compare-table td.ratio', (t) => t.map((x) => x.textContent));
  // a ratio is 0.50× (run 1 over run 3) or 0.75× (run 2 over run 3); none where a verdict disowned the value (noise decides that here)
  const shown = ratios.filter((t) => t !== '–');
  const disowned = (await page.textContent('#compare-table tbody')).includes('not a valid measurement');
  check(shown.every((t) => /^0\.(50|75)×/.test(t)) && (shown.some((t) => t.startsWith('0.50×')) || disowned),
    `ratios against run 3: ${ratios.join(', ')}${disowned ? ' (some values disowned)' : ''}`);
  check((await page.textContent('#compare-table tbody')).includes('neither way: no ratio') || ratios.every((t) => t !== ''), 'a figure with no better way has no ratio');
  await page.screenshot({ path: join(SHOTS, 'comparing-baseline-1280x720.png') });
  await page.evaluate(() => document.getElementById('compare-charts').scrollIntoView());
  await page.screenshot({ path: join(SHOTS, 'comparing-relative-1280x720.png') });
  // absolute on demand: the values as measured, no ratio columns
  await page.uncheck('#compare-relative');
  await page.waitForTimeout(300);
  rel = await relY();
  check(!/÷ baseline/.test(rel.title) && !(await heads()).some((t) => t.includes('÷ baseline')), `absolute on demand (${rel.title})`);
  await page.check('#compare-relative');
  await page.evaluate(() => document.getElementById('compare-table').scrollIntoView());
  await page.screenshot({ path: join(SHOTS, 'comparing-table-1280x720.png') });
  // the compare chart's PNG: its footer carries the machine line of every run, each line whole (wrapped, not squeezed)
  await page.evaluate(() => {
    window.__drawn = [];
    const fill = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (t, x, y, max) {
      if (this.canvas.width === 2560) window.__drawn.push({ t: String(t), w: this.measureText(String(t)).width, max: max ?? null, y });
      return fill.apply(this, arguments);
    };
  });
  const cdl = page.waitForEvent('download', { timeout: 10000 });
  await page.click('#compare-charts figure[data-chart=time] .png-button');
  const cfile = join(tmp, 'compare.png');
  await (await cdl).saveAs(cfile);
  const cpng = readFileSync(cfile);
  writeFileSync(join(SHOTS, 'comparing-export.png'), cpng);
  const drawnText = await page.evaluate(() => window.__drawn);
  const footer = drawnText.filter((d) => d.y > 1440 - 300);
  const machineText = footer.map((d) => d.t).join(' ');
  check(['lab-a', 'lab-b', 'lab-c'].every((host) => machineText.includes(host)) && /CPUs|NUMA node/.test(machineText),
    `the compare PNG's footer names every run's machine (${footer.map((d) => d.t).join(' / ')})`);
  const squeezed = footer.filter((d) => d.max !== null && d.w > d.max + 0.5);
  check(squeezed.length === 0, `no footer line squeezed to fit (${squeezed.map((d) => `${Math.round(d.w)} px into ${d.max}`).join(', ')})`);
  check(cpng.readUInt32BE(16) === 2560 && cpng.readUInt32BE(20) === 1440, `the compare PNG is ${cpng.readUInt32BE(16)}x${cpng.readUInt32BE(20)}`);
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(SHOTS, 'comparing-baseline-1400x900.png') });
  await page.setViewportSize({ width: 1280, height: 720 });

  // the article's bars on their own axis when one axis would flatten the run's
  // a run whose overheads (about 150 %) the article's 1,147 % would flatten on one axis
  const flat = scaled(fs, 1, 'lab-d');
  for (const x of flat.samples.filter((q) => q.chart === 'overhead')) {
    x.y = 150;
    if (Array.isArray(x.samples)) x.samples = x.samples.map(() => 150);
    for (const f of ['min', 'max', 'median', 'mean', 'ci_lo', 'ci_hi']) if (x.stats && typeof x.stats[f] === 'number') x.stats[f] = 150;
  }
  const [flatSt, flatRun] = await post('api/runs/import', flat);
  check(flatSt === 201, `a run of 150 % overheads imported (${flatSt})`);
  await page.goto(`${base}#/runs/${flatRun.id}`);
  await page.waitForSelector('figure[data-chart=overhead] canvas', { timeout: 20000 });
  await page.waitForFunction(() => {
    const c = window.Chart.getChart(document.querySelector('figure[data-chart=overhead] canvas'));
    return c && c.data.datasets.some((d) => d._ref && d.data.some((p) => p.y));
  }, null, { timeout: 20000 });
  const refAxis = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('figure[data-chart=overhead] canvas'));
    return { shown: c.options.scales.yRef.display, axes: c.data.datasets.filter((d) => d._ref).map((d) => d.yAxisID), top: c.scales.y.max };
  });
  check(refAxis.shown && refAxis.axes.every((a) => a === 'yRef') && refAxis.top < 400,
    `the article's bars are on an axis of their own, the run's axis ends at ${refAxis.top} %`);
  await page.evaluate(() => document.querySelector('figure[data-chart=overhead]').scrollIntoView());
  await page.screenshot({ path: join(SHOTS, 'comparing-article-axis-1280x720.png') });
  // 3. the summary tiles in words from the descriptor, the key only on hover
  const tiles = await page.$$eval('#summary dt', (t) => t.map((x) => x.textContent));
  check(tiles.includes('slowdown with 1 thread') && tiles.includes('least share of a round every thread was on a cpu at once') && !tiles.some((x) => x.includes('_')),
    `the summary tiles say their figures in words (${tiles.join(' | ')})`);

  // runs of different sizes: the wall time per increment, not per round
  await page.goto(`${base}#/compare/${sized.join(',')}`);
  await page.waitForSelector('#compare-charts figure[data-chart=time] canvas', { timeout: 20000 });
  await page.uncheck('#compare-relative');
  await page.waitForTimeout(300);
  const timeTitle = await page.textContent('#compare-charts figure[data-chart=time] .chart-title');
  check(/per increment/.test(timeTitle), `the wall time of runs of different increments is per increment (${timeTitle})`);
  const axis = await page.evaluate(() => {
    const c = window.Chart.getChart(document.querySelector('#compare-charts figure[data-chart=time] canvas'));
    return { title: c.options.scales.y.title.text, ys: Object.fromEntries(c.data.datasets.filter((d) => !d._ref).map((d) => [d._name, d.data.map((p) => p.y)])) };
  });
  // the second run took 4 times as long for 4 times the increments: per increment the two are the same
  const ya = axis.ys[`fetch_add · run #${sized[0]}`];
  const yb = axis.ys[`fetch_add · run #${sized[1]}`];
  check(String(axis.title).includes('per increment') && ya && yb && ya.length > 0 && ya.every((y, i) => Math.abs(y - yb[i]) <= 1e-6 * Math.abs(y)),
    `the per-increment bars of the two sizes match (${axis.title}: ${JSON.stringify(axis.ys)})`);
  const heads2 = await page.$$eval('#compare-charts figure[data-chart=time] .chart-data-table thead th', (t) => t.map((x) => x.textContent));
  check(heads2.some((t) => /^__atomic_fetch_add · #\d+ increments=/.test(t)) && !heads2.some((t) => /^fetch_add/.test(t)), `the chart's data table names the series as the legend does (${heads2.join(' | ')})`);
  await page.evaluate(() => document.querySelector('#compare-charts figure[data-chart=time]').scrollIntoView());
  await page.screenshot({ path: join(SHOTS, 'comparing-per-increment-1280x720.png') });

  // matrices side by side, one colour scale, opened from the link alone in a fresh tab
  const fresh = await open(1400, 900);
  await fresh.goto(`${base}#/compare/${heat.map((x) => x.run_id).join(',')}`);
  await fresh.waitForSelector('#compare-matrices .heat-legend:not([hidden]) .heat-hi', { timeout: 20000 });
  await fresh.waitForTimeout(500);
  const mats = await fresh.$$eval('#compare-matrices .compare-matrix', (m) => m.map((x) => ({ hi: x.querySelector('.heat-hi').textContent, top: Math.round(x.getBoundingClientRect().top) })));
  check(mats.length === 3 && new Set(mats.map((m) => m.hi)).size === 1 && new Set(mats.map((m) => m.top)).size === 1,
    `the 3 matrices side by side on one colour scale (${JSON.stringify(mats)})`);
  check(await fresh.textContent('#exp-title') === 'Core-to-core latency', 'a compare link opened alone shows its experiment beside it');
  await fresh.evaluate(() => document.getElementById('compare-matrices').scrollIntoView());
  await fresh.screenshot({ path: join(SHOTS, 'comparing-matrices-1400x900.png') });
  await fresh.setViewportSize({ width: 1280, height: 720 });
  await fresh.evaluate(() => document.getElementById('compare-matrices').scrollIntoView());
  await fresh.screenshot({ path: join(SHOTS, 'comparing-matrices-1280x720.png') });

  // History: a parameters column, a row on one line at 1280
  await page.goto(`${base}#/history`);
  await page.waitForSelector('#history-table tbody tr[data-id]', { timeout: 20000 });
  const cols = await page.$$eval('#history-table thead th', (t) => t.map((x) => x.textContent));
  check(cols.includes('parameters'), `the history has a parameters column (${cols})`);
  const tall = await page.$$eval('#history-table tbody tr[data-id]', (rs) => rs.map((r) => r.getBoundingClientRect().height));
  check(tall.every((x) => x < 44), `each history row is one line at 1280 (${tall.map(Math.round)})`);
  await page.screenshot({ path: join(SHOTS, 'comparing-history-1280x720.png') });

  // 7. the keyboard: the form in two Tab stops, and a clamped verdict says it opens
  const keys = await open(1280, 720);
  await keys.goto(`${base}#/experiments/false_sharing`);
  await keys.waitForSelector('#form-fields input', { timeout: 20000 });
  await keys.keyboard.press('Tab');
  await keys.keyboard.press('Tab');
  check(await keys.evaluate(() => document.activeElement.id) === 'skip-form', 'the second Tab reaches the skip link to the form');
  await keys.screenshot({ path: join(SHOTS, 'comparing-skip-1280x720.png') });
  await keys.keyboard.press('Enter');
  check(await keys.evaluate(() => !!document.activeElement.closest('#form-fields')), 'the skip link puts the focus in the form');
  const cue = await keys.evaluate(() => {
    const el = document.getElementById('headline');
    el.hidden = false;
    el.classList.add('long');
    return getComputedStyle(el, '::after').content;
  });
  check(cue.includes('read it all'), `a clamped verdict says it opens (${cue})`);

  // 2. a campaign of 3 machines: one colour scale per figure, or each its own
  const wide = await open(1400, 900);
  await wide.goto(`${base}#/campaigns/three`);
  await wide.waitForSelector('#campaign-machines .heat-legend:not([hidden]) .heat-hi', { timeout: 20000 });
  await wide.waitForTimeout(500);
  const his = () => wide.$$eval('#campaign-machines .heat-legend .heat-hi', (t) => t.map((x) => x.textContent));
  check((await his()).length === 3 && new Set(await his()).size === 1, `the 3 heatmaps share one colour scale (${await his()})`);
  // the figure picker in words, opening on the headline figure; each bar's value with its unit
  const picked = await wide.$eval('#campaign-key', (x) => ({ value: x.value, text: x.selectedOptions[0].textContent, all: [...x.options].map((o) => o.textContent) }));
  check(picked.value === 'round_trip_ns_same_package' && !picked.all.some((t) => t.includes('_')), `the figure picker opens on the headline figure, in words (${picked.text}; ${picked.all.join(' | ')})`);
  const barVals = await wide.$$eval('#campaign-bars .campaign-bar-value', (t) => t.map((x) => x.textContent));
  check(barVals.length === 3 && barVals.every((t) => /^\d\.\d\d× \([\d.,]+ ns\)$/.test(t)), `each bar says its ratio and its value in its unit (${barVals.join(' | ')})`);
  const warnAll = await wide.$$eval('#campaign-bars .campaign-warn', (t) => t.map((x) => x.textContent));
  check(warnAll.length === 1 && warnAll[0].startsWith('⚠ every machine: '), `a warning every machine shares is said once (${warnAll.join(' | ')})`);
  await wide.evaluate(() => document.getElementById('campaign-key').scrollIntoView());
  await wide.screenshot({ path: join(SHOTS, 'comparing-campaign-bars-1400x900.png') });
  await wide.evaluate(() => document.getElementById('campaign-one-scale').scrollIntoView());
  await wide.screenshot({ path: join(SHOTS, 'comparing-campaign-1400x900.png') });
  await wide.click('#campaign-one-scale');
  await wide.waitForTimeout(300);
  check(new Set(await his()).size === 3, `each machine its own scale when asked (${await his()})`);
  await wide.click('#campaign-one-scale');
  // each machine's picture gives its caches' sizes, and no logical index its run did not record
  const caps = await wide.$$eval('#campaign-machines svg text', (t) => t.map((x) => x.textContent));
  const cacheCaps = caps.filter((x) => /^L\d/.test(x));
  check(cacheCaps.length > 0 && cacheCaps.every((x) => /\(\d/.test(x)), `the machines' caches say their sizes (${[...new Set(cacheCaps)].join(', ')})`);
  check(!caps.some((x) => x.startsWith('PU L#')), 'a machine drawn from its run names its PUs by P# only');
  await wide.evaluate(() => document.querySelector('#campaign-machines svg').scrollIntoView());
  await wide.screenshot({ path: join(SHOTS, 'comparing-campaign-machines-1400x900.png') });
  await wide.setViewportSize({ width: 1280, height: 720 });
  await wide.evaluate(() => document.getElementById('campaign-one-scale').scrollIntoView());
  await wide.screenshot({ path: join(SHOTS, 'comparing-campaign-1280x720.png') });

  // 4. a heatmap exported: 2560x1440 whatever the window, its colour scale drawn in
  await wide.goto(`${base}#/runs/${heat[0].run_id}`);
  await wide.waitForSelector('figure.chart-heatmap .png-button', { timeout: 20000 });
  const dl = wide.waitForEvent('download', { timeout: 10000 });
  await wide.click('figure.chart-heatmap .png-button');
  const file = join(tmp, 'heat.png');
  await (await dl).saveAs(file);
  const png = readFileSync(file);
  check(png.readUInt32BE(16) === 2560 && png.readUInt32BE(20) === 1440, `the heatmap PNG is ${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`);
  writeFileSync(join(SHOTS, 'comparing-heatmap-export.png'), png);
  check(errors.length === 0, `no page errors ${errors.join('; ')}`);
} catch (e) {
  check(false, `comparing: ${e.stack}`);
} finally {
  await browser.close();
  proc.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
