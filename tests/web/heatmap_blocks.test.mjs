// heatmap_blocks.test.mjs - the big matrix's pure parts (web/heatmap.js): relation classes and block sums without an n x n grid
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blockSums, cellList, cpuClasses } from '../../web/heatmap.js';

// two packages, each one node with an L3, cores of two SMT siblings sharing an L2
function machine(cores) {
  const threads = [];
  for (let c = 0; c < cores; c++) {
    for (let s = 0; s < 2; s++) {
      const pkg = c < cores / 2 ? 0 : 1;
      threads.push({ core: c, l2: c, l3: pkg, package: pkg, node: pkg });
    }
  }
  return threads;
}

test('classes: the same whether found over every pair or by grouping', () => {
  const dist = [[10, 21], [21, 10]];
  const small = cpuClasses(machine(8), dist);
  assert.deepEqual(small.names, ['smt siblings', 'shared L3', 'other package, distance 21']);
  assert.equal(small.of(0, 1), 0);
  assert.equal(small.of(0, 2), 1);
  assert.equal(small.of(0, 15), 2);
  assert.equal(small.of(3, 3), 255);
  // 6000 cores, 12000 threads: past the pairwise search, the same classes
  const t0 = performance.now();
  const big = cpuClasses(machine(6000), dist);
  assert.deepEqual(big.names, small.names);
  assert.equal(big.of(0, 11999), 2);
  assert.ok(performance.now() - t0 < 5000, 'found by grouping, not over 144 million pairs');
});

test('block sums visit only the cells present', () => {
  const n = 12000;
  // a core_to_core matrix with only its diagonal: 12,000 cells of 144 million declared
  const cells = cellList(n + 1);
  for (let i = 0; i < n; i++) {
    cells.r[cells.n] = i;
    cells.c[cells.n] = i;
    cells.v[cells.n++] = i % 7;
  }
  Object.assign(cells, { n: n + 1 });
  cells.r[n] = 5;
  cells.c[n] = 9;
  cells.v[n] = NaN;
  const k = 34;
  const gw = Math.ceil(n / k);
  const { sum, count } = blockSums(cells, { r0: 0, c0: 0, n, m: n }, k, gw, gw);
  assert.equal(count.length, gw * gw);
  assert.equal(count.reduce((a, b) => a + b, 0), n);
  assert.equal(count[0], 34);
  assert.equal(count[1], 0);
  let s0 = 0;
  for (let i = 0; i < 34; i++) s0 += i % 7;
  assert.equal(sum[0], s0);
  // a zoomed view keeps only its own cells
  const z = blockSums(cells, { r0: 100, c0: 100, n: 64, m: 64 }, 1, 64, 64);
  assert.equal(z.count.reduce((a, b) => a + b, 0), 64);
  assert.equal(z.sum[0], 100 % 7);
});
