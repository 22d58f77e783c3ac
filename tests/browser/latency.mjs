// latency.mjs - memory_latency on the page: the size sweep with the caches marked, the node matrix (one cell here, the remote cells said to need two nodes), the loaded curve
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, SHOTS, browserOrSkip, startServer, tempDir } from './setup.mjs';

const chromium = await browserOrSkip('test-browser (latency)');
const tmp = tempDir('numalab-latency-');
const server = await startServer(tmp);
const { proc, base } = server;
let failed = 0;
const check = (cond, what) => { console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`); if (!cond) failed++; };

async function runDone(params) {
  const r = await fetch(new URL('api/runs', base), {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ experiment: 'memory_latency', params }),
  });
  const { id } = await r.json();
  for (let i = 0; i < 600; i++) {
    const doc = await (await fetch(new URL(`api/runs/${id}`, base))).json();
    if (['done', 'failed', 'cancelled'].includes(doc.status)) return doc;
    await new Promise((ok) => setTimeout(ok, 200));
  }
  throw new Error(`run ${id} did not end`);
}

const FIRST = { sizes: 'by working-set size', nodes: "the chasing thread on the row's node", loaded: 'while other threads stream' };

const browser = await chromium.launch({ executablePath: CHROMIUM });
try {
  const runs = {
    sizes: await runDone({ mode: 'sizes', size: '16M', loads: '65536', repeat: '3', warmup: '1' }),
    nodes: await runDone({ mode: 'nodes', size: '64M', loads: '65536', repeat: '3', warmup: '1' }),
    loaded: await runDone({ mode: 'loaded', size: '64M', loads: '65536', repeat: '3', warmup: '1' }),
  };
  for (const [mode, doc] of Object.entries(runs)) {
    check(doc.status === 'done', `mode=${mode} ran to the end (${doc.status}: ${doc.headline})`);
    for (const size of [{ width: 1280, height: 720 }, { width: 1400, height: 900 }]) {
      const page = await browser.newPage({ viewport: size });
      await page.goto(new URL(`#/runs/${doc.id}`, base).href);
      await page.waitForSelector('#charts figure.chart:not([hidden]) canvas', { timeout: 20000 });
      await page.waitForTimeout(500);
      const first = await page.$eval('#charts figure.chart:not([hidden])', (f) => f.textContent);
      if (size.width === 1280) {
        // the chart this mode fills comes first; the others, not measured, follow it
        check(first.includes(FIRST[mode]), `mode=${mode}: the first chart is "${FIRST[mode]}" (${first.slice(0, 70)})`);
        if (mode === 'sizes') {
          const yType = await page.evaluate(() => {
            const c = window.Chart.getChart(document.querySelector('figure[data-chart=sizes] canvas'));
            return c ? c.options.scales.y.type : null;
          });
          check(yType === 'logarithmic', `mode=sizes: ns per load on a log scale, so L1, L2, L3 and memory each show as a step (${yType})`);
        }
        if (mode === 'nodes') {
          const text = await page.textContent('body');
          check(/need 2 nodes|needs 2 nodes/.test(text), 'mode=nodes on one node: the page says the remote cells need 2 nodes');
          // the matrix measured, 1x1: no phantom node beside it
          const phantom = await page.evaluate(() => document.getElementById('charts').textContent.includes('not on this machine'));
          const cells = await page.$eval('figure[data-chart=latency]', (f) => Number(f.dataset.points));
          check(!phantom && cells === 1, `mode=nodes on one node: a 1x1 matrix, no phantom node (${cells} cells${phantom ? ', a phantom' : ''})`);
        }
        // only the charts this mode produced, and only its parameters
        const shown = await page.$$eval('#charts figure.chart', (fs) => fs.filter((f) => !f.hidden).map((f) => f.dataset.chart));
        const want = { sizes: ['sizes'], nodes: ['latency', 'ratio', 'distance'], loaded: ['loaded'] }[mode];
        check(shown.every((c) => want.includes(c)) && shown.includes(want[0]), `mode=${mode}: only its charts are drawn (${shown.join(', ')})`);
        const params = await page.textContent('.params-short');
        const others = { sizes: ['nodes=', 'cells=', 'loaders='], nodes: ['cpu_node=', 'loaders=', 'load='], loaded: ['nodes=', 'cells='] }[mode];
        check(!others.some((p) => params.includes(p)) && !params.includes('(empty)'), `mode=${mode}: only its parameters (${params})`);
        if (mode === 'sizes') {
          // the log axis: ticks 1-2-5 (or sparser), never two labels within a line of each other; the cache marks drawn over the points
          const axis = await page.evaluate(() => {
            const c = window.Chart.getChart(document.querySelector('figure[data-chart=sizes] canvas'));
            const ys = c.scales.y.ticks.map((t) => c.scales.y.getPixelForValue(t.value)).sort((a, b) => a - b);
            const gaps = ys.slice(1).map((y, i) => y - ys[i]);
            return { ticks: c.scales.y.ticks.map((t) => t.value), gap: Math.min(...gaps), font: c.options.font?.size || window.Chart.defaults.font.size,
              marks: c.data.datasets.filter((d) => /cache/i.test(d.label)).length };
          });
          // nice numbers as web/scale.js logTicks gives them: 1-2-5 over up
          // to 2.5 decades, 1-3 over more (a memory that reads 330 ns beside
          // an L1 of 1.1 ns spans 2.6), 1 beyond
          check(axis.ticks.every((v) => /^[1235]$/.test(String(v / 10 ** Math.floor(Math.log10(v)) ).slice(0, 1))) && axis.gap >= axis.font,
            `mode=sizes: the log axis's ticks never collide (${axis.ticks.join(', ')}; the closest ${Math.round(axis.gap)} px apart)`);
          check(axis.marks === 0, 'mode=sizes: the cache marks are lines across the plot, not points under the curve');
        }
      }
      await page.screenshot({ path: join(SHOTS, `latency-${mode}-${size.width}x${size.height}.png`) });
      await page.close();
    }
  }
  // the form sends only what the run reads: another mode's fields are greyed, say when they are read, and
  // are never sent (the server would refuse them); they come back as the mode changes
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const sent = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname.endsWith('/api/runs')) sent.push(JSON.parse(r.postData() || '{}'));
  });
  await page.goto(new URL('#/experiments/memory_latency', base).href);
  await page.waitForSelector('#p-loaders');
  const said = await page.textContent('#p-loaders-unread');
  check(await page.isDisabled('#p-loaders') && await page.isVisible('#p-loaders-unread') && /mode=loaded/.test(said),
    `mode=nodes: the loaders field is greyed and says when it is read ("${said}")`);
  await page.fill('#p-size', '64K');
  await page.fill('#p-loads', '4096');
  await page.click('#run-button');
  await page.waitForFunction(() => /^#\/runs\/[^/]+$/.test(location.hash), null, { timeout: 20000 });
  const asked = (sent[0] && sent[0].params) || {};
  check(asked.mode === 'nodes' && !['loaders', 'load', 'cpu_node', 'mem_node'].some((k) => k in asked) && 'cells' in asked,
    `mode=nodes: the run is started with its own params only (${Object.keys(asked).join(', ')})`);
  await page.goto(new URL('#/experiments/memory_latency', base).href);
  await page.waitForSelector('#p-loaders');
  await page.locator('#form-fields .field[data-param="mode"] label.choice', { hasText: 'loaded' }).click();
  check(!(await page.isDisabled('#p-loaders')) && await page.locator('#form-fields input[name="cells"]').first().isDisabled()
    && !(await page.isVisible('#p-loaders-unread')),
    'mode=loaded: the loaders field is read again, the matrix\'s cells are not');
  await page.close();
} catch (e) {
  console.log(`FAIL ${e.stack || e}`);
  failed++;
} finally {
  await browser.close();
  proc.kill();
  rmSync(tmp, { recursive: true, force: true });
}
console.log(`test-browser (latency): ${failed ? 'FAIL' : 'passed'}`);
process.exit(failed ? 1 : 0);
