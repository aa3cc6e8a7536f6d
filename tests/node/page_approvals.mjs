// The Approvals view in a real browser (tests/node/lib/harness.mjs): a
// `medreact serve` whose scripted model asks for the calculator in five chat
// runs started with `require_approval: ["all"]`, so each pauses with one call
// waiting. Checks:
// - a card per waiting call: the tool, the exact arguments, the run (link),
//   the app, the patient (a run with a record names its patient; one
//   without says so), why it waits, the decision-support label with its
//   basis; nothing of the patient in the title or the URL;
// - tab A approves a call and tab B, open on the same view, shows that
//   decision (who and when) live, without a reload, its buttons gone;
// - an edit the tool's schema refuses (an extra property, an empty
//   expression) or that is not JSON is refused in the browser with the
//   message next to the field (aria-invalid, aria-describedby) and no POST
//   sent; a valid edit is sent and the run goes on with it (the model's
//   next turn gets the edited call's result);
// - a reject without a reason is refused in the browser; with one it is sent;
// - a stale card (a page that hears no events; the call decided through the
//   API behind its back) shows the decision the server kept after the 409;
// - keyboard only (Tab, Space, Enter, typing): Approve with no reviewer
//   name is refused with the focus on the name field, then the name is
//   typed and the call approved;
// - axe-core: no serious or critical violation; no console error (the
//   409 load excepted), no request off the origin; screenshot `approvals`.
import { join } from 'node:path';
import {
  apiClient, axeViolations, checker, closeAll, env, focused, launchBrowser, newPage, screenshot, startMock,
  startServe, until, waitLive,
} from './lib/harness.mjs';

const { check, fail, finish } = checker('page_approvals');
let serve, mock, browser;

const RUNS = {
  approve: 'First: what is 2+2 for this patient?',
  edit: 'Second: edit my sum.',
  reject: 'Third: reject my sum.',
  stale: 'Fourth: decided behind the page.',
  keys: 'Fifth: approved by keyboard.',
};

// Focus moves with `key` until `predicate(arg)` holds in the page (at most `max` presses).
async function pressUntil(page, key, predicate, arg, max = 60) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(key);
    if (await page.evaluate(predicate, arg)) return true;
  }
  return false;
}
const onApproveOf = (runId) => {
  const el = document.activeElement;
  return Boolean(el && el.matches('button.approve') && el.closest('article')?.dataset.runId === runId);
};

