// an exported chart on a slide: its title wrapped, its footer, the parameters it names
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wrapText, footerLines, paramsLine, PNG_SIZE } from '../../web/export.js';

test('a slide is 2560x1440 whatever the window', () => {
  assert.deepEqual(PNG_SIZE, { width: 2560, height: 1440 });
});

test('wrapText breaks a long title between words, never squashing it', () => {
  const measure = (t) => t.length * 10;
  assert.deepEqual(wrapText('one two three four', 100, measure), ['one two', 'three four']);
  assert.deepEqual(wrapText('unbreakableword x', 50, measure), ['unbreakableword', 'x']);
  assert.deepEqual(wrapText('', 50, measure), []);
});

test('footerLines names the run, experiment, parameters, machine and date, a line each', () => {
  const lines = footerLines({ what: 'run #7', experiment: 'False sharing', params: 'threads=4', machine: 'lab-3 · 8 CPUs', date: '2026-12-03 10:00 UTC' });
  assert.deepEqual(lines, ['numalab run #7 · False sharing', 'parameters: threads=4', 'lab-3 · 8 CPUs · 2026-12-03 10:00 UTC']);
  assert.deepEqual(footerLines({ what: 'run #7', experiment: 'x' }), ['numalab run #7 · x'], 'no empty lines');
});

test('paramsLine names the parameters set away from their defaults', () => {
  const exp = { params: [{ name: 'threads', default: 2 }, { name: 'stride', default: 64 }] };
  assert.equal(paramsLine({ threads: 4, stride: 64 }, exp), 'threads=4');
  assert.equal(paramsLine({ threads: 4 }, null), 'threads=4');
});

test('every export says its machine: a run without one says so, a comparison names each', async () => {
  const { runMeta, footerLines } = await import('../../web/export.js');
  const { machineLine } = await import('../../web/compare-page.js');
  const bare = runMeta({ id: 3, params: {}, machine: null, when: null, experiment: 'x' }, null);
  assert.ok(footerLines(bare).some((l) => l.includes('machine unknown')));
  assert.equal(machineLine({ hostname: 'lab-a', cpu_model: 'EPYC', pus: 2, nodes: 1 }), 'lab-a: EPYC, 2 CPUs, 1 NUMA node');
  assert.equal(machineLine(null), 'machine unknown');
});

test('footerLines: a compare of several machines gives each its line, the date its own', () => {
  const lines = footerLines({ what: 'compare #1, #2', experiment: 'False sharing', machine: 'lab-a · 2 CPUs | lab-b · 8 CPUs', date: '#1 10:00, #2 11:00' });
  assert.deepEqual(lines, ['numalab compare #1, #2 · False sharing', 'lab-a · 2 CPUs', 'lab-b · 8 CPUs', '#1 10:00, #2 11:00']);
});
