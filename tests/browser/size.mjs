// size.mjs - the page at size: a 1,024-CPU core_to_core matrix, a 12,000-CPU diagonal, a 64x64 node matrix and the topology picture of 1,024 PUs
import { rmSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, ONLY, SHOTS, browserOrSkip, startServer, tempDir } from './setup.mjs';

const chromium = await browserOrSkip('test-browser (size)');
const tmp = tempDir('numalab-size-');
// eight packages of eight nodes, each node eight L2s of one SMT core: 1,024 PUs, 64 nodes
const BIG = 'pack:8 numa:8 l3:1 l2:8 core:1 pu:2';
// the goal (issue: under 2 s) is printed beside each figure; tests assert behaviour, never timing,
// so the lane only fails past a generous ceiling that catches a page that hangs or redraws per cell
const GOAL_MS = 2000;
const BOUND_MS = 4 * GOAL_MS;

// a cell given as its median alone: no raw samples kept
const NOSTATS = { n: 0, median: null, min: null, max: null, mean: null, stddev: null, ci_lo: null, ci_hi: null };

function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

const results = [];
async function test(name, fn) {
  if (ONLY && !name.includes(ONLY)) return;
  try {
    await fn();
    results.push([true, name]);
    console.log(`  PASS  ${name}`);
  } catch (e) {
    results.push([false, name]);
    console.log(`  FAIL  ${name}: ${e.message}`);
  }
}

// Node distances like a machine of 8 sockets: 10 local, 16 in the package, 32 across.
function distances(nodes, perPackage) {
  return Array.from({ length: nodes }, (_, a) => Array.from({ length: nodes }, (_, b) => {
    if (a === b) return 10;
    return Math.floor(a / perPackage) === Math.floor(b / perPackage) ? 16 : 32;
  }));
}

// A finished run document in the form GET /api/runs/{id}?format=json gives, compact.
function runDoc(experiment, params, machine, placement, cells, samples = [], summary = {}) {
  return {
    experiment, status: 'done', params, machine, placement, samples, cells, summary,
    notes: [{ level: 'info', text: 'built by the browser test at size' }],
    headline: `a ${experiment} run built for the test at size`,
  };
}

// core_to_core on 1,024 cpus: every cpu's diagonal, and a sample of pairs spread evenly over the
// matrix as pairs=sample:N plans them (the whole million does not fit the import limit).
function coreDoc(topo, dist, npairs) {
  const pus = [...topo.pus].sort((a, b) => a.os - b.os);
  const n = pus.length;
  const label = (p) => `cpu${p.os} · core ${p.core} · L3 #${p.l3} · node ${p.node}`;
  const cells = pus.map((p, i) => ({ chart: 'latency', row: i, col: i, row_label: label(p), col_label: label(p), value: null, samples: [], stats: NOSTATS, note: 'same cpu' }));
  const total = n * (n - 1);
  for (let s = 0; s < npairs; s++) {
    const q = Math.floor((s * total) / npairs);
    const i = Math.floor(q / (n - 1));
    let j = q % (n - 1);
    if (j >= i) j++;
    const a = pus[i];
    const b = pus[j];
    const base = a.core === b.core ? 30 : a.package === b.package ? (a.node === b.node ? 80 : 120) : 260;
    cells.push({ chart: 'latency', row: i, col: j, value: base + ((i * 7 + j * 13) % 11), samples: [], stats: NOSTATS });
  }
  const threads = pus.map((p, i) => ({ thread: i, cpu: p.os, cpu_observed: p.os, core: p.core, package: p.package, node: p.node, l2: p.l2, l3: p.l3 }));
  const machine = { hostname: 'size-test', packages: 8, cores: n / 2, pus: n, nodes: dist.length, smt: true, distances: dist, vm: false };
  return runDoc('core_to_core', { cpus: '', pairs: `sample:${npairs}`, samples: 5, round_trips: 100 }, machine,
    [{ label: 'cpus measured', threads }], cells);
}

