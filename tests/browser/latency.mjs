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
      await page.waitForSelector('figure canvas, figure svg, figure.chart-heatmap', { timeout: 20000 });
      await page.waitForTimeout(500);
      const first = await page.$eval('#charts figure, figure', (f) => f.textContent);
      if (size.width === 1280) {
        // the chart this mode fills comes first; the others, not measured, follow it
        check(first.includes(FIRST[mode]), `mode=${mode}: the first chart is "${FIRST[mode]}" (${first.slice(0, 70)})`);
        if (mode === 'sizes') {
          const yType = await page.evaluate(() => {
            const c = [...document.querySelectorAll('figure canvas')].map((x) => window.Chart && window.Chart.getChart(x)).find(Boolean);
            return c ? c.options.scales.y.type : null;
          });
          check(yType === 'logarithmic', `mode=sizes: ns per load on a log scale, so L1, L2, L3 and memory each show as a step (${yType})`);
        }
        if (mode === 'nodes') {
          const text = await page.textContent('body');
          check(/need 2 nodes|needs 2 nodes/.test(text), 'mode=nodes on one node: the page says the remote cells need 2 nodes');
        }
      }
      await page.screenshot({ path: join(SHOTS, `latency-${mode}-${size.width}x${size.height}.png`) });
      await page.close();
    }
  }
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
