// the charts' words as drawn (charts.js): an axis title and its unit said once, in the unit shown
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { axisTitle } from '../../web/charts.js';

test('axisTitle: the unit shown, said once', () => {
  assert.equal(axisTitle('ns per load', 'ns', 'µs'), 'µs per load', 'not "ns per load (µs)"');
  assert.equal(axisTitle('ns per load', 'ns', 'ns'), 'ns per load');
  assert.equal(axisTitle('time (s)', 's', 'ms'), 'time (ms)');
  assert.equal(axisTitle('time', 's', 'ms'), 'time (ms)');
  assert.equal(axisTitle('bandwidth', 'GB/s', 'GB/s'), 'bandwidth (GB/s)');
  // a word that only contains the unit is left alone
  assert.equal(axisTitle('nsamples', 'ns', 'µs'), 'nsamples (µs)');
});
