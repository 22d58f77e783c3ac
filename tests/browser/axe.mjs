// axe.mjs - axe-core run inside a page under test: serious and critical violations fail the state checked
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

let source = null;

// check(cond, what): the lane's own reporter. The script goes in through the
// debugger protocol, which the page's Content-Security-Policy does not apply to.
export async function axeCheck(page, state, check) {
  if (source === null) {
    try {
      source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    } catch {
      source = '';
    }
  }
  if (!source) {
    // as for playwright-core: a missing dev dependency is said loudly, not failed
    console.log(`SKIP axe on "${state}": axe-core is not in node_modules (run npm ci)`);
    return;
  }
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(source);
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
  });
  check(found.length === 0, `axe finds no serious or critical problem in "${state}"${found.length ? `:\n    ${found.join('\n    ')}` : ''}`);
}
