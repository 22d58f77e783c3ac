// qr.js - a QR code for the class link: byte mode, error correction level L, versions 1 to 5 (one block each: up to 106 bytes)
// Written from the standard's steps (ISO/IEC 18004): bits, Reed-Solomon over GF(256), function patterns, zigzag placement, mask 0, format bits.

const DATA = [0, 19, 34, 55, 80, 108]; // data codewords of versions 1-5 at level L
const EC = [0, 7, 10, 15, 20, 26]; // their error correction codewords

// GF(256) with the polynomial x^8 + x^4 + x^3 + x^2 + 1
const EXP = new Array(512);
const LOG = new Array(256);
for (let i = 0, x = 1; i < 255; i++) {
  EXP[i] = x;
  LOG[x] = i;
  x <<= 1;
  if (x & 0x100) x ^= 0x11d;
}
for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255];
const mul = (a, b) => (a && b ? EXP[LOG[a] + LOG[b]] : 0);

// The n error correction codewords of data: the remainder of data(x)·x^n by the generator (x-α^0)…(x-α^(n-1)).
export function reedSolomon(data, n) {
  let gen = [1];
  for (let i = 0; i < n; i++) {
    const next = new Array(gen.length + 1).fill(0);
    for (let j = 0; j < gen.length; j++) {
      next[j] ^= gen[j];
      next[j + 1] ^= mul(gen[j], EXP[i]);
    }
    gen = next;
  }
  const rem = new Array(n).fill(0);
  for (const b of data) {
    const f = b ^ rem.shift();
    rem.push(0);
    for (let j = 0; j < n; j++) rem[j] ^= mul(gen[j + 1], f);
  }
  return rem;
}

// The codewords of text (UTF-8) in the smallest version that holds it: {version, words}; null when over 106 bytes.
export function codewords(text) {
  const bytes = [...new TextEncoder().encode(text)];
  const version = DATA.findIndex((d, v) => v > 0 && bytes.length <= d - 2);
  if (version < 1) return null;
  const bits = [];
  const put = (v, n) => { for (let i = n - 1; i >= 0; i--) bits.push((v >>> i) & 1); };
  put(4, 4); // byte mode
  put(bytes.length, 8);
  for (const b of bytes) put(b, 8);
  const cap = DATA[version] * 8;
  put(0, Math.min(4, cap - bits.length)); // terminator
  while (bits.length % 8) bits.push(0);
  const data = [];
  for (let i = 0; i < bits.length; i += 8) data.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));
  for (let pad = 0xec; data.length < DATA[version]; pad ^= 0xec ^ 0x11) data.push(pad);
  return { version, words: [...data, ...reedSolomon(data, EC[version])] };
}

// The modules of text's code: an array of rows of booleans (true: dark), without the quiet zone; null when too long.
export function qrMatrix(text) {
  const cw = codewords(text);
  if (!cw) return null;
  const N = 17 + 4 * cw.version;
  const dark = Array.from({ length: N }, () => new Array(N).fill(false));
  const fixed = Array.from({ length: N }, () => new Array(N).fill(false));
  const set = (x, y, v) => { dark[y][x] = v; fixed[y][x] = true; };
  for (let i = 0; i < N; i++) { set(6, i, i % 2 === 0); set(i, 6, i % 2 === 0); }
  for (const [cx, cy] of [[3, 3], [N - 4, 3], [3, N - 4]]) {
    for (let dy = -4; dy <= 4; dy++) for (let dx = -4; dx <= 4; dx++) {
      const x = cx + dx, y = cy + dy;
      const d = Math.max(Math.abs(dx), Math.abs(dy));
      if (x >= 0 && y >= 0 && x < N && y < N) set(x, y, d !== 2 && d !== 4);
    }
  }
  if (cw.version >= 2) {
    const c = N - 7;
    for (let dy = -2; dy <= 2; dy++) for (let dx = -2; dx <= 2; dx++) set(c + dx, c + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
  }
  // the format bits: level L (01), mask 0, BCH(15,5), masked with 101010000010010
  const fmt = 1 << 3;
  let rem = fmt;
  for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
  const f = ((fmt << 10) | rem) ^ 0x5412;
  const bit = (i) => ((f >>> i) & 1) === 1;
  for (let i = 0; i <= 5; i++) set(8, i, bit(i));
  set(8, 7, bit(6));
  set(8, 8, bit(7));
  set(7, 8, bit(8));
  for (let i = 9; i < 15; i++) set(14 - i, 8, bit(i));
  for (let i = 0; i < 8; i++) set(N - 1 - i, 8, bit(i));
  for (let i = 8; i < 15; i++) set(8, N - 15 + i, bit(i));
  set(8, N - 8, true); // the dark module
  // the codewords in two-column zigzags from the bottom right, skipping the timing column; mask 0 flips (x + y) even
  let k = 0;
  const total = cw.words.length * 8;
  for (let right = N - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    for (let v = 0; v < N; v++) {
      for (let j = 0; j < 2; j++) {
        const x = right - j;
        const y = ((right + 1) & 2) === 0 ? N - 1 - v : v;
        if (fixed[y][x]) continue;
        const b = k < total ? ((cw.words[k >>> 3] >>> (7 - (k & 7))) & 1) === 1 : false;
        k++;
        dark[y][x] = b !== ((x + y) % 2 === 0);
      }
    }
  }
  return dark;
}

// text's code as an SVG element with its quiet zone (4 modules), or null when it does not fit.
export function drawQR(text, label) {
  const m = qrMatrix(text);
  if (!m) return null;
  const NS = 'http://www.w3.org/2000/svg';
  const n = m.length + 8;
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('viewBox', `0 0 ${n} ${n}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label || `a QR code of ${text}`);
  svg.setAttribute('shape-rendering', 'crispEdges');
  const bg = document.createElementNS(NS, 'rect');
  for (const [k, v] of Object.entries({ width: n, height: n, fill: '#fff' })) bg.setAttribute(k, String(v));
  svg.append(bg);
  let d = '';
  m.forEach((row, y) => row.forEach((on, x) => { if (on) d += `M${x + 4} ${y + 4}h1v1h-1z`; }));
  const path = document.createElementNS(NS, 'path');
  path.setAttribute('d', d);
  path.setAttribute('fill', '#000');
  svg.append(path);
  return svg;
}
