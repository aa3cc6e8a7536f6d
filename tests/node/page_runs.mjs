// The runs view and the run inspector in a real browser (web/runs.js), over a
// real `medreact serve` and the scripted model. Two finished chat runs of
// three steps each (two tool-calling steps, then the answer), with the token
// counts the script's usage gives; a third run whose model answers slowly is
// cancelled from the page. Checks:
// - the list finds a run by a part of its id (only it), a status filter
//   keeps it, a bad search is refused with a message; sorting marks aria-sort;
// - the keyboard reaches the run's link (visible focus, not covered) and Enter
//   opens the inspector: status, app, who holds it, the model calls with the
//   script's prompt/completion tokens and a latency, the tool calls with their
//   arguments and results, the events table with seq 1..N (N the store's
//   count), each with its time and store-wide id; the answer with the
//   decision-support label whose basis link reaches the steps;
// - the list shows a new run live (from the event stream, no reload);
// - cancel asks first, then the run ends interrupted;
// - 51 runs: the list shows 50, "Load more runs" the last one;
// - no run id in the title, no query in the URL; axe-core: no serious or
//   critical violation on the list and the inspector; screenshots `runs`
//   and `run-inspector`; no console error, no request off the origin.
import { join } from 'node:path';
import {
  apiClient, axeViolations, checkClean, checker, closeAll, env, focused, launchBrowser, newPage, screenshot,
  startMock, startServe, until, waitLive,
} from './lib/harness.mjs';

const { check, fail, finish } = checker('page_runs');

const USAGE = [[111, 22], [222, 33], [333, 44]];
const ANSWER = 'The products are 42 and 10.';
function runScript() {
  const step = (i, calls) => ({
    message: { content: i === 0 ? 'I will work it out with the calculator.' : null, tool_calls: calls },
    usage: { prompt_tokens: USAGE[i][0], completion_tokens: USAGE[i][1], total_tokens: USAGE[i][0] + USAGE[i][1] },
  });
  return [
    step(0, [{ id: 'call_a', name: 'calculator', arguments: JSON.stringify({ expression: '6 * 7' }) }]),
    step(1, [{ id: 'call_b', name: 'calculator', arguments: JSON.stringify({ expression: '(42 + 8) / 5' }) }]),
    { message: { content: ANSWER }, usage: { prompt_tokens: 333, completion_tokens: 44, total_tokens: 377 } },
  ];
}

