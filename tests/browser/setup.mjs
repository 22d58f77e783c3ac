// setup.mjs - what every browser test file shares: its options, the skips when Chromium or playwright is missing, a real server on 127.0.0.1:0
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, existsSync, accessSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
export const NUMALAB = resolve(args.numalab || 'build/numalab');
export const CHROMIUM = args.chromium || '/usr/bin/chromium';
export const WEB = resolve(args.web || 'web');
export const SHOTS = resolve(args.screenshots || 'build/screenshots');
export const ONLY = args.only || null;

// Chromium and playwright-core, or a SKIP (exit 0) that says which is missing; the binary must exist.
export async function browserOrSkip(lane) {
  const skip = (why) => { console.log(`SKIP ${lane}: ${why}`); process.exit(0); };
  try { accessSync(CHROMIUM, constants.X_OK); } catch {
    skip(`no Chromium at ${CHROMIUM} (apt-get install chromium, or make test-browser CHROMIUM=/path)`);
  }
  let chromium;
  try { ({ chromium } = await import('playwright-core')); } catch { skip('playwright-core is not in node_modules (run npm ci)'); }
  if (!existsSync(NUMALAB)) {
    console.error(`${lane}: ${NUMALAB} is missing: build it first`);
    process.exit(1);
  }
  mkdirSync(SHOTS, { recursive: true });
  return chromium;
}

export const tempDir = (prefix) => mkdtempSync(join(tmpdir(), prefix));

// numalab serve on a free port with a fresh database in dir: {proc, base, log()}; env adds to the
// environment (HWLOC_SYNTHETIC or HWLOC_XMLFILE make it describe another machine); args go to serve.
export function startServer(dir, env = {}, args = []) {
  return new Promise((ok, fail) => {
    const p = spawn(NUMALAB, ['serve', '--listen', '127.0.0.1:0', '--db', join(dir, 'x.db'), '--web', WEB, ...args],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    const timer = setTimeout(() => fail(new Error('the server printed no "listening on" line within 20 s')), 20000);
    let log = '';
    const watch = (stream) => createInterface({ input: stream }).on('line', (line) => {
      log += `${line}\n`;
      if (process.env.V === '1') console.log(`  server: ${line}`);
      const m = line.match(/listening on (https?:\/\/[^\s]+)/);
      if (m) {
        clearTimeout(timer);
        ok({ proc: p, base: m[1].endsWith('/') ? m[1] : `${m[1]}/`, log: () => log });
      }
    });
    watch(p.stdout);
    watch(p.stderr);
    p.on('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the server exited with ${code} before listening:\n${log}`));
    });
  });
}
