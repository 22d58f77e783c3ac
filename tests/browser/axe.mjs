// axe.mjs - axe-core run inside a page under test: serious and critical violations fail the state checked
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

let source = null;

// check(cond, what): the lane's own reporter. The script goes in through the
// debugger protocol, which the page's Content-Security-Policy does not apply to.
// opts.moderate: a moderate problem fails the state too (a missing first-level heading, say).
export async function axeCheck(page, state, check, opts = {}) {
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
  const all = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ impact: v.impact, text: `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}` }));
  });
  // AXE_ALL=1 lists the moderate and minor ones too, without failing on them
  const fails = (v) => v.impact === 'serious' || v.impact === 'critical' || (opts.moderate && v.impact === 'moderate');
  if (process.env.AXE_ALL === '1')
    for (const v of all) if (!fails(v)) console.log(`  axe, ${state}: ${v.text}`);
  const found = all.filter(fails).map((v) => v.text);
  const what = opts.moderate ? 'serious or moderate' : 'serious or critical';
  check(found.length === 0, `axe finds no ${what} problem in "${state}"${found.length ? `:\n    ${found.join('\n    ')}` : ''}`);
}

// The names of the page's buttons (and button-like summaries) said more than once: a screen
// reader's list of buttons must tell them apart.
export function repeatedButtonNames(page) {
  return page.evaluate(() => {
    const seen = new Map();
    for (const el of document.querySelectorAll('button, summary, [role="button"]')) {
      if (!el.getClientRects().length && !el.closest('.visually-hidden')) continue; // not rendered
      const labelled = el.getAttribute('aria-labelledby');
      const name = (el.getAttribute('aria-label') || (labelled && document.getElementById(labelled)?.textContent) || el.textContent || '').trim().replace(/\s+/g, ' ');
      seen.set(name, (seen.get(name) || 0) + 1);
    }
    return [...seen].filter(([, n]) => n > 1).map(([name, n]) => `"${name}" ×${n}`);
  });
}
