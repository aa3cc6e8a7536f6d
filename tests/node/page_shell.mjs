// The page's shell in a real browser (tests/node/lib/harness.mjs): a
// `medreact serve` with a token and one finished chat run. Checks:
// - the page asks for the token (sign-in form), a wrong one is refused with a
//   message, the right one gives an HttpOnly session cookie the page's script
//   cannot read, and the API then answers the page without the token;
// - a POST signed in by the cookie but without the page's header is refused
//   (403), as a form of another site would be;
// - the event stream is open ("Live"); the runs view lists the run in a real
//   table with aria-sort; the title names only the product and the view, the
//   URL carries no query;
// - Tab reaches the skip link, then the first nav link, with a visible focus;
// - axe-core: no serious or critical violation on the sign-in form and the runs view;
// - no console error (a CSP violation is one), no request off the origin;
// - sign out ends the session.
import { writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import {
  apiClient, axeViolations, checkClean, checker, closeAll, env, focused, launchBrowser, newPage, screenshot,
  startMock, startServe, until, waitLive,
} from './lib/harness.mjs';

const { check, fail, finish } = checker('page_shell');
const token = 'page-shell-token-0123456789abcdef';
let serve, mock, browser;
try {
  mock = await startMock({ responses: [{ message: { content: 'Hello from the scripted model.' } }] });
  const tokenFile = join(env.tmp, 'token');
  writeFileSync(tokenFile, token + '\n');
  chmodSync(tokenFile, 0o600);
  serve = await startServe({
    store: join(env.tmp, 'runs.sqlite'),
    args: ['--token-file', tokenFile, '--llm-url', mock.url, '--model', 'mock', '--max-retries', '0'],
  });
  const api = apiClient(serve.origin, token);
  const created = await api.post('/v1/runs', { app: 'chat', inputs: { message: 'Say hello.' } });
  check(created.status === 201, `a chat run is started through the API (${created.status})`);
  const runId = created.body.run.id;
  const finished = await until(async () => (await api.get('/v1/runs/' + runId)).body?.run?.status === 'finished');
  check(finished, 'the run finished');

  browser = await launchBrowser();
  const context = await browser.newContext();
  const page = await newPage(context, serve.origin);
  const response = await page.goto(serve.url + '#runs', { waitUntil: 'load' });
  check(response.status() === 200, `GET / answers 200 (${response.status()})`);

  // Sign in.
  await page.locator('#signin-token').waitFor();
  check(await page.locator('#signin').isVisible(), 'the page asks for the token');
  const signinAxe = await axeViolations(page);
  check(signinAxe.length === 0, `axe: the sign-in form has no serious violation (${signinAxe.join(' | ') || 'none'})`);
  await screenshot(page, 'sign-in');
  await page.fill('#signin-token', 'not-the-token-at-all-0000');
  await page.press('#signin-token', 'Enter');
  const refused = await page.locator('#signin-message').filter({ hasText: 'not this server' }).waitFor()
    .then(() => true, () => false);
  check(refused, 'a wrong token is refused with a message');
  await page.fill('#signin-token', token);
  await page.press('#signin-token', 'Enter');
  const row = page.locator('table#runs tbody tr', { hasText: runId });
  check(await row.first().waitFor().then(() => true, () => false), `after sign-in the runs table has ${runId}`);
  const cookies = await context.cookies();
  const session = cookies.find((c) => c.name === 'medreact_session');
  check(session && session.httpOnly && session.sameSite === 'Strict',
    `the session is an HttpOnly SameSite=Strict cookie (${JSON.stringify(session && { httpOnly: session.httpOnly, sameSite: session.sameSite })})`);
  check(!(await page.evaluate(() => document.cookie)).includes('medreact_session'), 'the page\'s script cannot read the cookie');
  check(await waitLive(page), 'the event stream is open (Live), signed in by the cookie');

  // A POST with the cookie but not the page's header (a form elsewhere) is refused.
  const forged = await page.evaluate(async (id) => (await fetch('/v1/runs/' + id + '/cancel', { method: 'POST' })).status, runId);
  check(forged === 403, `a cookie-signed POST without the page's header is refused (${forged})`);

  const sorted = page.locator('table#runs thead th[aria-sort]');
  check(await sorted.count() === 1, 'exactly one column of the runs table carries aria-sort');
  const title = await page.title();
  check(/^medreact( — [A-Za-z -]+)?$/.test(title) && !title.includes(runId), `the title names only the product and the view ("${title}")`);
  check(!new URL(page.url()).search, `the URL carries no query (${page.url()})`);
  check(await page.locator('text=decision support').first().isVisible(), 'the page says it is decision support');
  check(await page.locator('header').count() === 1 && await page.locator('nav').count() === 1 &&
        await page.locator('main').count() === 1, 'landmarks: one header, nav and main');
  const runsAxe = await axeViolations(page);
  check(runsAxe.length === 0, `axe: the runs view has no serious violation (${runsAxe.join(' | ') || 'none'})`);

  // The keyboard: Tab reaches the skip link, then the first nav link, each visibly.
  await page.reload({ waitUntil: 'load' });
  await page.locator('table#runs tbody tr', { hasText: runId }).first().waitFor();
  await page.keyboard.press('Tab');
  const first = await focused(page);
  check(first.text === 'Skip to main content' && first.outline, `the first Tab reaches the skip link, visibly (${JSON.stringify(first)})`);
  await page.keyboard.press('Tab');
  const second = await focused(page);
  check(second.text === 'Worklist' && second.focusVisible && second.outline && !second.covered,
    `the second Tab reaches the first nav link with a visible focus (${JSON.stringify(second)})`);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('view-title').textContent === 'Worklist').catch(() => {});
  check((await page.locator('nav a[aria-current="page"]').textContent()) === 'Worklist', 'Enter on the nav link opens its view and marks it current');

  // Sign out: the session ends (the API answers 401 to the cookie).
  await page.click('#signout');
  await page.locator('#signin-token').waitFor();
  const after = await page.evaluate(async () => (await fetch('/v1/runs')).status);
  check(after === 401, `after signing out the API refuses the browser (${after})`);

  // The refused requests above are logged by chromium as failed loads; nothing else may be.
  checkClean(check, page, { allowErrors: /status of 40[13]/ });
} catch (err) {
  fail(err);
} finally {
  await closeAll(browser, serve, mock);
}
finish();
