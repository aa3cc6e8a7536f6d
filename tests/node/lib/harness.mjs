// The page's browser tests share this harness: a real `medreact serve` and the
// scripted model server (medreact-mock-llm) started as processes on loopback,
// Debian's chromium driven by playwright-core, named checks, axe-core
// injected into a page, and screenshots kept as test artefacts.
//
// The gtest wrapper (tests/integration/server_page_*_test.cc) runs a script
// with these in its environment:
//   MEDREACT_BINARY        the medreact binary
//   MEDREACT_MOCK_LLM      the medreact-mock-llm binary
//   MEDREACT_SOURCE_DIR    the source tree (fixtures, shared data)
//   MEDREACT_PAGE_ARTIFACTS where screenshots go (created)
//   MEDREACT_TMP           a temporary folder of the test's own (removed by the wrapper)
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';

const require = createRequire(import.meta.url);

export const env = {
  medreact: process.env.MEDREACT_BINARY,
  mockLlm: process.env.MEDREACT_MOCK_LLM,
  sourceDir: process.env.MEDREACT_SOURCE_DIR,
  artifacts: process.env.MEDREACT_PAGE_ARTIFACTS,
  tmp: process.env.MEDREACT_TMP,
};
for (const [k, v] of Object.entries(env)) {
  if (!v) {
    console.error(`harness: ${k} is not set (run through the gtest wrapper)`);
    process.exit(2);
  }
}
mkdirSync(env.artifacts, { recursive: true });

// ------------------------------------------------------------------ checks --
// check(ok, message): printed as "ok   ..." or "FAIL ..."; finish() prints
// "all checks passed" and exits 0, or lists the failures and exits 1.
export function checker(name) {
  const failures = [];
  const check = (ok, message) => {
    if (!ok) failures.push(message);
    console.log((ok ? 'ok   ' : 'FAIL ') + message);
    return Boolean(ok);
  };
  const fail = (err) => {
    failures.push('the run failed: ' + (err && err.stack || err));
    console.error(err);
  };
  const finish = () => {
    if (failures.length) {
      console.error(`${name}: ${failures.length} check(s) failed:\n  - ` + failures.join('\n  - '));
      process.exit(1);
    }
    console.log('all checks passed');
    process.exit(0);
  };
  return { check, fail, finish, failures };
}

// --------------------------------------------------------------- processes --
const children = new Set();
process.on('exit', () => { for (const c of children) { try { c.kill('SIGKILL'); } catch (_) { /* gone */ } } });

async function waitForFile(path, what, proc, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (existsSync(path)) {
      const text = readFileSync(path, 'utf8');
      if (text.endsWith('\n') || /^\d+$/.test(text.trim())) return text.trim();
    }
    if (proc.exitCode !== null) throw new Error(`${what} exited with ${proc.exitCode}: ${proc.stderrText}`);
    await sleep(25);
  }
  throw new Error(`${what} did not write ${path} within ${timeoutMs} ms: ${proc.stderrText}`);
}

function track(proc) {
  proc.stderrText = '';
  proc.stdoutText = '';
  proc.stderr.on('data', (d) => { proc.stderrText += d; });
  proc.stdout.on('data', (d) => { proc.stdoutText += d; });
  children.add(proc);
  proc.on('exit', () => children.delete(proc));
  return proc;
}

let serial = 0;

// The scripted model server with `script` (docs/mock-llm.md). {url: the
// OpenAI base (…/v1), root: the server's root (imaging routes), requests(), stop()}.
export async function startMock(script) {
  const n = ++serial;
  const scriptFile = join(env.tmp, `mock-${n}.json`);
  const portFile = join(env.tmp, `mock-${n}.port`);
  writeFileSync(scriptFile, JSON.stringify(script));
  const proc = track(spawn(env.mockLlm, ['--script', scriptFile, '--port', '0', '--port-file', portFile],
    { stdio: ['ignore', 'pipe', 'pipe'] }));
  const port = Number(await waitForFile(portFile, 'medreact-mock-llm', proc));
  const root = `http://127.0.0.1:${port}`;
  return {
    url: root + '/v1',
    root,
    async requests() { return (await fetch(root + '/_mock/requests')).json(); },
    async stop() { proc.kill('SIGTERM'); await new Promise((r) => (proc.exitCode !== null ? r() : proc.on('exit', r))); },
  };
}

// `medreact serve` on loopback over `store` (a path), with extra flags
// (e.g. ['--llm-url', mock.url, '--model', 'mock']). `port`: 0 for any, or
// the one a killed server had (a page reconnects to the same origin).
// {url, port, proc, kill(signal), stop()}
export async function startServe({ store, port = 0, args = [] }) {
  const n = ++serial;
  const portFile = join(env.tmp, `serve-${n}.port`);
  const proc = track(spawn(env.medreact, ['serve', '--store', store, '--port', String(port), '--port-file', portFile,
    '--no-access-log', ...args], { stdio: ['ignore', 'pipe', 'pipe'] }));
  const bound = Number(await waitForFile(portFile, 'medreact serve', proc));
  const exited = new Promise((r) => proc.on('exit', (code, signal) => r({ code, signal })));
  return {
    url: `http://127.0.0.1:${bound}/`,
    origin: `http://127.0.0.1:${bound}`,
    port: bound,
    proc,
    exited,
    kill(signal = 'SIGKILL') { proc.kill(signal); return exited; },
    async stop() { if (proc.exitCode === null) proc.kill('SIGTERM'); return exited; },
  };
}

