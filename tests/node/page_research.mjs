// The Research view (web/research.js) in a real browser
// (tests/node/lib/harness.mjs), run by ServerPageResearchTest
// (tests/integration/server_page_research_test.cc), whose arguments are the
// loopback literature fixture's PubMed, ClinicalTrials.gov and Europe PMC
// base URLs (Europe PMC refuses every search there). The scripted model plays
// every agent: search (three sources) → judge (sufficient) → hypothesis →
// report citing the memory's 4th record first, then its 1st.
// Checks:
// - an empty question is refused in the form with a message, nothing posted;
// - the typed question starts a research run (the URL names the run, not the question);
// - the agents' events stream in: several event rows, added in separate
//   updates, before the report appears; the failed Europe PMC search shows;
// - the report renders as elements (heading, list, emphasis), no markup from
//   its text; its inline [n] are links, the report renumbered in citation
//   order ([1] the trial, [2] the PubMed record), and clicking [2] moves the
//   focus to reference 2, whose PMID link is https://pubmed.ncbi.nlm.nih.gov/27797938/;
// - the failed source is listed with its reason; the decision-support label
//   links to the run (#runs/RUN_ID);
// - axe: no serious or critical violation; screenshot `research`;
// - following the PMID link (intercepted: no internet) reaches its URL;
// - another tab opened at #research/RUN_ID shows the same rows (read once
//   from the run's stored events), the report and the failed source;
// - no source chosen is refused in the page; a server without network tools
//   refuses an online research, its message at the checkbox;
// - no console error; no request left the origin but the followed link.
import { join } from 'node:path';
import {
  apiClient, axeViolations, checker, closeAll, env, launchBrowser, newPage, screenshot, startMock, startServe,
  until, waitLive,
} from './lib/harness.mjs';

const { check, fail, finish } = checker('page_research');
const [pubmedUrl, ctgovUrl, europepmcUrl] = process.argv.slice(2);
const QUESTION = 'Does pembrolizumab (Keytruda) help in cancer?';
const PMID_URL = 'https://pubmed.ncbi.nlm.nih.gov/27797938/';

function call(id, name, args) { return { id, name, arguments: JSON.stringify(args) }; }
function turn(calls, text = null, extra = {}) { return { message: { content: text, tool_calls: calls }, ...extra }; }
function ledger(id, next, instruction) {
  return turn([call(id, 'submit_ledger', {
    is_request_satisfied: false, is_in_loop: false, is_progress_being_made: true, next_speaker: next, instruction,
  })]);
}
const REPORT = [
  '# Pembrolizumab in cancer',
  '',
  'Trials of pembrolizumab combinations are **registered** [4], and a PubMed record was *found* [1].',
  '',
  '## Findings',
  '',
  '- Registered trials exist [4]',
  '- One structured abstract [1, 4]',
  '',
  'A line with <b>markup</b> stays text.',
].join('\n');
const script = {
  responses: [
    ledger('m1', 'search', 'Search the literature for pembrolizumab in cancer'),
    turn([call('s1', 'search_pubmed', { query: 'pembrolizumab cancer', max_results: 3 }),
      call('s2', 'search_clinical_trials', { query: 'keytruda', max_results: 3 }),
      call('s3', 'search_preprints', { query: 'pembrolizumab', max_results: 3 })]),
    turn([call('s4', 'submit_search', { summary: '1 PubMed record and 3 trials; preprints failed', queries: ['keytruda'] })]),
    ledger('m2', 'judge', 'Evaluate the evidence'),
    turn([call('j1', 'submit_judgement', {
      details: { evidence_assessed: 4, relevant_evidence: ['[1]'] },
      mechanism_score: 7, mechanism_reasoning: 'PD-1 blockade is described by the record',
      clinical_evidence_score: 7, clinical_reasoning: 'three registered trials and one structured abstract',
      confidence: 0.8, sufficient: true, recommendation: 'synthesize', next_search_queries: [],
      reasoning: 'scored by the scripted judge',
    })]),
    ledger('m3', 'hypothesis', 'Generate hypotheses'),
    turn([call('h1', 'submit_hypotheses', {
      hypotheses: [{ drug: 'pembrolizumab', target: 'PD-1', pathway: 'T-cell checkpoint release',
        effect: 'tumour response', confidence: 0.75, statement: 'PD-1 blockade restores anti-tumour T-cell activity',
        evidence: ['[1]'] }],
      knowledge_gaps: ['biomarkers of response'],
    })]),
    ledger('m4', 'report', 'Write the report'),
    turn([call('r1', 'get_bibliography', {})]),
    // The report comes a little later: the page has shown the agents' work by then.
    turn([call('r2', 'submit_report', {
      title: 'Pembrolizumab in cancer', executive_summary: 'Registered trials exist.',
      conclusion: 'Promising; see the trials.', references_cited: [4, 1], markdown: REPORT,
    })], 'Writing the report.', { delay_ms: 300 }),
  ],
};

