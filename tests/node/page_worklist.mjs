// The worklist view (web/worklist.js) in a real browser against a real
// `medreact serve` with the scripted triage model (text protocol, one case
// after another: concurrency 1, so the script's entries go to the cases in
// their names' order). Checks:
// - a folder outside the input roots is refused with the server's message;
// - a worklist started from the page's folder form: rows arrive one by one,
//   every snapshot sorted by final priority, ending P1, P2, P3; a row that
//   has the focus keeps it while rows are inserted above it; priority as
//   icon + text + colour class, needs_review as text, filters with counts
//   (aria-pressed), aria-sort; announcements (polite, assertive for the new P1);
// - the case view: findings, final priority with the risk adjustment and its
//   reason, the FHIR facts each linked to its tool call in the trace (the
//   link focuses it without leaving the route), the decision-support label's
//   basis link, the way back restoring the row's focus;
// - keyboard only (Tab, arrow keys, Enter) opens the top P1 case;
// - "Pause updates" holds the rows of an uploaded worklist (folder input)
//   and says how many wait; resuming shows them;
// - "Cancel this worklist": the case under way ends interrupted (said in its
//   row), the cases not run are listed last as not triaged;
// - axe-core: no serious or critical violation on the list and the case view;
// - no console error, no request off the origin, no patient id in title or URL.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  apiClient, axeViolations, checker, closeAll, env, focused, launchBrowser, newPage, screenshot, startMock,
  startServe, until, waitLive,
} from './lib/harness.mjs';

const { check, fail, finish } = checker('page_worklist');

// One case's investigation in the text protocol: the manifest, a medication
// class, the labs, then the final block.
function investigation({ medication, adjustment, critical, assessment }) {
  const turn = (content) => ({ delay_ms: 400, message: { content } });
  return [
    turn('THOUGHT: Opening the record.\nTOOL_CALL: {"tool": "get_patient_manifest", "arguments": {}}'),
    turn(`THOUGHT: Checking current therapy.\nTOOL_CALL: {"tool": "check_medication_status", "arguments": {"medication_name": "${medication}"}}`),
    turn('THOUGHT: Checking coagulation labs.\nTOOL_CALL: {"tool": "get_recent_labs", "arguments": {"category": "Coag"}}'),
    turn(`THOUGHT: Deciding.\nFINAL_ASSESSMENT: ${assessment}\nRISK_ADJUSTMENT: ${adjustment}\nCRITICAL_FINDINGS: ${JSON.stringify(critical)}`),
  ];
}

const script = {
  select: 'in_order',
  responses: [
    // The folder worklist: a-renal-cyst (P3), b-pe-no-anticoagulant (P2), c-stroke-on-aspirin (P1).
    ...investigation({ medication: 'anticoag', adjustment: 'NONE', critical: [], assessment: 'Routine renal cyst; nothing in the record changes it.' }),
    ...investigation({ medication: 'anticoag', adjustment: 'NONE', critical: ['Acute pulmonary embolism'], assessment: 'PE with no anticoagulant on record: no treatment failure.' }),
    // 4.8 is returned by no tool: the safety floor flags the case for review.
    ...investigation({ medication: 'aspirin', adjustment: 'INCREASE', critical: ['Infarct on aspirin', 'INR 4.8'], assessment: 'Acute infarct on active aspirin: antiplatelet failure.' }),
    // The uploaded worklist: u1-cardiomegaly (P3), u2-bleed (P1), u3-pe (P2).
    ...investigation({ medication: 'anticoag', adjustment: 'NONE', critical: [], assessment: 'Mild cardiomegaly, normal rate.' }),
    ...investigation({ medication: 'anticoag', adjustment: 'NONE', critical: [], assessment: 'Intracranial bleed; reversal review.' }),
    ...investigation({ medication: 'anticoag', adjustment: 'NONE', critical: [], assessment: 'PE without anticoagulation.' }),
    // The cancelled worklist: its first case's first model turn is still under way when it is cancelled.
    { delay_ms: 20000, message: { content: 'THOUGHT: too late.' } },
  ],
};