// The API as a client with the token (when given).
export function apiClient(origin, token) {
  const headers = token ? { authorization: 'Bearer ' + token } : {};
  return {
    async get(path) {
      const res = await fetch(origin + path, { headers });
      return { status: res.status, body: await res.json().catch(() => null) };
    },
    async post(path, body) {
      const res = await fetch(origin + path, {
        method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json().catch(() => null) };
    },
  };
}

// Polls `fn` until it returns a truthy value (returned) or `timeoutMs` passes (null).
export async function until(fn, timeoutMs = 15_000, everyMs = 100) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v) return v;
    await sleep(everyMs);
  }
  return null;
}

// ---------------------------------------------------------------- browser --
// The flags keep chromium off the network (this machine's is closed, and a
// default chromium calls home for updates, sync, field trials and QUIC probes).
export async function launchBrowser() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
    timeout: 60_000,
  });
}

// A page in `context` that records console errors (a CSP violation is one),
// uncaught exceptions and any request leaving `origin`:
// page.medreact = {consoleErrors, offOrigin}.
export async function newPage(context, origin) {
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const consoleErrors = [];
  const offOrigin = [];
  page.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(msg.text()); });
  page.on('pageerror', (err) => consoleErrors.push('uncaught: ' + err.message));
  page.on('request', (req) => {
    const u = req.url();
    if (u.startsWith('data:') || u.startsWith('blob:')) return;
    let o;
    try { o = new URL(u).origin; } catch (_) { o = u; }
    if (o !== origin) offOrigin.push(u);
  });
  page.medreact = { consoleErrors, offOrigin };
  return page;
}

// The checks a browser test ends with, on a page from newPage: no console
// error (but those matching `allowErrors`, a RegExp for loads the test
// refused on purpose) and no request off the origin.
export function checkClean(check, page, { label = '', allowErrors = null } = {}) {
  const prefix = label ? label + ': ' : '';
  const errors = page.medreact.consoleErrors.filter((e) => !(allowErrors && allowErrors.test(e)));
  check(errors.length === 0, `${prefix}no console error (${errors.join(' | ') || 'none'})`);
  check(page.medreact.offOrigin.length === 0,
    `${prefix}no request left the origin (${page.medreact.offOrigin.join(', ') || 'none'})`);
}

// Ends what a test started, in the order given (a browser: closed; a server
// or the mock: stopped); what is missing or already gone is skipped.
export async function closeAll(...things) {
  for (const t of things) {
    if (!t) continue;
    try {
      if (typeof t.stop === 'function') await t.stop();
      else if (typeof t.close === 'function') await t.close();
    } catch (_) { /* gone already */ }
  }
}

// Waits for the page's event stream to be open (the header's "Live").
export async function waitLive(page, timeoutMs = 15_000) {
  return page.waitForFunction(() => document.getElementById('live')?.dataset.state === 'open', null,
    { timeout: timeoutMs }).then(() => true, () => false);
}

const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

// axe-core run in the page (WCAG 2.0/2.1/2.2 A and AA rules): the serious
// and critical violations, as "rule: target…" lines. Evaluated through the
// browser's devtools protocol, so the page's CSP (no inline script) stays on.
export async function axeViolations(page) {
  const loaded = await page.evaluate(() => typeof window.axe !== 'undefined');
  if (!loaded) await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
      resultTypes: ['violations'],
    });
    return r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
    }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.targets.join(', ')}`);
}

// A full-page screenshot kept as a test artefact: MEDREACT_PAGE_ARTIFACTS/NAME.png;
// and a lighter copy for the README (its first 1,600 CSS pixels as JPEG):
// MEDREACT_PAGE_ARTIFACTS/readme/NAME.jpg (copied by hand to docs/screenshots/).
export async function screenshot(page, name) {
  const path = join(env.artifacts, name + '.png');
  await page.screenshot({ path, fullPage: true });
  mkdirSync(join(env.artifacts, 'readme'), { recursive: true });
  const size = await page.evaluate(() => ({
    width: document.documentElement.clientWidth, height: document.documentElement.scrollHeight,
  }));
  await page.screenshot({
    path: join(env.artifacts, 'readme', name + '.jpg'), type: 'jpeg', quality: 70, fullPage: true, scale: 'css',
    clip: { x: 0, y: 0, width: size.width, height: Math.min(size.height, 1600) },
  });
  return path;
}

// Facts about the element that has the focus: its text, whether it shows a
// focus ring, and whether a sticky part of the page covers it (WCAG 2.4.11).
export async function focused(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    const cx = box.left + box.width / 2;
    const cy = box.top + Math.min(box.height / 2, 8);
    const top = document.elementFromPoint(cx, cy);
    return {
      tag: el.tagName.toLowerCase(),
      text: (el.textContent || el.value || '').trim().slice(0, 80),
      id: el.id,
      focusVisible: el.matches(':focus-visible'),
      outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
      covered: Boolean(top && top !== el && !el.contains(top) && !top.contains(el)),
    };
  });
}
