// the verdict's marks as the page reads them (rundoc.js markFor), and the classroom's answer panel that heeds them (lesson.js answerRows)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { globMatch, markFor, marksOf, readRun } from '../../web/rundoc.js';
import { answerOf, answerRows } from '../../web/lesson.js';

const WHY = 'the 2 threads ran at the same time for only 10% of a round';
const disowned = { key: 'slowdown_2_threads*', mark: 'disowned', why: WHY };
const bound = { key: 'slowdown_1_threads', mark: 'at_least', why: 'they ran together 80% of the time' };

test('globMatch reads a pattern as fnmatch(3) does', () => {
  assert.ok(globMatch('slowdown_2_threads*', 'slowdown_2_threads'));
  assert.ok(globMatch('slowdown_2_threads*', 'slowdown_2_threads_stride_4'));
  assert.ok(!globMatch('slowdown_2_threads*', 'slowdown_12_threads'));
  assert.ok(globMatch('*', 'overlap_min'));
  assert.ok(globMatch('slowdown_?_threads', 'slowdown_3_threads'));
  assert.ok(!globMatch('slowdown_?_threads', 'slowdown_12_threads'));
  assert.ok(globMatch('node[0-3]', 'node2'));
  assert.ok(!globMatch('node[!0-3]', 'node2'));
  assert.ok(globMatch('node[!0-3]', 'node7'));
  // what a regular expression would read specially is plain text here
  assert.ok(globMatch('a.b(c)+', 'a.b(c)+'));
  assert.ok(!globMatch('a.b', 'axb'));
  assert.ok(globMatch('x[', 'x['));
  assert.ok(globMatch('\\*', '*'));
  assert.ok(!globMatch('\\*', 'a'));
  assert.ok(!globMatch(null, 'a'));
  assert.ok(!globMatch('a', undefined));
});

test('markFor: today\'s verdict first, then the run\'s own marks; null when none covers the key', () => {
  const own = { ...disowned, why: 'as the run said it' };
  const doc = { marks: [own, bound], verdict_today: { headline: 'x', notes: [], marks: [disowned] } };
  assert.deepEqual(markFor(doc, 'slowdown_2_threads'), disowned);
  assert.deepEqual(markFor(doc, 'slowdown_1_threads'), bound);
  assert.equal(markFor(doc, 'overlap_min'), null);
  // a run whose today's verdict has no marks still heeds its own
  assert.deepEqual(markFor({ marks: [own], verdict_today: { marks: [] } }, 'slowdown_2_threads_stride_64'), own);
  // a verdict kept from before marks, a run still going, a document with none
  assert.deepEqual(markFor({ marks: [own], verdict_today: { headline: 'x', notes: [] } }, 'slowdown_2_threads'), own);
  assert.deepEqual(markFor({ marks: [own], verdict_today: null }, 'slowdown_2_threads'), own);
  assert.equal(markFor({}, 'slowdown_2_threads'), null);
  assert.equal(markFor(null, 'slowdown_2_threads'), null);
});

test('marksOf keeps only marks it can read', () => {
  const doc = { marks: [null, 3, { key: '', mark: 'disowned' }, { key: 'a', mark: 'maybe' }, { key: 'a', mark: 'at_least' }] };
  assert.deepEqual(marksOf(doc), [{ key: 'a', mark: 'at_least', why: '' }]);
  const r = readRun({ marks: [disowned], verdict_today: { marks: [bound] } });
  assert.deepEqual(r.marks, [bound, disowned]);
  assert.deepEqual(r.ownMarks, [disowned]);
  assert.deepEqual(readRun({}).marks, []);
});

const lesson = {
  answer: 'slowdown_2_threads', unit: 'x', article: '390% of the separate-line time', article_value: 3.9,
};
const summary = { slowdown_2_threads: { value: 2.17, unit: 'x' }, overlap_min: { value: 0.1, unit: '' } };