const examples = join(env.sourceDir, 'examples', 'worklist');
const root = join(env.tmp, 'root');
const folder = join(root, 'ct-today');
for (const [name, from] of [['a-renal-cyst', '07-routine-renal-cyst'], ['b-pe-no-anticoagulant', '04-pe-no-anticoagulant'],
  ['c-stroke-on-aspirin', '02-stroke-on-aspirin']]) {
  cpSync(join(examples, from), join(folder, name), { recursive: true });
}
const upload = join(env.tmp, 'upload', 'batch');
for (const [name, from] of [['u1-cardiomegaly', '10-cardiomegaly-normal-rate'], ['u2-bleed', '06-bleed-on-apixaban'],
  ['u3-pe', '04-pe-no-anticoagulant']]) {
  cpSync(join(examples, from), join(upload, name), { recursive: true });
}
writeFileSync(join(upload, 'README.txt'), 'not a case\n');
const noCases = join(env.tmp, 'upload', 'nothing');
mkdirSync(noCases, { recursive: true });
writeFileSync(join(noCases, 'notes.txt'), 'no case here\n');

// In-page recorders: the live regions' texts and the table's priority column as it changes.
function installRecorders() {
  window.__wl = { polite: [], assertive: [], snapshots: [] };
  for (const [id, key] of [['announce-polite', 'polite'], ['announce-assertive', 'assertive']]) {
    const node = document.getElementById(id);
    new MutationObserver(() => { if (node.textContent) window.__wl[key].push(node.textContent); })
      .observe(node, { childList: true, characterData: true, subtree: true });
  }
  let last = '';
  setInterval(() => {
    const rows = [...document.querySelectorAll('#worklist tbody tr[data-key]')].map((r) => r.cells[0].textContent.trim());
    const now = JSON.stringify(rows);
    if (now !== last) { last = now; window.__wl.snapshots.push(rows); }
  }, 30);
}

const rowsOf = (page) => page.evaluate(() => [...document.querySelectorAll('#worklist tbody tr[data-key]')].map((r) => ({
  prio: r.cells[0].textContent.trim(), cls: r.cells[0].querySelector('.prio').className,
  icon: r.cells[0].querySelector('.prio-icon')?.textContent, iconHidden: r.cells[0].querySelector('.prio-icon')?.getAttribute('aria-hidden'),
  case: r.cells[1].textContent.trim(), review: r.cells[2].textContent.trim(), adjustment: r.cells[3].textContent.trim(),
  status: r.cells[5].textContent.trim(),
  href: r.querySelector('a.case-link')?.getAttribute('href') || null,
})));
const isSorted = (prios) => prios.every((p, i) => i === 0 || prios[i - 1] <= p);

