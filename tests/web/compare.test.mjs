// compare's tables: which way is better, what differs, each run against the first
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { betterWay, differences, figureLabel, headlineKey, listValues, perOperation, perSample, runNames, seriesLabel, summaryDiff } from '../../web/compare.js';
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

test('differences: a distance not known is ?, in runs that say null and in older ones that said 0', () => {
  const docs = [
    { params: {}, machine: { distances: [[10, 21], [21, 10]] } },
    { params: {}, machine: { distances: [[null, null], [null, null]] } },
    { params: {}, machine: { distances: [[0, 0], [0, 0]] } },
  ];
  const row = differences(docs.map(readRun)).find((r) => r.name === 'NUMA distances');
  assert.deepEqual(row.values, ['10 21 / 21 10', '? ? / ? ?', '? ? / ? ?']);
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

test('a list written with its steps is the list written out', () => {
  assert.equal(listValues('4-16:4'), '4,8,12,16');
  assert.equal(listValues('1-3,8'), '1,2,3,8');
  assert.equal(listValues('both'), 'both');
  assert.equal(listValues('5-1'), '5-1', 'not a list numalab writes: as it is');
  const docs = [{ stride: '4,8,12,16' }, { stride: '4-16:4' }, { stride: '4-16:2' }].map((params) =>
    readRun({ id: 1, experiment: 'false_sharing', status: 'done', params, machine: {} }));
  const row = differences(docs).find((r) => r.name === 'stride');
  assert.deepEqual(row.values, ['4,8,12,16', '4-16:4', '4-16:2'], 'each shown as its run wrote it');
  assert.equal(row.same, false);
  assert.equal(differences(docs.slice(0, 2)).find((r) => r.name === 'stride').same, true);
});

test('a param a run did not read is no difference, recorded or not', () => {
  const expParams = [
    { name: 'layout', type: 'enum', choices: ['separate', 'shared', 'both'] },
    { name: 'stride', type: 'list', only: { param: 'layout', values: ['shared', 'both'] } },
    { name: 'repeat', type: 'int', unread: 'never read here' },
  ];
  // recorded before numalab left out what a run does not read, and after
  const old = { layout: 'separate', stride: '4', repeat: 3 };
  const now = { layout: 'separate' };
  const docs = [old, now].map((params, i) =>
    readRun({ id: i + 1, experiment: 'false_sharing', status: 'done', params, machine: {} }));
  const rows = differences(docs, expParams).filter((r) => r.group === 'parameter');
  assert.deepEqual(rows.map((r) => r.name), ['layout'], 'no row of values no run read');
  assert.ok(rows.every((r) => r.same));
  const both = readRun({ id: 3, experiment: 'false_sharing', status: 'done', params: { layout: 'both', stride: '4' }, machine: {} });
  const stride = differences([docs[0], both], expParams).find((r) => r.name === 'stride');
  assert.deepEqual(stride.values, ['–', '4']);
  assert.equal(runNames([docs[0], both], expParams)[1].name, '#3 layout=both · stride=4');
});

test('runs of different sizes are compared per operation, runs of one size as they are', () => {
  const spec = { id: 'time', title: 'Wall time per round', y_label: 'time (s)', per: { param: 'increments', operation: 'increment' } };
  const runs = [{ params: { increments: 1000000 } }, { params: { increments: '4000000' } }];
  const p = perOperation(spec, runs);
  assert.deepEqual(p.divisor, [1e6, 4e6]);
  assert.equal(p.spec.y_label, 'time per increment (s)');
  assert.match(p.spec.title, /per increment/);
  assert.equal(perOperation(spec, [runs[0], runs[0]]), null, 'the same size: raw time compares');
  assert.equal(perOperation({ ...spec, per: undefined }, runs), null, 'a chart that does not grow with a count');
  assert.equal(perOperation(spec, [runs[0], { params: {} }]), null, 'a run that does not say its count');
  const s = perSample({ y: 4, samples: [2, 6], stats: { n: 2, min: 2, max: 6, median: 4 } }, 4e6);
  assert.equal(s.y, 1e-6);
  assert.deepEqual(s.samples, [0.5e-6, 1.5e-6]);
  assert.equal(s.stats.n, 2);
  assert.equal(s.stats.max, 1.5e-6);
});

test('a picker opens on the headline figure at the most threads, a series is said in words', () => {
  const fs = { headline_key: 'slowdown_*_threads*' };
  assert.equal(headlineKey(['overlap_min', 'slowdown_1_threads', 'slowdown_4_threads', 'slowdown_2_threads'], fs), 'slowdown_4_threads');
  const c2c = { headline_key: 'round_trip_ns_*' };
  assert.equal(headlineKey(['round_trip_ns_same_package', 'round_trip_ns_same_package_min'], c2c), 'round_trip_ns_same_package');
  assert.equal(headlineKey(['a', 'b'], {}), 'a');
  const ai = { series_labels: [{ key: 'c11_seq_cst', label: 'C11 atomic, seq_cst' }] };
  assert.equal(seriesLabel('c11_seq_cst', ai), 'C11 atomic, seq_cst');
  assert.equal(seriesLabel('shared, stride 4 B', ai), 'shared, stride 4 B', 'a series no row names keeps its name');
});

test('a figure names its series in words', () => {
  const ai = { summary_labels: [{ key: 'ns_per_increment_*_*_threads', label: '%s: time per increment, %s threads', unit: 'ns' }],
    series_labels: [{ key: 'c11_relaxed', label: 'C11 atomic, relaxed' }] };
  assert.equal(figureLabel('ns_per_increment_c11_relaxed_2_threads', ai), 'C11 atomic, relaxed: time per increment, 2 threads');
});

test('runNames: each run named by the parameters and host that differ, its start when nothing does', async () => {
  const { runNames } = await import('../../web/compare.js');
  const runs = [
    { id: 1, params: { stride: 64, threads: '2' }, machine: { hostname: 'a' }, started_at: '2026-01-02T10:00:00Z' },
    { id: 2, params: { stride: 128, threads: '2' }, machine: { hostname: 'a' }, started_at: '2026-01-02T11:00:00Z' },
  ].map(readRun);
  assert.deepEqual(runNames(runs).map((n) => n.name), ['#1 stride=64', '#2 stride=128']);
  runs[1].machine = { hostname: 'b' };
  assert.deepEqual(runNames(runs).map((n) => n.name), ['#1 stride=64 · a', '#2 stride=128 · b']);
  const same = [runs[0], { ...runs[0], id: 3 }];
  assert.match(runNames(same)[1].name, /^#3 .*\d\d:00:00$/, 'nothing differs: the run and its start');
  const many = [{ id: 1, params: { a: 1, b: 1, c: 1, d: 1 } }, { id: 2, params: { a: 2, b: 2, c: 2, d: 2 } }].map(readRun);
  assert.deepEqual(runNames(many).map((n) => [n.name, n.full]), [['#1 a=1 · b=1 · c=1 · …', '#1 a=1 · b=1 · c=1 · d=1'], ['#2 a=2 · b=2 · c=2 · …', '#2 a=2 · b=2 · c=2 · d=2']]);
});

test('drawnSamples: relative to the baseline, the baseline at 1 and a point it lacks left out', async () => {
  const { drawnSamples, relativeCells } = await import('../../web/compare-page.js');
  const doc = (id, k, xs) => ({ id, experiment: 'e', samples: xs.map((x) => ({ chart: 't', series: 's', x, y: k * x, unit: 'ns', stats: { min: k * x, max: k * x * 2 } })) });
  const runs = [doc(1, 2, [1, 2]), doc(2, 6, [1, 2, 4])].map(readRun);
  const specs = [{ id: 't', kind: 'line' }];
  const rel = drawnSamples(runs, specs, new Map(), 0, true);
  assert.deepEqual(rel.map((p) => [p.run, p.sample.series, p.sample.x, p.sample.y]),
    [[0, 's · run #1', 1, 1], [0, 's · run #1', 2, 1], [1, 's · run #2', 1, 3], [1, 's · run #2', 2, 3]]);
  assert.equal(rel[2].sample.interval, undefined, 'no interval of the ratio without the medians\' intervals');
  assert.equal(rel[2].sample.unit, 'x');
  const abs = drawnSamples(runs, specs, new Map(), 1, false);
  assert.equal(abs.length, 5);
  assert.equal(abs[4].sample.y, 24);
  const back = drawnSamples(runs, specs, new Map(), 1, true);
  assert.deepEqual(back.filter((p) => p.run === 0).map((p) => p.sample.y), [1 / 3, 1 / 3], 'against another baseline');
  assert.deepEqual(relativeCells([{ row: 0, col: 1, value: 30 }, { row: 1, col: 0, value: 5 }], [{ row: 0, col: 1, value: 10 }])
    .map((c) => c.value), [3, null]);
});

test('history: the parameters that set a run apart from its neighbours come first', async () => {
  const { differFirst } = await import('../../web/history.js');
  const runs = [
    { experiment: 'e', params: { increments: 200000, stride: 64 } },
    { experiment: 'e', params: { increments: 200000, stride: 128 } },
    { experiment: 'e', params: { increments: 100000, stride: 128 } },
  ];
  assert.deepEqual(differFirst(runs, 0, ['increments', 'stride']), ['stride', 'increments']);
  assert.deepEqual(differFirst(runs, 1, ['increments', 'stride']), ['increments', 'stride']);
});

test('ratioSample: the interval of the ratio from the two medians\' intervals, not a slow round over the median', async () => {
  const { ratioSample } = await import('../../web/compare-page.js');
  // the baseline: median 10 ns, 95% interval 9-11, one preempted round of 2,500 ns
  const b = { y: 10, stats: { n: 30, median: 10, ci_lo: 9, ci_hi: 11, min: 8, max: 2500 } };
  const a = { y: 20, stats: { n: 30, median: 20, ci_lo: 19, ci_hi: 22, min: 18, max: 2600 } };
  const r = ratioSample(a, b, false);
  assert.equal(r.y, 2);
  assert.ok(Math.abs(r.interval.lo - 19 / 11) < 1e-12 && Math.abs(r.interval.hi - 22 / 9) < 1e-12, JSON.stringify(r.interval));
  assert.ok(r.interval.hi < 3, 'nowhere near 2600 / 10 = 260×');
  assert.match(r.interval.what, /interval of the ratio/);
  assert.equal(r.stats, null, 'the rounds\' spread is not drawn over the ratio');
  // the baseline over itself: 1, and no whisker
  const self = ratioSample(b, b, true);
  assert.equal(self.y, 1);
  assert.equal(self.interval, undefined);
  // a side without an interval (one round) gives none
  assert.equal(ratioSample({ y: 5, stats: { n: 1 } }, b, false).interval, undefined);
});