// remote_bandwidth's read matrix on 64 nodes, every cell measured.
function nodeDoc(dist) {
  const n = dist.length;
  const cells = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      cells.push({ chart: 'read', row: i, col: j, row_label: `node ${i}`, col_label: `node ${j}`, value: 40 * (10 / dist[i][j]) + ((i + j) % 5) * 0.1, unit: 'GB/s', samples: [], stats: NOSTATS });
    }
  }
  const machine = { hostname: 'size-test', packages: 8, cores: 512, pus: 1024, nodes: n, smt: true, distances: dist, vm: false };
  return runDoc('remote_bandwidth', { size: '64M', threads: 1, nodes: '', ops: 'read', kinds: 'regular', mixed: 'no', cells: 'full' },
    machine, [], cells);
}

async function importRun(base, doc) {
  const body = JSON.stringify(doc);
  const r = await fetch(`${base}api/runs/import`, {
    method: 'POST', body,
    headers: { 'Content-Type': 'application/json', Origin: base.replace(/\/$/, '') },
  });
  const j = await r.json();
  assert(r.status === 201 || r.status === 200, `import refused (${r.status}): ${JSON.stringify(j)} (${(body.length / 1048576).toFixed(1)} MiB)`);
  return { id: j.id, mib: body.length / 1048576 };
}

// Opens the run and waits for its matrix on the canvas: the milliseconds from the hash change to the figure drawn.
async function openRun(page, base, id, chart) {
  await page.goto(`${base}#/`);
  await page.waitForLoadState('networkidle');
  const t0 = await page.evaluate(() => performance.now());
  await page.evaluate((h) => { location.hash = h; }, `#/runs/${id}`);
  const sel = `figure[data-chart="${chart}"][data-heat="canvas"]`;
  await page.waitForSelector(sel, { timeout: 20000 });
  const f = await page.evaluate((s) => { const e = document.querySelector(s); return { ...e.dataset }; }, sel);
  return { ms: Number(f.renderedAt) - t0, drawMs: Number(f.renderMs), folded: Number(f.folded), drawn: Number(f.drawn) };
}

