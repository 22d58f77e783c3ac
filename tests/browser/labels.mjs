// labels.mjs - every field of every experiment's form, as the page draws it from the param tables: each label and
// each help said once, naming what it is (no "threads threads", no way of typing a value explained twice, no
// phrase said twice under one field, what an empty field means said once); screenshots of the form at both sizes
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, SHOTS, browserOrSkip, startServer, tempDir } from './setup.mjs';

const chromium = await browserOrSkip('test-browser (labels)');
const tmp = tempDir('numalab-labels-');
const server = await startServer(tmp);
let failed = 0;
const check = (cond, what) => { console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`); if (!cond) failed++; };

// The kinds of example a text gives of how to type a value: "(2)" one value, "1-4" a range, "1,2,4" a list,
// "2-8:2" a stepped range; a field's words may show each kind once.
export function exampleKinds(text) {
  const kinds = [];
  for (const m of text.matchAll(/\(([^()]*)\)/g)) {
    for (const part of m[1].replace(/^e\.g\.\s*/, '').split(/,\s+|\s+or\s+/)) {
      const t = part.trim();
      if (/^\d+-\d+:\d+$/.test(t)) kinds.push('stepped');
      else if (/^\d+(,\d+)+$/.test(t)) kinds.push('list');
      else if (/^\d+-\d+$/.test(t)) kinds.push('range');
      else if (/^\d+$/.test(t)) kinds.push('one');
      else if (/^[\d,-]+$/.test(t)) kinds.push('cpu list');
    }
  }
  return kinds;
}

// Runs of four words said twice in one text.
function repeatedPhrases(text) {
  const w = text.toLowerCase().replace(/[^a-z0-9 ]+/g, ' ').split(/\s+/).filter(Boolean);
  const seen = new Set();
  const again = new Set();
  for (let i = 0; i + 4 <= w.length; i++) {
    const k = w.slice(i, i + 4).join(' ');
    if (seen.has(k)) again.add(k);
    seen.add(k);
  }
  return [...again];
}

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
try {
  const schema = await (await fetch(`${server.base}api/experiments`)).json();
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  let fields = 0;
  const faults = [];
  for (const exp of schema) {
    await page.goto(`${server.base}#/experiments/${exp.name}`);
    await page.waitForSelector('#run-form .field', { timeout: 20000 });
    // a param the experiment never reads (its row's unread) has no field
    const shown = exp.params.filter((p) => !p.unread).length;
    await page.waitForFunction((n) => document.querySelectorAll('#run-form .field').length >= n, shown, { timeout: 20000 });
    const drawn = await page.$$eval('#run-form .field', (els) => els.map((f) => ({
      name: f.dataset.param,
      label: (f.querySelector('.field-label')?.textContent || '').trim(),
      unit: (f.querySelector('.field-label .unit')?.textContent || '').trim(),
      help: (f.querySelector('.help')?.textContent || '').trim(),
      placeholder: f.querySelector('input[type=text]')?.placeholder || '',
    })));
    for (const f of drawn) {
      fields++;
      const where = `${exp.name}.${f.name}`;
      const words = f.label.toLowerCase().split(/\s+/);
      if (words.some((x, i) => i && x === words[i - 1])) faults.push(`${where}: its label says a word twice ("${f.label}")`);
      const kinds = exampleKinds(`${f.help} (${f.placeholder.replace(/^e\.g\.\s*/, '')})`);
      const twice = kinds.filter((k, i) => kinds.indexOf(k) !== i);
      if (twice.length) faults.push(`${where}: shows how to type ${[...new Set(twice)].join(', ')} twice ("${f.help}")`);
      const again = repeatedPhrases(f.help);
      if (again.length) faults.push(`${where}: says "${again[0]}" twice ("${f.help}")`);
      if (/empty/i.test(f.placeholder) && /empty/i.test(f.help)) faults.push(`${where}: what empty means, in the field and under it`);
      if (f.unit && new RegExp(`\\d ${f.unit.replace(/[.*+?()[\]\\]/g, '\\$&')}\\b`).test(f.help)) faults.push(`${where}: its unit beside the name and again after the range ("${f.help}")`);
      if (!f.help) faults.push(`${where}: no words say what it is`);
    }
  }
  check(faults.length === 0, `${fields} fields of ${schema.length} experiments, each label and help said once${faults.length ? `:\n  ${faults.join('\n  ')}` : ''}`);
  // the threads field as a person reads it: what it is, then how to type it, once
  await page.goto(`${server.base}#/experiments/false_sharing`);
  await page.waitForSelector('#p-threads-help');
  const threads = await page.textContent('#p-threads-help');
  check(/^thread counts to measure · /.test(threads) && (threads.match(/range/g) || []).length === 2 && !/sweep/.test(threads),
    `false_sharing's threads: what it is, then the ways to type it once ("${threads}")`);
  for (const [w, hgt] of [[1280, 720], [1400, 900]]) {
    await page.setViewportSize({ width: w, height: hgt });
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(SHOTS, `labels-form-${w}x${hgt}.png`) });
  }
  check(errors.length === 0, `no page errors ${errors.join('; ')}`);
} catch (e) {
  check(false, `labels: ${e.message}`);
} finally {
  await browser.close();
  server.proc.kill();
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
