// The clinician's page in a real browser: Debian's chromium (/usr/bin/chromium)
// driven by playwright-core, against a running `medreact serve`
// (tests/integration/server_page_test.cc starts one with a stored run).
//
//   node tests/node/page_smoke.mjs URL RUN_ID
//
// Checks: the title names no patient (nor the run); Tab reaches the skip
// link, then the first nav link, with a visible focus ring; the apps list
// shows `triage`; the runs table (a real <table>) has RUN_ID, and its sorted
// column carries aria-sort; no console error (a CSP violation is one); no
// request leaves the page's loopback origin. Prints "all checks passed" and
// exits 0, or names each failed check and exits 1.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [url, runId] = process.argv.slice(2);
if (!url || !runId) {
  console.error('usage: node page_smoke.mjs URL RUN_ID');
  process.exit(2);
}
const origin = new URL(url).origin;
const failures = [];
const check = (ok, message) => {
  if (!ok) failures.push(message);
  console.log((ok ? 'ok   ' : 'FAIL ') + message);
};

// A fresh profile; the flags keep chromium off the network (this machine's
// is closed, and a default chromium calls home for updates, sync, field
// trials and QUIC probes).
const profile = mkdtempSync(join(tmpdir(), 'medreact-page-'));
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
    timeout: 60_000,
  });
  const consoleErrors = [];
  const offOrigin = [];
  context.on('request', (req) => {
    const u = req.url();
    if (u.startsWith('data:')) return;
    let o;
    try { o = new URL(u).origin; } catch (_) { o = u; }
    if (o !== origin) offOrigin.push(u);
  });
  const page = context.pages()[0] ?? await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(msg.text()); });
  page.on('pageerror', (err) => consoleErrors.push('uncaught: ' + err.message));

  const response = await page.goto(url, { waitUntil: 'load' });
  check(response && response.status() === 200, `GET ${url} answers 200 (got ${response && response.status()})`);
  check((response.headers()['content-security-policy'] || '').startsWith("default-src 'self'"),
        'the page is served with a content-security-policy');

  // The data arrive: the apps list and the run in the table.
  const appsOk = await page.locator('#apps li', { hasText: 'triage' }).first().waitFor()
    .then(() => true, () => false);
  check(appsOk, 'the apps list (GET /v1/apps) shows triage');
  const row = page.locator('table#runs tbody tr', { hasText: runId });
  const rowOk = await row.first().waitFor().then(() => true, () => false);
  check(rowOk, `the runs table (GET /v1/runs) has the run ${runId}`);
  const sorted = await page.locator('table#runs thead th[aria-sort]').count();
  const sortValue = sorted ? await page.locator('table#runs thead th[aria-sort]').first().getAttribute('aria-sort') : '';
  check(sorted === 1 && ['ascending', 'descending'].includes(sortValue),
        `exactly one column of the runs table carries aria-sort (found ${sorted}: ${sortValue})`);
  const status = await page.locator('#status').textContent();
  check(!status, `no error shown on the page (status: "${status}")`);

  // No patient data in the title or the URL: the product and the view only.
  const title = await page.title();
  check(/^medreact( — [A-Za-z -]+)?$/.test(title) && !title.includes(runId),
        `the title names only the product and the view ("${title}")`);
  check(!new URL(page.url()).search, `the URL carries no query (${page.url()})`);
  check(await page.locator('text=decision support').first().isVisible(), 'the page says it is decision support');
  check(await page.locator('header').count() === 1 && await page.locator('nav').count() === 1 &&
        await page.locator('main').count() === 1, 'landmarks: one header, nav and main');

  // The keyboard: Tab reaches the skip link, then the first nav link, each with a visible focus.
  const focused = async () => page.evaluate(() => {
    const el = document.activeElement;
    const style = getComputedStyle(el);
    return {
      text: (el.textContent || '').trim(),
      inNav: Boolean(el.closest('nav')),
      focusVisible: el.matches(':focus-visible'),
      outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
    };
  });
  await page.keyboard.press('Tab');
  const first = await focused();
  check(first.text === 'Skip to main content' && first.outline, `the first Tab reaches the skip link, visibly (${JSON.stringify(first)})`);
  await page.keyboard.press('Tab');
  const second = await focused();
  check(second.inNav && second.text === 'Worklist' && second.focusVisible && second.outline,
        `the second Tab reaches the first nav link with a visible focus (${JSON.stringify(second)})`);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('view-title').textContent === 'Worklist')
    .catch(() => {});
  check((await page.locator('#view-title').textContent()) === 'Worklist' &&
        (await page.locator('nav a[aria-current="page"]').textContent()) === 'Worklist',
        'Enter on the nav link opens its view and marks it current');

  check(consoleErrors.length === 0, `no console error (${consoleErrors.join(' | ') || 'none'})`);
  check(offOrigin.length === 0, `no request left ${origin} (${offOrigin.join(', ') || 'none'})`);
} catch (err) {
  failures.push('the browser run failed: ' + (err && err.stack || err));
  console.error(err);
} finally {
  if (context) await context.close().catch(() => {});
  rmSync(profile, { recursive: true, force: true });
}

if (failures.length) {
  console.error(`page_smoke: ${failures.length} check(s) failed:\n  - ` + failures.join('\n  - '));
  process.exit(1);
}
console.log('all checks passed');
