// the page's one reading of a run document, on the run documents of every experiment in the import corpus
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { readRun, isPageCount, placementGroups, notesByLevel, summaryEntries, provenance, importedFrom, verdictOf } from '../../web/rundoc.js';
import { pagesOf, pageSeries } from '../../web/topology.js';
import { noisyPoints } from '../../web/machine.js';
import { runMeta, footerLines } from '../../web/export.js';

const DIR = new URL('../fuzz/corpus/import/', import.meta.url);
const corpus = readdirSync(DIR).filter((f) => f.endsWith('.json') && !f.startsWith('campaign-')).sort();
const load = (name) => JSON.parse(readFileSync(new URL(name, DIR), 'utf8'));

test('the corpus has a run document of every experiment to read', () => {
  const exps = new Set(corpus.map((f) => load(f).experiment));
  for (const e of ['affinity', 'atomic_increment', 'bandwidth_scaling', 'cache_sharing', 'core_to_core', 'false_sharing',
    'memory_policy', 'memory_policy_semantics', 'numa_replication', 'remote_bandwidth', 'variable_layout']) assert.ok(exps.has(e), e);
});

for (const name of corpus) {
  test(`${name}: every point, part, note and figure is read once`, () => {
    const doc = load(name);
    const r = readRun(doc);
    assert.equal(r.id, doc.id ?? null);
    assert.equal(r.experiment, doc.experiment);
    assert.equal(r.status, doc.status);
    assert.deepEqual(r.params, doc.params);
    assert.deepEqual(r.machine, doc.machine);
    assert.equal(r.samples.length, doc.samples.length);
    assert.equal(r.cells.length, doc.cells.length);

    // series by chart: each point under its own chart, in the document's order
    let ns = 0;
    let nc = 0;
    for (const [chart, c] of r.charts) {
      assert.deepEqual(c.samples, doc.samples.filter((s) => s.chart === chart));
      assert.deepEqual(c.cells, doc.cells.filter((x) => x.chart === chart));
      assert.deepEqual(c.series, [...new Set(c.samples.map((s) => s.series))]);
      ns += c.samples.length;
      nc += c.cells.length;
    }
    assert.equal(ns, doc.samples.length);
    assert.equal(nc, doc.cells.length);

    // the placement: one part per label, each label in exactly one group of identical threads
    assert.deepEqual(r.placement.map((p) => p.label), doc.placement.map((p) => p.label));
    const labels = r.placementGroups.flatMap((g) => g.labels);
    assert.deepEqual([...labels].sort(), r.placement.map((p) => p.label).sort());
    for (const g of r.placementGroups) {
      for (const l of g.labels) assert.deepEqual(r.placement.find((p) => p.label === l).threads, g.threads);
    }
    assert.equal(r.last ? r.last.label : null, doc.placement.length ? doc.placement[doc.placement.length - 1].label : null);
    const measured = doc.placement.find((p) => p.label === 'cpus measured');
    assert.deepEqual(r.measured, measured ? measured.threads : null);

    // notes: warnings apart, everything else (info, cannot) with the notes
    assert.ok(r.notes.warn.every((n) => n.level === 'warn'));
    assert.ok(r.notes.info.every((n) => n.level !== 'warn'));
    assert.equal(r.notes.warn.length + r.notes.info.length, new Set(doc.notes.map((n) => `${n.level} ${n.text}`)).size);

    // the summary, in the document's order
    assert.deepEqual(r.summary.map((e) => e.key), Object.keys(doc.summary));
    for (const e of r.summary) {
      assert.equal(e.value, doc.summary[e.key].value);
      assert.equal(e.unit, doc.summary[e.key].unit);
      assert.equal(r.figures.get(e.key), e);
    }

    // page counts: the samples whose unit is pages, and topology.js reads the same ones
    assert.deepEqual(r.pages, doc.samples.filter((s) => s.unit === 'pages'));
    assert.deepEqual(r.pageSeries, pageSeries(doc.samples));

    assert.equal(r.headline, doc.headline || null);
    assert.equal(r.verdict, (doc.verdict_today && doc.verdict_today.headline) || doc.headline || null);
    assert.equal(r.when, doc.started_at || doc.created_at || null);
    assert.equal(r.provenance === null, !doc.imported);
  });
}

