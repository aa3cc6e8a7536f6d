// The Chest X-ray view (#cxr): MedRAX's chat over `medreact serve`.
//
// Each browser tab holds its own conversation: the ids of its runs, and
// nothing else, in sessionStorage. Every question is a cxr run of its own
// (POST /v1/runs, multipart with the images); a later one names the earlier
// run in `continues`, so the server gives it that conversation and its images
// under the same ids (service/cxr_runs.h). The page shows only these runs:
// the agent's steps from the tab's one event stream (MR.events, filtered to
// these run ids), the answer labelled as decision support with its run one
// click away, the annotated images the tools made (GET /v1/runs/{id}/images,
// then /v1/artifacts/{sha256}) with alt text naming what was drawn and a
// toggle to the original, and a reply box in place when the agent asks.
//
// Privacy: files are sent as image1.dcm, image2.png, ... (a file's own name
// may name the patient); the title and the URL never change with a run; the
// DICOM's tags are never shown (the dicom_processor step shows a size only).
// Only textContent is written: nothing a run returns becomes markup.
'use strict';

(() => {
  const { h, api } = MR;
  const STORE_KEY = 'medreact.cxr.runs';
  const MAX_BYTES = 20 * 1024 * 1024;  // per image, as the OpenAI facade's limit
  const MAX_FILES = 8;
  const MAX_QUESTION = 4000;

  const state = {
    runs: [],                 // this tab's run ids, oldest first
    turns: new Map(),         // run id → turn (see newTurn)
    images: new Map(),        // run id → its kept images (GET /v1/runs/{id}/images)
    refresh: new Map(),       // run id → {busy, again}: coalesced image reads
    buffer: [],               // while a question is sent or the tab restored: events of runs not known yet
    sending: false,
    restoring: false,
  };
  let els = {};

  // ------------------------------------------------------------ storage --
  function loadRunIds() {
    try {
      const ids = JSON.parse(sessionStorage.getItem(STORE_KEY) || '[]');
      return Array.isArray(ids) ? ids.filter((id) => typeof id === 'string' && /^[A-Za-z0-9_-]{1,80}$/.test(id)) : [];
    } catch (_) {
      return [];
    }
  }
  function saveRunIds() {
    try { sessionStorage.setItem(STORE_KEY, JSON.stringify(state.runs)); } catch (_) { /* private mode: memory only */ }
  }

  // -------------------------------------------------------------- files --
  // The kind of a file by its first bytes (a DICOM without the 128-byte
  // preamble is known by its extension; the server reads it and says so
  // when it is not one).
  async function sniff(file) {
    const head = new Uint8Array(await file.slice(0, 132).arrayBuffer());
    if (head.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => head[i] === b)) return 'png';
    if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
    if (head.length >= 132 && String.fromCharCode(...head.slice(128, 132)) === 'DICM') return 'dicom';
    if (/\.(dcm|dicom)$/i.test(file.name)) return 'dicom';
    return null;
  }

  function fmtBytes(n) {
    return n >= 1024 * 1024 ? (n / (1024 * 1024)).toFixed(1) + ' MB' : Math.max(1, Math.round(n / 1024)) + ' KB';
  }

  // The chosen files checked: {files: [{file, kind}], error}.
  async function checkFiles(list) {
    const files = [...list];
    if (files.length > MAX_FILES) return { error: `Choose at most ${MAX_FILES} images at once (${files.length} chosen).` };
    const out = [];
    for (const file of files) {
      if (file.size === 0) return { error: `"${file.name}" is empty.` };
      if (file.size > MAX_BYTES) {
        return { error: `"${file.name}" is ${fmtBytes(file.size)}; an image may be at most 20 MB.` };
      }
      const kind = await sniff(file);
      if (!kind) {
        return { error: `"${file.name}" is not a PNG, JPEG or DICOM file (its first bytes are none of theirs). ` +
          'Choose a chest X-ray in one of these formats.' };
      }
      out.push({ file, kind });
    }
    return { files: out };
  }

  // -------------------------------------------------------------- errors --
  function fieldError(input, errorEl, message) {
    errorEl.textContent = message || '';
    if (message) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }
  function clearErrors() {
    fieldError(els.files, els.filesError, '');
    fieldError(els.question, els.questionError, '');
    els.formError.textContent = '';
  }
  // A refusal of the server where it belongs: the files, the question, or the form.
  function showApiError(err, questionInput, questionError) {
    const field = err.field || '';
    if (err.status === 413 || field.startsWith('inputs.images') || field === 'body') {
      fieldError(els.files, els.filesError, err.message);
      els.files.focus();
    } else if (field === 'inputs.question') {
      fieldError(questionInput, questionError, err.message);
      questionInput.focus();
    } else if (field === 'inputs.continues') {
      els.formError.textContent = err.message + ' Start a new conversation to ask about other images.';
      els.newButton.focus();
    } else {
      els.formError.textContent = err.message;
    }
    MR.announce(err.message, true);
  }

  // -------------------------------------------------------- tool results --
  function parseResult(text) {
    if (typeof text !== 'string') return null;
    try { return JSON.parse(text); } catch (_) { return null; }
  }
  function clip(text, n) {
    const t = String(text || '').replace(/\s+/g, ' ').trim();
    return t.length > n ? t.slice(0, n - 1) + '…' : t;
  }
  // A short line of what a tool returned (never a DICOM's tags).
  function summarise(tool, ok, text) {
    if (!ok) return 'failed: ' + clip(String(text || '').replace(/^Error:\s*/, ''), 200);
    const r = parseResult(text);
    if (!r || typeof r !== 'object') return 'done';
    switch (tool) {
      case 'chest_xray_classifier': {
        const above = new Set(r.above_threshold || []);
        const found = (r.probabilities || []).filter((p) => above.has(p.label))
          .map((p) => `${p.label} ${Number(p.probability).toFixed(2)}`);
        return found.length ? `above the threshold (${r.threshold}): ${found.join(', ')}`
          : `nothing above the threshold (${r.threshold})`;
      }
      case 'xray_phrase_grounding': {
        const n = (r.boxes || []).length;
        return `"${clip(r.phrase, 60)}": ${n} box${n === 1 ? '' : 'es'} on ${r.image_id}`;
      }
      case 'chest_xray_segmentation': {
        const names = (r.structures || []).map((s) => s.name).join(', ');
        const ctr = r.cardiothoracic_ratio ? `; cardiothoracic ratio ${r.cardiothoracic_ratio.value}` : '';
        return `${names || 'no structure'} on ${r.image_id}${ctr}`;
      }
      case 'image_visualizer':
        return `annotated image ${r.image_id}` + (drawnLabels(r).length ? `: ${drawnLabels(r).join(', ')}` : '');
      case 'xray_vqa': return clip(r.answer, 200);
      case 'chest_xray_report': return clip(r.impression, 200);
      case 'dicom_processor': return `${r.image_id}: ${r.width} × ${r.height} px as read`;
      default: return 'done';
    }
  }
  function drawnLabels(r) {
    return Array.isArray(r.labels_drawn) ? r.labels_drawn.filter((l) => typeof l === 'string' && l) : [];
  }

  // -------------------------------------------------------------- turns --
  function newTurn(runId, question, fileNames) {
    const n = els.turns.children.length + 1;
    const turn = {
      runId, status: 'running', answer: '', steps: new Map(), figures: new Map(),
      stepList: h('ul', { class: 'cxr-steps' }),
      figuresEl: h('div', { class: 'cxr-figures' }),
      statusEl: h('span', { class: 'cxr-status', text: 'working…' }),
      answerEl: h('div', { class: 'cxr-answer', hidden: true }),
      replyEl: h('div', { class: 'cxr-reply-slot' }),
    };
    turn.el = h('li', { class: 'cxr-turn', dataset: { runId } },
      h('h3', { class: 'cxr-turn-heading', tabindex: '-1', text: `Question ${n}` }),
      h('div', { class: 'cxr-user' },
        h('p', { class: 'cxr-text', text: question }),
        fileNames.length ? h('p', { class: 'cxr-sent', text: 'With ' + fileNames.join(', ') }) : null),
      h('div', { class: 'cxr-agent' },
        h('p', { class: 'cxr-who' }, 'Agent: ', turn.statusEl),
        h('h4', { class: 'cxr-steps-heading', text: 'Steps' }), turn.stepList,
        turn.figuresEl, turn.answerEl, turn.replyEl));
    els.turns.append(turn.el);
    els.empty.hidden = true;
    state.turns.set(runId, turn);
    return turn;
  }

  function setStep(turn, key, text, failed) {
    let li = turn.steps.get(key);
    if (!li) {
      li = h('li');
      turn.steps.set(key, li);
      turn.stepList.append(li);
    }
    li.textContent = text;
    li.classList.toggle('cxr-failed', Boolean(failed));
  }

  function isQuestion(text) { return /\?\s*$/.test(text || ''); }

  function showAnswer(turn, status, answer) {
    if (turn.status !== 'running' && turn.answer === answer) return;
    turn.status = status;
    turn.answer = answer;
    const asks = status === 'finished' && isQuestion(answer);
    const label = { finished: 'answered', awaiting_approval: 'waiting for approval', interrupted: 'stopped' }[status];
    turn.statusEl.textContent = asks ? 'asks you a question' : (label || status.replace(/_/g, ' '));
    turn.answerEl.replaceChildren(...[
      h('p', { class: 'cxr-who', text: asks ? 'The agent asks' : status === 'finished' ? 'Answer' : 'The run ended: ' + status }),
      h('p', { class: 'cxr-answer-text', text: answer }),
      status === 'awaiting_approval' ? h('p', {}, 'A tool call waits for a person: ', h('a', { href: '#approvals', text: 'open Approvals' })) : null,
      MR.cdsLabel('#runs/' + encodeURIComponent(turn.runId), 'See the run this is based on'),
    ].filter(Boolean));
    turn.answerEl.hidden = false;
    updateReply();
    if (!state.restoring) {
      MR.announce(asks ? 'The agent asks: ' + clip(answer, 160) + ' Reply below its question.' : 'The agent has answered.');
    }
  }

  // The reply box sits under the last turn when the agent asked a question.
  function updateReply() {
    for (const t of state.turns.values()) t.replyEl.replaceChildren();
    const last = state.turns.get(state.runs[state.runs.length - 1]);
    if (!last || last.status !== 'finished' || !isQuestion(last.answer)) return;
    const id = 'cxr-reply-' + last.runId;
    const input = h('textarea', { id, class: 'cxr-reply-text', rows: 2, 'aria-describedby': id + '-error' });
    const error = h('p', { id: id + '-error', class: 'cxr-error' });
    const form = h('form', { class: 'cxr-reply', novalidate: true },
      h('label', { for: id, text: 'Your reply to the agent\'s question' }), input, error,
      h('button', { type: 'submit', text: 'Send reply' }));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      fieldError(input, error, '');
      // Sent, the box goes: the focus moves to the new question's heading.
      if (await send(input.value, [], input, error)) {
        const heading = els.turns.lastElementChild && els.turns.lastElementChild.querySelector('h3');
        if (heading) heading.focus();
      }
    });
    last.replyEl.append(form);
  }

  // ------------------------------------------------------------- events --
  function onEvent(e) {
    if (!e || !e.run_id) return;
    const turn = state.turns.get(e.run_id);
    if (!turn) {
      // A run's first events may come before its id does (the POST's answer):
      // kept only meanwhile, and only a cxr run's; another tab's are dropped after.
      if ((state.sending || state.restoring) && (e.app === 'cxr' || !e.app)) {
        state.buffer.push(e);
        if (state.buffer.length > 2000) state.buffer.splice(0, state.buffer.length - 2000);
      }
      return;
    }
    apply(turn, e);
  }

  function apply(turn, e) {
    switch (e.type) {
      case 'model_request':
        setStep(turn, 'model:' + e.step, `Model call ${e.step}`);
        break;
      case 'assistant_message':
        // The model's words beside its tool calls (its last words are the answer, shown below).
        if (e.text && e.data && Array.isArray(e.data.tool_calls) && e.data.tool_calls.length) {
          setStep(turn, 'say:' + e.step, 'Model: ' + clip(e.text, 200));
        }
        break;
      case 'tool_started':
        setStep(turn, 'tool:' + e.tool_call_id, `${e.tool_name}: running…`);
        break;
      case 'tool_finished': {
        const ok = e.ok !== false;
        setStep(turn, 'tool:' + e.tool_call_id, `${e.tool_name}: ${summarise(e.tool_name, ok, e.text)}`, !ok);
        if (ok) toolImages(turn, e.tool_name, e.text);
        break;
      }
      case 'approval':
        if (e.data && e.data.decision === 'awaiting') setStep(turn, 'approval:' + e.tool_call_id, `${e.tool_name}: waits for approval`);
        break;
      case 'run_finished':
        showAnswer(turn, (e.data && e.data.status) || 'finished', e.text || '');
        refreshImages(turn.runId);
        break;
      case 'error':
        setStep(turn, 'error:' + e.id, 'Error: ' + clip(e.text, 200), true);
        break;
      default:
        break;
    }
  }

  // A tool result that made an annotated image: a figure for it (its
  // picture comes with the run's image list).
  function toolImages(turn, tool, text) {
    if (tool !== 'image_visualizer') return;
    const r = parseResult(text);
    if (!r || typeof r.image_id !== 'string') return;
    if (!turn.figures.has(r.image_id)) {
      turn.figures.set(r.image_id, { id: r.image_id, source: r.source_image_id, labels: drawnLabels(r), el: null });
      if (!state.restoring) MR.announce('An annotated image is ready.');
    }
    refreshImages(turn.runId);
  }

  // ------------------------------------------------------------- images --
  // One read of a run's image list at a time; asks meanwhile make one more.
  async function refreshImages(runId) {
    const r = state.refresh.get(runId) || { busy: false, again: false };
    state.refresh.set(runId, r);
    if (r.busy) { r.again = true; return; }
    r.busy = true;
    try {
      do {
        r.again = false;
        const body = await api.get('/v1/runs/' + encodeURIComponent(runId) + '/images');
        state.images.set(runId, Array.isArray(body.images) ? body.images : []);
        renderImages(runId);
      } while (r.again);
    } catch (err) {
      MR.setStatus('The images of this conversation could not be read: ' + err.message, true);
    } finally {
      r.busy = false;
    }
  }

  function artifact(sha) { return sha ? '/v1/artifacts/' + sha : null; }
  // Where a browser can show an image: a DICOM by its PNG rendering.
  function viewable(image) {
    if (!image) return null;
    if (image.png_sha256) return artifact(image.png_sha256);
    if (image.origin !== 'user' || image.format === 'png' || image.format === 'jpeg') return artifact(image.sha256);
    return null;
  }

  function renderImages(runId) {
    const images = state.images.get(runId) || [];
    const byId = new Map(images.map((i) => [i.id, i]));
    const turn = state.turns.get(runId);
    if (turn) {
      for (const fig of turn.figures.values()) {
        const image = byId.get(fig.id);
        if (image && !fig.el) {
          fig.el = figure(turn, fig, image, byId.get(fig.source));
          turn.figuresEl.append(fig.el);
        }
      }
    }
    renderThumbs();
  }

  function figure(turn, fig, image, source) {
    const what = fig.labels.length ? fig.labels.join(', ') : 'the tools\' findings';
    const annotatedAlt = `Annotated chest X-ray ${image.id}: ${what} marked on ${fig.source || 'the image'}`;
    const originalAlt = `Original chest X-ray ${fig.source || ''} without the markings of ${what}`.replace(/\s+/g, ' ');
    const annotatedSrc = viewable(image);
    const originalSrc = viewable(source);
    const img = h('img', { src: annotatedSrc, alt: annotatedAlt, class: 'cxr-figure-img', dataset: { sha: image.sha256 } });
    const toggle = h('button', { type: 'button', class: 'cxr-toggle', 'aria-pressed': 'false', text: 'Show original' });
    if (!originalSrc) {
      toggle.disabled = true;
      toggle.title = 'The original is not kept as a picture a browser can show';
    }
    toggle.addEventListener('click', () => {
      const original = toggle.getAttribute('aria-pressed') !== 'true';
      toggle.setAttribute('aria-pressed', String(original));
      img.src = original ? originalSrc : annotatedSrc;
      img.alt = original ? originalAlt : annotatedAlt;
      caption.firstChild.textContent = original ? `Original ${fig.source}` : `Annotated image ${image.id}: ${what}`;
    });
    const caption = h('figcaption', {}, h('span', { text: `Annotated image ${image.id}: ${what}` }), ' ', toggle,
      MR.cdsLabel('#runs/' + encodeURIComponent(turn.runId), 'See the tool calls that drew it'));
    return h('figure', { class: 'cxr-figure', dataset: { imageId: image.id } }, img, caption);
  }

  // The images the user gave in this conversation, each once (by content).
  function renderThumbs() {
    const seen = new Map();
    for (const runId of state.runs) {
      for (const image of state.images.get(runId) || []) {
        if (image.origin === 'user' && !seen.has(image.sha256)) seen.set(image.sha256, image);
      }
    }
    els.thumbs.replaceChildren(...[...seen.values()].map((image) => {
      const src = viewable(image);
      const name = `${image.id}: ${image.label || 'image'} (${(image.format || '').toUpperCase()})`;
      return h('li', { dataset: { sha: image.sha256 } },
        src ? h('img', { src, alt: `Uploaded chest X-ray ${name}`, class: 'cxr-thumb' }) : null,
        h('span', { class: 'cxr-thumb-name', text: name }));
    }));
    els.gallery.hidden = seen.size === 0;
  }

  // --------------------------------------------------------------- send --
  async function send(questionText, files, questionInput, questionError) {
    const question = questionText.trim();
    if (state.sending) return false;
    const last = state.turns.get(state.runs[state.runs.length - 1]);
    if (last && last.status === 'running') {
      els.formError.textContent = 'The agent is still answering the last question: wait for its answer, then ask.';
      MR.announce(els.formError.textContent, true);
      return false;
    }
    if (!question) {
      fieldError(questionInput, questionError, 'Write a question first.');
      questionInput.focus();
      return false;
    }
    if (question.length > MAX_QUESTION) {
      fieldError(questionInput, questionError, `The question is ${question.length} characters; at most ${MAX_QUESTION}.`);
      questionInput.focus();
      return false;
    }
    if (!state.runs.length && !files.length) {
      fieldError(els.files, els.filesError, 'Choose a chest X-ray (PNG, JPEG or DICOM) for the first question.');
      els.files.focus();
      return false;
    }
    const form = new FormData();
    form.append('app', 'cxr');
    const inputs = { question };
    if (files.length) inputs.images = files.map((_, i) => 'upload:image' + (i + 1));
    if (state.runs.length) inputs.continues = state.runs[state.runs.length - 1];
    form.append('inputs', JSON.stringify(inputs));
    const ext = { png: 'png', jpeg: 'jpg', dicom: 'dcm' };
    files.forEach((f, i) => form.append('image' + (i + 1), f.file, `image${i + 1}.${ext[f.kind]}`));
    state.sending = true;
    MR.setStatus('Sending…');
    try {
      const body = await api.postForm('/v1/runs', form);
      const runId = body && body.run && body.run.id;
      if (!runId) throw new MR.ApiError(0, 'internal', 'The server did not name the run it started.');
      state.runs.push(runId);
      saveRunIds();
      const turn = newTurn(runId, question, files.map((f) => f.file.name));
      updateReply();
      for (const e of state.buffer) if (e.run_id === runId) apply(turn, e);
      refreshImages(runId);
      MR.setStatus('');
      MR.announce('Question sent. The agent is working.');
      questionInput.value = '';
      return true;
    } catch (err) {
      MR.setStatus('');
      showApiError(err, questionInput, questionError);
      return false;
    } finally {
      state.sending = false;
      if (!state.restoring) state.buffer = [];
    }
  }

  async function onSubmit(event) {
    event.preventDefault();
    clearErrors();
    const checked = await checkFiles(els.files.files);
    if (checked.error) {
      fieldError(els.files, els.filesError, checked.error);
      MR.announce(checked.error, true);
      els.files.focus();
      return;
    }
    if (await send(els.question.value, checked.files, els.question, els.questionError)) {
      els.files.value = '';
      renderPicked();
    }
  }

  function renderPicked() {
    els.picked.replaceChildren(...[...els.files.files].map((f) => h('li', { text: `${f.name} (${fmtBytes(f.size)})` })));
  }

  function newConversation() {
    state.runs = [];
    saveRunIds();
    state.turns.clear();
    state.images.clear();
    els.turns.replaceChildren();
    els.empty.hidden = false;
    renderThumbs();
    clearErrors();
    MR.announce('A new conversation was started.');
    els.files.focus();
  }

  // ------------------------------------------------------------ restore --
  // A reload of the tab: each run of its conversation read again (question,
  // steps, answer, images); events from now on come from the stream.
  async function restore() {
    state.restoring = true;
    try {
      await restoreRuns();
    } finally {
      state.restoring = false;
      for (const e of state.buffer) {
        const turn = state.turns.get(e.run_id);
        if (turn) apply(turn, e);
      }
      state.buffer = [];
    }
    saveRunIds();
    updateReply();
  }

  async function restoreRuns() {
    for (const runId of loadRunIds()) {
      let view;
      try {
        view = await api.get('/v1/runs/' + encodeURIComponent(runId));
      } catch (err) {
        if (err.status === 404) continue;  // pruned since
        MR.setStatus('The conversation could not be read again: ' + err.message, true);
        break;
      }
      const run = view.run || {};
      if (run.app !== 'cxr') continue;
      state.runs.push(runId);
      const turn = newTurn(runId, (run.inputs && run.inputs.message) || '', []);
      for (const step of view.steps || []) {
        setStep(turn, 'model:' + step.index, `Model call ${step.index}`);
        for (const r of step.tool_results || []) {
          const text = r.ok === false ? r.error : r.content;
          setStep(turn, 'tool:' + r.tool_call_id, `${r.name}: ${summarise(r.name, r.ok !== false, text)}`, r.ok === false);
          if (r.ok !== false) toolImages(turn, r.name, text);
        }
      }
      if (run.status !== 'running') showAnswer(turn, run.status, (run.result && run.result.answer) || '');
      refreshImages(runId);
    }
  }

  // -------------------------------------------------------------- mount --
  MR.registerView('cxr', {
    title: 'Chest X-ray',
    mount(el) {
      els.files = h('input', {
        id: 'cxr-files', type: 'file', multiple: true, class: 'cxr-files',
        accept: '.png,.jpg,.jpeg,.dcm,.dicom,image/png,image/jpeg,application/dicom',
        'aria-describedby': 'cxr-files-hint cxr-files-error',
      });
      els.filesError = h('p', { id: 'cxr-files-error', class: 'cxr-error' });
      els.picked = h('ul', { class: 'cxr-picked', 'aria-label': 'Chosen files' });
      els.question = h('textarea', { id: 'cxr-question', rows: 3, 'aria-describedby': 'cxr-question-error' });
      els.questionError = h('p', { id: 'cxr-question-error', class: 'cxr-error' });
      els.formError = h('p', { id: 'cxr-form-error', class: 'cxr-error', role: 'alert' });
      els.newButton = h('button', { type: 'button', id: 'cxr-new', text: 'New conversation' });
      els.turns = h('ol', { id: 'cxr-turns', class: 'cxr-turns', 'aria-label': 'Questions and answers' });
      els.empty = h('p', { class: 'cxr-empty', text: 'No question asked yet in this tab.' });
      els.thumbs = h('ul', { id: 'cxr-thumbs', class: 'cxr-thumbs' });
      els.gallery = h('section', { class: 'cxr-gallery', 'aria-labelledby': 'cxr-gallery-heading', hidden: true },
        h('h3', { id: 'cxr-gallery-heading', text: 'Images in this conversation' }), els.thumbs);
      const form = h('form', { id: 'cxr-form', class: 'cxr-form', novalidate: true, 'aria-labelledby': 'cxr-ask-heading' },
        h('h2', { id: 'cxr-ask-heading', text: 'Ask about a chest X-ray' }),
        h('div', { class: 'cxr-field' },
          h('label', { for: 'cxr-files', text: 'Chest X-ray images' }),
          h('p', { id: 'cxr-files-hint', class: 'hint',
            text: 'PNG, JPEG or DICOM, at most 20 MB each. The first question needs one; a later one may add more.' }),
          els.files, els.filesError, els.picked),
        h('div', { class: 'cxr-field' },
          h('label', { for: 'cxr-question', text: 'Your question' }), els.question, els.questionError),
        h('div', { class: 'cxr-actions' }, h('button', { type: 'submit', text: 'Ask' }), els.newButton),
        els.formError);
      form.addEventListener('submit', onSubmit);
      els.files.addEventListener('change', () => { fieldError(els.files, els.filesError, ''); renderPicked(); });
      els.newButton.addEventListener('click', newConversation);
      el.append(
        h('p', { class: 'cxr-intro', text: 'Each question is answered by the chest X-ray agent (MedRAX) with its imaging ' +
          'tools. This conversation belongs to this browser tab only: another tab or browser starts its own.' }),
        h('section', { class: 'cxr-conversation', 'aria-labelledby': 'cxr-conv-heading' },
          h('h2', { id: 'cxr-conv-heading', text: 'Conversation' }), els.gallery, els.empty, els.turns),
        form);
      MR.events.subscribe(onEvent);
      restore();
    },
  });
})();
