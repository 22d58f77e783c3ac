// the time a run has left, from the estimate and then the pace of its steps
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { secondsLeft, etaText, Eta } from '../../web/eta.js';

test('nothing known: no time left is claimed', () => {
  assert.equal(secondsLeft({}), null);
  assert.equal(etaText(null), '');
  assert.equal(etaText(Infinity), '');
});

test('before any step the estimate speaks, never below zero', () => {
  assert.equal(secondsLeft({ estimate: 60, elapsed: 20 }), 40);
  assert.equal(secondsLeft({ estimate: 10, elapsed: 20 }), 0);
});

test('the pace takes over as steps are done', () => {
  // half done in 10 s: the pace says 10 s more; the estimate says 90 - 10 = 80
  const left = secondsLeft({ estimate: 90, elapsed: 10, done: 5, total: 10 });
  assert.equal(left, 0.5 * 10 + 0.5 * 80);
  // with no estimate the pace alone
  assert.equal(secondsLeft({ elapsed: 10, done: 5, total: 10 }), 10);
  // done past total counts as total
  assert.equal(secondsLeft({ elapsed: 10, done: 50, total: 10 }), 0);
});

test('the line under the bar', () => {
  assert.equal(etaText(0.5), 'almost done');
  assert.equal(etaText(42.4), 'about 42 s left');
  assert.equal(etaText(600), 'about 10 min left');
});

test('Eta keeps the start and the steps on an injected clock', () => {
  let now = 1000;
  const eta = new Eta(() => now);
  eta.start(30);
  now += 10000;
  eta.progress(1, 4);
  // a quarter in 10 s: pace 30 s more, estimate 20 s more, weighted 1/4 to 3/4
  assert.equal(eta.text(), 'about 23 s left');
  assert.equal(new Eta(() => now).text(), '');
});