test('memory_policy: its page counts, by series and node, for the machine\'s picture', () => {
  const r = readRun(load('run-memory_policy.json'));
  assert.deepEqual(r.pageSeries, ['after first touch', 'after mbind to node 0', 'after move_pages back']);
  assert.ok(r.pages.every(isPageCount));
  assert.equal(r.charts.get('pages').samples.length, 3);
  assert.deepEqual([...pagesOf(r.pages, 'after first touch')], [[0, 1024]]);
  assert.deepEqual([...pagesOf(r.samples, 'no such series')], []);
  // a bandwidth is not a page count, whatever its chart
  assert.ok(!r.charts.get('bandwidth').samples.some(isPageCount));
});

test('isPageCount: a sample counted in pages, nothing else', () => {
  assert.equal(isPageCount({ chart: 'pages', series: 'a', x: 0, y: 4, unit: 'pages' }), true);
  assert.equal(isPageCount({ chart: 'pages', series: 'a', x: 0, y: 4, unit: 'GB/s' }), false);
  assert.equal(isPageCount({ chart: 'x', series: 'a', x: 0, y: 4 }), false);
  assert.equal(isPageCount(null), false);
});

test('an imported run: where it came from, and what today\'s rules say of it', () => {
  const doc = load('export-core_to_core.json');
  const p = readRun(doc).provenance;
  assert.equal(p.host, 'lab1');
  assert.equal(p.client, '127.0.0.1');
  assert.equal(p.source, 'numalab run --json');
  assert.equal(p.today, doc.verdict_today.headline);
  assert.equal(p.headline, doc.imported.headline);
  assert.equal(p.changed, false);
  assert.equal(importedFrom(p), 'imported from lab1');

  const changed = provenance({ ...doc, verdict_today: { ...doc.verdict_today, headline: 'something else' } });
  assert.equal(changed.changed, true);
  assert.equal(changed.today, 'something else');
  assert.equal(verdictOf({ ...doc, verdict_today: { headline: 'something else' } }), 'something else');

  // not judged again (the run still going, or its params no longer parse): nothing to compare
  const unjudged = provenance({ ...doc, verdict_today: null });
  assert.equal(unjudged.today, null);
  assert.equal(unjudged.changed, false);
  // judged, reaching no headline, where the import had one
  const silent = provenance({ ...doc, verdict_today: { headline: null } });
  assert.equal(silent.today, '');
  assert.equal(silent.changed, true);

  assert.equal(importedFrom(provenance({ imported: {} })), 'imported from another machine');
  assert.equal(provenance(load('run-core_to_core.json')), null);
});

test('summaryEntries: the interval the verdict states rides with its value', () => {
  const r = readRun({ summary: { a: { value: 2, unit: 'x', lo: 1.9, hi: 2.2 }, b: { value: 3, unit: 'x', lo: null, hi: null } } });
  assert.deepEqual(r.summary, [{ key: 'a', value: 2, unit: 'x', lo: 1.9, hi: 2.2 }, { key: 'b', value: 3, unit: 'x' }]);
});

