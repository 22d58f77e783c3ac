// the machine's tree built from /api/topology's flat list of PUs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { topologyTree, threadsOn, sameMachine } from '../../web/topology.js';

// two packages, one node each, a shared L3 per package, two cores of two PUs
function machine() {
  const pus = [];
  for (let os = 0; os < 8; os++) {
    const pkg = os >> 2;
    const core = os >> 1;
    pus.push({ os, logical: os, package: pkg, node: pkg, l3: pkg, l2: core, l1: core, core });
  }
  return { pus, nodes: [{ os: 0 }, { os: 1 }], caches: [] };
}

const kinds = (g) => [g.kind, ...g.children.map((c) => kinds(c))];

test('every PU lands once, under its package, node, caches and core', () => {
  const root = topologyTree(machine());
  assert.equal(root.kind, 'machine');
  assert.equal(root.pus.length, 8);
  const leaves = [];
  const walk = (g) => (g.kind === 'pu' ? leaves.push(g.id) : g.children.forEach(walk));
  walk(root);
  assert.deepEqual(leaves, [0, 1, 2, 3, 4, 5, 6, 7]);
  // the widest level first: two packages at the top, two cores in each
  assert.equal(root.children.length, 2);
  const cores = [];
  const find = (g) => (g.kind === 'core' ? cores.push(g) : g.children.forEach(find));
  find(root);
  assert.equal(cores.length, 4);
  assert.ok(cores.every((c) => c.children.length === 2 && c.children.every((x) => x.kind === 'pu')));
});

test('a level every PU lacks is left out, not drawn empty', () => {
  const t = machine();
  for (const p of t.pus) delete p.l3;
  const flat = JSON.stringify(kinds(topologyTree(t)));
  assert.ok(!flat.includes('"l3"'));
});

test('PUs are placed by their logical index whatever order they come in', () => {
  const t = machine();
  t.pus.reverse();
  assert.deepEqual(topologyTree(t).pus.map((p) => p.os), [0, 1, 2, 3, 4, 5, 6, 7]);
});

test('threadsOn: where each thread was seen, and whether it moved from its cpu', () => {
  const m = threadsOn([{ thread: 0, cpu: 2, cpu_observed: 2 }, { thread: 1, cpu: 3, cpu_observed: 2 }, { thread: 2, cpu: 1, cpu_observed: -1 }]);
  assert.deepEqual([...m.keys()], [2]);
  assert.deepEqual(m.get(2), [{ thread: 0, moved: false }, { thread: 1, moved: true }]);
});

test('sameMachine compares the run\'s machine summary with this topology', () => {
  const t = { pus: new Array(8), nodes: [{}, {}], packages: 2, cores: 4 };
  assert.equal(sameMachine(t, { pus: 8, nodes: 2, packages: 2, cores: 4 }), true);
  assert.equal(sameMachine(t, { pus: 8, nodes: 1 }), false);
  assert.equal(sameMachine(t, null), false);
});

test('fitScale fills the room, never drawing text under 16 px nor past 2.4 times', async () => {
  const { fitScale, MIN_SCALE } = await import('../../web/topology.js');
  assert.equal(fitScale(400, 800), 2);
  assert.equal(fitScale(1000, 800), MIN_SCALE, 'too wide for its box: it scrolls rather than shrink its text');
  assert.equal(fitScale(100, 800), 2.4);
  assert.equal(fitScale(400, 0), MIN_SCALE);
  assert.ok(11 * MIN_SCALE >= 16);
});
