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

import { placeLabels } from '../../web/lesson.js';
import { readFileSync } from 'node:fs';
import { PALETTE, CONTRAST_PALETTE, GUESS_INK, GUESS_FILL, REF_INK, MARK_INK } from '../../web/charts.js';

// every rule a label's place must keep, checked on the answer of placeLabels
function assertPlaced(xs, widths, W) {
  const { labels, rows, extent } = placeLabels(xs, widths, W);
  assert.ok(extent[0] <= 0 && extent[1] >= W, `the drawing holds its bars (${extent})`);
  labels.forEach((a, i) => {
    assert.ok(a.x0 >= extent[0] && a.x1 <= extent[1], `label ${i} inside the drawing (${a.x0}-${a.x1})`);
    // beside its own line: its near end a few units from it
    assert.ok(Math.abs((a.anchor === 'start' ? a.x0 : a.x1) - xs[i]) <= 8, `label ${i} by its line`);
    labels.forEach((b, j) => {
      if (i === j) return;
      if (a.row === b.row) assert.ok(a.x1 <= b.x0 || b.x1 <= a.x0, `labels ${i} and ${j} apart in row ${a.row}`);
      // line j runs from level with its label's letters down: it may not pass through a label of its row or below it
      if (b.row <= a.row) assert.ok(xs[j] < a.x0 || xs[j] > a.x1, `line ${j} clear of label ${i}`);
    });
  });
  return rows;
}

test('placeLabels: each label by its line, none across another line or label', () => {
  // the projector's case: the teacher at 2.5, the median at 3, the article at 3.9, on 0-8.4
  assert.ok(assertPlaced([125, 150, 195], [143, 110, 210], 420) <= 3);
  // the median drawn first, the teacher's line just left of it with a label too wide to turn left: another order places it
  assert.ok(assertPlaced([150, 125, 195], [110, 143, 210], 420) <= 3);
  // lines far apart share one row
  assert.equal(assertPlaced([20, 380], [120, 120], 420), 1);
  // a line at either edge: its label turns inward
  const { labels } = placeLabels([415, 5], [150, 150], 420);
  assert.equal(labels[0].anchor, 'end');
  assert.equal(labels[1].anchor, 'start');
  assertPlaced([415, 5], [150, 150], 420);
  // four lines on one spot: the inner ones above, the outer below, none across another
  assert.ok(assertPlaced([200, 202, 204, 206], [150, 150, 150, 150], 420) <= 4);
});

test('placeLabels: a measured answer far from the article still crosses no label', () => {
  // the projector after a run: guesses 2, 3 and 8, the median 3, the teacher 2.5, the article 3.9, this machine 7.88
  const guesses = [2, 3, 8];
  const marks = [{ v: 3, t: 'median 3×' }, { v: 2.5, t: 'teacher 2.5×' }, { v: 7.88, t: 'this machine 7.88×' }, { v: 3.9, t: 'article (2007) 3.9×' }];
  const d = distribution(guesses, marks);
  const xs = marks.map((m) => d.pos(m.v) * 420);
  // the article's label cannot turn left inside the drawing, nor the machine's right: one of them stands past an edge
  for (const per of [9, 10, 11, 12.5]) assertPlaced(xs, marks.map((m) => m.t.length * per), 420);
  // labels that fit keep the drawing as it was
  assert.deepEqual(placeLabels(xs, [60, 60, 60, 60], 420).extent, [0, 420]);
  // any values, any widths: every label clear of every other line and label
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let k = 0; k < 300; k++) {
    const n = 1 + Math.floor(rnd() * 5);
    assertPlaced(Array.from({ length: n }, () => rnd() * 420), Array.from({ length: n }, () => 60 + rnd() * 180), 420);
  }
});

// CIE L* of a colour: how light it reads, in grey and to any eye
function lightness(hex) {
  const y = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
    .reduce((s, c, k) => s + c * [0.2126, 0.7152, 0.0722][k], 0);
  return y > 0.008856 ? 116 * Math.cbrt(y) - 16 : 903.3 * y;
}

test('the class\'s guesses take a colour no series, mark or article takes, and the page draws them in it', () => {
  const taken = [...PALETTE, ...CONTRAST_PALETTE, REF_INK, MARK_INK].map((c) => c.toLowerCase());
  for (const c of [GUESS_INK, GUESS_FILL]) assert.ok(!taken.includes(c.toLowerCase()), `${c} is no series' colour`);
  // the projector's series are dark: the class's bars read apart from them by lightness alone (colour-blind, greyscale)
  for (const c of CONTRAST_PALETTE) assert.ok(lightness(GUESS_FILL) - lightness(c) >= 30, `${GUESS_FILL} lighter than ${c}`);
  const css = readFileSync(new URL('../../web/classroom.css', import.meta.url), 'utf8');
  const rule = (sel) => (css.match(new RegExp(`(^|\\n)[^{}]*${sel.replace(/[.*]/g, '\\$&')}[^{}]*\\{([^}]*)\\}`)) || [])[2] || '';
  assert.match(rule('.class-dist-bar'), new RegExp(`fill: ${GUESS_FILL}`, 'i'));
  assert.match(rule('.answer-class .answer-bar'), new RegExp(GUESS_INK, 'i'));
  assert.match(rule('.answer-guess .answer-bar'), new RegExp(GUESS_INK, 'i'));
  assert.match(rule('.class-dist-mark.mark-median'), new RegExp(GUESS_INK, 'i'));
  // and no palette colour stands for a guess anywhere in the classroom's sheet
  for (const sel of ['.class-dist-bar', '.answer-class .answer-bar', '.answer-guess .answer-bar']) {
    for (const c of CONTRAST_PALETTE) assert.ok(!rule(sel).toLowerCase().includes(c.toLowerCase()), `${sel} not in ${c}`);
  }
});
