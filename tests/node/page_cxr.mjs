// The Chest X-ray view (#cxr, web/cxr.js) in a real browser
// (tests/node/lib/harness.mjs): a `medreact serve` with a token (each browser
// context signs in: the API calls and the images go by its session cookie),
// the scripted model and the scripted classifier and grounding endpoints. Checks:
// - a file that is no image and a missing question are refused at their field, nothing sent;
// - a DICOM uploaded through the file input: the steps as they happen (the
//   classifier seen running before the answer; then each tool with its short result), the annotated image shown
//   (it loads; its alt text names the finding; it is the run's kept image by
//   hash), the toggle (a button with aria-pressed) switches to the original (the
//   DICOM's PNG rendering) and back, the upload's thumbnail, the answer labelled
//   decision support with its run one click away;
// - the agent's clarifying question answered in place: the reply is a new run
//   that continues the first (inputs.continues), the model's next answer shown;
// - two browser contexts with different DICOMs each see only their own images,
//   runs and conversation (hashes and run ids absent from the other's page);
//   sessionStorage holds the run ids only; the title and URL never name a
//   patient (CT_small.dcm's patient name is CompressedSamples^CT1);
// - a reload restores the tab's conversation from its run ids;
// - axe-core: no serious or critical violation; no console error, no request
//   off the origin; the screenshot `cxr`.
import { execFileSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  apiClient, axeViolations, checkClean, checker, closeAll, env, focused, launchBrowser, newPage, screenshot,
  startMock, startServe, until, waitLive,
} from './lib/harness.mjs';

const { check, fail, finish } = checker('page_cxr');
const dicomDir = join(env.sourceDir, 'tests/fixtures/dicom');
const CHEST = join(dicomDir, 'CR-MONO1-10-chest.dcm');  // 440 x 440, a real CR chest film
const CT = join(dicomDir, 'CT_small.dcm');               // 128 x 128, patient "CompressedSamples^CT1"
const QUESTION_BACK = 'Cardiomegaly is likely (classifier 0.81). Is this film PA or AP?';
const FINAL = 'On a PA film the enlarged heart stands: cardiomegaly (decision support).';

const call = (id, name, args) => ({ id, name, arguments: args });
const labels = { model: 'scripted-classifier', labels: [
  { label: 'Cardiomegaly', probability: 0.81 }, { label: 'Pneumothorax', probability: 0.03 }] };
const box = { x0: 110, y0: 130, x1: 330, y1: 370 };  // the heart on the 440 px film (cut at the CT's 128 px)
// By turn (the assistant messages in the request), so two conversations follow it at once.
const script = {
  select: 'by_turn',
  responses: [
    { message: { content: null, tool_calls: [
      call('cls1', 'chest_xray_classifier', { image_id: 'img1' }),
      call('grd1', 'xray_phrase_grounding', { image_id: 'img1', phrase: 'cardiomegaly' })] } },
    { message: { content: null, tool_calls: [
      call('viz1', 'image_visualizer', { image_id: 'img1', boxes: [{ ...box, label: 'Cardiomegaly' }] })] } },
    { message: { content: QUESTION_BACK } },
    { message: { content: FINAL } },
  ],
  routes: {
    // The first classification is slow: the page shows the call under way before the answer.
    '/classify': { on_exhausted: 'repeat_last', responses: [
      { json: labels, delay_ms: 2500 }, { json: labels }] },
    '/ground': { on_exhausted: 'repeat_last', responses: [{ json: { model: 'scripted-grounding',
      boxes: [{ ...box, score: 0.7 }] } }] },
  },
};

// The image's natural width once loaded (0 while loading or broken).
const loadedWidth = (page, selector) => until(() => page.evaluate((sel) => {
  const img = document.querySelector(sel);
  return img && img.complete && img.naturalWidth > 0 ? img.naturalWidth : 0;
}, selector));

async function runIds(page) {
  return page.$$eval('#cxr-turns > li', (lis) => lis.map((li) => li.dataset.runId));
}