test('the panel: a disowned answer gets no bar for this machine, and the verdict\'s reason', () => {
  const ans = answerOf(lesson, summary);
  assert.deepEqual(ans, { key: 'slowdown_2_threads', value: 2.17 });
  const p = answerRows(lesson, 3, ans, markFor({ marks: [disowned] }, ans.key), true);
  assert.equal(p.machine, 'disowned');
  assert.deepEqual(p.rows.map((r) => r.cls), ['guess', 'article']);
  assert.ok(!p.rows.some((r) => /machine/.test(r.who)));
  assert.ok(!p.rows.some((r) => /2\.17/.test(r.text)));
  assert.equal(p.says, `this machine: not a valid measurement — ${WHY}`);
});

test('the panel: a lower bound is labelled "at least"', () => {
  const ans = answerOf(lesson, { slowdown_2_threads: { value: 1.8, unit: 'x' } });
  const p = answerRows(lesson, null, ans, { key: '*', mark: 'at_least', why: 'partial overlap' }, true);
  assert.equal(p.machine, 'at_least');
  assert.deepEqual(p.rows.map((r) => r.cls), ['machine', 'article']);
  assert.equal(p.rows[0].text, 'at least 1.8×');
  assert.equal(p.says, 'this machine: at least 1.8× — partial overlap');
});

test('the panel: an unmarked answer is shown as measured; none waits for the verdict', () => {
  const ans = answerOf(lesson, summary);
  const p = answerRows(lesson, 3, ans, null, true);
  assert.equal(p.machine, 'shown');
  assert.deepEqual(p.rows.map((r) => [r.cls, r.text]), [['guess', '3×'], ['machine', '2.17×'], ['article', '3.9×']]);
  assert.equal(p.says, null);
  // before the run ends the verdict has not spoken: this machine's number is not shown yet
  const w = answerRows(lesson, 3, ans, null, false);
  assert.equal(w.machine, 'waiting');
  assert.deepEqual(w.rows.map((r) => r.cls), ['guess', 'article']);
  // nothing measured
  assert.equal(answerRows(lesson, 3, null, null, true).machine, 'none');
});

test('the panel: this machine\'s answer carries the interval the verdict states beside it', () => {
  const withCi = { slowdown_2_threads: { value: 2.17, unit: 'x', lo: 2.04, hi: 2.4 } };
  const ans = answerOf(lesson, withCi);
  assert.deepEqual(ans, { key: 'slowdown_2_threads', value: 2.17, lo: 2.04, hi: 2.4 });
  const p = answerRows(lesson, 3, ans, null, true);
  assert.deepEqual(p.rows.map((r) => [r.cls, r.text]), [['guess', '3×'], ['machine', '2.17× (2.04–2.4)'], ['article', '3.9×']]);
  // a lower bound says both
  const b = answerRows(lesson, null, ans, { key: '*', mark: 'at_least', why: 'partial overlap' }, true);
  assert.equal(b.rows[0].text, 'at least 2.17× (2.04–2.4)');
  assert.equal(b.says, 'this machine: at least 2.17× (2.04–2.4) — partial overlap');
  // a null interval (not finite where it was kept) is none
  assert.deepEqual(answerOf(lesson, { slowdown_2_threads: { value: 2, unit: 'x', lo: null, hi: null } }), { key: 'slowdown_2_threads', value: 2 });
});

test('compare: a value its run\'s verdict disowns takes no part in the ratios', async () => {
  const { summaryDiff } = await import('../../web/compare.js');
  const a = readRun({ summary: { slowdown_2_threads: { value: 2, unit: 'x' } } });
  const b = readRun({ summary: { slowdown_2_threads: { value: 3, unit: 'x' } }, marks: [disowned] });
  const c = readRun({ summary: { slowdown_2_threads: { value: 4, unit: 'x' } } });
  const [row] = summaryDiff([a, b, c]);
  assert.deepEqual(row.values, [2, null, 4]);
  assert.deepEqual(row.ratios, [1, null, 2]);
  assert.deepEqual(row.marks, [null, disowned, null]);
  // disowned as the baseline: no ratio at all
  assert.deepEqual(summaryDiff([b, a])[0].ratios, [null, null]);
});
