// trust.mjs - a page of another origin (127.0.0.2, or a name rebound to 127.0.0.1) can neither read the dashboard's API nor start, import or cancel a run, nor frame it
import { createServer } from 'node:http';
import { rmSync } from 'node:fs';
import { CHROMIUM, browserOrSkip, startServer, tempDir } from './setup.mjs';

const chromium = await browserOrSkip('test-browser (trust)');
const tmp = tempDir('numalab-trust-');
const server = await startServer(tmp);
const { proc, base } = server;
const port = new URL(base).port;
let failed = 0;
const check = (cond, what) => { console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}`); if (!cond) failed++; };
const total = async () => (await (await fetch(`${base}api/runs?limit=1`)).json()).total;

// the attacker's page: every way a page may try, each outcome written down
const target = `http://127.0.0.1:${port}`;
const evil = `<!doctype html><meta charset=utf-8><title>evil</title>
<iframe id=frame src="${target}/"></iframe>
<iframe name=sink></iframe>
<form id=form method=POST action="${target}/api/runs/import" enctype="text/plain" target=sink>
<input name='{"experiment":"false_sharing","x":"' value='"}'></form>
<form id=form2 method=POST action="${target}/api/runs" enctype="text/plain" target=sink>
<input name='{"experiment":"false_sharing","params":{},"x":"' value='"}'></form>
<script>
window.results = {};
const body = JSON.stringify({ experiment: 'false_sharing', params: { threads: '1', increments: 1000, repeat: 1, warmup: 0 } });
async function attempt(name, f) {
  try { window.results[name] = await f(); } catch (e) { window.results[name] = 'error: ' + e.message; }
}
window.attack = async () => {
  await attempt('read', async () => (await fetch('${target}/api/runs')).status);
  await attempt('topology', async () => (await fetch('${target}/api/topology')).status);
  await attempt('post', async () => (await fetch('${target}/api/runs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })).status);
  await attempt('simple', async () => (await fetch('${target}/api/runs', { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body })).type);
  await attempt('import', async () => (await fetch('${target}/api/runs/import', { method: 'POST', mode: 'no-cors', body })).type);
  document.getElementById('form').submit();
  await new Promise((r) => setTimeout(r, 500));
  document.getElementById('form2').submit();
  await new Promise((r) => setTimeout(r, 500));
  return window.results;
};
</script>`;
const attacker = createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end(evil);
});
await new Promise((ok) => attacker.listen(0, '127.0.0.2', ok));
const evilBase = `http://127.0.0.2:${attacker.address().port}/`;

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  // evil.example resolves to the lab machine: DNS rebinding, done by the resolver
  args: ['--no-sandbox', '--host-resolver-rules=MAP evil.example 127.0.0.1'],
});
try {
  const before = await total();
  const page = await (await browser.newContext()).newPage();
  const frameErrors = [];
  page.on('console', (m) => { if (/frame-ancestors|Refused to (display|frame)/i.test(m.text())) frameErrors.push(m.text()); });
  await page.goto(evilBase);
  const r = await page.evaluate(() => window.attack());
  console.log(`  the other origin saw: ${JSON.stringify(r)}`);
  check(String(r.read).startsWith('error'), 'another origin cannot read /api/runs');
  check(String(r.topology).startsWith('error'), 'another origin cannot read /api/topology');
  check(String(r.post).startsWith('error'), 'a JSON POST from another origin is stopped');
  const framed = page.frames().find((f) => f.url().startsWith(target));
  let frameText = '';
  try { frameText = framed ? await framed.evaluate(() => document.body ? document.body.innerText : '') : ''; } catch { frameText = ''; }
  check(!frameText.includes('numalab') && frameErrors.length > 0, `the dashboard does not render in another origin's frame (${frameErrors.length} refusal(s) logged)`);
  await new Promise((ok) => setTimeout(ok, 1000));
  check(await total() === before, `no run was started or imported (${before} before, ${await total()} after)`);

  // the rebound name: the server answers it with an error, never the page or the API
  const rebound = await (await browser.newContext()).newPage();
  const resp = await rebound.goto(`http://evil.example:${port}/`);
  check(resp.status() === 421, `http://evil.example:${port}/ gets 421 (got ${resp.status()})`);
  const api = await rebound.evaluate(async () => {
    const res = await fetch('/api/runs');
    return { status: res.status, body: await res.text() };
  });
  check(api.status === 421 && !api.body.includes('"runs"'), `a rebound page cannot read /api/runs (${api.status})`);
  const started = await rebound.evaluate(async () => (await fetch('/api/runs', {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ experiment: 'false_sharing', params: {} }),
  })).status);
  check(started === 421, `a rebound page cannot start a run (${started})`);
  check(await total() === before, 'still no new run');
} catch (e) {
  console.log(`FAIL ${e.stack || e}`);
  failed++;
} finally {
  await browser.close();
  attacker.close();
  proc.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
console.log(failed ? `${failed} check(s) failed` : 'all trust checks passed');
process.exit(failed ? 1 : 0);
