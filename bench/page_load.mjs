// The worklist view's load time with a worklist of 500 finished cases
// (issue 26: "the page loads in under 1 s on loopback with 500 cases"),
// docs/benchmarks.md "The clinician's page (issue 26)". Run by
// bench/page_bench.sh (not by `make test`), which sets the harness's
// environment (tests/node/lib/harness.mjs).
//
// A `medreact serve` with no model (the rules planner decides every case, in
// milliseconds) triages a worklist of CASES case folders copied from
// examples/worklist (the small hand-written ones, in turn); then chromium
// loads http://127.0.0.1:PORT/#worklist LOADS times cold (a fresh browser
// context each: empty cache, no cookie) and LOADS times warm (one context,
// reloads: the assets answered 304 by their ETag). One load's time: from the
// navigation's start (performance.timeOrigin) to the view's mark
// `mr-worklist-rendered` with all CASES rows in the table's body (the mark is
// set by web/worklist.js after it rendered the rows; read from the page's
// Performance timeline, so no clock of this script is in it).
import { cpSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { apiClient, env, launchBrowser, startServe, until } from '../tests/node/lib/harness.mjs';

const CASES = Number(process.env.CASES || 500);
const LOADS = Number(process.env.LOADS || 12);

const examples = join(env.sourceDir, 'examples', 'worklist');
const small = readdirSync(examples).filter((n) => /^(0\d|1[01])-/.test(n)).sort();
const folder = join(env.tmp, 'root', 'bench');
for (let i = 0; i < CASES; ++i) {
  const from = small[i % small.length];
  cpSync(join(examples, from), join(folder, String(i).padStart(4, '0') + '-' + from), { recursive: true });
}

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];  // nearest rank
  return { n: s.length, min: s[0], median: at(0.5), p95: at(0.95), max: s[s.length - 1] };
}

async function measure(page) {
  const handle = await page.waitForFunction((n) => {
    const mark = performance.getEntriesByName('mr-worklist-rendered').find((m) => m.detail && m.detail.rows === n);
    return mark ? mark.startTime : null;
  }, CASES, { timeout: 60_000, polling: 20 });
  return handle.jsonValue();
}

let serve, browser;
try {
  serve = await startServe({
    store: join(env.tmp, 'runs.sqlite'),
    // The rate limit is raised: 2 × LOADS page loads of ~17 requests each in a few seconds.
    args: ['--input-root', join(env.tmp, 'root'), '--rate', '1000', '--burst', '1000'],
  });
  const api = apiClient(serve.origin);
  const t0 = Date.now();
  const created = await api.post('/v1/worklists', { dir: folder, concurrency: 2 });
  if (created.status !== 201) throw new Error('the worklist was refused: ' + JSON.stringify(created.body));
  const id = created.body.worklist.id;
  const w = await until(async () => {
    const got = (await api.get('/v1/worklists/' + id)).body.worklist;
    return got.status !== 'running' && got;
  }, 600_000, 500);
  if (!w || w.cases.length !== CASES) throw new Error('the worklist did not finish with ' + CASES + ' cases');
  const bytes = JSON.stringify((await api.get('/v1/worklists/' + id)).body).length;
  console.log(`worklist: ${CASES} cases triaged by the rules planner in ${((Date.now() - t0) / 1000).toFixed(1)} s; ` +
    `GET /v1/worklists/{id}: ${(bytes / 1024).toFixed(0)} KiB`);

  browser = await launchBrowser();
  const cold = [];
  for (let i = 0; i < LOADS; ++i) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(serve.url + '#worklist');
    cold.push(await measure(page));
    await context.close();
  }
  const warm = [];
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(serve.url + '#worklist');
  await measure(page);  // fills the cache
  for (let i = 0; i < LOADS; ++i) {
    await page.reload();
    warm.push(await measure(page));
  }
  const fmt = (x) => x.toFixed(0);
  console.log('\n| loads of #worklist, 500 rows | n | median | p95 | min | max |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, xs] of [['cold (new context: empty cache)', cold], ['warm (reload: assets 304)', warm]]) {
    const s = stats(xs);
    console.log(`| ${name} | ${s.n} | ${fmt(s.median)} ms | ${fmt(s.p95)} ms | ${fmt(s.min)} ms | ${fmt(s.max)} ms |`);
  }
  console.log('\nraw cold: ' + cold.map(fmt).join(' ') + '\nraw warm: ' + warm.map(fmt).join(' '));
} finally {
  if (browser) await browser.close().catch(() => {});
  if (serve) await serve.stop();
}
process.exit(0);