try {
  mock = await startMock({
    select: 'by_turn',
    responses: [
      { message: { content: null, tool_calls: [{ id: 'c1', name: 'calculator', arguments: { expression: '2+2' } }] } },
      { message: { content: 'Done.' } },
    ],
  });
  serve = await startServe({
    store: join(env.tmp, 'runs.sqlite'),
    args: ['--llm-url', mock.url, '--model', 'mock', '--max-retries', '0', '--input-root', join(env.sourceDir, 'examples')],
  });
  const api = apiClient(serve.origin);
  const ids = {};
  for (const [name, message] of Object.entries(RUNS)) {
    const inputs = { message, packs: ['util'], require_approval: ['all'] };
    if (name === 'approve') inputs.fhir = join(env.sourceDir, 'examples/worklist/01-pe-on-warfarin/fhir.json');
    const created = await api.post('/v1/runs', { app: 'chat', inputs });
    check(created.status === 201, `the ${name} run is started (${created.status} ${JSON.stringify(created.body?.error || '')})`);
    ids[name] = created.body.run.id;
  }
  const statusOf = async (id) => (await api.get('/v1/runs/' + id)).body?.run?.status;
  const waitStatus = (id, want) => until(async () => (await statusOf(id)) === want, 20_000, 200);
  for (const [name, id] of Object.entries(ids)) {
    check(await waitStatus(id, 'awaiting_approval'), `the ${name} run waits for approval`);
  }

  browser = await launchBrowser();
  const context = await browser.newContext();
  const pageA = await newPage(context, serve.origin);
  const pageB = await newPage(context, serve.origin);
  const posts = [];  // every decision the pages send
  for (const p of [pageA, pageB]) {
    p.on('request', (req) => { if (req.method() === 'POST' && req.url().includes('/approvals/')) posts.push(req.url()); });
  }
  for (const p of [pageA, pageB]) {
    await p.goto(serve.url + '#approvals', { waitUntil: 'load' });
    check(await waitLive(p), 'the page\'s event stream is open (Live)');
    await p.locator('article.approval-card').nth(4).waitFor();
  }
  const card = (p, name) => p.locator(`article.approval-card[data-run-id="${ids[name]}"]`);
  check(await pageA.locator('article.approval-card').count() === 5, 'a card per waiting call (5)');

  // What a card shows.
  const a1 = card(pageA, 'approve');
  check((await a1.locator('h3').textContent()) === 'calculator call c1', `the card's heading names the tool and the call ("${await a1.locator('h3').textContent()}")`);
  check((await a1.locator('pre.approval-args').textContent()) === JSON.stringify({ expression: '2+2' }, null, 2),
    'the card shows the exact arguments as JSON');
  check(await a1.locator(`dd a[href="#runs/${ids.approve}"]`).count() === 1, 'the card links to its run');
  check((await a1.locator('.approval-facts').textContent()).includes('chat'), 'the card names the app');
  const subject = await a1.locator('dd.subject').textContent();
  check(subject === 'Ines Fictitious-Example, female, born 1956-03-14 (identifier DEMO-0001)', `the card names the run's patient ("${subject}")`);
  const noPatient = await card(pageA, 'edit').locator('dd.subject').textContent();
  check(noPatient.startsWith('No patient record given to this run') && noPatient.includes(RUNS.edit),
    `a run without a record says so ("${noPatient}")`);
  check((await a1.locator('.approval-facts').textContent()).includes('approval rule: all'), 'the card says why it waits');
  check(await a1.locator(`.cds a[href="#runs/${ids.approve}"]`).count() === 1 &&
    (await a1.locator('.cds').textContent()).includes('Decision support'), 'the proposal is labelled decision support with its basis one click away');
  const title = await pageA.title();
  check(title === 'medreact — Approvals', `the title names the view only ("${title}")`);
  check(new URL(pageA.url()).hash === '#approvals' && !new URL(pageA.url()).search, `the URL names the view only (${pageA.url()})`);

  // Tab A approves; tab B shows it live.
  await pageA.fill('#approvals-reviewer', 'Dr. Tab A');
  await a1.locator('button.approve').click();
  await a1.locator('.decision', { hasText: 'Approved by Dr. Tab A' }).waitFor();
  const aWhen = await a1.locator('time').getAttribute('datetime');
  check(Boolean(aWhen) && !Number.isNaN(Date.parse(aWhen)), `tab A shows when it was decided (${aWhen})`);
  check(await a1.locator('button').count() === 0, 'the decided card has no buttons left');
  const b1 = card(pageB, 'approve');
  const seenInB = await b1.locator('.decision', { hasText: 'Approved by Dr. Tab A' }).waitFor().then(() => true, () => false);
  check(seenInB, 'tab B shows the decision taken in tab A without a reload');
  check((await b1.locator('time').getAttribute('datetime').catch(() => null)) === aWhen, 'tab B shows the same time');
  check(await b1.locator('button').count() === 0 && (await b1.getAttribute('data-state')) === 'approved', 'tab B\'s card lost its buttons');
  check((await b1.locator('.decision-note').textContent()).includes('Decided elsewhere'), 'tab B says it was decided elsewhere');
  check(await pageB.locator('#announce-polite', { hasText: 'approved by Dr. Tab A elsewhere' }).waitFor().then(() => true, () => false),
    'tab B announces the decision politely');
  check((await pageA.evaluate(() => localStorage.getItem('medreact.reviewer'))) === 'Dr. Tab A', 'the reviewer name is remembered');
  check(await waitStatus(ids.approve, 'finished'), 'the approved run goes on and finishes');

  // Edit: refused in the browser while invalid, then sent.
  const a2 = card(pageA, 'edit');
  const before = posts.length;
  const editForm = a2.locator('form[id$="-edit"]');
  check(!(await editForm.isVisible()) && !(await a2.locator('form[id$="-reject"]').isVisible()),
    'the edit and reject forms stay closed until asked for');
  check((await a2.locator('button.edit').getAttribute('aria-expanded')) === 'false', 'Edit says its form is closed');
  await a2.locator('button.edit').click();
  check(await editForm.isVisible() && (await a2.locator('button.edit').getAttribute('aria-expanded')) === 'true',
    'Edit opens its form and says so');
  const area = a2.locator('textarea[id$="-edit-text"]');
  check((await area.inputValue()) === JSON.stringify({ expression: '2+2' }, null, 2), 'the edit starts from the call\'s arguments');
  const send = a2.locator('form[id$="-edit"] button[type="submit"]');
  const tries = [
    ['{"expression": "6*7", "extra": 1}', 'the property "extra" is not allowed'],
    ['{"expression": ""}', '/expression: must have at least 1 character'],
    ['{"expression": 42}', '/expression: must be string, not integer'],
    ['{}', 'the property "expression" is required'],
    ['{not json', 'Not valid JSON'],
    ['["2+2"]', 'must be a JSON object'],
  ];
  for (const [text, want] of tries) {
    await area.fill(text);
    await send.click();
    const error = a2.locator('[id$="-edit-error"]');
    const shown = await error.filter({ hasText: want }).waitFor().then(() => true, () => false);
    check(shown, `an edit ${text} is refused with "${want}" (${await error.textContent()})`);
  }
  check((await area.getAttribute('aria-invalid')) === 'true', 'the refused edit marks its field invalid');
  const errorId = await a2.locator('[id$="-edit-error"]').getAttribute('id');
  check((await area.getAttribute('aria-describedby')).split(' ').includes(errorId), 'the field is described by its error');
  check(posts.length === before, `nothing is sent while the edit is invalid (${posts.length - before} POST)`);
  await screenshot(pageA, 'approvals');
  const axeA = await axeViolations(pageA);
  check(axeA.length === 0, `axe: the view (cards waiting, decided, an edit refused) has no serious violation (${axeA.join(' | ') || 'none'})`);
  await area.fill('{"expression": "6*7"}');
  await send.click();
  await a2.locator('.decision', { hasText: 'Approved with edited arguments by Dr. Tab A' }).waitFor();
  check(posts.length === before + 1, `the valid edit is sent once (${posts.length - before} POST)`);
  check((await a2.locator('.approval-outcome pre').textContent()) === JSON.stringify({ expression: '6*7' }, null, 2),
    'the card shows the arguments the call runs with');
  const b2 = card(pageB, 'edit');
  check(await b2.locator('.decision', { hasText: 'Approved with edited arguments by Dr. Tab A' }).waitFor().then(() => true, () => false),
    'tab B shows the edit live');
  check((await b2.locator('.approval-outcome pre').textContent().catch(() => '')) === JSON.stringify({ expression: '6*7' }, null, 2),
    'tab B shows the arguments the edited call runs with');
  check(await waitStatus(ids.edit, 'finished'), 'the edited run goes on and finishes');
  const requests = await mock.requests();
  const next = requests.find((r) => r.path === '/v1/chat/completions' && JSON.stringify(r.body?.messages || []).includes(RUNS.edit) &&
    (r.body?.messages || []).some((m) => m.role === 'tool'));
  const toolMessage = next && next.body.messages.find((m) => m.role === 'tool');
  check(toolMessage && String(toolMessage.content).includes('42') && String(toolMessage.content).includes('6*7'),
    `the model's next turn gets the edited call's result (${toolMessage && String(toolMessage.content).slice(0, 120)})`);

  // Reject: a reason is needed.
  const a3 = card(pageA, 'reject');
  const beforeReject = posts.length;
  await a3.locator('button.reject').click();
  const rejectSend = a3.locator('form[id$="-reject"] button[type="submit"]');
  await rejectSend.click();
  check(await a3.locator('[id$="-reason-error"]', { hasText: 'Give a reason' }).waitFor().then(() => true, () => false),
    'a rejection without a reason is refused');
  check((await a3.locator('textarea[id$="-reason"]').getAttribute('aria-invalid')) === 'true', 'the empty reason is marked invalid');
  check(posts.length === beforeReject, 'nothing is sent without a reason');
  await a3.locator('textarea[id$="-reason"]').fill('Not needed for this question.');
  await rejectSend.click();
  await a3.locator('.decision', { hasText: 'Rejected by Dr. Tab A' }).waitFor();
  check((await a3.locator('.decision-reason').textContent()).includes('Not needed for this question.'), 'the card shows the reason');
  check(posts.length === beforeReject + 1, 'the rejection is sent once');
  check(await waitStatus(ids.reject, 'finished'), 'the rejected run goes on and finishes');
  const rejected = (await api.get(`/v1/runs/${ids.reject}/approvals`)).body?.decided?.[0];
  check(rejected?.decision === 'rejected' && rejected?.reason === 'Not needed for this question.' && rejected?.reviewer === 'Dr. Tab A',
    `the server kept the rejection, its reason and who (${JSON.stringify(rejected)})`);

  // A run that pauses while the view is open shows up live, and announced.
  const late = await api.post('/v1/runs', { app: 'chat', inputs: { message: 'Sixth: paused while the page is open.', packs: ['util'], require_approval: ['all'] } });
  check(late.status === 201, `a sixth run is started (${late.status})`);
  ids.late = late.body.run.id;
  const lateCard = await card(pageA, 'late').locator('button.approve').waitFor().then(() => true, () => false);
  check(lateCard, 'its waiting call appears in the open view without a reload');
  check(await pageA.locator('#announce-polite', { hasText: '1 new call waiting for approval.' }).waitFor().then(() => true, () => false),
    'the new call is announced politely');
  const lateDecided = await api.post(`/v1/runs/${ids.late}/approvals/c1`, { decision: 'approve', reviewer: 'dr.cli' });
  check(lateDecided.status === 200, `it is approved through the API (${lateDecided.status})`);
  check(await card(pageA, 'late').locator('.decision', { hasText: 'Approved by dr.cli' }).waitFor().then(() => true, () => false),
    'the open view shows that decision live');

  // A stale card: a page that hears no events, the call decided behind its back.
  const pageC = await newPage(context, serve.origin);
  await pageC.route('**/v1/events**', (route) => route.fulfill({ status: 204 }));
  const responses = [];
  pageC.on('response', (res) => { if (res.request().method() === 'POST') responses.push(res.status()); });
  await pageC.goto(serve.url + '#approvals', { waitUntil: 'load' });
  const c4 = card(pageC, 'stale');
  await c4.locator('button.approve').waitFor();
  check((await pageC.inputValue('#approvals-reviewer')) === 'Dr. Tab A', 'another tab starts with the remembered reviewer name');
  const behind = await api.post(`/v1/runs/${ids.stale}/approvals/c1`, { decision: 'reject', reason: 'Decided behind the page.', reviewer: 'dr.api' });
  check(behind.status === 200, `the call is decided through the API (${behind.status})`);
  check(await waitStatus(ids.stale, 'finished'), 'that run goes on and finishes');
  check(await c4.locator('button.approve').isVisible(), 'the stale page still offers Approve');
  await c4.locator('button.approve').click();
  await c4.locator('.decision', { hasText: 'Rejected by dr.api' }).waitFor();
  check(responses.includes(409), `the late decision is refused by the server (${responses.join(',')})`);
  check((await c4.locator('.decision-note').textContent()).includes('theirs is kept'), 'the card says the earlier decision is kept');
  check((await c4.locator('.decision-reason').textContent()).includes('Decided behind the page.'), 'the card shows the kept reason');
  const kept = (await api.get(`/v1/runs/${ids.stale}/approvals`)).body?.decided;
  check(kept?.length === 1 && kept[0].reviewer === 'dr.api' && kept[0].decision === 'rejected',
    `the server's decision was not overwritten (${JSON.stringify(kept)})`);
  check(await card(pageB, 'stale').locator('.decision', { hasText: 'Rejected by dr.api' }).waitFor().then(() => true, () => false),
    'a live tab shows the decision taken through the API');

  // Keyboard only, in a fresh browser profile (no remembered name).
  const keysContext = await browser.newContext();
  const pageD = await newPage(keysContext, serve.origin);
  await pageD.goto(serve.url + '#approvals', { waitUntil: 'load' });
  check(await waitLive(pageD), 'the keyboard tab is live');
  const d5 = card(pageD, 'keys');
  await d5.locator('button.approve').waitFor();
  check(await pageD.locator('article.approval-card').count() === 1, 'a new tab shows only the call still waiting');
  check(await pressUntil(pageD, 'Tab', onApproveOf, ids.keys), 'Tab reaches the card\'s Approve button');
  const f = await focused(pageD);
  check(f.focusVisible && f.outline && !f.covered, `the focused Approve is visible and not covered (${JSON.stringify(f)})`);
  await pageD.keyboard.press('Space');
  check(await pageD.locator('#approvals-reviewer-error', { hasText: 'Enter your name' }).waitFor().then(() => true, () => false),
    'Approve without a name is refused with a message next to the name field');
  check(await pageD.evaluate(() => document.activeElement.id) === 'approvals-reviewer', 'the focus moves to the name field');
  await pageD.keyboard.type('Dr. Keys');
  check(await pressUntil(pageD, 'Tab', onApproveOf, ids.keys), 'Tab goes back to Approve');
  await pageD.keyboard.press('Shift+Tab');
  check(!(await pageD.evaluate(onApproveOf, ids.keys)), 'Shift+Tab leaves Approve');
  await pageD.keyboard.press('Tab');
  check(await pageD.evaluate(onApproveOf, ids.keys), 'Tab returns to Approve');
  await pageD.keyboard.press('Enter');
  await d5.locator('.decision', { hasText: 'Approved by Dr. Keys' }).waitFor();
  check(await pageD.evaluate(() => document.activeElement.classList.contains('approval-outcome')), 'the focus lands on the decision');
  check(await waitStatus(ids.keys, 'finished'), 'the run approved by keyboard finishes');
  const byKeys = (await api.get(`/v1/runs/${ids.keys}/approvals`)).body?.decided?.[0];
  check(byKeys?.reviewer === 'Dr. Keys' && byKeys?.decision === 'approved', `the server recorded the keyboard's decision (${JSON.stringify(byKeys)})`);
  const axeD = await axeViolations(pageD);
  check(axeD.length === 0, `axe: the view after a decision has no serious violation (${axeD.join(' | ') || 'none'})`);
  check((await pageD.locator('#approvals-empty').textContent()) === 'No call is waiting for approval.' &&
    await pageD.locator('#approvals-empty').isVisible(), 'the view says when nothing waits');

  for (const [name, p] of [['A', pageA], ['B', pageB], ['D', pageD]]) {
    check(p.medreact.consoleErrors.length === 0, `tab ${name}: no console error (${p.medreact.consoleErrors.join(' | ') || 'none'})`);
  }
  // Tab C's 409 is logged by chromium as a failed load: that one, nothing else.
  const cErrors = pageC.medreact.consoleErrors.filter((e) => !/status of 409/.test(e));
  check(cErrors.length === 0, `tab C: no console error but the 409 (${cErrors.join(' | ') || 'none'})`);
  const off = [pageA, pageB, pageC, pageD].flatMap((p) => p.medreact.offOrigin);
  check(off.length === 0, `no request left the origin (${off.join(', ') || 'none'})`);
} catch (err) {
  fail(err);
} finally {
  await closeAll(browser, serve, mock);
}
finish();