test('a part of a document reads as a document with the rest empty', () => {
  for (const doc of [null, undefined, {}, 'text', []]) {
    const r = readRun(doc);
    assert.deepEqual(r.samples, []);
    assert.deepEqual(r.cells, []);
    assert.equal(r.charts.size, 0);
    assert.deepEqual(r.placement, []);
    assert.deepEqual(r.placementGroups, []);
    assert.equal(r.measured, null);
    assert.equal(r.last, null);
    assert.deepEqual(r.notes, { warn: [], info: [] });
    assert.deepEqual(r.summary, []);
    assert.deepEqual(r.pages, []);
    assert.deepEqual(r.params, {});
    assert.equal(r.machine, null);
    assert.equal(r.provenance, null);
    assert.equal(r.verdict, null);
    assert.equal(r.status, null);
  }
  // a campaign's summary of a node's run
  const r = readRun({ id: 7, status: 'done', headline: 'h', summary: { bw: { value: 3, unit: 'GB/s' } }, machine: { hostname: 'n1' }, params: { threads: 2 } });
  assert.deepEqual(r.summary, [{ key: 'bw', value: 3, unit: 'GB/s' }]);
  assert.equal(r.machine.hostname, 'n1');
  assert.equal(r.verdict, 'h');
  assert.deepEqual(r.samples, []);
});

test('placementGroups: identical threads once, with every label that used them', () => {
  const a = [{ thread: 0, cpu: 0, cpu_observed: 0, node: 0 }];
  const b = [{ thread: 0, cpu: 1, cpu_observed: 1, node: 0 }];
  const groups = placementGroups([{ label: 'x', threads: a }, { label: 'y', threads: b }, { label: 'z', threads: [...a] }]);
  assert.deepEqual(groups.map((g) => g.labels), [['x', 'z'], ['y']]);
  // what a view folded from events: Map(label -> threads)
  assert.deepEqual(placementGroups(new Map([['x', a], ['y', a]])).map((g) => g.labels), [['x', 'y']]);
  // a label sent again replaces its threads and keeps its place
  const r = readRun({ placement: [{ label: 'x', threads: a }, { label: 'y', threads: a }, { label: 'x', threads: b }] });
  assert.deepEqual(r.placement, [{ label: 'x', threads: b }, { label: 'y', threads: a }]);
  assert.equal(r.last.label, 'y');
  const regress = readRun(load('regress-cache-instances.json'));
  assert.ok(regress.placementGroups.length < regress.placement.length, 'the single-thread parts on one cpu share a group');
});

test('notesByLevel: each note once, warnings apart', () => {
  const n = notesByLevel([{ level: 'warn', text: 'w' }, { level: 'info', text: 'i' }, { level: 'warn', text: 'w' }, { level: 'cannot', text: 'c' }, null]);
  assert.deepEqual(n.warn, [{ level: 'warn', text: 'w' }]);
  assert.deepEqual(n.info, [{ level: 'info', text: 'i' }, { level: 'cannot', text: 'c' }]);
  assert.deepEqual(summaryEntries(null), []);
  assert.deepEqual(summaryEntries({ a: { value: 1, unit: 'x' }, b: null }), [{ key: 'a', value: 1, unit: 'x' }, { key: 'b', value: undefined, unit: undefined }]);
});