let serve, closed, mock, browser;
try {
  check(pubmedUrl && ctgovUrl && europepmcUrl, 'the wrapper gave the three literature fixture URLs');
  mock = await startMock(script);
  // The literature clients of `medreact serve` read their base URLs from the
  // environment; the cache goes to the test's folder.
  process.env.MEDREACT_PUBMED_URL = pubmedUrl;
  process.env.MEDREACT_CTGOV_URL = ctgovUrl;
  process.env.MEDREACT_EUROPEPMC_URL = europepmcUrl;
  process.env.XDG_CACHE_HOME = join(env.tmp, 'cache');
  serve = await startServe({
    store: join(env.tmp, 'runs.sqlite'),
    args: ['--llm-url', mock.url, '--model', 'mock', '--max-retries', '0', '--network-tools'],
  });
  const api = apiClient(serve.origin);

  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // The followed reference link: answered here, never by the internet.
  const followed = [];
  await context.route('https://pubmed.ncbi.nlm.nih.gov/**', (route) => {
    followed.push(route.request().url());
    return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>PubMed record</title><p>fixture</p>' });
  });
  const page = await newPage(context, serve.origin);
  await page.goto(serve.url + '#research', { waitUntil: 'load' });
  check(await waitLive(page), 'the event stream is open (Live)');
  await page.locator('#research-question').waitFor();
  check((await page.title()) === 'medreact — Research', `the title names the view ("${await page.title()}")`);

  // An empty question: a message at the field, the focus on it, no run.
  await page.click('#research-form button[type="submit"]');
  const emptyMessage = (await page.locator('#research-question-error').textContent()).trim();
  check(emptyMessage === 'Enter a research question.', `an empty question is refused with a message ("${emptyMessage}")`);
  check(await page.evaluate(() => document.activeElement.id === 'research-question' &&
    document.activeElement.getAttribute('aria-invalid') === 'true'), 'the focus is on the question, marked invalid');
  check(((await api.get('/v1/runs?app=research')).body.runs || []).length === 0, 'nothing was posted');

  // Record how the view grows: per update, the event rows and whether the report shows.
  await page.evaluate(() => {
    window.__researchLog = [];
    const view = document.getElementById('view-research');
    new MutationObserver(() => {
      window.__researchLog.push({
        rows: document.querySelectorAll('#research-events li.research-event').length,
        report: document.querySelector('#research-report')?.dataset.state === 'final',
        draft: document.querySelector('#research-report')?.dataset.state === 'draft' &&
          document.querySelector('#research-report').textContent,
      });
    }).observe(view, { childList: true, subtree: true, attributes: true });
  });

  await page.fill('#research-question', QUESTION);
  await page.click('#research-form button[type="submit"]');
  await page.waitForFunction(() => /^#research\/run_[A-Za-z0-9_-]+$/.test(location.hash));
  const runId = decodeURIComponent(new URL(page.url()).hash.slice('#research/'.length));
  check(/^run_/.test(runId), `the URL names the run only (${page.url()})`);
  check(!page.url().toLowerCase().includes('pembrolizumab'), 'the URL does not carry the question');
  check((await page.locator('#research-run-question').textContent()) === QUESTION, 'the run shows its question');

  const reportShown = await page.locator('#research-report[data-state="final"]').waitFor({ timeout: 60_000 })
    .then(() => true, () => false);
  check(reportShown, 'the report is shown');
  const log = await page.evaluate(() => window.__researchLog);
  const firstReport = log.findIndex((e) => e.report);
  const before = firstReport < 0 ? log : log.slice(0, firstReport);
  const rowsBefore = before.length ? before[before.length - 1].rows : 0;
  const rowCounts = new Set(before.map((e) => e.rows).filter((n) => n > 0));
  check(rowsBefore >= 8, `several event rows were shown before the report (${rowsBefore})`);
  check(rowCounts.size >= 4, `the rows came in separate updates as the agents worked (${[...rowCounts].join(', ')})`);
  // The report agent's text as it streams (stored in pieces), shown as a draft before the report.
  const drafts = before.filter((e) => e.draft).map((e) => e.draft);
  check(drafts.length > 0 && drafts[drafts.length - 1] === 'Writing the report.',
    `the report agent's streamed text shows as a draft first (${JSON.stringify(drafts.slice(-1))})`);
  const types = await page.locator('#research-events > li').evaluateAll((lis) => lis.map((li) => li.dataset.type));
  for (const t of ['started', 'searching', 'search_complete', 'judge_complete', 'hypothesizing', 'synthesizing', 'complete']) {
    check(types.includes(t), `an event row of type ${t}`);
  }
  const searches = await page.locator('#research-events li[data-type="search_complete"] .research-searches li')
    .allTextContents();
  check(searches.length === 3 && searches.some((s) => s.startsWith('PubMed: “pembrolizumab cancer”')) &&
        searches.some((s) => /^Europe PMC preprints: “pembrolizumab” failed/.test(s)),
  `the search row lists each source's query and the failed one (${searches.join(' | ')})`);
  const judge = await page.locator('#research-events li[data-type="judge_complete"]').textContent();
  check(judge.includes('SUFFICIENT (mechanism 7/10, clinical 7/10, confidence 0.80)'), `the judge's scores show (${judge})`);
  const hypothesis = await page.locator('#research-events .research-hypotheses li').allTextContents();
  check(hypothesis.length === 1 && hypothesis[0].startsWith('pembrolizumab → PD-1 → T-cell checkpoint release → tumour response'),
    `the hypothesis shows (${hypothesis.join(' | ')})`);
  // A stored `error` event (the failed search) is an event, not a dropped stream.
  const live = await page.evaluate(() => document.getElementById('live').dataset.state);
  check(live === 'open', `the stream stays open (Live) after an error event (${live})`);
  const failedRow = await page.locator('#research-events li.failed').first().textContent();
  check(/Europe PMC preprints search "pembrolizumab" failed/.test(failedRow), `the failed search is an event row (${failedRow})`);

  // The report as elements.
  check((await page.locator('#research-report h4').first().textContent()) === 'Pembrolizumab in cancer',
    'the title is a heading (h4, under the Report section\'s h3)');
  check((await page.locator('#research-report h5').first().textContent()) === 'Findings', 'the section is a sub-heading (h5)');
  check(await page.locator('#research-report strong', { hasText: 'registered' }).count() === 1 &&
        await page.locator('#research-report em', { hasText: 'found' }).count() === 1, 'emphasis renders as strong and em');
  check(await page.locator('#research-report ul > li').count() === 2, 'the list renders as a list of 2 items');
  check(await page.locator('#research-report b').count() === 0 &&
        (await page.locator('#research-report').textContent()).includes('<b>markup</b>'), 'markup in the text stays text');
  check(await page.locator('#research-report h4, #research-report h5', { hasText: 'References' }).count() === 0,
    'the report text\'s own References section gives way to the linked list');
  const stored = (await api.get('/v1/runs/' + runId)).body.run.result.answer;
  check(stored.includes('## References') && stored.includes('## Searches that failed'),
    'the stored report has its own References and failed-searches sections (which the view shows as lists)');
  check(await page.locator('#research-report h4, #research-report h5', { hasText: 'Searches that failed' }).count() === 0,
    'the failed searches show once, in their own list');

  // Citations: renumbered in order of first citation, each a link to its reference.
  const cites = await page.locator('#research-report a.cite').evaluateAll((as) => as.map((a) => a.dataset.ref));
  check(cites.length === 5 && cites.slice(0, 3).join() === '1,2,1' && [...cites.slice(3)].sort().join() === '1,2',
    `the inline citations are [1], [2], [1] and the group of both, renumbered from [4], [1] (${cites.join(',')})`);
  await page.locator('#research-references li').nth(1).waitFor();
  const refs = await page.locator('#research-references > li').evaluateAll((lis) => lis.map((li) => ({
    id: li.id, n: li.value, links: [...li.querySelectorAll('a')].map((a) => ({ text: a.textContent, href: a.href, rel: a.rel })),
  })));
  check(refs.length === 2 && refs.every((r, i) => r.id === 'research-ref-' + (i + 1) && r.n === i + 1),
    `the two cited references are numbered 1 and 2 with their anchors (${refs.map((r) => r.id).join(', ')})`);
  check(/^NCT\d{8}$/.test(refs[0]?.links[0]?.text || '') &&
        refs[0].links[0].href === 'https://clinicaltrials.gov/study/' + refs[0].links[0].text,
  `reference 1 is a trial linked to ClinicalTrials.gov (${JSON.stringify(refs[0]?.links)})`);
  const pmid = refs[1]?.links.find((l) => l.text === 'PMID 27797938');
  check(pmid && pmid.href === PMID_URL && pmid.rel === 'noopener noreferrer',
    `reference 2 links PMID 27797938 to PubMed (${JSON.stringify(refs[1]?.links)})`);

  const hashBefore = await page.evaluate(() => location.hash);
  await page.locator('#research-report a.cite[data-ref="2"]').first().click();
  const focusedRef = await page.evaluate(() => document.activeElement.id);
  check(focusedRef === 'research-ref-2', `clicking [2] moves the focus to reference 2 (${focusedRef})`);
  check(await page.evaluate(() => location.hash) === hashBefore, 'the hash stays the run\'s route');
  // The keyboard: Enter on the first [1] moves the focus to reference 1.
  await page.locator('#research-report a.cite[data-ref="1"]').first().focus();
  await page.keyboard.press('Enter');
  const byKey = await page.evaluate(() => document.activeElement.id);
  check(byKey === 'research-ref-1', `Enter on [1] moves the focus to reference 1 (${byKey})`);

  // The failed source with its reason, and the decision-support label with its basis.
  const failed = await page.locator('#research-failed li').allTextContents();
  check(failed.length === 1 && failed[0].startsWith('Europe PMC preprints — “pembrolizumab” (round 1): ') &&
        /400/.test(failed[0]), `the failed source is listed with its reason (${failed.join(' | ')})`);
  const basis = await page.locator('#research-run .cds a').getAttribute('href');
  check(basis === '#runs/' + runId, `the decision-support label links to the run (${basis})`);
  check((await page.locator('#research-run .cds').textContent()).includes('Decision support'), 'the report is labelled decision support');
  check((await page.locator('#research-run-status').textContent()) === 'Status: finished', 'the run is shown finished');
  check(await page.locator('#research-earlier a', { hasText: runId }).waitFor().then(() => true, () => false),
    'the run is in the list of earlier research');

  await page.evaluate((id) => { location.hash = '#research/' + id; }, runId);
  await page.locator('#research-references li').nth(1).waitFor();
  const violations = await axeViolations(page);
  check(violations.length === 0, `axe: no serious or critical violation (${violations.join(' | ') || 'none'})`);
  await screenshot(page, 'research');

  const title = await page.title();
  check(title === 'medreact — Research' && !title.toLowerCase().includes('pembrolizumab'), `the title names only the view ("${title}")`);

  // The run opened by its URL in another tab: its stored events read once
  // from the run's stream, the same rows, the report and its references.
  const rowCount = await page.locator('#research-events > li').count();
  const other = await newPage(context, serve.origin);
  await other.goto(serve.url + '#research/' + encodeURIComponent(runId), { waitUntil: 'load' });
  await other.locator('#research-report[data-state="final"]').waitFor();
  await other.locator('#research-references li').nth(1).waitFor();
  const otherRows = await until(async () => {
    const n = await other.locator('#research-events > li').count();
    return n === rowCount ? n : null;
  }, 10_000);
  check(otherRows === rowCount, `another tab shows the run's ${rowCount} event rows from the store (${otherRows})`);
  const otherCites = await other.locator('#research-report a.cite').count();
  check(otherCites === 5, `and its report with the 5 citation links (${otherCites})`);
  check(await other.locator('#research-failed li').count() === 1, 'and its failed source');
  const otherSeqs = await other.locator('#research-events > li').evaluateAll((lis) => lis.map((li) => Number(li.dataset.seq)));
  check(otherSeqs.every((n, i) => i === 0 || n > otherSeqs[i - 1]), `the rows are in the run's order (${otherSeqs.join(',')})`);
  const otherErrors = other.medreact.consoleErrors.concat(other.medreact.offOrigin);
  check(otherErrors.length === 0, `the other tab: no console error, no request off the origin (${otherErrors.join(' | ') || 'none'})`);
  await other.close();

  // The form's other refusals: no source (in the page), and the server's
  // precise message on the field it names (a server that keeps the
  // literature services off).
  await page.evaluate(() => { location.hash = '#research'; });
  await page.fill('#research-question', QUESTION);
  for (const box of await page.locator('#research-form input[name="source"]').all()) await box.uncheck();
  await page.click('#research-form button[type="submit"]');
  const noSource = (await page.locator('#research-sources-error').textContent()).trim();
  check(noSource === 'Choose at least one source.', `no source is refused with a message ("${noSource}")`);
  check(await page.evaluate(() => document.activeElement.name === 'source'), 'the focus is on the first source');
  const runsBefore = ((await api.get('/v1/runs?app=research')).body.runs || []).length;
  check(runsBefore === 1, `still one research run (${runsBefore})`);

  const errors = [...page.medreact.consoleErrors];
  const offOrigin = page.medreact.offOrigin.filter((u) => !u.startsWith('https://pubmed.ncbi.nlm.nih.gov/'));

  // Back to the run, then follow the PubMed link (intercepted above).
  await page.evaluate((id) => { location.hash = '#research/' + id; }, runId);
  await page.locator('#research-ref-2 a', { hasText: 'PMID 27797938' }).waitFor();
  await page.locator('#research-ref-2 a', { hasText: 'PMID 27797938' }).click();
  const reached = await until(() => page.url() === PMID_URL, 15_000);
  check(reached, `following the link reached ${PMID_URL} (${page.url()})`);
  check(followed.length === 1 && followed[0] === PMID_URL, `the one request off the origin was the followed link (${followed.join(', ')})`);

  check(errors.length === 0, `no console error (${errors.join(' | ') || 'none'})`);
  check(offOrigin.length === 0, `no other request left the origin (${offOrigin.join(', ') || 'none'})`);

  // A server without network tools refuses an online research: its message
  // shows at the "online" checkbox, which is marked invalid.
  closed = await startServe({ store: join(env.tmp, 'closed.sqlite'), args: ['--llm-url', mock.url, '--model', 'mock'] });
  const offline = await newPage(context, closed.origin);
  await offline.goto(closed.url + '#research', { waitUntil: 'load' });
  await offline.fill('#research-question', QUESTION);
  await offline.click('#research-form button[type="submit"]');
  const refusal = await offline.locator('#research-online-error').filter({ hasText: /\S/ }).textContent();
  check(/reaching the literature services is not allowed here.*Clear this box/.test(refusal),
    `the server's refusal shows at the online checkbox ("${refusal}")`);
  check(await offline.evaluate(() => document.activeElement.id === 'research-online' &&
    document.activeElement.getAttribute('aria-invalid') === 'true'), 'the focus is on the checkbox, marked invalid');
  const offlineErrors = offline.medreact.consoleErrors.filter((e) => !/status of 400/.test(e));
  check(offlineErrors.length === 0, `no other console error (${offlineErrors.join(' | ') || 'none'})`);
} catch (err) {
  fail(err);
} finally {
  await closeAll(browser, serve, closed, mock);
}
finish();
