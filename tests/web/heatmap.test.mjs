// the relation classes a matrix is drawn in: pairs of cpus and pairs of nodes
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpuClasses, nodeClasses } from '../../web/heatmap.js';

const pu = (core, l2, l3, pkg, node) => ({ core, l2, l3, package: pkg, node });

test('one cpu has no pairs to class', () => {
  assert.equal(cpuClasses([pu(0, 0, 0, 0, 0)], null), null);
  assert.equal(cpuClasses(null, null), null);
});

test('cpu pairs: siblings, shared L2, shared L3, other package by distance, closest first', () => {
  const threads = [pu(0, 0, 0, 0, 0), pu(0, 0, 0, 0, 0), pu(1, 1, 0, 0, 0), pu(2, 2, 1, 1, 1)];
  const c = cpuClasses(threads, [[10, 21], [21, 10]]);
  assert.deepEqual(c.names, ['smt siblings', 'shared L3', 'other package, distance 21']);
  assert.equal(c.names[c.of(0, 1)], 'smt siblings');
  assert.equal(c.names[c.of(0, 2)], 'shared L3');
  assert.equal(c.names[c.of(3, 0)], 'other package, distance 21');
  assert.equal(c.of(2, 2), 255, 'the diagonal has no class');
  assert.equal(c.of(9, 0), 255, 'outside the matrix has no class');
});

test('another node with no distances reported is its own, last class', () => {
  const c = cpuClasses([pu(0, -1, -1, 0, 0), pu(1, -1, -1, 1, 1)], null);
  assert.deepEqual(c.names, ['other package, another node']);
});

test('node matrices: local first, then each distance, unknown last', () => {
  const rows = ['node 0', 'node 1', 'node 2'];
  const c = nodeClasses(rows, rows, [[10, 20, 30], [20, 10, 20], [30, 20, 10]]);
  assert.deepEqual(c.names, ['local', 'distance 20', 'distance 30']);
  assert.equal(c.names[c.of(0, 0)], 'local');
  assert.equal(c.names[c.of(0, 2)], 'distance 30');
  const u = nodeClasses(['node 0', 'node 1'], ['node 0', 'node 1'], null);
  assert.deepEqual(u.names, ['local', 'remote, distance unknown']);
  assert.equal(nodeClasses(['cpu 0'], ['node 0'], null), null, 'rows that are not nodes are not classed');
});