async function waitAnswer(page, runId, text) {
  return page.locator(`#cxr-turns > li[data-run-id="${runId}"] .cxr-answer-text`).filter({ hasText: text })
    .waitFor().then(() => true, () => false);
}

// Uploads `file` with `question` through the form; the new turn's run id.
async function ask(page, file, question) {
  const before = (await runIds(page)).length;
  if (file) await page.setInputFiles('#cxr-files', file);
  await page.fill('#cxr-question', question);
  await page.click('#cxr-form button[type=submit]');
  const ok = await until(async () => (await runIds(page)).length === before + 1);
  return ok ? (await runIds(page))[before] : null;
}

// Opens the view in a new page of `context` and signs in (the images come by the session cookie too).
async function openView(context, origin, url) {
  const page = await newPage(context, origin);
  await page.goto(url + '#cxr', { waitUntil: 'load' });
  await page.locator('#signin-token').waitFor();
  await page.fill('#signin-token', TOKEN);
  await page.press('#signin-token', 'Enter');
  await page.locator('#cxr-form').waitFor();
  return page;
}

const TOKEN = 'page-cxr-token-0123456789abcdef';
let serve, mock, browser;
try {
  mock = await startMock(script);
  const tokenFile = join(env.tmp, 'token');
  writeFileSync(tokenFile, TOKEN + '\n');
  chmodSync(tokenFile, 0o600);
  serve = await startServe({
    store: join(env.tmp, 'runs.sqlite'),
    args: ['--token-file', tokenFile, '--llm-url', mock.url, '--model', 'mock', '--max-retries', '0',
      '--classifier-url', mock.root + '/classify', '--grounding-url', mock.root + '/ground'],
  });
  const api = apiClient(serve.origin, TOKEN);
  browser = await launchBrowser();
  const contextA = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const a = await openView(contextA, serve.origin, serve.url);
  check(await waitLive(a), 'context A: signed in, the event stream is open');
  check(await a.title() === 'medreact — Chest X-ray', `the title names the view only ("${await a.title()}")`);

  // Bad input is refused at its field, before anything is sent.
  const text = join(env.tmp, 'notes.png');
  writeFileSync(text, 'Patient notes, not an image.\n');
  await a.setInputFiles('#cxr-files', text);
  await a.fill('#cxr-question', 'Is the heart enlarged?');
  await a.click('#cxr-form button[type=submit]');
  const typeError = await a.locator('#cxr-files-error').filter({ hasText: 'is not a PNG, JPEG or DICOM file' })
    .waitFor().then(() => true, () => false);
  check(typeError, `a text file named .png is refused at the file input ("${await a.textContent('#cxr-files-error')}")`);
  check(await a.getAttribute('#cxr-files', 'aria-invalid') === 'true', 'the file input is marked invalid');
  const refusedAxe = await axeViolations(a);
  check(refusedAxe.length === 0, `axe: the form with its error has no serious violation (${refusedAxe.join(' | ') || 'none'})`);
  await a.setInputFiles('#cxr-files', CHEST);
  await a.fill('#cxr-question', '   ');
  await a.click('#cxr-form button[type=submit]');
  check(await a.locator('#cxr-question-error').filter({ hasText: 'Write a question first.' }).waitFor()
    .then(() => true, () => false), 'a blank question is refused at the question box');
  check(await a.getAttribute('#cxr-files', 'aria-invalid') === null, 'the file input is no longer marked invalid');
  check(((await api.get('/v1/runs')).body.runs || []).length === 0, 'nothing was sent for the refused input');
  // A .dcm that is no DICOM passes the page (a DICOM may lack its preamble) and is refused by the server, at the field.
  const fake = join(env.tmp, 'fake.dcm');
  writeFileSync(fake, 'not a DICOM file at all\n');
  await a.setInputFiles('#cxr-files', fake);
  await a.fill('#cxr-question', 'Is the heart enlarged?');
  await a.click('#cxr-form button[type=submit]');
  const serverError = await a.locator('#cxr-files-error')
    .filter({ hasText: 'inputs.images[0]: the upload \'image1\': not a PNG, JPEG or DICOM image' }).waitFor()
    .then(() => true, () => false);
  const shownError = await a.textContent('#cxr-files-error');
  check(serverError && await a.getAttribute('#cxr-files', 'aria-invalid') === 'true' && !shownError.includes(env.tmp),
    `the server's refusal of a fake DICOM is shown at the file input, naming the upload, not the server's folder ("${shownError}")`);
  // Chromium logs the refused request (400) as a failed load; that one only.
  const refusedLoads = a.medreact.consoleErrors.splice(0);
  check(refusedLoads.length === 1 && /status of 400/.test(refusedLoads[0]),
    `the refusal is the only console line so far (${refusedLoads.join(' | ')})`);
  check(((await api.get('/v1/runs')).body.runs || []).length === 0 && (await runIds(a)).length === 0,
    'the refused question started no run and left the conversation empty');
  await a.setInputFiles('#cxr-files', []);

  // A DICOM through the file input: steps, the annotated image, its toggle, the answer.
  const a1 = await ask(a, CHEST, 'Is the heart enlarged?');
  check(a1 && /^run_/.test(a1), `the question is a run of this tab (${a1})`);
  const underWay = await until(() => a.evaluate((id) => {
    const li = document.querySelector(`#cxr-turns > li[data-run-id="${id}"]`);
    const steps = [...li.querySelectorAll('.cxr-steps li')].map((x) => x.textContent);
    return steps.includes('chest_xray_classifier: running…') && li.querySelector('.cxr-answer').hidden &&
      li.querySelector('.cxr-status').textContent === 'working…';
  }, a1), 15_000, 50);
  check(underWay, 'the steps show as they happen: the classifier running, no answer yet');
  check(await waitAnswer(a, a1, QUESTION_BACK), 'the agent\'s answer (a clarifying question) is shown');
  const steps = await a.$$eval(`#cxr-turns > li[data-run-id="${a1}"] .cxr-steps li`, (lis) => lis.map((li) => li.textContent));
  check(steps.includes('chest_xray_classifier: above the threshold (0.5): Cardiomegaly 0.81') &&
        steps.includes('xray_phrase_grounding: "cardiomegaly": 1 box on img1') &&
        steps.includes('image_visualizer: annotated image img2: Cardiomegaly') && steps.includes('Model call 3'),
  `the steps show the model calls and each tool with its short result (${JSON.stringify(steps)})`);
  const imagesA = (await api.get(`/v1/runs/${a1}/images`)).body.images;
  const dicomA = imagesA.find((i) => i.id === 'img1');
  const drawnA = imagesA.find((i) => i.id === 'img2');
  check(dicomA && dicomA.png_sha256 && drawnA && drawnA.origin === 'image_visualizer',
    `the run kept the DICOM (with its PNG rendering) and the annotated image (${JSON.stringify(imagesA)})`);
  const fig = `#cxr-turns > li[data-run-id="${a1}"] figure[data-image-id="img2"] img`;
  check(await loadedWidth(a, fig) === 440, 'the annotated image loads (naturalWidth 440, the film as the run saw it)');
  check(await a.getAttribute(fig, 'src') === '/v1/artifacts/' + drawnA.sha256, 'the annotated image is the run\'s img2 by its hash');
  const alt = await a.getAttribute(fig, 'alt');
  check(/Cardiomegaly/.test(alt) && /Annotated/.test(alt), `its alt text names the finding ("${alt}")`);
  const toggle = a.locator(`#cxr-turns > li[data-run-id="${a1}"] figure[data-image-id="img2"] button.cxr-toggle`);
  check(await toggle.getAttribute('aria-pressed') === 'false', 'the toggle is a button, not pressed');
  const box24 = await toggle.boundingBox();
  check(box24 && box24.height >= 24 && box24.width >= 24, `the toggle is at least 24 px (${JSON.stringify(box24)})`);
  await toggle.click();
  check(await toggle.getAttribute('aria-pressed') === 'true', 'pressed, the toggle says so (aria-pressed)');
  check(await a.getAttribute(fig, 'src') === '/v1/artifacts/' + dicomA.png_sha256, 'pressed, the image is the original (the DICOM\'s PNG)');
  check(await until(async () => (await a.evaluate((s) => document.querySelector(s).complete && document.querySelector(s).naturalWidth, fig)) === 440),
    'the original loads');
  check(/^Original/.test(await a.getAttribute(fig, 'alt')), `the alt text says it is the original ("${await a.getAttribute(fig, 'alt')}")`);
  // Again from the keyboard: Space on the focused toggle, its focus visible.
  await toggle.focus();
  await a.keyboard.press('Space');
  check(await a.getAttribute(fig, 'src') === '/v1/artifacts/' + drawnA.sha256 && await toggle.getAttribute('aria-pressed') === 'false',
    'pressed again (Space), the annotated image is back');
  const onToggle = await focused(a);
  check(onToggle.text === 'Show original' && onToggle.focusVisible && onToggle.outline,
    `the focused toggle shows its focus (${JSON.stringify(onToggle)})`);
  check(await loadedWidth(a, `#cxr-thumbs li[data-sha="${dicomA.sha256}"] img`) === 440,
    'the uploaded DICOM\'s thumbnail is its PNG rendering, loaded');
  const cds = a.locator(`#cxr-turns > li[data-run-id="${a1}"] .cxr-answer .cds a`);
  check(await cds.getAttribute('href') === '#runs/' + a1, 'the answer is labelled decision support, its run one click away');

  // The clarifying question answered in place.
  const reply = a.locator(`#cxr-turns > li[data-run-id="${a1}"] form.cxr-reply`);
  check(await reply.isVisible(), 'a reply box sits under the agent\'s question');
  await reply.getByLabel('Your reply to the agent\'s question').fill('PA.');
  await reply.getByRole('button', { name: 'Send reply' }).click();
  const a2 = await until(async () => (await runIds(a))[1]);
  check(a2 && a2 !== a1, `the reply is a new run of the conversation (${a2})`);
  check(await until(() => a.evaluate((id) => document.activeElement === document.querySelector(`#cxr-turns > li[data-run-id="${id}"] h3`), a2)),
    'the focus moves from the sent reply to the new question\'s heading');
  check(await waitAnswer(a, a2, FINAL), 'the answer to the reply is shown');
  const shown2 = (await api.get('/v1/runs/' + a2)).body;
  check(shown2.run.inputs.continues === a1 && shown2.run.inputs.message === 'PA.',
    `the reply's run continues the first (${JSON.stringify({ continues: shown2.run.inputs.continues, message: shown2.run.inputs.message })})`);
  check(await a.locator('form.cxr-reply').count() === 0, 'the reply box is gone once answered');
  const answers = await a.$$eval('.cxr-answer', (els) => els.map((e) => e.textContent));
  check(answers.length === 2 && answers[0].startsWith('The agent asks' + QUESTION_BACK + 'Decision support') &&
        answers[1].startsWith('Answer' + FINAL + 'Decision support'),
  `each answer reads: who, the text, the decision-support label (${JSON.stringify(answers)})`);
  const stored = await a.evaluate(() => Object.fromEntries(Object.entries(sessionStorage)));
  check(JSON.stringify(stored) === JSON.stringify({ 'medreact.cxr.runs': JSON.stringify([a1, a2]) }),
    `sessionStorage holds this conversation's run ids only (${JSON.stringify(stored)})`);

  // A second browser context, another DICOM: each sees only its own.
  const contextB = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const b = await openView(contextB, serve.origin, serve.url);
  check(await waitLive(b), 'context B: signed in, the event stream is open');
  check((await runIds(b)).length === 0, 'context B starts with an empty conversation');
  const b1 = await ask(b, CT, 'Any cardiomegaly?');
  check(b1 && b1 !== a1 && b1 !== a2, `context B's question is its own run (${b1})`);
  check(await waitAnswer(b, b1, QUESTION_BACK), 'context B gets its answer');
  const imagesB = (await api.get(`/v1/runs/${b1}/images`)).body.images;
  const dicomB = imagesB.find((i) => i.id === 'img1');
  const drawnB = imagesB.find((i) => i.id === 'img2');
  check(dicomB && drawnB && dicomB.sha256 !== dicomA.sha256 && drawnB.sha256 !== drawnA.sha256,
    'the two contexts\' images differ (by hash)');
  const figB = `#cxr-turns > li[data-run-id="${b1}"] figure[data-image-id="img2"] img`;
  check(await loadedWidth(b, figB) === 128, 'context B\'s annotated image loads (128 px: its CT)');
  // B answers the agent's question with a PNG added: the same conversation, one more image.
  const png = join(env.tmp, 'small.png');
  execFileSync(env.medreact, ['dicom', join(dicomDir, 'CR_6154_16x16.dcm'), '--png', png], { stdio: 'ignore' });
  await b.setInputFiles('#cxr-files', png);
  const b2 = await ask(b, null, 'PA. Here is the earlier film too.');
  check(b2 && await waitAnswer(b, b2, FINAL), `context B's reply with a PNG is answered (${b2})`);
  const imagesB2 = (await api.get(`/v1/runs/${b2}/images`)).body.images;
  const pngB = imagesB2.find((i) => i.id === 'img3');
  check(imagesB2.length === 3 && imagesB2[0].sha256 === dicomB.sha256 && pngB && pngB.origin === 'user' &&
        pngB.format === 'png' && pngB.label === 'image1.png',
  `the reply's run has B's images and the PNG as img3 (${JSON.stringify(imagesB2.map((i) => [i.id, i.origin, i.format, i.label]))})`);
  check(await loadedWidth(b, `#cxr-thumbs li[data-sha="${pngB && pngB.sha256}"] img`) === 16,
    'the PNG joins B\'s thumbnails, loaded');
  const htmlA = await a.content();
  const htmlB = await b.content();
  const hashesA = [dicomA.sha256, dicomA.png_sha256, drawnA.sha256];
  const hashesB = [dicomB.sha256, dicomB.png_sha256, drawnB.sha256, pngB.sha256];
  check(hashesA.every((x) => htmlA.includes(x)) && hashesB.every((x) => htmlB.includes(x)),
    'each page shows its own images (their hashes are in it)');
  check(!hashesB.some((x) => htmlA.includes(x)) && !htmlA.includes(b1) && !htmlA.includes(b2),
    'context A never shows B\'s images or runs');
  check(!hashesA.some((x) => htmlB.includes(x)) && !htmlB.includes(a1) && !htmlB.includes(a2),
    'context B never shows A\'s images or runs');
  check((await runIds(a)).join() === [a1, a2].join() && (await runIds(b)).join() === [b1, b2].join(),
    'each conversation lists its own runs only');
  const pages = [[a, htmlA], [b, htmlB]];
  for (const [p, html] of pages) {
    const where = (await p.title()) + ' ' + p.url();
    check(!/CompressedSamples|1CT1/.test(where + html), `no DICOM patient name or id in the title, URL or page (${where})`);
    check(new URL(p.url()).hash === '#cxr' && !new URL(p.url()).search, `the URL names the view only (${p.url()})`);
  }

  // A reload restores the tab's conversation from its run ids.
  await a.reload({ waitUntil: 'load' });
  check(await until(async () => (await runIds(a)).join() === [a1, a2].join()), 'after a reload the conversation is back');
  check(await waitAnswer(a, a1, QUESTION_BACK) && await waitAnswer(a, a2, FINAL), 'with both answers');
  check(await loadedWidth(a, fig) === 440, 'and the annotated image');
  check(await a.locator('form.cxr-reply').count() === 0, 'no reply box: the last answer asks nothing');

  const violations = await axeViolations(a);
  check(violations.length === 0, `axe: the cxr view has no serious or critical violation (${violations.join(' | ') || 'none'})`);
  const violationsB = await axeViolations(b);
  check(violationsB.length === 0, `axe: context B's view too (${violationsB.join(' | ') || 'none'})`);
  await screenshot(a, 'cxr');

  for (const [name, p] of [['A', a], ['B', b]]) {
    checkClean(check, p, { label: 'context ' + name });
  }
} catch (err) {
  fail(err);
} finally {
  await closeAll(browser, serve, mock);
}
finish();
