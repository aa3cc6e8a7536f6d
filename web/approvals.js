// The Approvals view: a card per tool call an agent proposed that waits for a
// person (GET /v1/approvals: the tool, its exact arguments, its parameter
// schema, the run, its app and subject, why it waits). The reviewer approves,
// edits (the JSON checked against the tool's schema here before anything is
// sent; the server checks it again) or rejects with a reason
// (POST /v1/runs/{id}/approvals/{call}); the card then shows the decision,
// who and when, from the server's answer. A decision taken elsewhere
// (another tab, the command line) comes live from the tab's event stream
// (`approval` events; refetches coalesced), and a decision sent too late
// (409) shows the one the server kept instead of overwriting it.
// Only textContent is written: a model's arguments never become markup.
'use strict';

(() => {
  const { h, api } = MR;
  const REVIEWER_KEY = 'medreact.reviewer';
  const cards = new Map();  // 'run/call' → card
  let list, empty, reviewer, reviewerError, visible = false;
  let serial = 0;

  // ------------------------------------------------ JSON Schema (a subset) --
  // What the tools' schemas use: type, enum, const, required, properties,
  // additionalProperties, items, min/max(Length|Items|Properties), minimum,
  // maximum, exclusive bounds, pattern, allOf/anyOf/oneOf and local $ref.
  // Each problem as "pointer: what is wrong".
  function typeOf(v) {
    if (v === null) return 'null';
    if (Array.isArray(v)) return 'array';
    if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
    return typeof v;  // string, boolean, object
  }
  function sameJson(a, b) { return JSON.stringify(a) === JSON.stringify(b); }
  function resolve(root, ref) {
    if (typeof ref !== 'string' || !ref.startsWith('#')) return null;
    let node = root;
    for (const raw of ref.slice(1).split('/').filter(Boolean)) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (!node || typeof node !== 'object' || !(key in node)) return null;
      node = node[key];
    }
    return node;
  }
  function validate(schema, value, root = schema, path = '', depth = 0, out = []) {
    if (depth > 64 || schema === true || schema === undefined || schema === null) return out;
    const at = path || '(the arguments)';
    if (schema === false) { out.push(`${at}: no value is allowed here`); return out; }
    if (typeof schema !== 'object') return out;
    if (schema.$ref) {
      const target = resolve(root, schema.$ref);
      if (target) validate(target, value, root, path, depth + 1, out);
    }
    const t = typeOf(value);
    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      const ok = types.some((want) => want === t || (want === 'number' && t === 'integer'));
      if (!ok) { out.push(`${at}: must be ${types.join(' or ')}, not ${t}`); return out; }
    }
    if (Array.isArray(schema.enum) && !schema.enum.some((e) => sameJson(e, value))) {
      out.push(`${at}: must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
    }
    if ('const' in schema && !sameJson(schema.const, value)) out.push(`${at}: must be ${JSON.stringify(schema.const)}`);
    if (t === 'string') {
      const n = [...value].length;
      if (schema.minLength !== undefined && n < schema.minLength) {
        out.push(`${at}: must have at least ${schema.minLength} character${schema.minLength === 1 ? '' : 's'}`);
      }
      if (schema.maxLength !== undefined && n > schema.maxLength) out.push(`${at}: must have at most ${schema.maxLength} characters`);
      if (typeof schema.pattern === 'string') {
        let re = null;
        try { re = new RegExp(schema.pattern, 'u'); } catch (_) { /* the server checks it */ }
        if (re && !re.test(value)) out.push(`${at}: must match the pattern ${schema.pattern}`);
      }
    }
    if (t === 'number' || t === 'integer') {
      if (typeof schema.minimum === 'number' && value < schema.minimum) out.push(`${at}: must be at least ${schema.minimum}`);
      if (typeof schema.maximum === 'number' && value > schema.maximum) out.push(`${at}: must be at most ${schema.maximum}`);
      if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) {
        out.push(`${at}: must be more than ${schema.exclusiveMinimum}`);
      }
      if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) {
        out.push(`${at}: must be less than ${schema.exclusiveMaximum}`);
      }
    }
    if (t === 'object') {
      const props = schema.properties && typeof schema.properties === 'object' ? schema.properties : {};
      for (const key of Array.isArray(schema.required) ? schema.required : []) {
        if (!(key in value)) out.push(`${at}: the property "${key}" is required`);
      }
      for (const [key, v] of Object.entries(value)) {
        const where = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        if (key in props) validate(props[key], v, root, where, depth + 1, out);
        else if (schema.additionalProperties === false) {
          out.push(`${at}: the property "${key}" is not allowed (allowed: ${Object.keys(props).join(', ') || 'none'})`);
        } else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
          validate(schema.additionalProperties, v, root, where, depth + 1, out);
        }
      }
      const n = Object.keys(value).length;
      if (schema.minProperties !== undefined && n < schema.minProperties) out.push(`${at}: needs at least ${schema.minProperties} properties`);
      if (schema.maxProperties !== undefined && n > schema.maxProperties) out.push(`${at}: allows at most ${schema.maxProperties} properties`);
    }
    if (t === 'array') {
      if (schema.minItems !== undefined && value.length < schema.minItems) out.push(`${at}: needs at least ${schema.minItems} item(s)`);
      if (schema.maxItems !== undefined && value.length > schema.maxItems) out.push(`${at}: allows at most ${schema.maxItems} items`);
      if (schema.items && typeof schema.items === 'object' && !Array.isArray(schema.items)) {
        value.forEach((v, i) => validate(schema.items, v, root, `${path}/${i}`, depth + 1, out));
      }
    }
    if (Array.isArray(schema.allOf)) for (const s of schema.allOf) validate(s, value, root, path, depth + 1, out);
    const passing = (branches) => branches.filter((s) => validate(s, value, root, path, depth + 1, []).length === 0).length;
    if (Array.isArray(schema.anyOf) && passing(schema.anyOf) === 0) out.push(`${at}: matches none of the allowed forms`);
    if (Array.isArray(schema.oneOf) && passing(schema.oneOf) !== 1) out.push(`${at}: must match exactly one of the allowed forms`);
    return out;
  }

  // The edit's text checked: {value} or {error}.
  function checkEdit(text, schema) {
    let value;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return { error: `Not valid JSON: ${err.message}. Fix the text; nothing was sent.` };
    }
    if (typeOf(value) !== 'object') return { error: `The arguments must be a JSON object ({…}), not ${typeOf(value)}. Nothing was sent.` };
    if (schema) {
      const problems = validate(schema, value);
      if (problems.length) {
        const shown = problems.slice(0, 5).join('; ') + (problems.length > 5 ? `; and ${problems.length - 5} more` : '');
        return { error: `The tool's schema refuses these arguments: ${shown}. Nothing was sent.` };
      }
    }
    return { value };
  }

  // ------------------------------------------------------------- helpers --
  const DECISION_WORDS = { approved: 'Approved', edited: 'Approved with edited arguments', rejected: 'Rejected' };

  function ruleText(rule) {
    if (rule === 'all') return 'every tool call';
    if (rule === 'network') return 'calls that reach the internet';
    if (rule.startsWith('pack:')) return `the calls of the ${rule.slice(5)} pack`;
    if (rule.startsWith('tool:')) return `the calls of ${rule.slice(5)}`;
    return rule;
  }
  function whyText(rules) {
    if (!rules || rules.length === 0) return 'The run waits for a person to decide this call.';
    return `The run was started asking a person to approve ${rules.map(ruleText).join(', ')} ` +
      `(approval rule${rules.length === 1 ? '' : 's'}: ${rules.join(', ')}).`;
  }
  function pretty(value) { return JSON.stringify(value, null, 2); }

  function setFieldError(input, errorEl, text) {
    errorEl.textContent = text || '';
    if (text) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }

  // The reviewer's name, or null after showing why not (focus on the field).
  function reviewerName() {
    const name = reviewer.value.trim();
    if (!name) {
      setFieldError(reviewer, reviewerError, 'Enter your name before deciding: it is recorded with the decision.');
      reviewer.focus();
      return null;
    }
    if (name.length > 200) {
      setFieldError(reviewer, reviewerError, 'Your name is too long: at most 200 characters.');
      reviewer.focus();
      return null;
    }
    setFieldError(reviewer, reviewerError, '');
    try { localStorage.setItem(REVIEWER_KEY, name); } catch (_) { /* storage off: nothing kept */ }
    return name;
  }

  // ---------------------------------------------------------------- cards --
  function buildCard(run, call) {
    const n = ++serial;
    const ids = {
      heading: `approval-${n}-heading`, edit: `approval-${n}-edit`, editText: `approval-${n}-edit-text`,
      editError: `approval-${n}-edit-error`, editHint: `approval-${n}-edit-hint`, reject: `approval-${n}-reject`,
      reason: `approval-${n}-reason`, reasonError: `approval-${n}-reason-error`,
    };
    const card = { run, call, decided: null, sending: false, ids };
    const runLink = '#runs/' + encodeURIComponent(run.run_id);
    const approveBtn = h('button', { type: 'button', class: 'approve', 'aria-describedby': ids.heading, text: 'Approve' });
    const editBtn = h('button', {
      type: 'button', class: 'edit secondary', 'aria-expanded': 'false', 'aria-controls': ids.edit,
      'aria-describedby': ids.heading, text: 'Edit…',
    });
    const rejectBtn = h('button', {
      type: 'button', class: 'reject secondary', 'aria-expanded': 'false', 'aria-controls': ids.reject,
      'aria-describedby': ids.heading, text: 'Reject…',
    });
    const editText = h('textarea', {
      id: ids.editText, rows: 6, spellcheck: 'false', autocapitalize: 'off', autocomplete: 'off',
      'aria-describedby': `${ids.editHint} ${ids.editError}`,
    });
    const editError = h('p', { id: ids.editError, class: 'field-error' });
    const schemaNote = call.parameters
      ? 'Checked against the tool\'s schema before it is sent.'
      : `The tool's schema is not available here (${call.parameters_note || 'unknown'}): the server checks the edit.`;
    const editForm = h('form', { id: ids.edit, class: 'approval-form', hidden: true, novalidate: true },
      h('label', { for: ids.editText, text: 'Arguments to run the call with (JSON)' }),
      h('p', { id: ids.editHint, class: 'hint', text: schemaNote }),
      editText, editError,
      h('div', { class: 'form-actions' },
        h('button', { type: 'submit', text: 'Approve with these arguments' }),
        h('button', { type: 'button', class: 'secondary cancel', text: 'Cancel edit' })));
    const reason = h('textarea', { id: ids.reason, rows: 2, 'aria-describedby': ids.reasonError });
    const reasonError = h('p', { id: ids.reasonError, class: 'field-error' });
    const rejectForm = h('form', { id: ids.reject, class: 'approval-form', hidden: true, novalidate: true },
      h('label', { for: ids.reason, text: 'Why you reject it (the model reads this)' }),
      reason, reasonError,
      h('div', { class: 'form-actions' },
        h('button', { type: 'submit', text: 'Reject the call' }),
        h('button', { type: 'button', class: 'secondary cancel', text: 'Cancel rejection' })));
    const actions = h('div', { class: 'approval-actions' }, approveBtn, editBtn, rejectBtn);
    const error = h('p', { class: 'approval-error', role: 'alert' });
    const outcome = h('div', { class: 'approval-outcome', tabindex: '-1', hidden: true });
    const el = h('article', {
      class: 'approval-card', 'aria-labelledby': ids.heading,
      dataset: { runId: run.run_id, callId: call.call_id, state: 'waiting' },
    },
    h('h3', { id: ids.heading },
      h('span', { class: 'tool-name', text: call.tool }),
      h('span', { class: 'call-id', text: ` call ${call.call_id}` })),
    MR.cdsLabel(runLink, 'See the run this call comes from'),
    h('p', { class: 'proposal', text: 'Proposed by the model; nothing runs until a person decides.' }),
    h('dl', { class: 'approval-facts' },
      h('dt', { text: 'Run' }), h('dd', {}, h('a', { href: runLink, text: run.run_id }), ` (step ${call.step})`),
      h('dt', { text: 'App' }), h('dd', { text: run.app }),
      h('dt', { text: 'Patient' }), h('dd', { class: 'subject', text: (run.subject && run.subject.text) || 'Not known.' }),
      h('dt', { text: 'Why it waits' }), h('dd', { text: whyText(run.rules) })),
    h('h4', { text: 'Arguments the model proposed' }),
    h('pre', { class: 'approval-args', text: pretty(call.arguments) }),
    actions, editForm, rejectForm, error, outcome);
    Object.assign(card, { el, approveBtn, editBtn, rejectBtn, editForm, editText, editError, rejectForm, reason, reasonError, actions, error, outcome });

    approveBtn.addEventListener('click', () => decide(card, { decision: 'approve' }));
    editBtn.addEventListener('click', () => toggle(card, 'edit'));
    rejectBtn.addEventListener('click', () => toggle(card, 'reject'));
    for (const cancel of el.querySelectorAll('button.cancel')) {
      cancel.addEventListener('click', () => toggle(card, null));
    }
    editText.addEventListener('input', () => setFieldError(editText, editError, ''));
    reason.addEventListener('input', () => setFieldError(reason, reasonError, ''));
    editForm.addEventListener('submit', (event) => {
      event.preventDefault();
      const checked = checkEdit(editText.value, card.call.parameters);
      if (checked.error) {
        setFieldError(editText, editError, checked.error);
        editText.focus();
        return;
      }
      setFieldError(editText, editError, '');
      decide(card, { decision: 'edit', arguments: checked.value });
    });
    rejectForm.addEventListener('submit', (event) => {
      event.preventDefault();
      const why = reason.value.trim();
      if (!why) {
        setFieldError(reason, reasonError, 'Give a reason: the model reads it to change its course. Nothing was sent.');
        reason.focus();
        return;
      }
      setFieldError(reason, reasonError, '');
      decide(card, { decision: 'reject', reason: why });
    });
    return card;
  }

  // Opens the edit or reject form (or neither), one at a time.
  function toggle(card, which) {
    const open = (form, btn, on) => { form.hidden = !on; btn.setAttribute('aria-expanded', String(on)); };
    open(card.editForm, card.editBtn, which === 'edit');
    open(card.rejectForm, card.rejectBtn, which === 'reject');
    if (which === 'edit') {
      if (!card.editText.value) card.editText.value = pretty(card.call.arguments);
      card.editText.focus();
    } else if (which === 'reject') {
      card.reason.focus();
    } else {
      card.approveBtn.focus();
    }
  }

  function setSending(card, on) {
    card.sending = on;
    for (const b of card.el.querySelectorAll('button')) b.disabled = on;
    card.el.setAttribute('aria-busy', String(on));
  }

  async function decide(card, body) {
    if (card.decided || card.sending) return;
    const name = reviewerName();
    if (!name) return;
    card.error.textContent = '';
    setSending(card, true);
    const path = `/v1/runs/${encodeURIComponent(card.run.run_id)}/approvals/${encodeURIComponent(card.call.call_id)}`;
    try {
      const answer = await api.post(path, { ...body, reviewer: name });
      const mine = (answer.decisions || []).find((d) => d.call_id === card.call.call_id);
      showDecision(card, mine || { decision: body.decision === 'reject' ? 'rejected' : 'approved', reviewer: name },
        { here: true, continuing: answer.continuing });
    } catch (err) {
      setSending(card, false);
      if (err.status === 409) return showKept(card, err.message);
      if (err.field === 'arguments' && !card.editForm.hidden) {
        setFieldError(card.editText, card.editError, `The server refused the arguments: ${err.message}`);
        card.editText.focus();
      } else if (err.field === 'reason' && !card.rejectForm.hidden) {
        setFieldError(card.reason, card.reasonError, err.message);
        card.reason.focus();
      } else if (err.field === 'reviewer') {
        setFieldError(reviewer, reviewerError, err.message);
        reviewer.focus();
      } else {
        card.error.textContent = `Not sent: ${err.message}`;
      }
    }
  }

  // A decision came too late: the server kept an earlier one. Show that one.
  async function showKept(card, message) {
    let kept = null;
    try {
      const one = await api.get(`/v1/runs/${encodeURIComponent(card.run.run_id)}/approvals`);
      kept = (one.decided || []).find((d) => d.call_id === card.call.call_id) || null;
    } catch (_) { /* the server's message below still says who and when */ }
    if (kept) showDecision(card, kept, { here: false, late: true });
    else showGone(card, `Not sent: ${message}`);
  }

  // The card shows a decision (who, when, what) and loses its buttons.
  function showDecision(card, d, { here = false, late = false, continuing } = {}) {
    if (card.decided) return;
    card.decided = d;
    const focusWasHere = card.el.contains(document.activeElement);
    const word = DECISION_WORDS[d.decision] || d.decision;
    const when = d.decided_at ? MR.fmtTime(d.decided_at) : '';
    card.actions.remove();
    card.editForm.remove();
    card.rejectForm.remove();
    card.el.removeAttribute('aria-busy');
    card.el.dataset.state = d.decision;
    const parts = [
      h('p', { class: 'decision' },
        h('strong', { class: 'decision-word', text: word }),
        d.reviewer ? h('span', { class: 'decision-who', text: ` by ${d.reviewer}` }) : null,
        when ? h('span', {}, ', ', h('time', { datetime: d.decided_at, class: 'decision-when', text: when })) : null,
        '.'),
    ];
    if (late) parts.push(h('p', { class: 'decision-note', text: 'Someone decided this call before your decision reached the server: theirs is kept, yours was not sent.' }));
    else if (!here) parts.push(h('p', { class: 'decision-note', text: 'Decided elsewhere (another tab or the command line).' }));
    if (d.reason) parts.push(h('p', { class: 'decision-reason' }, 'Reason: ', h('q', { text: d.reason })));
    if (d.decision === 'edited' && d.arguments !== undefined) {
      parts.push(h('p', { text: 'Run with the arguments:' }), h('pre', { class: 'approval-args', text: pretty(d.arguments) }));
    }
    if (here && continuing === false) parts.push(h('p', { class: 'decision-note', text: 'The run waits for its other calls to be decided.' }));
    card.outcome.replaceChildren(...parts);
    card.outcome.hidden = false;
    if (focusWasHere || ((here || late) && document.activeElement === document.body)) card.outcome.focus();
    const who = d.reviewer ? ` by ${d.reviewer}` : '';
    MR.announce(`${card.call.tool} call ${card.call.call_id}: ${word.toLowerCase()}${who}${here ? '' : ' elsewhere'}.`);
    renderEmpty();
  }

  // The call no longer waits and the server has no decision for it (the
  // run ended another way).
  function showGone(card, text) {
    if (card.decided) return;
    card.decided = { decision: 'gone' };
    const focusWasHere = card.el.contains(document.activeElement);
    card.actions.remove();
    card.editForm.remove();
    card.rejectForm.remove();
    card.el.dataset.state = 'gone';
    card.outcome.replaceChildren(h('p', { class: 'decision', text }));
    card.outcome.hidden = false;
    if (focusWasHere) card.outcome.focus();
    renderEmpty();
  }

  function renderEmpty() {
    const waiting = [...cards.values()].filter((c) => !c.decided).length;
    empty.hidden = waiting !== 0;
    list.dataset.waiting = String(waiting);
  }

  // --------------------------------------------------------------- loading --
  let loading = null;
  let loadedOnce = false;
  let again = false;
  let timer = null;

  async function load() {
    if (loading) { again = true; return loading; }
    loading = (async () => {
      try {
        const body = await api.get('/v1/approvals');
        const seen = new Set();
        let added = 0;
        for (const run of body.runs || []) {
          for (const call of run.waiting || []) {
            const key = `${run.run_id}/${call.call_id}`;
            seen.add(key);
            if (cards.has(key)) continue;  // a card keeps what the reviewer typed
            const card = buildCard(run, call);
            cards.set(key, card);
            list.append(card.el);
            added++;
          }
        }
        if (added && loadedOnce) MR.announce(`${added} new call${added === 1 ? '' : 's'} waiting for approval.`);
        loadedOnce = true;
        // Cards that stopped waiting without this tab deciding them: what the server kept.
        const vanished = [...cards.entries()].filter(([key, c]) => !c.decided && !c.sending && !seen.has(key));
        const byRun = new Map();
        for (const [, c] of vanished) byRun.set(c.run.run_id, [...(byRun.get(c.run.run_id) || []), c]);
        for (const [runId, group] of byRun) {
          try {
            const one = await api.get(`/v1/runs/${encodeURIComponent(runId)}/approvals`);
            for (const c of group) {
              const d = (one.decided || []).find((x) => x.call_id === c.call.call_id);
              const still = (one.waiting || []).some((x) => x.call_id === c.call.call_id);
              if (d) showDecision(c, d);
              else if (!still) showGone(c, `No longer waiting: the run is ${one.status}, and no decision was recorded for this call.`);
            }
          } catch (err) {
            if (err.status === 404) for (const c of group) showGone(c, 'No longer waiting: the run was deleted.');
          }
        }
        renderEmpty();
        MR.setStatus('');
      } catch (err) {
        MR.setStatus(`Could not load the calls waiting for approval: ${err.message}`, true);
      } finally {
        loading = null;
        if (again) { again = false; refreshSoon(); }
      }
    })();
    return loading;
  }

  // Many events, one refetch: at most one request in flight and one queued.
  function refreshSoon() {
    if (!visible || timer) return;
    timer = setTimeout(() => { timer = null; load(); }, 250);
  }

  function onEvent(event) {
    if (event.type === 'approval') {
      const data = event.data || {};
      const card = cards.get(`${event.run_id}/${event.tool_call_id}`);
      if (card && !card.decided && !card.sending && data.decision && data.decision !== 'awaiting') {
        showDecision(card, { call_id: event.tool_call_id, tool: event.tool_name, ...data });
      }
      refreshSoon();
    } else if (event.type === 'run_finished' || event.type === 'error') {
      if ([...cards.values()].some((c) => c.run.run_id === event.run_id && !c.decided)) refreshSoon();
    }
  }

  MR.registerView('approvals', {
    title: 'Approvals',
    mount(el) {
      const hint = h('p', { id: 'approvals-reviewer-hint', class: 'hint', text: 'Recorded with each decision you take; this browser remembers it.' });
      reviewerError = h('p', { id: 'approvals-reviewer-error', class: 'field-error' });
      reviewer = h('input', {
        id: 'approvals-reviewer', type: 'text', autocomplete: 'name', required: true, maxlength: '200',
        'aria-describedby': 'approvals-reviewer-hint approvals-reviewer-error',
      });
      try { reviewer.value = localStorage.getItem(REVIEWER_KEY) || ''; } catch (_) { /* storage off */ }
      reviewer.addEventListener('input', () => setFieldError(reviewer, reviewerError, ''));
      reviewer.addEventListener('change', () => {
        const name = reviewer.value.trim();
        try { if (name) localStorage.setItem(REVIEWER_KEY, name); } catch (_) { /* storage off */ }
      });
      list = h('div', { id: 'approvals-list', class: 'approval-list' });
      empty = h('p', { id: 'approvals-empty', class: 'empty', text: 'No call is waiting for approval.', hidden: true });
      el.append(
        h('p', { class: 'intro', text: 'Tool calls the agents proposed that wait for a person. Approve a call, edit its arguments, or reject it with a reason; the run goes on once none of its calls waits.' }),
        h('div', { class: 'reviewer' },
          h('label', { for: 'approvals-reviewer', text: 'Your name (reviewer)' }), reviewer, hint, reviewerError),
        h('section', { 'aria-labelledby': 'approvals-heading' },
          h('h2', { id: 'approvals-heading', class: 'visually-hidden', text: 'Calls waiting for approval' }),
          empty, list));
      MR.events.subscribe(onEvent);
    },
    show() { visible = true; load(); },
    hide() { visible = false; },
  });
})();
