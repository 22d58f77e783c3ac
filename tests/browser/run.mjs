// run.mjs - browser tests: the real numalab server on 127.0.0.1:0, the page in headless Chromium
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, ONLY, SHOTS, browserOrSkip, startServer as start, tempDir } from './setup.mjs';
import { axeCheck, repeatedButtonNames } from './axe.mjs';

const chromium = await browserOrSkip('test-browser');
const tmp = tempDir('numalab-browser-');
let server = null;
let context = null;

const startServer = () => start(tmp);

async function getJSON(path) {
  const r = await fetch(new URL(path, server.base));
  if (!r.ok) throw new Error(`GET ${path}: ${r.status}`);
  return r.json();
}

function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

// every route but GET wants a JSON Content-Type (415 otherwise), a DELETE too
const cancelRun = (id) => fetch(new URL(`api/runs/${id}`, server.base), { method: 'DELETE', headers: { 'Content-Type': 'application/json' } });

// Cancels every run still queued or running on this test's server and waits until they have ended:
// a test that fails half way (before it cancels the run it put ahead of its own, say) holds up no later test.
const going = async () => (await getJSON('api/runs?limit=100')).runs.filter((r) => r.status === 'queued' || r.status === 'running');
async function cancelLeftovers() {
  const left = await going();
  for (const r of left) await cancelRun(r.id);
  for (const until = Date.now() + 30000; left.length && (await going()).length;) {
    if (Date.now() > until) throw new Error(`runs ${left.map((r) => r.id).join(', ')} still going 30 s after their cancel`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
  return left.map((r) => r.id);
}

const results = [];
const openPages = new Set();
async function test(name, fn) {
  if (ONLY && !name.includes(ONLY)) return;
  const t0 = Date.now();
  try {
    await fn();
    results.push([true, name]);
    console.log(`  PASS  ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  } catch (e) {
    results.push([false, name]);
    console.log(`  FAIL  ${name}: ${e.message}`);
  } finally {
    // what a failed test left open or going: its pages (their streams and polls), its runs
    for (const page of [...openPages]) await page.close().catch(() => {});
    try {
      const left = await cancelLeftovers();
      if (left.length) console.log(`        (cancelled run${left.length === 1 ? '' : 's'} ${left.join(', ')}, left going by it)`);
    } catch (e) {
      results.push([false, `${name}: cleanup`]);
      console.log(`  FAIL  ${name}: could not cancel the runs it left going: ${e.message}`);
    }
  }
}

// A page that records CSP violations, uncaught errors, console errors and every change of a chart's point count.
async function newPage(width = 1280, height = 720) {
  const page = await context.newPage();
  openPages.add(page);
  page.on('close', () => openPages.delete(page));
  await page.setViewportSize({ width, height });
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(`uncaught: ${e.message}`));
  // a 400 is how the API refuses a value: the page shows it, the browser logs it
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 400/.test(m.text())) page.problems.push(`console: ${m.text()}`);
  });
  await page.addInitScript(() => {
    window.__csp = [];
    window.__points = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    new MutationObserver((records) => {
      for (const r of records)
        if (r.attributeName === 'data-points' && r.target.dataset.chart === 'time')
          window.__points.push({ n: Number(r.target.dataset.points), t: performance.now() });
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-points'] });
  });
  return page;
}

async function clean(page) {
  const csp = await page.evaluate(() => window.__csp);
  assert(!csp.length, `CSP violations: ${csp.join('; ')}`);
  assert(!page.problems.length, page.problems.join('; '));
}

// Points a chart has drawn, read from Chart.js itself (not from the page's own bookkeeping).
function drawn(page, chartId) {
  return page.evaluate((id) => {
    const canvas = document.querySelector(`figure[data-chart="${id}"] canvas`);
    const chart = canvas && window.Chart.getChart(canvas);
    if (!chart) return -1;
    return chart.data.datasets.filter((d) => !d._ref).reduce((n, d) => n + d.data.filter((p) => p !== null && p.y !== null && p.y !== undefined).length, 0);
  }, chartId);
}

const shot = (page, name) => page.screenshot({ path: join(SHOTS, `${name}.png`) });

let runId = null;

try {
  server = await startServer();
  context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const schema = await getJSON('api/experiments');
  const fs = schema.find((e) => e.name === 'false_sharing');
  assert(fs, 'the server offers no false_sharing experiment');

  await test('the page lists the experiments and builds the form from the schema', async () => {
    const page = await newPage();
    await page.goto(server.base);
    await page.waitForSelector('#exp-list li[data-name="false_sharing"].current');
    assert(/#\/experiments\/false_sharing$/.test(page.url()), `the URL does not name the experiment: ${page.url()}`);
    for (const e of schema)
      assert(await page.locator(`#exp-list li[data-name="${e.name}"]`).count() === 1, `experiment ${e.name} is not listed`);
    for (const p of fs.params) {
      const field = page.locator(`#form-fields .field[data-param="${p.name}"]`);
      assert(await field.count() === 1, `no form field for param '${p.name}'`);
    }
    assert((await page.inputValue('#p-increments')) === String(fs.params.find((p) => p.name === 'increments').default),
      'the increments field does not hold its default');
    await page.waitForFunction(() => !/reading/.test(document.getElementById('machine').textContent));
    assert(await page.locator('#results figure[data-chart]').count() === fs.charts.length, 'not one chart per chart in the schema');
    await clean(page);
    await axeCheck(page, 'the experiment form', (ok, what) => assert(ok, what));
    // the skip link takes the keyboard to the results, a region it can scroll
    await page.keyboard.press('Tab');
    assert(await page.evaluate(() => document.activeElement.id) === 'skip-link', 'the first Tab does not reach the skip link');
    await page.keyboard.press('Enter');
    assert(await page.evaluate(() => document.activeElement.id) === 'results', 'the skip link does not move the focus to the results');
    assert(/#\/experiments\/false_sharing$/.test(page.url()), 'the skip link changed the route');
    await shot(page, 'home-1280x720');
    await page.close();
  });

  await test('a run started from the form streams points into the chart until done', async () => {
    const page = await newPage();
    await page.goto(`${server.base}#/experiments/false_sharing`);
    await page.waitForSelector('#p-threads');
    await page.fill('#p-threads', '1-2');
    // points tens of milliseconds apart: the chart draws once a frame, so
    // points closer than a frame would rightly arrive in one drawing
    await page.fill('#p-increments', '20000000');
    await page.click('#run-button');
    await page.waitForFunction(() => /^#\/runs\/[^/]+$/.test(location.hash), null, { timeout: 10000 });
    runId = decodeURIComponent(new URL(page.url()).hash.replace('#/runs/', ''));
    await page.waitForSelector('#status[data-status="done"]', { timeout: 60000 });
    const doc = await getJSON(`api/runs/${runId}`);
    const want = doc.samples.filter((s) => s.chart === 'time').length;
    assert(want > 1, `the run document has ${want} points for the time chart`);
    await page.waitForFunction((n) => Number(document.querySelector('figure[data-chart="time"]').dataset.points) === n, want);
    const seen = await page.evaluate(() => window.__points);
    const counts = seen.map((p) => p.n);
    const steps = [...new Set(counts)].filter((n) => n > 0);
    assert(steps.length >= 2 && steps.every((n, i) => i === 0 || n > steps[i - 1]),
      `the chart did not grow point by point: point counts seen ${JSON.stringify(counts)}`);
    // all points in one task would mean the events came in one lump at the end, not as measured
    const first = seen.find((p) => p.n > 0);
    const last = seen[seen.length - 1];
    assert(last.t - first.t > 5, `every point arrived within ${(last.t - first.t).toFixed(1)} ms: the events were not streamed`);
    assert(await drawn(page, 'time') === want, `Chart.js holds ${await drawn(page, 'time')} points, the run has ${want}`);
    if (doc.headline) assert((await page.textContent('#headline')).trim() === doc.headline, 'the headline is not shown');
    assert(await page.locator('#placement table tbody tr').count() > 0, 'no "where each thread ran" rows');
    // the picture marks the PUs the threads were seen on: two threads of the last part
    const marked = await page.evaluate(() => [...document.querySelectorAll('#run-topology svg [data-threads]')].map((g) => g.dataset.threads));
    const lastPart = doc.placement[doc.placement.length - 1].threads;
    assert(marked.join(',').split(",").length === lastPart.length, `the topology picture marks threads ${JSON.stringify(marked)}, the run placed ${lastPart.length}`);
    assert((await page.locator('#p-threads').inputValue()) === '1-2', 'the form lost the values the run was started with');
    await clean(page);
    await axeCheck(page, 'a finished run', (ok, what) => assert(ok, what));
    const twice = await repeatedButtonNames(page);
    assert(!twice.length, `buttons share a name: ${twice.join(', ')}`);
    // each chart's numbers, for whoever cannot see the canvas
    const rows = await page.$$eval('figure[data-chart="time"] .chart-data-table tbody tr', (r) => r.length);
    assert(rows > 0, 'the time chart has no data table');
    // the verdict and the whole first chart, axis included, without scrolling
    for (const [w, hgt] of [[1280, 720], [1400, 900]]) {
      await page.setViewportSize({ width: w, height: hgt });
      await page.waitForTimeout(300);
      const box = await page.evaluate(() => {
        const r = document.querySelector('#charts figure.chart').getBoundingClientRect();
        const v = document.querySelector('#headline').getBoundingClientRect();
        return { top: v.top, bottom: r.bottom };
      });
      await shot(page, `run-${w}x${hgt}`);
      assert(box.top >= 0 && box.bottom <= hgt, `at ${w}x${hgt} the first chart ends at ${Math.round(box.bottom)} px, below the fold`);
    }
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.waitForTimeout(400);
    await shot(page, 'run-1920x1080');

    // the list refreshes when the run ends, and reopens it from there
    await page.waitForSelector(`#run-list li[data-id="${runId}"][data-status="done"]`, { timeout: 10000 });
    await page.click('#exp-list li[data-name="false_sharing"] a');
    await page.waitForFunction(() => document.querySelector('#status').dataset.status === 'idle');
    assert(await drawn(page, 'time') === 0, 'the empty view still shows points');
    await page.click(`#run-list li[data-id="${runId}"] a`);
    await page.waitForFunction((id) => location.hash === `#/runs/${id}`, runId);
    await page.waitForSelector('#status[data-status="done"]');
    await page.waitForFunction((n) => Number(document.querySelector('figure[data-chart="time"]').dataset.points) === n, want);
    await page.waitForTimeout(300);
    assert(await drawn(page, 'time') === want, 'the reopened run does not show its chart');
    await clean(page);
    await page.close();
  });

  await test('a permalink /#/runs/{id} opens that run', async () => {
    assert(runId, 'no run to open (the run test failed)');
    const page = await newPage(1920, 1080);
    await page.goto(`${server.base}#/runs/${encodeURIComponent(runId)}`);
    await page.waitForSelector('#status[data-status="done"]', { timeout: 10000 });
    const title = await page.textContent('.run-title');
    assert(title.includes(String(runId)), `the page shows "${title}", not run ${runId}`);
    await page.waitForFunction(() => Number(document.querySelector('figure[data-chart="time"]').dataset.points) > 0);
    await page.waitForTimeout(400);
    assert(await drawn(page, 'time') > 0, 'the permalink shows no chart');
    assert(await page.locator(`#run-list li.current[data-id="${runId}"]`).count() === 1, 'the run is not marked in the list');
    await clean(page);
    await shot(page, 'permalink-1920x1080');
    await page.close();
  });

  await test('a value the server refuses is explained next to its field', async () => {
    const page = await newPage();
    await page.goto(`${server.base}#/experiments/false_sharing`);
    await page.waitForSelector('#p-stride');
    await page.fill('#p-stride', '6');
    await page.click('#run-button');
    const err = page.locator('.field[data-param="stride"] .field-error');
    await err.waitFor({ state: 'visible', timeout: 10000 });
    const text = await err.textContent();
    assert(/stride/.test(text), `the message under the field is "${text}"`);
    assert(await err.isVisible() && await page.evaluate(() => {
      const r = document.querySelector('.field[data-param="stride"] .field-error').getBoundingClientRect();
      const bar = document.querySelector('.run-bar').getBoundingClientRect();
      return r.top >= 0 && r.bottom <= bar.top;
    }), 'the message is not scrolled into view above the Run bar');
    assert(/#\/experiments\/false_sharing$/.test(page.url()), 'a refused run navigated away');
    await clean(page);
    await shot(page, 'field-error-1280x720');
    await page.close();
  });

  const heat = schema.find((e) => e.available !== false && e.charts.some((c) => c.kind === 'heatmap'));
  await test('a heatmap run draws one cell per measured pair', async () => {
    if (!heat) {
      console.log('  SKIP  no experiment here has a heatmap chart');
      return;
    }
    const r = await fetch(new URL('api/runs', server.base), {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ experiment: heat.name, params: {} }),
    });
    assert(r.status === 202, `POST /api/runs for ${heat.name} answered ${r.status}`);
    const { id } = await r.json();
    const page = await newPage();
    await page.goto(`${server.base}#/runs/${id}`);
    await page.waitForSelector('#status[data-status="done"]', { timeout: 60000 });
    const doc = await getJSON(`api/runs/${id}`);
    const chartId = heat.charts.find((c) => c.kind === 'heatmap').id;
    const want = doc.cells.filter((c) => c.chart === chartId).length;
    await page.waitForTimeout(400);
    const got = await page.evaluate((cid) => {
      const c = window.Chart.getChart(document.querySelector(`figure[data-chart="${cid}"] canvas`));
      return c ? c.data.datasets[0].data.length : -1;
    }, chartId);
    assert(want > 0 && got === want, `the heatmap holds ${got} cells, the run has ${want}`);
    await page.locator(`figure[data-chart="${chartId}"]`).scrollIntoViewIfNeeded();
    await clean(page);
    await shot(page, 'heatmap-1280x720');
    await page.close();
  });

  await test('a memory run draws its threads and where its pages landed on the topology picture', async () => {
    const r = await fetch(new URL('api/runs', server.base), {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ experiment: 'memory_policy', params: { size: '4M', repeat: 2 } }),
    });
    assert(r.status === 202, `POST /api/runs for memory_policy answered ${r.status}`);
    const { id } = await r.json();
    const page = await newPage();
    await page.goto(`${server.base}#/runs/${id}`);
    await page.waitForSelector('#status[data-status="done"]', { timeout: 60000 });
    const doc = await getJSON(`api/runs/${id}`);
    const first = doc.samples.filter((s) => s.unit === 'pages' && s.series === doc.samples.find((x) => x.unit === 'pages').series);
    await page.waitForSelector('#run-topology svg [data-pages]');
    const drawn = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('#run-topology svg [data-kind="node"]')]
      .map((g) => [g.dataset.id, Number(g.querySelector('[data-pages]').dataset.pages)])));
    for (const s of first) assert(drawn[String(s.x)] === s.y, `node ${s.x} shows ${drawn[String(s.x)]} pages, the run counted ${s.y}`);
    assert(await page.locator('#run-topology svg [data-threads]').count() > 0, 'no thread drawn on the picture');
    await page.locator('#run-topology').scrollIntoViewIfNeeded();
    await clean(page);
    await shot(page, 'run-topology-pages-1280x720');
    await page.close();
  });

  await test('Run stays off while its run is queued or running, a queued run says its place, a double press starts one run', async () => {
    // a run ahead of it holds the runner
    const post = (params) => fetch(new URL('api/runs', server.base), {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ experiment: 'false_sharing', params }),
    }).then((r) => r.json());
    const ahead = await post({ threads: '1-2', increments: '400000000' });
    const before = (await getJSON('api/runs?limit=100')).total;
    const page = await newPage();
    await page.goto(`${server.base}#/experiments/false_sharing`);
    await page.waitForSelector('#p-threads');
    await page.fill('#p-threads', '1');
    await page.fill('#p-increments', '1000000');
    await page.focus('#run-button');
    const top = () => page.$eval('#run-button', (b) => b.getBoundingClientRect().top);
    const at = await top();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await page.click('#run-button', { force: true }).catch(() => {});
    await page.waitForFunction(() => /^#\/runs\/[^/]+$/.test(location.hash), null, { timeout: 10000 });
    const id = decodeURIComponent(new URL(page.url()).hash.replace('#/runs/', ''));
    await page.waitForFunction(() => /Queued: position \d+, \d+ runs? ahead of it|Queued: next in line/.test(document.querySelector('#status').textContent), null, { timeout: 10000 });
    assert(await page.getAttribute('#run-button', 'aria-disabled') === 'true', 'Run is not off while its run is queued');
    assert(/queued/.test(await page.textContent('#run-bar-msg')), `the Run bar says "${await page.textContent('#run-bar-msg')}"`);
    // the message under the buttons ("Run 5 is queued…") moves neither them nor the focus
    const moved = (await top()) - at;
    assert(Math.abs(moved) < 1, `the Run button moved ${moved.toFixed(0)} px when the run started: a second press lands beside it`);
    const focus = await page.evaluate(() => {
      const a = document.activeElement;
      return a ? `${a.tagName.toLowerCase()}${a.id ? `#${a.id}` : ''}` : 'nothing';
    });
    assert(focus === 'button#run-button', `the focus left the Run button when the run started: it is on ${focus}`);
    await shot(page, 'queued-1280x720');
    await page.keyboard.press('Enter');
    await page.waitForTimeout(500);
    const after = (await getJSON('api/runs?limit=100')).total;
    assert(after === before + 1, `pressing Run three times and Enter once more started ${after - before} runs`);
    const gone = await cancelRun(ahead.id);
    assert(gone.status < 300, `cancelling the run ahead answered ${gone.status}`);
    await page.waitForSelector('#status[data-status="done"]', { timeout: 60000 });
    await page.waitForFunction(() => document.querySelector('#run-button').getAttribute('aria-disabled') === 'false', null, { timeout: 10000 });
    assert(String(id) !== String(ahead.id), 'the page opened the wrong run');
    await clean(page);
    await page.close();
  });

  await test('Cancel stops a running run', async () => {
    const page = await newPage();
    await page.goto(`${server.base}#/experiments/false_sharing`);
    await page.waitForSelector('#p-increments');
    await page.fill('#p-threads', '1-2');
    // seconds of work, well under the server's run time limit
    await page.fill('#p-increments', '200000000');
    await page.click('#run-button');
    await page.waitForSelector('#status[data-status="running"]', { timeout: 20000 });
    await page.waitForTimeout(500);
    await shot(page, 'live-1280x720');
    await page.click('#cancel-button');
    await page.waitForSelector('#status[data-status="cancelled"]', { timeout: 20000 });
    assert(await page.locator('#cancel-button').isDisabled(), 'Cancel stays enabled after the run ended');
    await clean(page);
    await page.close();
  });
} catch (e) {
  results.push([false, 'setup']);
  console.log(`  FAIL  setup: ${e.message}`);
} finally {
  if (context) await context.close().catch(() => {});
  if (server) server.proc.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}

const failed = results.filter((r) => !r[0]);
console.log(`test-browser: ${results.length - failed.length} passed, ${failed.length} failed; screenshots in ${SHOTS}`);
process.exit(failed.length ? 1 : 0);
