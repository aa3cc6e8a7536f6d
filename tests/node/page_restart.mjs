// The run inspector through a server crash (web/runs.js, web/app.js's one
// event stream): a slow chat run (six steps of two calculator calls, each
// model reply 150 ms late, chosen by turn so the resumed run meets the next
// step) is opened in the page while it runs; once a few of its events are
// shown the server is killed (SIGKILL) and started again on the same port and
// store, where it takes the run over and finishes it. The page's EventSource
// reconnects with Last-Event-ID and catches up. Checks, once the page shows
// the run finished and its run_finished event:
// - the events table has seq 1..N, each exactly once and in order, N being
//   the store's count of the run's events (asked of the API after), and the
//   store-wide ids increase;
// - every event after those shown at the kill came by the stream (the page
//   did not reload them), and the header said "Reconnecting…" meanwhile;
// - the new server took the run over; no error is left in the status line.
// Timing decides only where the kill lands, never what is asserted.
import { join } from 'node:path';
import {
  apiClient, checker, closeAll, env, launchBrowser, newPage, screenshot, startMock, startServe, until,
  waitLive,
} from './lib/harness.mjs';

const { check, fail, finish } = checker('page_restart');
const TOOL_STEPS = 6;
const ANSWER = 'The six products are done: 42.';

function script() {
  const responses = [];
  for (let s = 1; s <= TOOL_STEPS; s++) {
    const calls = ['a', 'b'].map((p) => ({
      id: `call_${s}${p}`, name: 'calculator', arguments: JSON.stringify({ expression: `${s} * 7` }),
    }));
    responses.push({ delay_ms: 250, message: { content: null, tool_calls: calls } });
  }
  responses.push({ delay_ms: 250, message: { content: ANSWER } });
  return { select: 'by_turn', responses };
}

const rowsOf = (page) => page.$$eval('#run-events tbody tr', (rows) => rows.map((r) => ({
  seq: Number(r.dataset.seq), id: Number(r.dataset.eventId), via: r.dataset.via, type: r.dataset.type,
})));

let first, second, mock, browser;
try {
  mock = await startMock(script());
  const store = join(env.tmp, 'runs.sqlite');
  const args = ['--llm-url', mock.url, '--model', 'mock', '--max-retries', '0'];
  first = await startServe({ store, args });
  const port = first.port;
  const api = apiClient(first.origin);

  // The page is open and live before the run starts, so the kill lands mid-run
  // however slowly the browser starts; the inspector is opened by its hash.
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await newPage(context, first.origin);
  await page.goto(first.url + '#runs', { waitUntil: 'load' });
  check(await waitLive(page), 'the event stream is open (Live)');
  const created = await api.post('/v1/runs', { app: 'chat', inputs: { message: 'Work out six products.', packs: ['util'] } });
  check(created.status === 201, `a slow run is started (${created.status})`);
  const runId = created.body.run.id;
  await page.evaluate((id) => { location.hash = '#runs/' + id; }, runId);
  const some = await until(async () => (await rowsOf(page)).length >= 4, 20_000, 20);
  check(some, 'the inspector shows the run\'s first events while it runs');
  check((await page.textContent('#run-status')).trim() === 'running', 'the run shows running');

  // Kill the server mid-run.
  await first.kill('SIGKILL');
  const shownAtKill = await rowsOf(page);
  const lastSeqAtKill = Math.max(0, ...shownAtKill.map((r) => r.seq));
  check(lastSeqAtKill > 0, `events shown at the kill: 1..${lastSeqAtKill}`);
  const reconnecting = await page.waitForFunction(
    () => document.getElementById('live').dataset.state !== 'open', null, { timeout: 15_000 }).then(() => true, () => false);
  check(reconnecting, 'the header says the stream is no longer live');

  // The same store on the same port: the page's origin is unchanged.
  second = await startServe({ store, port, args });
  check(second.port === port, `the second server listens on the same port (${second.port})`);
  const done = await until(async () => {
    const status = (await page.textContent('#run-status').catch(() => '')).trim();
    const rows = await rowsOf(page);
    return status === 'finished' && rows.length > 0 && rows.at(-1).type === 'run_finished';
  }, 90_000, 100);
  check(done, 'the page shows the run finished and its run_finished event');
  check(await waitLive(page), 'the stream is live again');

  const api2 = apiClient(second.origin);
  const run = (await api2.get('/v1/runs/' + runId)).body.run;
  check(run.status === 'finished', `the store says finished (${run.status})`);
  const rows = await rowsOf(page);
  const seqs = rows.map((r) => r.seq);
  check(rows.length === run.events && seqs.every((s, i) => s === i + 1),
    `the events table has seq 1..${run.events} (the store's count), each once, in order (${seqs.join(',')})`);
  check(rows.every((r, i) => r.id > 0 && (i === 0 || r.id > rows[i - 1].id)), 'the store-wide ids increase');
  const after = rows.filter((r) => r.seq > lastSeqAtKill);
  check(after.length > 0 && after.every((r) => r.via === 'stream'),
    `the ${after.length} events after the kill came by the stream (${after.filter((r) => r.via !== 'stream').map((r) => r.seq).join(',') || 'none reloaded'})`);
  check(/took over 1 run/.test(second.proc.stderrText), 'the second server took the run over');
  check((await page.textContent('#run-answer')).includes(ANSWER), 'the answer is shown');
  check(!(await page.getAttribute('#status', 'class') || '').includes('error'),
    `no error is left in the status line ("${await page.textContent('#status')}")`);
  await screenshot(page, 'run-inspector-after-restart');

  // The restart's refused connections are logged by chromium as failed loads; nothing else may be.
  const errors = page.medreact.consoleErrors.filter((e) => !/net::ERR_/.test(e));
  check(errors.length === 0, `no console error but the refused connections (${errors.join(' | ') || 'none'})`);
  check(page.medreact.offOrigin.length === 0, `no request left the origin (${page.medreact.offOrigin.join(', ') || 'none'})`);
} catch (err) {
  fail(err);
} finally {
  await closeAll(browser, second, first, mock);
}
finish();
