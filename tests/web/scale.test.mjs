// one scale for a figure across runs or machines
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commonRange, niceCeil, refsOwnAxis } from '../../web/scale.js';

test('commonRange holds every range and skips the empty ones', () => {
  assert.deepEqual(commonRange([{ lo: 0, hi: 412 }, { lo: 0, hi: 444 }, null, { lo: Infinity, hi: -Infinity }]), { lo: 0, hi: 444 });
  assert.equal(commonRange([null]), null);
});

test('niceCeil ends an axis on a round tick', () => {
  assert.equal(niceCeil(444), 500);
  assert.equal(niceCeil(250), 250);
  assert.equal(niceCeil(0.3), 0.5);
  assert.equal(niceCeil(1), 1);
});

test('the article\'s bars get their own axis only when they would flatten the runs\'', () => {
  assert.equal(refsOwnAxis(170, 1147), true, '1,147 % beside 170 %');
  assert.equal(refsOwnAxis(800, 1147), false, '1,147 % beside 800 % share an axis');
  assert.equal(refsOwnAxis(0, 1147), false, 'nothing measured yet: one axis');
  assert.equal(refsOwnAxis(170, 0), false, 'no article figure');
});

test('logTicks: 1-2-5 over two decades, 1-3 over four, powers of ten over more; never "70" beside "100"', async () => {
  const { logTicks } = await import('../../web/scale.js');
  assert.deepEqual(logTicks(1, 200), [1, 2, 5, 10, 20, 50, 100, 200]);
  assert.deepEqual(logTicks(1, 5000), [1, 3, 10, 30, 100, 300, 1000, 3000]);
  assert.deepEqual(logTicks(0.1, 1e6), [0.1, 1, 10, 100, 1000, 10000, 100000, 1000000]);
  assert.deepEqual(logTicks(0, 10), []);
});
