// the class's guesses as the page reads them: their median, their bins, and the answer panel's row for them (lesson.js)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerRows, distribution, median } from '../../web/lesson.js';

const lesson = { unit: 'x', article: 'four Pentium 4', article_value: 3.9 };

test('median: the middle guess, or the mean of the two middle ones', () => {
  assert.equal(median([]), null);
  assert.equal(median([5]), 5);
  assert.equal(median([10, 2, 3]), 3);
  assert.equal(median([4, 1, 2, 10]), 3);
});

test('distribution: every guess in one bin, the lines inside the scale', () => {
  const d = distribution([1, 2, 2, 3], [{ v: 4 }]);
  assert.equal(d.log, false);
  assert.equal(d.bins.reduce((n, b) => n + b.count, 0), 4);
  assert.equal(d.most, 2);
  assert.ok(d.pos(4) < 1 && d.pos(4) > 0.9);
  assert.equal(distribution([], []), null);
});

test('distribution: guesses far apart are drawn on a log scale', () => {
  const d = distribution([1.5, 2, 300], []);
  assert.equal(d.log, true);
  assert.equal(d.bins.reduce((n, b) => n + b.count, 0), 3);
  assert.ok(d.pos(2) < 0.3 && d.pos(300) > 0.9);
});

test('answerRows: the class\'s median first, the typed guess then the teacher\'s', () => {
  const ans = { key: 'slowdown', value: 3 };
  const p = answerRows(lesson, 2.5, ans, null, true, { n: 3, median: 4 });
  assert.deepEqual(p.rows.map((r) => r.who), ['the class (median of 3)', 'the teacher guessed', 'this machine', 'the article (2007)']);
  assert.equal(p.rows[0].text, '4×');
  // without the class's guesses the panel is as it was
  assert.equal(answerRows(lesson, 2.5, ans, null, true).rows[0].who, 'the class guessed');
  // a disowned answer still gets no bar beside the class's median
  const d = answerRows(lesson, null, ans, { mark: 'disowned', why: 'too short' }, true, { n: 2, median: 3 });
  assert.deepEqual(d.rows.map((r) => r.cls), ['class', 'article']);
  assert.equal(d.machine, 'disowned');
});
