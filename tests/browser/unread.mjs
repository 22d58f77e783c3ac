// unread.mjs - a placement field an experiment reads only in some of its modes: affinity's cpus and placement
// are greyed while no chosen mode pins, say which modes read them, are never sent then, and come back with a mode
// that pins
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM, SHOTS, browserOrSkip, startServer, tempDir } from './setup.mjs';

const chromium = await browserOrSkip('test-browser (unread)');
const tmp = tempDir('numalab-unread-');
const server = await startServer(tmp);
const { proc, base } = server;
let failed = 0;
const check = (cond, what) => { console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`); if (!cond) failed++; };

const browser = await chromium.launch({ executablePath: CHROMIUM });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const sent = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname.endsWith('/api/runs')) sent.push(JSON.parse(r.postData() || '{}'));
  });
  await page.goto(new URL('#/experiments/affinity', base).href);
  await page.waitForSelector('#p-cpus');
  const mode = (name) => page.locator('#form-fields .field[data-param="modes"] label.choice', { hasText: name });
  check(!(await page.isDisabled('#p-cpus')), 'every mode chosen: the cpus field is read');
  // leave unpinned alone: uncheck the modes that pin, and cache_split
  for (const m of ['created_pinned', 'pinned_after', 'process_mask', 'cache_split']) await mode(m).click();
  const said = await page.textContent('#p-cpus-unread');
  check(await page.isDisabled('#p-cpus') && await page.isVisible('#p-cpus-unread') && /pinned_after/.test(said),
    `modes=unpinned: the cpus field is greyed and says which modes read it ("${said}")`);
  const placed = await page.textContent('#p-placement-unread');
  check(await page.isVisible('#p-placement-unread') && /process_mask/.test(placed),
    `modes=unpinned: placement says which modes read it ("${placed}")`);
  await page.locator('#p-cpus').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SHOTS, 'unread-affinity-1280.png'), fullPage: false });
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.locator('#p-cpus').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SHOTS, 'unread-affinity-1400.png'), fullPage: false });
  await page.fill('#p-passes', '1');
  await page.fill('#p-size', '64K');
  await page.click('#run-button');
  await page.waitForFunction(() => /^#\/runs\/[^/]+$/.test(location.hash), null, { timeout: 20000 });
  const asked = (sent[0] && sent[0].params) || {};
  check(asked.modes === 'unpinned' && !('cpus' in asked) && !('placement' in asked),
    `modes=unpinned: the run is started without cpus or placement (${Object.keys(asked).join(', ')})`);
  await page.goto(new URL('#/experiments/affinity', base).href);
  await page.waitForSelector('#p-cpus');
  for (const m of ['created_pinned', 'process_mask', 'cache_split']) await mode(m).click();
  check(!(await page.isDisabled('#p-cpus')) && !(await page.isVisible('#p-cpus-unread')),
    'modes=pinned_after,unpinned: the cpus field is read again');
  await page.fill('#p-cpus', '0');
  const own = await page.textContent('#p-placement-unread');
  const greyed = await page.locator('#form-fields .field[data-param="placement"].not-read').count();
  check(greyed === 1 && /cpus/.test(own),
    `cpus given: placement says its own rule ("${own}")`);
  await page.close();
} catch (e) {
  console.log(`FAIL ${e.stack || e}`);
  failed++;
} finally {
  await browser.close();
  proc.kill();
  rmSync(tmp, { recursive: true, force: true });
}
console.log(`test-browser (unread): ${failed ? 'FAIL' : 'passed'}`);
process.exit(failed ? 1 : 0);
