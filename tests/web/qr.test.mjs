// qr.js: the class link's QR code (Reed-Solomon, version choice, the fixed patterns); decoded whole by a phone in tests/browser/class_predict.mjs's screenshots
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codewords, qrMatrix, reedSolomon } from '../../web/qr.js';

test('reedSolomon: the error correction codewords of the standard\'s worked example (1-M, HELLO WORLD)', () => {
  const data = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17];
  assert.deepEqual(reedSolomon(data, 10), [196, 35, 39, 119, 235, 215, 231, 226, 93, 23]);
});

test('codewords: the smallest version that holds the bytes, padded with 236 and 17', () => {
  const c = codewords('hi');
  assert.equal(c.version, 1);
  assert.equal(c.words.length, 26);
  assert.deepEqual(c.words.slice(0, 4), [0x40, 0x26, 0x86, 0x90]);
  assert.deepEqual(c.words.slice(4, 6), [236, 17]);
  assert.equal(codewords('http://192.168.10.20:8080/student.html').version, 3);
  assert.equal(codewords('x'.repeat(106)).version, 5);
  assert.equal(codewords('x'.repeat(107)), null);
});

test('qrMatrix: 17 + 4 × version modules a side, the finder patterns in three corners', () => {
  const m = qrMatrix('http://127.0.0.1:8080/student.html');
  assert.equal(m.length, 29);
  const finder = (x0, y0) => [0, 1, 2, 3, 4, 5, 6].every((i) => m[y0][x0 + i] && m[y0 + 6][x0 + i] && m[y0 + i][x0] && m[y0 + i][x0 + 6]) && m[y0 + 3][x0 + 3] && !m[y0 + 1][x0 + 1];
  assert.ok(finder(0, 0) && finder(22, 0) && finder(0, 22));
  assert.ok(m[21][8], 'the dark module');
  assert.equal(qrMatrix('x'.repeat(200)), null);
});