let serve, mock, browser;
try {
  mock = await startMock(script);
  serve = await startServe({
    store: join(env.tmp, 'runs.sqlite'),
    args: ['--input-root', root, '--llm-url', mock.url, '--model', 'mock', '--protocol', 'text', '--max-retries', '0'],
  });
  const api = apiClient(serve.origin);
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await newPage(context, serve.origin);
  await page.goto(serve.url + '#worklist', { waitUntil: 'load' });
  check(await waitLive(page), 'the event stream is open (Live)');
  const offered = await until(() => page.inputValue('#wl-dir').then((v) => v === folder));
  check(offered, `the folder form offers the input root's folder of cases (${await page.inputValue('#wl-dir')})`);
  check((await page.textContent('#wl-dir-help')).includes('ct-today (3)'), 'the folders are listed with their case counts');

  // A folder outside the input roots: the server's message, naming the field.
  await page.fill('#wl-dir', '/etc');
  await page.click('text=Start worklist');
  const refused = await page.locator('#wl-dir-error').filter({ hasText: '(dir)' }).waitFor().then(() => true, () => false);
  check(refused, `a folder outside the roots is refused with the server's message (${await page.textContent('#wl-dir-error')})`);

  // The folder worklist, watched as its rows arrive.
  await page.evaluate(installRecorders);
  await page.fill('#wl-dir', folder);
  await page.fill('#wl-concurrency', '1');
  await page.click('text=Start worklist');
  const firstRow = page.locator('#worklist tbody tr[data-key]').first();
  await firstRow.waitFor({ timeout: 30_000 });
  const firstCase = (await firstRow.locator('a.case-link').textContent()).trim();
  await firstRow.locator('a.case-link').focus();
  const topBefore = await page.evaluate(() => document.activeElement.getBoundingClientRect().top);
  const full = await until(async () => (await page.textContent('#wl-summary')).startsWith('Worklist finished: 3 of 3'), 60_000);
  check(full, `the worklist finishes on the page (${await page.textContent('#wl-summary')})`);
  await until(async () => (await rowsOf(page)).length === 3);
  const rows = await rowsOf(page);
  check(JSON.stringify(rows.map((r) => r.case)) === JSON.stringify(['c-stroke-on-aspirin', 'b-pe-no-anticoagulant', 'a-renal-cyst']),
    `the rows end sorted by final priority (${rows.map((r) => r.case).join(', ')})`);
  check(JSON.stringify(rows.map((r) => r.prio)) === JSON.stringify(['\u25B2 P1: CRITICAL', '\u25C6 P2: HIGH RISK', '\u25CF P3: ROUTINE']),
    `priority as icon + text (${rows.map((r) => r.prio).join(' | ')})`);
  check(rows[0].cls.includes('prio-1') && rows[1].cls.includes('prio-2') && rows[2].cls.includes('prio-3') &&
        rows.every((r) => r.iconHidden === 'true'), 'each priority has its colour class; the icon is hidden from screen readers');
  check(rows[0].review === 'Needs review' && rows[1].review === '' && rows[2].review === '',
    `needs_review shows as text on the flagged case only (${rows.map((r) => r.review || '-').join(', ')})`);
  check(rows[0].adjustment === 'INCREASE (P2 \u2192 P1)' || rows[0].adjustment.startsWith('INCREASE'),
    `the risk adjustment is shown (${rows[0].adjustment})`);
  const snapshots = await page.evaluate(() => window.__wl.snapshots.filter((s) => s.length));
  const prioNum = (t) => Number(t.match(/P(\d)/)[1]);
  check(snapshots.length >= 2 && snapshots.some((s) => s.length < 3) && snapshots.every((s) => isSorted(s.map(prioNum))),
    `rows arrived over time, every view sorted (${snapshots.map((s) => s.map(prioNum).join('')).join(' → ')})`);
  const still = await focused(page);
  const topAfter = await page.evaluate(() => document.activeElement.getBoundingClientRect().top);
  check(Math.abs(topAfter - topBefore) < 2, `the focused row stays where it was on screen (${topBefore} → ${topAfter} px)`);
  check(still.tag === 'a' && still.text === firstCase,
    `the focused case keeps the focus while rows are inserted above it (${JSON.stringify(still)})`);
  const sortState = await page.evaluate(() => [...document.querySelectorAll('#worklist thead th')].map((th) => th.getAttribute('aria-sort')));
  check(sortState[0] === 'ascending' && sortState.filter(Boolean).length === 1, `aria-sort: Priority ascending (${sortState})`);

  // The announcements.
  const said = await until(() => page.evaluate(() => window.__wl.assertive.length && window.__wl));
  check(said && said.assertive.some((t) => t.startsWith('New P1 critical case: c-stroke-on-aspirin')),
    `a new P1 is announced assertively (${said && said.assertive.join(' | ')})`);
  check(said && said.polite.some((t) => /^[12] new cases?: .*P[23]: /.test(t) && !t.includes('P1')),
    `other new cases are announced politely (${said && said.polite.join(' | ')})`);

  // Filters with counts.
  const filters = await page.locator('.wl-filters button').allTextContents();
  check(filters.join('|') === 'All (3)|P1 critical (1)|P2 high risk (1)|P3 routine (1)|Needs review (1)|Not triaged (0)',
    `filters with counts (${filters.join('|')})`);
  await page.click('.wl-filters button[data-filter="review"]');
  const reviewRows = await rowsOf(page);
  check(reviewRows.length === 1 && reviewRows[0].case === 'c-stroke-on-aspirin' &&
        await page.getAttribute('.wl-filters button[data-filter="review"]', 'aria-pressed') === 'true',
  `the Needs review filter shows the flagged case and is pressed (${reviewRows.map((r) => r.case)})`);
  await page.click('.wl-filters button[data-filter="all"]');

  // Sorting by case, then back.
  await page.click('#worklist thead th[data-key="case"] button');
  const byName = (await rowsOf(page)).map((r) => r.case);
  check(byName.join(',') === 'a-renal-cyst,b-pe-no-anticoagulant,c-stroke-on-aspirin' &&
        await page.getAttribute('#worklist thead th[data-key="case"]', 'aria-sort') === 'ascending',
  `a sort button sorts and moves aria-sort (${byName})`);
  await page.click('#worklist thead th[data-key="priority"] button');

  const listAxe = await axeViolations(page);
  check(listAxe.length === 0, `axe: the worklist has no serious violation (${listAxe.join(' | ') || 'none'})`);
  await screenshot(page, 'worklist');

  // The case view of the P1.
  const wl = (await api.get('/v1/worklists')).body.worklists[0];
  const cases = (await api.get('/v1/worklists/' + wl.id)).body.worklist.cases;
  const p1 = cases.find((c) => c.case === 'c-stroke-on-aspirin');
  check(p1 && p1.priority_level === 1 && p1.run_id, `the API agrees: the stroke case is P1 (${JSON.stringify(p1)})`);
  check(rows[0].href === '#worklist/case/' + p1.run_id, `the case link carries the run id only (${rows[0].href})`);
  await page.click('#worklist tbody a.case-link >> text=c-stroke-on-aspirin');
  await page.locator('#wl-case-heading').waitFor();
  check((await page.textContent('#wl-case-heading')) === 'Case c-stroke-on-aspirin', 'the case view opens');
  check((await focused(page)).id === 'wl-case-heading', 'the focus moves to the case heading');
  const caseText = await page.textContent('.wl-case');
  check(caseText.includes('Acute infarct in the left MCA territory'), 'the findings are shown');
  check((await page.textContent('.wl-case .prio-big')).includes('P1: CRITICAL'), 'the final priority is shown');
  check(caseText.includes('INCREASE: P1 \u2192 P1') || caseText.includes('INCREASE'), 'the risk adjustment is shown');
  check(caseText.includes('Acute infarct on active aspirin: antiplatelet failure.'), 'the adjustment\'s reason is shown');
  check(caseText.includes('4.8'), 'why it needs review is shown (the unsupported INR 4.8)');
  check(await page.locator('.wl-case .cds a').getAttribute('href') === '#worklist/case/' + p1.run_id + '/trace',
    'the decision-support label links to its basis (the trace)');
  const run = (await api.get('/v1/runs/' + p1.run_id)).body;
  const callIds = run.steps.flatMap((s) => s.assistant.tool_calls.map((c) => c.id));
  const factLinks = await page.$$eval('.wl-case .facts .fact-head a', (as) => as.map((a) => ({ text: a.textContent, target: a.dataset.target })));
  check(factLinks.length === 3 && factLinks.every((f, i) => f.target === 'wl-call-' + callIds[i].replace(/[^A-Za-z0-9_-]/g, '_')),
    `three FHIR facts, each linked to its tool call (${factLinks.map((f) => f.text).join(' | ')})`);
  check((await page.textContent('.wl-case .facts')).toLowerCase().includes('aspirin'), 'the medication fact names the aspirin order');
  const traceSteps = await page.locator('.wl-case .trace > li').count();
  check(traceSteps === 4, `the reasoning trace has the 4 steps (${traceSteps})`);
  const hashBefore = new URL(page.url()).hash;
  await page.click('.wl-case .facts .fact-head a >> nth=1');
  const atCall = await focused(page);
  check(atCall.id === factLinks[1].target && new URL(page.url()).hash === hashBefore,
    `a fact's link focuses its tool call in the trace, the route unchanged (${atCall.id}, ${page.url()})`);
  check((await page.textContent('#' + factLinks[1].target)).includes('check_medication_status'), 'the linked call is the medication check');
  const title = await page.title();
  check(title === 'medreact — Worklist' && !page.url().includes('?'), `title and URL name no patient (${title}, ${page.url()})`);
  await page.click('.wl-case .cds a');
  await until(async () => (await focused(page)).id === 'wl-trace-heading');
  check((await focused(page)).id === 'wl-trace-heading', 'the basis link focuses the reasoning trace');
  const caseAxe = await axeViolations(page);
  check(caseAxe.length === 0, `axe: the case view has no serious violation (${caseAxe.join(' | ') || 'none'})`);
  await page.locator('#wl-case-heading').focus();
  await screenshot(page, 'worklist-case');
  await page.click('.back-link');
  await until(async () => (await focused(page)).text === 'c-stroke-on-aspirin');
  const back = await focused(page);
  check(back.tag === 'a' && back.text === 'c-stroke-on-aspirin', `back in the list, the case's row has the focus (${JSON.stringify(back)})`);

  // Keyboard only: Tab to the first row, arrows, Enter.
  await page.goto(serve.url + '#worklist', { waitUntil: 'load' });
  await page.reload({ waitUntil: 'load' });
  await page.locator('#worklist tbody a.case-link').first().waitFor();
  let reached = null;
  for (let i = 0; i < 80 && !reached; ++i) {
    await page.keyboard.press('Tab');
    const f = await focused(page);
    if (f.tag === 'a' && (await page.evaluate(() => document.activeElement.classList.contains('case-link')))) reached = f;
  }
  check(reached && reached.text === 'c-stroke-on-aspirin' && reached.focusVisible && reached.outline && !reached.covered,
    `Tab reaches the top P1 case's link, visibly and uncovered (${JSON.stringify(reached)})`);
  await page.keyboard.press('ArrowDown');
  const down = await focused(page);
  await page.keyboard.press('ArrowUp');
  const up = await focused(page);
  check(down.text === 'b-pe-no-anticoagulant' && up.text === 'c-stroke-on-aspirin', `arrow keys move between rows (${down.text}, ${up.text})`);
  await page.keyboard.press('Enter');
  await page.locator('#wl-case-heading').waitFor();
  check(new URL(page.url()).hash === '#worklist/case/' + p1.run_id && (await focused(page)).id === 'wl-case-heading',
    `Enter opens the top P1 case (${page.url()})`);

  // Pause: an uploaded worklist's rows wait until resumed.
  await page.goto(serve.url + '#worklist', { waitUntil: 'load' });
  await page.locator('#worklist tbody a.case-link').first().waitFor();
  await page.evaluate(installRecorders);
  await page.setInputFiles('#wl-upload', noCases);
  await page.click('text=Upload and start');
  const none = await page.locator('#wl-upload-error').filter({ hasText: 'No case files found' }).waitFor().then(() => true, () => false);
  check(none, `a folder without case files is refused with a message (${await page.textContent('#wl-upload-error')})`);
  await page.click('#wl-pause');
  check(await page.getAttribute('#wl-pause', 'aria-pressed') === 'true', 'Pause updates is pressed');
  await page.setInputFiles('#wl-upload', upload);
  await page.fill('#wl-upload-concurrency', '1');
  await page.click('text=Upload and start');
  const uploaded = await until(async () => {
    const l = (await api.get('/v1/worklists')).body.worklists;
    return l.length === 2 && l[0].id !== wl.id && l[0];
  });
  check(uploaded && uploaded.cases_total === 3, `the uploaded folder started a worklist of 3 cases (${JSON.stringify(uploaded)})`);
  const done = await until(async () => (await api.get('/v1/worklists/' + uploaded.id)).body.worklist.status === 'finished', 60_000);
  check(done, 'the uploaded worklist finished on the server');
  const waits = await until(async () => (await page.textContent('#wl-pause-state')).includes('3 new cases wait'), 15_000);
  check(waits, `while paused the page says how many wait (${await page.textContent('#wl-pause-state')})`);
  check((await rowsOf(page)).length === 0, 'while paused the rows are held');
  await page.click('#wl-pause');
  await until(async () => (await rowsOf(page)).length === 3);
  const resumed = await rowsOf(page);
  check(resumed.map((r) => r.case).join(',') === 'u2-bleed,u3-pe,u1-cardiomegaly',
    `on resume the held rows show, by priority (${resumed.map((r) => r.case + ' ' + r.prio).join(', ')})`);
  const after = await until(() => page.evaluate(() => window.__wl.assertive.length && window.__wl));
  check(after.assertive.some((t) => t.startsWith('New P1 critical case: u2-bleed')) &&
        after.polite.some((t) => t === 'Updates paused.'), `pause and the held P1 are announced (${after.assertive.join(' | ')})`);

  // Cancel: the case under way ends interrupted, the others are not run.
  await page.fill('#wl-dir', folder);
  await page.fill('#wl-concurrency', '1');
  await page.click('text=Start worklist');
  await page.locator('text=Cancel this worklist').waitFor();
  await until(async () => (await api.get('/v1/worklists')).body.worklists[0].cases_total === 3 &&
    (await page.textContent('#wl-summary')).startsWith('Running'));
  // The case under way, opened by its URL: its run is shown, its result said not to be there yet.
  const running = await until(async () => (await api.get('/v1/runs?app=triage&status=running')).body.runs[0]);
  await page.goto(serve.url + '#worklist/case/' + running.id);
  const pendingCase = await page.locator('.wl-case .form-error').filter({ hasText: 'has no triage result yet (its run is running)' })
    .waitFor().then(() => true, () => false);
  check(pendingCase && (await page.textContent('.wl-case')).includes('Run running'),
    `a case still running shows its run and says its result is not there yet (${running.id})`);
  await page.click('.back-link');
  await page.click('text=Cancel this worklist');
  const cancelled = await until(async () => (await page.textContent('#wl-summary')).startsWith('Worklist interrupted'), 30_000);
  check(cancelled, `the Cancel button stops the worklist (${await page.textContent('#wl-summary')})`);
  const cut = await until(async () => { const r = await rowsOf(page); return r.length === 3 && r; });
  const notRun = await page.textContent('.wl-filters button[data-filter="failed"]');
  check(cut && notRun === 'Not triaged (2)' && cut.slice(1).every((r) => r.prio === '\u2715 Not triaged' && r.status === 'not run') &&
        /^(interrupted|error): investigation not finished, base priority kept$/.test(cut[0].status) &&
        !await page.locator('text=Cancel this worklist').isVisible(),
  `the cases not run are listed last as not triaged, the cut one says so (${notRun}; ${cut && cut.map((r) => r.case + ' ' + r.prio + ' ' + r.status).join(', ')})`);

  // The refused folder (/etc, 400) and the running case's result (404) are logged by
  // chromium as failed loads; nothing else may be.
  const errors = page.medreact.consoleErrors;
  const expected = errors.filter((e) => /status of 400/.test(e)).length === 1 &&
    errors.filter((e) => /status of 404/.test(e)).length >= 1;
  check(expected && errors.every((e) => /status of 40[04]/.test(e)),
    `no console error but the refused folder and the result not there yet (${errors.join(' | ') || 'none'})`);
  check(page.medreact.offOrigin.length === 0, `no request left the origin (${page.medreact.offOrigin.join(', ') || 'none'})`);
} catch (err) {
  fail(err);
} finally {
  await closeAll(browser, serve, mock);
}
finish();