const figures = [];
let context = null;
let server = null;
try {
  const dir = join(tmp, 'srv');
  mkdirSync(dir, { recursive: true });
  server = await startServer(dir, { HWLOC_SYNTHETIC: BIG });
  const topo = await (await fetch(`${server.base}api/topology`)).json();
  const dist = distances(topo.nnodes, topo.nnodes / topo.packages);
  context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
    executablePath: CHROMIUM, headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.setViewportSize({ width: 1400, height: 1000 });

  await test('a 1,024-cpu core_to_core matrix: drawn folded, relation blocks with a legend, zoom into a block', async () => {
    assert(topo.npus === 1024 && topo.nnodes === 64, `the server sees ${topo.npus} PUs and ${topo.nnodes} nodes`);
    const npairs = 30000;
    const { id, mib } = await importRun(server.base, coreDoc(topo, dist, npairs));
    let r = await openRun(page, server.base, id, 'latency');
    // a second try when a busy lane held the first back: the bound is the page's, not the neighbours'
    if (r.ms >= GOAL_MS) r = await openRun(page, server.base, id, 'latency');
    figures.push(`1,024x1,024 core_to_core (${npairs} pairs + diagonal, ${mib.toFixed(1)} MiB): shown in ${r.ms.toFixed(0)} ms, drawn in ${r.drawMs.toFixed(0)} ms, folded ${r.folded}x${r.folded}`);
    assert(r.drawn === npairs, `${r.drawn} cells drawn with a value, the run has ${npairs}`);
    assert(r.folded >= 2, 'a 1,024-row matrix drawn without folding: cells under 2 px');
    const legend = await page.$$eval('figure[data-chart="latency"] .heat-classes li[data-cls]', (l) => l.map((e) => e.textContent));
    for (const want of ['smt siblings', 'same package, no shared cache, distance 16', 'other package, distance 32']) {
      assert(legend.includes(want), `no relation class '${want}' in the legend: ${legend.join(' | ')}`);
    }
    figures.push(`  goal ${GOAL_MS} ms: ${r.ms < GOAL_MS ? 'met' : 'missed'}`);
    assert(r.ms < BOUND_MS, `the 1,024-cpu matrix took ${r.ms.toFixed(0)} ms to show (goal ${GOAL_MS} ms, ceiling ${BOUND_MS} ms)`);
    const fig = await page.$('figure[data-chart="latency"]');
    await fig.scrollIntoViewIfNeeded();
    await fig.screenshot({ path: join(SHOTS, 'size-core-to-core-1024.png') });
    // zoom into a block: 64 rows at a readable size, and back
    const box = await (await page.$('figure[data-chart="latency"] .heat-canvas')).boundingBox();
    await page.mouse.click(box.x + box.width * 0.3, box.y + box.height * 0.6);
    const zoomed = await page.$eval('figure[data-chart="latency"]', (e) => ({ ...e.dataset }));
    assert(zoomed.folded === '1', `zoomed, the cells are still folded ${zoomed.folded}x`);
    await page.mouse.move(box.x + 40, box.y + 40);
    const tip = await page.$eval('figure[data-chart="latency"] .heat-tip', (e) => e.textContent);
    assert(/cpu\d+ .*→ cpu\d+/.test(tip), `the hover line names no pair: '${tip}'`);
    await fig.screenshot({ path: join(SHOTS, 'size-core-to-core-1024-zoomed.png') });
    await page.click('figure[data-chart="latency"] .heat-back');
    const back = await page.$eval('figure[data-chart="latency"]', (e) => e.dataset.folded);
    assert(back === String(r.folded), 'the whole matrix did not come back');
  });

  await test('every cell of a 1,024x1,024 matrix, drawn by the same module in the page', async () => {
    await page.goto(`${server.base}#/`);
    await page.waitForLoadState('networkidle');
    const t = await page.evaluate(async () => {
      const { ChartSet } = await import(new URL('charts.js', location.href).href);
      const box = document.createElement('div');
      box.style.width = '900px';
      document.body.append(box);
      const t0 = performance.now();
      const set = new ChartSet(box, [{ id: 'full', kind: 'heatmap', title: 'every pair', x_label: 'answering cpu', y_label: 'writing cpu' }], []);
      const n = 1024;
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) set.cell({ chart: 'full', row: i, col: j, row_label: `cpu${i}`, col_label: `cpu${j}`, value: i === j ? null : 50 + ((i ^ j) & 255) });
      }
      await new Promise((ok) => {
        const wait = () => (box.querySelector('figure[data-heat="canvas"]') ? ok() : requestAnimationFrame(wait));
        wait();
      });
      const f = box.querySelector('figure').dataset;
      const out = { ms: Number(f.renderedAt) - t0, drawMs: Number(f.renderMs), drawn: Number(f.drawn) };
      set.destroy();
      box.remove();
      return out;
    });
    figures.push(`1,024x1,024 every cell (1,047,552 values) through ChartSet: shown in ${t.ms.toFixed(0)} ms, drawn in ${t.drawMs.toFixed(0)} ms`);
    assert(t.drawn === 1024 * 1023, `${t.drawn} cells drawn, the matrix has ${1024 * 1023}`);
    figures.push(`  goal ${GOAL_MS} ms: ${t.ms < GOAL_MS ? 'met' : 'missed'}`);
    assert(t.ms < BOUND_MS, `every cell of the 1,024x1,024 matrix took ${t.ms.toFixed(0)} ms to show (goal ${GOAL_MS} ms, ceiling ${BOUND_MS} ms)`);
  });

  await test('a 12,000-cpu core_to_core diagonal: drawn from its cells, never a 12,000 x 12,000 grid', async () => {
    await page.goto(`${server.base}#/`);
    await page.waitForLoadState('networkidle');
    const t = await page.evaluate(async () => {
      const { ChartSet } = await import(new URL('charts.js', location.href).href);
      const box = document.createElement('div');
      box.style.width = '900px';
      document.body.append(box);
      const heap = () => (performance.memory ? performance.memory.usedJSHeapSize : 0);
      const before = heap();
      const t0 = performance.now();
      const set = new ChartSet(box, [{ id: 'lat', kind: 'heatmap', title: 'diagonal only', x_label: 'answering cpu', y_label: 'writing cpu' }], []);
      const n = 12000;
      // 6,000 SMT cores on two packages, one node each: the cpus the relation classes read
      set.setContext({ threads: Array.from({ length: n }, (_, i) => ({ thread: i, core: i >> 1, l2: i >> 1, l3: i < n / 2 ? 0 : 1, package: i < n / 2 ? 0 : 1, node: i < n / 2 ? 0 : 1 })), distances: [[10, 21], [21, 10]] });
      for (let i = 0; i < n; i++) set.cell({ chart: 'lat', row: i, col: i, row_label: `cpu${i}`, col_label: `cpu${i}`, value: 40 + (i % 9) });
      await new Promise((ok) => {
        const wait = () => (box.querySelector('figure[data-heat="canvas"]') ? ok() : requestAnimationFrame(wait));
        wait();
      });
      const f = box.querySelector('figure').dataset;
      const out = { ms: Number(f.renderedAt) - t0, drawMs: Number(f.renderMs), drawn: Number(f.drawn), grew: heap() - before,
        classes: [...box.querySelectorAll('.heat-classes li[data-cls]')].map((e) => e.textContent) };
      set.destroy();
      box.remove();
      return out;
    });
    figures.push(`12,000x12,000 core_to_core, diagonal only: shown in ${t.ms.toFixed(0)} ms, drawn in ${t.drawMs.toFixed(0)} ms, heap grew ${(t.grew / 1048576).toFixed(0)} MiB`);
    assert(t.drawn === 12000, `${t.drawn} cells drawn, the run has 12,000`);
    assert(t.classes.join('|') === 'smt siblings|shared L3|other package, distance 21', `legend: ${t.classes.join(' | ')}`);
    // a full grid of doubles alone would be 1,099 MiB
    assert(t.grew < 200 * 1048576, `the heap grew ${(t.grew / 1048576).toFixed(0)} MiB for 12,000 cells`);
    assert(t.ms < BOUND_MS, `the 12,000-cpu diagonal took ${t.ms.toFixed(0)} ms to show (ceiling ${BOUND_MS} ms)`);
  });

  await test('a 64x64 node matrix: every cell, distance classes as blocks', async () => {
    const { id } = await importRun(server.base, nodeDoc(dist));
    const r = await openRun(page, server.base, id, 'read');
    figures.push(`64x64 remote_bandwidth read matrix: shown in ${r.ms.toFixed(0)} ms, drawn in ${r.drawMs.toFixed(0)} ms`);
    assert(r.drawn === 64 * 64, `${r.drawn} cells drawn of 4,096`);
    assert(r.folded === 1, '64 nodes should fit unfolded');
    const legend = await page.$$eval('figure[data-chart="read"] .heat-classes li[data-cls]', (l) => l.map((e) => e.textContent));
    assert(legend.join('|') === 'local|distance 16|distance 32', `legend: ${legend.join(' | ')}`);
    assert(r.ms < BOUND_MS, `the node matrix took ${r.ms.toFixed(0)} ms`);
    const fig = await page.$('figure[data-chart="read"]');
    await fig.scrollIntoViewIfNeeded();
    await fig.screenshot({ path: join(SHOTS, 'size-remote-bandwidth-64.png') });
  });

  await test('the topology picture of 1,024 PUs and 64 nodes', async () => {
    await page.goto(`${server.base}#/`);
    await page.waitForLoadState('networkidle');
    const t0 = await page.evaluate(() => performance.now());
    await page.evaluate(() => { location.hash = '#/topology'; });
    await page.waitForSelector('.topo svg [data-kind="pu"]', { timeout: 20000 });
    const t1 = await page.evaluate(() => performance.now());
    const c = await page.evaluate(() => ({ distances: document.querySelectorAll('.topo svg [data-kind="distances"] rect').length, folds: document.querySelectorAll('.topo svg [data-fold]').length }));
    figures.push(`topology of 1,024 PUs, 64 nodes: shown in ${(t1 - t0).toFixed(0)} ms`);
    // a synthetic machine reports no distance: no grid of guesses is drawn for it
    assert(c.distances === 0 && c.folds > 0, `distance cells ${c.distances}, folds ${c.folds}`);
    assert(t1 - t0 < BOUND_MS, `the topology took ${(t1 - t0).toFixed(0)} ms`);
    await page.screenshot({ path: join(SHOTS, 'size-topology-1024.png') });
  });
  assert(!problems.length, problems.join('; '));
} catch (e) {
  results.push([false, 'setup']);
  console.log(`  FAIL  setup: ${e.message}`);
} finally {
  if (context) await context.close().catch(() => {});
  if (server) server.proc.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}

for (const f of figures) console.log(`  time  ${f}`);
const failed = results.filter((r) => !r[0]);
console.log(`test-browser (size): ${results.length - failed.length} passed, ${failed.length} failed; screenshots in ${SHOTS}`);
process.exit(failed.length ? 1 : 0);
