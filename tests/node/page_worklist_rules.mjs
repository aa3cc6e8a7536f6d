// The worklist view on a server with a token and no model (the offline
// rules planner decides every case): signed in by the session cookie, the
// page starts a worklist from the folder form and another by uploading a
// folder (multipart, signed by the cookie and the page's header); each ends
// with the priorities and risk adjustments the cases' case.json expect
// (examples/worklist, seed 001's rules), and a case's view shows the rules
// planner as what decided it.
import { chmodSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  apiClient, checkClean, checker, closeAll, env, launchBrowser, newPage, startServe, until, waitLive,
} from './lib/harness.mjs';

const { check, fail, finish } = checker('page_worklist_rules');
const token = 'page-worklist-token-0123456789abcdef';
const examples = join(env.sourceDir, 'examples', 'worklist');
const chosen = ['01-pe-on-warfarin', '04-pe-no-anticoagulant', '07-routine-renal-cyst', '09-ctpa-negative-low-egfr',
  '06-bleed-on-apixaban'];
const root = join(env.tmp, 'root');
for (const name of chosen) cpSync(join(examples, name), join(root, 'today', name), { recursive: true });
const upload = join(env.tmp, 'upload', 'batch');
for (const name of chosen.slice(0, 2)) cpSync(join(examples, name), join(upload, name), { recursive: true });
const expected = Object.fromEntries(chosen.map((n) =>
  [n, JSON.parse(readFileSync(join(examples, n, 'case.json'), 'utf8')).expected]));

const rowsOf = (page) => page.evaluate(() => [...document.querySelectorAll('#worklist tbody tr[data-key]')].map((r) => ({
  case: r.cells[1].textContent.trim(), prio: r.cells[0].textContent.trim(), adjustment: r.cells[3].textContent.trim(),
})));

function matchesExpected(rows, names) {
  const got = rows.map((r) => `${r.case}:${r.prio.match(/P(\d)/)?.[1]}:${r.adjustment.split(' ')[0]}`).sort();
  const want = names.map((n) => `${n}:${expected[n].priority_level}:${expected[n].risk_adjustment}`).sort();
  return { ok: JSON.stringify(got) === JSON.stringify(want), got: got.join(' '), want: want.join(' ') };
}

let serve, browser;
try {
  const tokenFile = join(env.tmp, 'token');
  writeFileSync(tokenFile, token + '\n');
  chmodSync(tokenFile, 0o600);
  serve = await startServe({ store: join(env.tmp, 'runs.sqlite'), args: ['--token-file', tokenFile, '--input-root', root] });
  const api = apiClient(serve.origin, token);
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await newPage(context, serve.origin);
  await page.goto(serve.url + '#worklist', { waitUntil: 'load' });
  await page.locator('#signin-token').waitFor();
  await page.fill('#signin-token', token);
  await page.press('#signin-token', 'Enter');
  check(await waitLive(page), 'signed in, the event stream is open');
  await until(() => page.inputValue('#wl-dir').then((v) => v === join(root, 'today')));

  await page.fill('#wl-dir', join(root, 'today'));
  await page.click('text=Start worklist');
  await until(async () => (await page.textContent('#wl-summary')).startsWith('Worklist finished: 5 of 5'), 60_000);
  const rows = await rowsOf(page);
  const folderRun = matchesExpected(rows, chosen);
  check(rows.length === 5 && folderRun.ok, `the folder's cases end as their case.json expect (${folderRun.got} | want ${folderRun.want})`);
  const prios = rows.map((r) => Number(r.prio.match(/P(\d)/)[1]));
  check(prios.every((p, i) => i === 0 || prios[i - 1] <= p), `sorted by final priority (${prios.join('')})`);

  await page.setInputFiles('#wl-upload', upload);
  await page.click('text=Upload and start');
  const uploaded = await until(async () => (await page.textContent('#wl-summary')).startsWith('Worklist finished: 2 of 2'), 60_000);
  check(uploaded, `an uploaded folder is triaged, signed in by the cookie (${await page.textContent('#wl-summary')} ${await page.textContent('#wl-upload-error')})`);
  const upRun = matchesExpected(await rowsOf(page), chosen.slice(0, 2));
  check(upRun.ok, `the uploaded cases end as expected (${upRun.got})`);
  const lists = (await api.get('/v1/worklists')).body.worklists;
  check(lists.length === 2 && lists.every((w) => w.status === 'finished'), `the API lists both worklists (${lists.length})`);

  await page.click('#worklist tbody a.case-link >> text=01-pe-on-warfarin');
  await page.locator('#wl-case-heading').waitFor();
  const text = await page.textContent('.wl-case');
  check(text.includes('Decided byrules') && text.includes('P1: CRITICAL') && text.includes('INCREASE: P2 \u2192 P1'),
    'the case view shows the rules planner\'s decision: P2 escalated to P1');
  check(await page.locator('.wl-case .facts .fact-head a').count() > 0, 'the rules planner\'s tool calls give facts linked to the trace');

  checkClean(check, page);
} catch (err) {
  fail(err);
} finally {
  await closeAll(browser, serve);
}
finish();
