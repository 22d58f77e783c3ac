// csv.test.mjs - the page's CSV field (web/csv.js) on the cases server/rundoc/csv.c passes too
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { csvField, csvText } from '../../web/csv.js';

const { cases } = JSON.parse(readFileSync(new URL('../data/csv_cases.json', import.meta.url)));

test('every shared case', () => {
  assert.ok(cases.length > 20);
  for (const [input, want] of cases) assert.equal(csvField(input), want, JSON.stringify(input));
});

test('numbers stay numbers; nothing is empty', () => {
  assert.equal(csvField(-1.5), '-1.5');
  assert.equal(csvField(3), '3');
  assert.equal(csvField(null), '');
  assert.equal(csvField(undefined), '');
  assert.equal(csvField(-Infinity), `"'-Infinity"`);
});

test('rows', () => {
  assert.equal(csvText([['component', '=HYPERLINK("x")'], ['state', 'done']]),
    `component,"'=HYPERLINK(""x"")"\r\nstate,done\r\n`);
});
