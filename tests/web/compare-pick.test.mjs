// the picker of "compare with…": which parameters set the recent runs apart
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { paramsRead, paramsThatDiffer, paramText } from '../../web/compare-pick.js';

test('paramsThatDiffer names only the parameters that are not the same everywhere', () => {
  const list = [{ threads: 2, stride: 64 }, { threads: 4, stride: 64 }, { threads: 2, stride: 64, pin: 'spread' }];
  assert.deepEqual(paramsThatDiffer(list), ['threads', 'pin']);
  assert.deepEqual(paramsThatDiffer([{ a: 1 }, { a: 1 }]), []);
});

test('paramText writes key=value for the keys given, in their order', () => {
  assert.equal(paramText({ threads: 4, pin: 'spread' }, ['pin', 'threads']), 'pin=spread · threads=4');
  assert.equal(paramText({ threads: 4 }, ['pin']), '');
});

test('a param a run did not read sets no run apart, recorded or not', () => {
  const expParams = [
    { name: 'layout', type: 'enum', choices: ['separate', 'shared', 'both'] },
    { name: 'stride', type: 'sweep', only: { param: 'layout', values: ['shared', 'both'] } },
    { name: 'repeat', type: 'int', unread: 'never read here' },
  ];
  // recorded before numalab left out what a run does not read, and after
  const old = paramsRead({ layout: 'separate', stride: '4', repeat: 3 }, expParams);
  const now = paramsRead({ layout: 'separate' }, expParams);
  assert.deepEqual(old, { layout: 'separate' });
  assert.deepEqual(paramsThatDiffer([old, now]), []);
  assert.deepEqual(paramsRead({ layout: 'both', stride: '8' }, expParams), { layout: 'both', stride: '8' });
  // without the experiment's schema: every value as recorded
  assert.deepEqual(paramsRead({ layout: 'separate', stride: '4' }), { layout: 'separate', stride: '4' });
});