test('the readers of a reading: noisy points and a chart\'s export line', () => {
  const doc = load('run-false_sharing.json');
  const r = readRun(doc);
  const wide = { ...doc.samples[0], stats: { n: 5, median: 1, min: 0.5, max: 1.5 } };
  assert.deepEqual(noisyPoints(r), noisyPoints(readRun({ samples: doc.samples })));
  assert.equal(noisyPoints(readRun({ samples: [wide] })).length, 1);
  const meta = runMeta(readRun({ ...doc, id: 12 }), { title: 'False sharing' });
  const foot = footerLines(meta);
  assert.match(foot[0], /^numalab run #12 · False sharing/);
  assert.ok(foot[foot.length - 1].startsWith(doc.machine.hostname), foot.join('\n'));
});

test('paramsThatApply: a param of another mode and an empty value are left out, cpus kept', async () => {
  const { paramsThatApply } = await import('../../web/rundoc.js');
  const exp = [{ name: 'mode' }, { name: 'nodes', only: { param: 'mode', values: ['nodes'] } },
    { name: 'loaders', only: { param: 'mode', values: ['loaded'] } }, { name: 'cpu_node', only: { param: 'mode', values: ['sizes', 'loaded'] } }];
  const got = paramsThatApply({ mode: 'sizes', nodes: '', loaders: '4', cpu_node: '0', cpus: '', size: '16M' }, exp);
  assert.deepEqual(got.map(([k]) => k), ['mode', 'cpu_node', 'cpus', 'size']);
});

test('paramApplies: as the server reads a request, so the page sends only what a run reads', async () => {
  const { paramApplies, paramsThatApply } = await import('../../web/rundoc.js');
  const rows = new Map([
    ['parts', { name: 'parts', type: 'set', choices: ['layouts', 'readers', 'tls_access', 'thread_start'] }],
    ['starts', { name: 'starts', type: 'int', only: { param: 'parts', values: ['thread_start'] } }],
    ['ops', { name: 'ops', type: 'int', only: { param: 'parts', values: ['layouts', 'readers', 'tls_access'] } }],
    ['cpus', { name: 'cpus', type: 'cpulist' }],
    ['placement', { name: 'placement', type: 'enum', only: { param: 'cpus', values: [''] } }],
    ['repeat', { name: 'repeat', type: 'int', unread: "the timed rounds of each pair are 'samples'" }],
  ]);
  // a set: one of its choices among the values; 'all' has them all
  assert.equal(paramApplies(rows.get('starts'), { parts: 'layouts,readers' }, rows), false);
  assert.equal(paramApplies(rows.get('starts'), { parts: 'readers,thread_start' }, rows), true);
  assert.equal(paramApplies(rows.get('starts'), { parts: 'all' }, rows), true);
  assert.equal(paramApplies(rows.get('ops'), { parts: 'thread_start' }, rows), false);
  // [''] asks for an empty value: placement only while cpus is empty
  assert.equal(paramApplies(rows.get('placement'), { cpus: '' }, rows), true);
  assert.equal(paramApplies(rows.get('placement'), { cpus: '0,2' }, rows), false);
  // a param the experiment never reads, whatever the rest
  assert.equal(paramApplies(rows.get('repeat'), {}, rows), false);
  // a governing param not among the values: read, as the server leaves it
  assert.equal(paramApplies(rows.get('starts'), {}, rows), true);
  const got = paramsThatApply({ parts: 'layouts', starts: 200, ops: 10, cpus: '1', placement: 'spread', repeat: 5 },
    [...rows.values()]);
  assert.deepEqual(got.map(([k]) => k), ['parts', 'ops', 'cpus']);
});

test('paramApplies: a placement param an experiment reads only in some of its modes', async () => {
  const { paramApplies, unmetOnly } = await import('../../web/rundoc.js');
  const pin = { param: 'modes', values: ['created_pinned', 'pinned_after', 'process_mask'] };
  const rows = new Map([
    ['modes', { name: 'modes', type: 'set', choices: ['created_pinned', 'pinned_after', 'process_mask', 'unpinned', 'cache_split'] }],
    ['cpus', { name: 'cpus', type: 'cpulist', only_here: pin }],
    ['placement', { name: 'placement', type: 'enum', only: { param: 'cpus', values: [''] }, only_here: pin }],
  ]);
  assert.equal(paramApplies(rows.get('cpus'), { modes: 'unpinned,cache_split', cpus: '' }, rows), false);
  assert.equal(paramApplies(rows.get('cpus'), { modes: 'all', cpus: '0' }, rows), true);
  // both conditions: its own (cpus empty) and the experiment's (a mode that pins)
  assert.equal(paramApplies(rows.get('placement'), { modes: 'pinned_after', cpus: '' }, rows), true);
  assert.equal(paramApplies(rows.get('placement'), { modes: 'pinned_after', cpus: '1' }, rows), false);
  assert.equal(paramApplies(rows.get('placement'), { modes: 'unpinned', cpus: '' }, rows), false);
  assert.equal(unmetOnly(rows.get('placement'), { modes: 'unpinned', cpus: '' }, rows), pin);
  assert.equal(unmetOnly(rows.get('placement'), { modes: 'unpinned', cpus: '1' }, rows).param, 'cpus');
});
