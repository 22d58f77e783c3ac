// compare's tables: which way is better, what differs, each run against the first
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { betterWay, differences, summaryDiff } from '../../web/compare.js';
import { readRun } from '../../web/rundoc.js';

test('better is read from the unit and the name', () => {
  assert.equal(betterWay('bandwidth', 'GB/s'), 'higher');
  assert.equal(betterWay('round_trip', 'ns'), 'lower');
  assert.equal(betterWay('slowdown', 'x'), 'lower');
  assert.equal(betterWay('overlap_min', ''), null);
});

test('differences lists each parameter and machine part, marked same or not', () => {
  const docs = [
    { params: { threads: '2', stride: '4' }, machine: { hostname: 'a', pus: 2 } },
    { params: { threads: '4' }, machine: { hostname: 'a', pus: 2 } },
  ];
  const rows = differences(docs.map(readRun));
  const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
  assert.deepEqual(byName.threads.values, ['2', '4']);
  assert.equal(byName.threads.same, false);
  assert.deepEqual(byName.stride.values, ['4', '–'], 'a parameter one run lacks shows a dash');
  assert.equal(byName.host.same, true);
  assert.equal(byName.host.group, 'machine');
});

test('summaryDiff: each value against the first run, none where it cannot be divided', () => {
  const docs = [
    { summary: { ns: { value: 100, unit: 'ns' }, z: { value: 0, unit: 'x' } } },
    { summary: { ns: { value: 150, unit: 'ns' }, z: { value: 3, unit: 'x' } } },
    { summary: {} },
  ];
  const rows = summaryDiff(docs.map(readRun));
  const ns = rows.find((r) => r.key === 'ns');
  assert.deepEqual(ns.values, [100, 150, null]);
  assert.deepEqual(ns.ratios, [1, 1.5, null]);
  assert.equal(ns.unit, 'ns');
  assert.deepEqual(rows.find((r) => r.key === 'z').ratios, [null, null, null]);
});

test('summaryDiff: ratios against the chosen baseline, none for a figure with no better way', () => {
  const docs = [
    { summary: { ns: { value: 100, unit: 'ns' }, overlap_min: { value: 2, unit: '' } } },
    { summary: { ns: { value: 200, unit: 'ns' }, overlap_min: { value: 4, unit: '' } } },
    { summary: { ns: { value: 50, unit: 'ns' } } },
  ];
  const rows = summaryDiff(docs.map(readRun), 1);
  const ns = rows.find((r) => r.key === 'ns');
  assert.deepEqual(ns.ratios, [0.5, 1, 0.25], 'each run over run 2');
  assert.equal(ns.way, 'lower');
  assert.deepEqual(rows.find((r) => r.key === 'overlap_min').ratios, [null, null, null], 'no ratio of a figure without a direction');
});

test('figureLabel reads the experiment\'s summary_labels, else makes the key readable', async () => {
  const { figureLabel } = await import('../../web/compare.js');
  const exp = { summary_labels: [{ key: 'slowdown_*_threads_stride_*', label: 'slowdown with %s threads, stride %s B', unit: '×' }] };
  assert.equal(figureLabel('slowdown_2_threads_stride_64', exp), 'slowdown with 2 threads, stride 64 B');
  assert.equal(figureLabel('rounds_kept', exp), figureLabel('rounds_kept', null), 'a key without a label falls back to today\'s text');
});
