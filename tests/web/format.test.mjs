// the numbers, sizes, times and units the page prints
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { label, num, bytes, sizeText, toDate, duration, displayUnit, convertUnit, withUnit, withInterval } from '../../web/format.js';

test('a param name reads as words', () => {
  assert.equal(label('ns_per_increment'), 'ns per increment');
});

test('numbers: three significant figures, grouping, dashes for nothing', () => {
  assert.equal(num(null), '–');
  assert.equal(num(undefined), '–');
  assert.equal(num(NaN), '–');
  assert.equal(num(1.23456), '1.23');
  assert.equal(num(4096), '4,096');
  assert.equal(num(Infinity), '∞');
  assert.equal(num(-Infinity), '−∞');
  assert.match(num(1.5e-6), /^1\.50×10\^-6$/);
  assert.equal(num('text'), 'text');
});

test('sizes in binary units and as the size parser reads them', () => {
  assert.equal(bytes(512), '512 B');
  assert.equal(bytes(1536), '1.5 KiB');
  assert.equal(bytes(2 ** 30), '1 GiB');
  assert.equal(sizeText(2 ** 20), '1M');
  assert.equal(sizeText(3 * 2 ** 30), '3G');
  assert.equal(sizeText(1000), '1000');
  assert.equal(sizeText(-1), '-1');
});

test('timestamps: ISO text, seconds, milliseconds; junk is null', () => {
  assert.equal(toDate('2026-12-03T10:00:00Z').toISOString(), '2026-12-03T10:00:00.000Z');
  assert.equal(toDate(1700000000).getTime(), 1700000000000);
  assert.equal(toDate(1700000000000).getTime(), 1700000000000);
  assert.equal(toDate('1700000000').getTime(), 1700000000000);
  assert.equal(toDate('x'), null);
  assert.equal(toDate(''), null);
  assert.equal(toDate(null), null);
});

test('durations: ms under a second, minutes past one', () => {
  assert.equal(duration(0.25), '250 ms');
  assert.equal(duration(12.34), '12.3 s');
  assert.equal(duration(125), '2 min 5 s');
  assert.equal(duration(-1), '');
  assert.equal(duration(NaN), '');
});

test('time units scale to what the values need, and convert back', () => {
  const small = displayUnit('s', 0.0012);
  assert.equal(small.unit, 'ms');
  const tiny = displayUnit('s', 5e-7);
  assert.equal(tiny.unit, 'ns');
  assert.ok(Math.abs(convertUnit(0.0012, 's', 'ms') - 1.2) < 1e-12);
  assert.equal(withUnit(null, 's'), '–');
});

test('withInterval: the value, then the interval the verdict states beside it', () => {
  assert.equal(withInterval(4, 'x', 3.7, 4.3), '4× (3.7–4.3)');
  assert.equal(withInterval(2.5, 'ns', 2.4, 2.6), '2.5 ns (2.4–2.6)');
  assert.equal(withInterval(2.5, 'x'), '2.5×');
  assert.equal(withInterval(null, 'x', 1, 2), '–');
});
