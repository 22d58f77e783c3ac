// the picker of "compare with…": which parameters set the recent runs apart
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { paramsThatDiffer, paramText } from '../../web/compare-pick.js';

test('paramsThatDiffer names only the parameters that are not the same everywhere', () => {
  const list = [{ threads: 2, stride: 64 }, { threads: 4, stride: 64 }, { threads: 2, stride: 64, pin: 'spread' }];
  assert.deepEqual(paramsThatDiffer(list), ['threads', 'pin']);
  assert.deepEqual(paramsThatDiffer([{ a: 1 }, { a: 1 }]), []);
});

test('paramText writes key=value for the keys given, in their order', () => {
  assert.equal(paramText({ threads: 4, pin: 'spread' }, ['pin', 'threads']), 'pin=spread · threads=4');
  assert.equal(paramText({ threads: 4 }, ['pin']), '');
});