let serve, mock, browser;
try {
  // In order: run 1 takes entries 0-2, run 2 entries 3-5, run 3 the slow one.
  mock = await startMock({
    responses: [...runScript(), ...runScript(), { delay_ms: 4000, message: { content: 'Too late.' } },
      { message: { content: 'Quick.' } }],
    on_exhausted: 'repeat_last',  // the runs that fill a second page
  });
  serve = await startServe({
    store: join(env.tmp, 'runs.sqlite'), args: ['--llm-url', mock.url, '--model', 'mock', '--max-retries', '0'],
  });
  const api = apiClient(serve.origin);
  const ids = [];
  for (let i = 0; i < 2; i++) {
    const created = await api.post('/v1/runs', { app: 'chat', inputs: { message: 'Work out two products.', packs: ['util'] } });
    check(created.status === 201, `run ${i + 1} is started through the API (${created.status})`);
    const id = created.body.run.id;
    ids.push(id);
    const done = await until(async () => (await api.get('/v1/runs/' + id)).body?.run?.status === 'finished', 30_000);
    check(done, `run ${i + 1} finished`);
  }
  const [runId, otherId] = ids;
  const stored = (await api.get('/v1/runs/' + runId)).body.run;

  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await newPage(context, serve.origin);
  await page.goto(serve.url + '#runs', { waitUntil: 'load' });
  check(await waitLive(page), 'the event stream is open (Live)');
  const rowOf = (id) => page.locator('table#runs tbody tr', { hasText: id });
  check(await rowOf(runId).waitFor().then(() => true, () => false) && await rowOf(otherId).count() === 1,
    'the list shows both runs');
  check(await page.locator('#apps li').count() > 0, 'the apps are listed');
  check(await page.locator('table#runs thead th[aria-sort]').count() === 1, 'one column carries aria-sort');
  await page.click('table#runs thead th[data-key="steps"] button');
  check(await page.getAttribute('table#runs thead th[data-key="steps"]', 'aria-sort') === 'ascending' &&
    await page.locator('table#runs thead th[aria-sort]').count() === 1, 'sorting by steps marks that column ascending');
  const listAxe = await axeViolations(page);
  check(listAxe.length === 0, `axe: the runs list has no serious or critical violation (${listAxe.join(' | ') || 'none'})`);
  await screenshot(page, 'runs');

  // Search by a part of the id: only that run is left.
  const part = runId.slice(-6);
  await page.fill('#runs-q', part);
  const found = await until(async () => await rowOf(otherId).count() === 0 && await rowOf(runId).count() === 1 &&
    await page.locator('table#runs tbody tr').count() === 1);
  check(found, `searching "${part}" leaves only ${runId}`);
  check(/1 run found/.test(await page.textContent('#runs-count')), `the count says so (${await page.textContent('#runs-count')})`);
  await page.selectOption('#runs-status', 'running');
  check(await until(async () => /No run matches/.test(await page.textContent('table#runs tbody'))),
    'with the status "running" nothing matches');
  await page.selectOption('#runs-status', 'finished');
  check(await until(async () => await rowOf(runId).count() === 1), 'with the status "finished" the run is back');
  await page.fill('#runs-q', 'a b');
  await page.press('#runs-q', 'Enter');
  check(await until(async () => /part of a run id/.test(await page.textContent('#runs-q-error')) &&
    await page.getAttribute('#runs-q', 'aria-invalid') === 'true'), 'a search with a space is refused with a message');
  await page.fill('#runs-q', part);
  await page.press('#runs-q', 'Enter');
  check(await until(async () => await page.locator('table#runs tbody tr').count() === 1 &&
    await page.textContent('#runs-q-error') === ''), 'a good search clears the message');

  // The keyboard: Tab from the search field to the run's link, then Enter.
  await page.focus('#runs-q');
  let onLink = null;
  for (let i = 0; i < 25 && !onLink; i++) {
    await page.keyboard.press('Tab');
    const f = await focused(page);
    if (f.tag === 'a' && f.text === runId) onLink = f;
  }
  check(onLink && onLink.focusVisible && onLink.outline && !onLink.covered,
    `Tab reaches the run's link with a visible, uncovered focus (${JSON.stringify(onLink)})`);
  const box = await page.locator(`table#runs a[data-run-id="${runId}"]`).boundingBox();
  check(box && box.height >= 24, `the run's link is at least 24 px high (${box && box.height})`);
  await page.keyboard.press('Enter');
  check(await until(async () => new URL(page.url()).hash === '#runs/' + runId), `Enter opens #runs/${runId}`);
  await page.locator('#run-summary').waitFor();
  check((await focused(page)).id === 'run-heading', 'the focus moves to the run\'s heading');

  // The inspector.
  check((await page.textContent('#run-status')).trim() === 'finished', 'the status is finished');
  check((await page.textContent('#run-summary')).includes('chat'), 'the app is shown');
  check((await page.textContent('#run-inputs')).includes('Work out two products.') &&
    await page.locator('#run-inputs details').getAttribute('open') === null, 'the run\'s inputs are there, folded');
  check(/no one/.test(await page.textContent('#run-summary dd[data-field="Held by"]')),
    'who holds it: no one (the run ended and gave its lease back)');
  const calls = page.locator('#run-model-calls tbody tr');
  check(await calls.count() === 3, `three model calls (${await calls.count()})`);
  for (let i = 0; i < 3; i++) {
    const row = calls.nth(i);
    const p = (await row.locator('.tokens-prompt').textContent()).replace(/\D/g, '');
    const c = (await row.locator('.tokens-completion').textContent()).replace(/\D/g, '');
    const lat = await row.locator('.latency').textContent();
    check(p === String(USAGE[i][0]) && c === String(USAGE[i][1]) && /\d+ (ms|s)/.test(lat),
      `model call ${i + 1}: ${p} prompt and ${c} completion tokens, latency "${lat}"`);
  }
  check(await page.locator('#run-steps .step').count() === 3, 'three steps');
  const callA = page.locator('.tool-call[data-call-id="call_a"]');
  check(await callA.count() === 1 && (await callA.locator('pre.args').textContent()).includes('"expression": "6 * 7"') &&
    (await callA.locator('pre.result').textContent()).includes('42'), 'call_a shows its arguments and its result 42');
  const callB = page.locator('.tool-call[data-call-id="call_b"]');
  check(await callB.count() === 1 && (await callB.locator('pre.args').textContent()).includes('(42 + 8) / 5') &&
    (await callB.locator('pre.result').textContent()).includes('10'), 'call_b shows its arguments and its result 10');
  check((await page.textContent('#run-steps')).includes('I will work it out'), 'the model\'s text of step 1 is shown');

  const events = await page.$$eval('#run-events tbody tr', (rows) => rows.map((r) => ({
    seq: Number(r.dataset.seq), id: Number(r.dataset.eventId), time: r.querySelector('time')?.getAttribute('datetime'),
    type: r.dataset.type,
  })));
  const seqs = events.map((e) => e.seq);
  check(seqs.length === stored.events && seqs.every((s, i) => s === i + 1),
    `the events table has seq 1..${stored.events} once each, in order (${seqs.join(',')})`);
  check(events.every((e) => e.id > 0 && e.time), 'every event row has its store-wide id and its time');
  check(events.some((e) => e.type === 'tool_finished') && events.at(-1).type === 'run_finished',
    'the events include the tool calls and end with run_finished');
  const answer = page.locator('#run-answer');
  check((await answer.textContent()).includes(ANSWER), 'the answer is shown');
  check(await answer.locator('.cds .cds-tag').textContent() === 'Decision support', 'the answer is labelled decision support');
  const title = await page.title();
  check(title === 'medreact — Runs' && !title.includes(runId), `the title names only the view ("${title}")`);
  check(!new URL(page.url()).search, `the URL has no query (${page.url()})`);
  check(await page.locator('#run-cancel').count() === 0, 'a finished run offers no cancel');
  const inspAxe = await axeViolations(page);
  check(inspAxe.length === 0, `axe: the inspector has no serious or critical violation (${inspAxe.join(' | ') || 'none'})`);
  await screenshot(page, 'run-inspector');

  // The basis is one click away: the label's link reaches the steps.
  await answer.locator('.cds a').click();
  check(await until(async () => (await focused(page)).id === 'run-steps-heading'),
    'the decision-support link moves to the steps it is based on');

  // Back to the list: the run's link has the focus again.
  await page.click('#run-back');
  check(await until(async () => (await focused(page)).text === runId), 'back in the list, the run\'s link has the focus');

  // The list is live: with the search cleared, a run started elsewhere (a
  // slow one: its model answers after 4 s) appears, running, without a reload.
  await page.fill('#runs-q', '');
  await page.selectOption('#runs-status', '');
  check(await until(async () => await page.locator('table#runs tbody tr').count() === 2), 'the search cleared, both runs are back');
  const slow = await api.post('/v1/runs', { app: 'chat', inputs: { message: 'Take your time.' } });
  check(slow.status === 201, `a slow run is started (${slow.status})`);
  const slowId = slow.body.run.id;
  check(await until(async () => await rowOf(slowId).count() === 1 && /running/.test(await rowOf(slowId).textContent())),
    'the new run appears in the list, running, from the event stream');

  // Cancel: asked first, then cancelled.
  await page.focus(`table#runs a[data-run-id="${slowId}"]`);
  await page.keyboard.press('Enter');
  await page.locator('#run-cancel').waitFor();
  check((await page.textContent('#run-status')).trim() === 'running', 'the slow run shows running');
  check(/yes, on this server/.test(await page.textContent('#run-summary dd[data-field="Executing here"]')) &&
    new RegExp(`process ${serve.proc.pid}\\b`).test(await page.textContent('#run-summary dd[data-field="Held by"]')),
    `it is held by this server's process (${await page.textContent('#run-summary dd[data-field="Held by"]')})`);
  await page.click('#run-cancel');
  check(/ends interrupted/.test(await page.textContent('#run-cancel-confirm')) &&
    (await focused(page)).text === 'No, keep it running', 'cancel asks first, the focus on "keep it running"');
  check((await api.get('/v1/runs/' + slowId)).body.run.status === 'running', 'asking cancelled nothing');
  await page.click('#run-cancel-yes');
  check(await until(async () => (await page.textContent('#run-status')).trim() === 'interrupted', 20_000),
    'after "Yes" the run ends interrupted, shown live');
  check((await api.get('/v1/runs/' + slowId)).body.run.status === 'interrupted', 'the store says interrupted');

  // Paging: 48 more quick runs make 51; the list shows 50 and loads the rest on request.
  for (let i = 0; i < 48; i++) {
    const r = await api.post('/v1/runs', { app: 'chat', inputs: { message: 'Quick ' + i } });
    if (r.status !== 201) { check(false, `quick run ${i} is started (${r.status})`); break; }
  }
  check(await until(async () => (await api.get('/v1/runs?status=running')).body?.runs?.length === 0, 60_000),
    'the quick runs ended');
  await page.click('#run-back');
  await page.locator('#runs-more').waitFor();
  check(await page.locator('table#runs tbody tr').count() === 50 && /more to load/.test(await page.textContent('#runs-count')),
    'the list shows 50 runs and says there are more');
  await page.click('#runs-more');
  check(await until(async () => await page.locator('table#runs tbody tr').count() === 51) &&
    await page.locator('#runs-more').isHidden(), '"Load more runs" adds the 51st and goes away');

  checkClean(check, page);
} catch (err) {
  fail(err);
} finally {
  await closeAll(browser, serve, mock);
}
finish();
