// the plan the experiment form shows before a campaign starts on many machines
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planText } from '../../web/fleet-start.js';

const exp = { name: 'atomic_increment' };

test('a node list is counted on the page', () => {
  const p = planText('clush', exp, { threads: '2' }, { nodes: 'lab[01-40]' });
  assert.equal(p.ok, true);
  assert.equal(p.text, 'atomic_increment with threads=2 on 40 nodes (lab01, lab02, lab03 … lab40), one run each, through clush');
});

test('a partition is counted by sinfo, through the server', () => {
  const where = { partition: 'wide' };
  assert.match(planText('slurm', exp, {}, where).text, /every node sinfo lists in partition wide \(counting them…\)/);
  const counted = { count: 3, nodes: ['w01', 'w02', 'w03'], unavailable: [] };
  assert.equal(planText('slurm', exp, {}, where, counted).text,
    'atomic_increment with its defaults on 3 nodes (w01, w02, w03) in partition wide, one run each, through slurm');
});

test('features: the nodes that get no run are said', () => {
  const counted = { count: 1, nodes: ['n1'], unavailable: [{ node: 'n2', reason: 'node is drain: fan broken, nothing was submitted' }] };
  const p = planText('slurm', exp, {}, { constraint: 'gen1|gen2' }, counted);
  assert.equal(p.ok, true);
  assert.match(p.text, /on 1 node \(n1\) with features gen1\|gen2; n2 gets no run \(node is drain: fan broken/);
});

test('what sinfo refuses cannot start', () => {
  const p = planText('slurm', exp, {}, { partition: 'nope' }, { error: "sinfo lists no node in partition 'nope'" });
  assert.deepEqual(p, { ok: false, text: "sinfo lists no node in partition 'nope'" });
  assert.equal(planText('slurm', exp, {}, { all: true }, { count: 0, nodes: [], unavailable: [] }).ok, false);
});
