// The runs view: a searchable list of the server's runs (#runs) and the run
// inspector (#runs/RUN_ID): who holds a run, its steps, each model call's
// tokens and latency, each tool call's arguments and result, its events with
// their times, its answer labelled as decision support, and a cancel.
//
// Live from the tab's one event stream (MR.events): the list refetches at
// most once a second when runs start, step or end; the inspector appends the
// run's events as they come and merges them with its first load by seq (a
// run's number for its events), so none is shown twice and a gap is fetched
// (`?events_after=N`). Only textContent is written: a run's text never
// becomes markup. The URL holds a run id at most, never a patient's.
'use strict';

(() => {
  const { h, api } = MR;
  const STATUSES = ['running', 'awaiting_approval', 'finished', 'interrupted', 'error', 'max_steps', 'stuck',
    'timeout', 'budget'];
  const COLUMNS = [
    { key: 'id', label: 'Run' }, { key: 'app', label: 'App' }, { key: 'status', label: 'Status' },
    { key: 'steps', label: 'Steps', numeric: true }, { key: 'created_at', label: 'Created' },
    { key: 'updated_at', label: 'Updated' },
  ];
  const PAGE = 50;
  const LONG_TEXT = 600;  // characters past which a value is folded in <details>
  const ID_SEARCH = /^[A-Za-z0-9_-]{0,64}$/;

  const list = { runs: [], next: null, sortKey: 'updated_at', sortDir: 'descending', q: '', app: '', status: '',
    stale: true, timer: null, seq: 0 };
  const insp = newInspection(null);
  let ui = {};  // the view's elements, built in mount
  let visible = false;

  function newInspection(id) {
    return { id, run: null, steps: [], events: new Map(), stepEls: new Map(), want: false, wantEvents: false,
      timer: null, inFlight: false, failed: false, gapAt: -1, contig: 0 };
  }

  function statusLabel(status) { return String(status || '').replace(/_/g, ' '); }
  function statusBadge(status) {
    return h('span', { class: 'run-status status-' + String(status || 'unknown').replace(/[^a-z_]/g, '') },
      statusLabel(status));
  }
  function runHref(id, section) {
    return '#runs/' + encodeURIComponent(id) + (section ? '/' + section : '');
  }
  function fmtMs(ms) {
    const n = Number(ms);
    if (!Number.isFinite(n)) return '';
    return n >= 10000 ? (n / 1000).toFixed(1) + ' s' : Math.round(n) + ' ms';
  }
  function fmtNum(n) { return Number.isFinite(Number(n)) ? Number(n).toLocaleString() : ''; }
  function preview(text, max = 100) {
    const s = String(text ?? '').replace(/\s+/g, ' ').trim();
    return s.length > max ? s.slice(0, max - 1) + '…' : s;
  }
  // JSON text pretty-printed when it is JSON, else as it is.
  function pretty(value) {
    if (typeof value !== 'string') return JSON.stringify(value, null, 2);
    try { return JSON.stringify(JSON.parse(value), null, 2); } catch (_) { return value; }
  }
  // A value in <pre>; a long one folded in <details> with its size. One that
  // may scroll (past its max-height) is a labelled region the keyboard reaches.
  function preBlock(label, text, cls) {
    const scrolls = text.length > LONG_TEXT || text.split('\n').length > 16;
    return h('pre', { class: 'json ' + (cls || ''), tabindex: scrolls ? '0' : null, role: scrolls ? 'region' : null,
      'aria-label': scrolls ? label : null }, text);
  }
  function block(label, text, cls) {
    const pre = preBlock(label, text, cls);
    if (text.length <= LONG_TEXT) return h('div', { class: 'value' }, h('p', { class: 'value-label', text: label }), pre);
    return h('details', { class: 'value' },
      h('summary', {}, label + ' (' + fmtNum(text.length) + ' characters)'), pre);
  }
  function time(iso) {
    return iso ? h('time', { datetime: iso, title: iso }, MR.fmtTime(iso)) : '';
  }
  // An event's time to the millisecond (a run's events share their seconds).
  function eventTime(iso) {
    const d = new Date(iso || '');
    if (!iso || Number.isNaN(d.getTime())) return time(iso);
    return h('time', { datetime: iso, title: MR.fmtTime(iso) }, d.toLocaleTimeString(undefined,
      { hour: '2-digit', minute: '2-digit', second: '2-digit', fractionalSecondDigits: 3, hour12: false }));
  }

  // ============================================================= the list ==
  function listPath(offset, limit) {
    const p = new URLSearchParams({ limit: String(limit), offset: String(offset) });
    if (list.q) p.set('q', list.q);
    if (list.app) p.set('app', list.app);
    if (list.status) p.set('status', list.status);
    return '/v1/runs?' + p.toString();
  }

  // Loads the first page again (as many rows as shown, for a live refresh),
  // or the next page (`more`). A newer request wins over an older one.
  async function loadList({ more = false, announce = false } = {}) {
    const mine = ++list.seq;
    const offset = more ? list.runs.length : 0;
    const limit = more ? PAGE : Math.min(500, Math.max(PAGE, list.runs.length));
    ui.listBusy.hidden = !(more || announce || !list.runs.length);  // a live refresh does not flicker
    try {
      const page = await api.get(listPath(offset, limit));
      if (mine !== list.seq) return;
      if (more) {
        // Runs that moved up since (newer updates) are not shown twice.
        const shown = new Set(list.runs.map((r) => r.id));
        list.runs = list.runs.concat((page.runs || []).filter((r) => !shown.has(r.id)));
      } else {
        list.runs = page.runs || [];
      }
      list.next = page.next_offset ?? null;
      list.stale = false;
      if (list.failed) MR.setStatus('');
      list.failed = false;
      setSearchError('');
      renderList();
      if (announce) MR.announce(countText());
    } catch (err) {
      if (mine !== list.seq) return;
      list.stale = true;
      if (err.field === 'q' || err.field === 'status' || err.field === 'app') {
        setSearchError(err.message);
      } else {
        list.failed = true;  // loaded again when the stream is back
        MR.setStatus('The runs could not be loaded: ' + err.message, true);
      }
    } finally {
      if (mine === list.seq) ui.listBusy.hidden = true;
    }
  }

  function countText() {
    const n = list.runs.length;
    const what = n === 1 ? '1 run' : n + ' runs';
    return (list.q || list.app || list.status ? what + ' found' : what + ' shown') + (list.next !== null ? ', more to load' : '');
  }

  function compare(a, b, key, numeric) {
    const x = a[key] ?? '';
    const y = b[key] ?? '';
    if (numeric) return Number(x) - Number(y);
    return String(x).localeCompare(String(y));
  }

  function renderList() {
    const table = ui.table;
    for (const th of table.querySelectorAll('thead th')) {
      if (th.dataset.key === list.sortKey) th.setAttribute('aria-sort', list.sortDir);
      else th.removeAttribute('aria-sort');
    }
    const col = COLUMNS.find((c) => c.key === list.sortKey);
    const sign = list.sortDir === 'ascending' ? 1 : -1;
    const rows = [...list.runs].sort((a, b) => sign * compare(a, b, list.sortKey, col && col.numeric) ||
      String(a.id).localeCompare(String(b.id)));
    const focusedRun = document.activeElement && document.activeElement.closest &&
      document.activeElement.closest('#runs tbody a') ? document.activeElement.dataset.runId : null;
    const body = table.tBodies[0];
    body.replaceChildren();
    if (rows.length === 0) {
      body.append(h('tr', {}, h('td', { colSpan: COLUMNS.length,
        text: list.q || list.app || list.status ? 'No run matches.' : 'No runs yet.' })));
    }
    for (const run of rows) {
      body.append(h('tr', { dataset: { runId: run.id } },
        h('td', {}, h('a', { href: runHref(run.id), class: 'run-link', dataset: { runId: run.id } }, run.id)),
        h('td', { text: run.app || '' }),
        h('td', {}, statusBadge(run.status)),
        h('td', { class: 'num', text: fmtNum(run.steps) }),
        h('td', {}, time(run.created_at)),
        h('td', {}, time(run.updated_at))));
    }
    if (focusedRun) {
      const again = body.querySelector(`a[data-run-id="${CSS.escape(focusedRun)}"]`);
      if (again) again.focus();
    }
    ui.count.textContent = countText();
    ui.more.hidden = list.next === null;
  }

  function onSort(event) {
    const button = event.target.closest('th button');
    if (!button) return;
    const key = button.parentElement.dataset.key;
    if (list.sortKey === key) list.sortDir = list.sortDir === 'ascending' ? 'descending' : 'ascending';
    else { list.sortKey = key; list.sortDir = 'ascending'; }
    renderList();
  }

  function setSearchError(text) {
    ui.searchError.textContent = text;
    ui.q.setAttribute('aria-invalid', text ? 'true' : 'false');
  }

  let searchTimer = null;
  function onSearchInput() {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(search, 300);  // one request per pause in typing, not per key
  }
  function search(event) {
    if (event) event.preventDefault();
    clearTimeout(searchTimer);
    const q = ui.q.value.trim();
    if (!ID_SEARCH.test(q)) {
      setSearchError('Type a part of a run id: letters, digits, "_" or "-" (at most 64).');
      return;
    }
    list.q = q;
    list.app = ui.app.value;
    list.status = ui.status.value;
    list.runs = [];
    loadList({ announce: true });
  }

  // A live refresh at most once a second, whatever the number of events.
  function scheduleListRefresh() {
    list.stale = true;
    if (list.timer || !visible || insp.id) return;
    list.timer = setTimeout(() => {
      list.timer = null;
      if (visible && !insp.id) loadList();
    }, 1000);
  }

  function mountList() {
    ui.q = h('input', { id: 'runs-q', type: 'search', name: 'q', autocomplete: 'off', spellcheck: 'false',
      maxlength: '64', 'aria-describedby': 'runs-q-hint runs-q-error', on: { input: onSearchInput } });
    ui.app = h('select', { id: 'runs-app', name: 'app', on: { change: search } },
      h('option', { value: '', text: 'Any app' }));
    ui.status = h('select', { id: 'runs-status', name: 'status', on: { change: search } },
      h('option', { value: '', text: 'Any status' }), STATUSES.map((s) => h('option', { value: s, text: statusLabel(s) })));
    ui.searchError = h('p', { id: 'runs-q-error', class: 'field-error', role: 'alert' });
    const form = h('form', { class: 'runs-search', role: 'search', 'aria-label': 'Find runs', on: { submit: search } },
      h('div', { class: 'field' }, h('label', { for: 'runs-q', text: 'Run id contains' }), ui.q,
        h('p', { id: 'runs-q-hint', class: 'hint', text: 'A part of a run id, e.g. its last characters.' })),
      h('div', { class: 'field' }, h('label', { for: 'runs-app', text: 'App' }), ui.app),
      h('div', { class: 'field' }, h('label', { for: 'runs-status', text: 'Status' }), ui.status),
      h('div', { class: 'field field-button' }, h('button', { type: 'submit', text: 'Search' })),
      ui.searchError);
    ui.table = h('table', { id: 'runs', class: 'runs-table' },
      h('caption', { text: 'Runs of this server, newest first. Select a column heading to sort; a run id opens the run.' }),
      h('thead', {}, h('tr', {}, COLUMNS.map((c) =>
        h('th', { scope: 'col', class: c.numeric ? 'num' : null, dataset: { key: c.key } },
          h('button', { type: 'button', text: c.label }))))),
      h('tbody'));
    ui.table.tHead.addEventListener('click', onSort);
    // A row's click opens it too; the keyboard uses the id's link.
    ui.table.tBodies[0].addEventListener('click', (event) => {
      const tr = event.target.closest('tr[data-run-id]');
      if (tr && !event.target.closest('a')) MR.go(runHref(tr.dataset.runId));
    });
    ui.count = h('p', { id: 'runs-count', class: 'runs-count' });  // a search announces it (MR.announce)
    ui.listBusy = h('p', { class: 'busy', hidden: true, text: 'Loading…' });
    ui.more = h('button', { type: 'button', id: 'runs-more', hidden: true, text: 'Load more runs',
      on: { click: () => loadList({ more: true }) } });
    ui.apps = h('ul', { id: 'apps', class: 'apps' });
    return h('div', { id: 'runs-list' },
      h('section', { 'aria-labelledby': 'runs-heading' }, h('h2', { id: 'runs-heading', text: 'Runs' }), form,
        ui.count, ui.listBusy, h('div', { class: 'table-scroll' }, ui.table), ui.more),
      h('section', { 'aria-labelledby': 'apps-heading' }, h('h2', { id: 'apps-heading', text: 'Apps' }), ui.apps));
  }

  async function loadApps() {
    try {
      const apps = (await api.get('/v1/apps')).apps || [];
      ui.apps.replaceChildren(...apps.map((app) =>
        h('li', {}, h('span', { class: 'app-name', text: app.name }), app.summary ? ': ' + app.summary : '')));
      for (const app of apps) ui.app.append(h('option', { value: app.name, text: app.name }));
      ui.appsLoaded = true;
    } catch (err) {
      MR.setStatus('The apps could not be loaded: ' + err.message, true);
    }
  }

  // ======================================================== the inspector ==
  function runPath(query) { return '/v1/runs/' + encodeURIComponent(insp.id) + (query ? '?' + query : ''); }

  // The highest n such that events 1..n are all here (events are never
  // removed, so the search goes on from the last answer).
  function contiguous() {
    let n = insp.contig;
    while (insp.events.has(n + 1)) n += 1;
    insp.contig = n;
    return n;
  }

  // Loads the run; `events`: 'all' on the first load, 'after' to fill a gap.
  async function loadRun(events) {
    const id = insp.id;
    const query = events === 'all' ? 'events=1' : events === 'after' ? 'events_after=' + contiguous() : '';
    let body;
    try {
      body = await api.get(runPath(query));
    } catch (err) {
      if (insp.id !== id) return;
      if (err.status === 404) {
        ui.inspBody.replaceChildren(h('p', { class: 'notfound', text: 'There is no run ' + id + ' on this server.' }));
        MR.setStatus('');
        return;
      }
      insp.failed = true;  // tried again when the stream is back
      if (events) insp.wantEvents = true;
      MR.setStatus('The run could not be loaded: ' + err.message, true);
      return;
    }
    if (insp.id !== id) return;
    insp.failed = false;
    MR.setStatus('');
    const first = insp.run === null;
    insp.run = body.run;
    insp.steps = body.steps || [];
    insp.waiting = body.awaiting_approval || [];
    if (first) buildInspector();
    for (const e of body.events || []) addEvent(e, 'load');
    renderInspector();
    checkGap();
  }

  // Refetches the run at most every half second, one request at a time.
  function scheduleRunRefresh(withEvents) {
    insp.want = true;
    if (withEvents) insp.wantEvents = true;
    if (insp.timer || insp.inFlight) return;
    insp.timer = setTimeout(runRefresh, 500);
  }
  async function runRefresh() {
    insp.timer = null;
    if (!insp.want || !insp.id) return;
    const withEvents = insp.wantEvents;
    const first = insp.run === null;
    insp.want = false;
    insp.wantEvents = false;
    insp.inFlight = true;
    try {
      await loadRun(first ? 'all' : withEvents ? 'after' : '');
    } finally {
      insp.inFlight = false;
      if (insp.want) insp.timer = setTimeout(runRefresh, 500);
    }
  }

  // An event past a missing one: the missing ones are fetched, once for each
  // place the run's events stop being whole (never a loop of requests).
  function checkGap() {
    if (insp.run === null) return;
    const have = contiguous();
    if (insp.gapAt === have) return;
    for (const seq of insp.events.keys()) {
      if (seq > have) {
        insp.gapAt = have;
        scheduleRunRefresh(true);
        return;
      }
    }
  }

  // One event of the inspected run, from the first load or the stream: kept
  // once by its seq, its row put in seq order.
  function addEvent(e, via) {
    const seq = Number(e.seq);
    if (!Number.isInteger(seq) || seq < 1) return;
    const known = insp.events.get(seq);
    if (known) {
      if (!known.id && e.id) known.id = e.id;
      return;
    }
    insp.events.set(seq, { ...e, via });
    if (!ui.eventsBody) return;  // rows are made when the inspector is built
    const row = eventRow(insp.events.get(seq));
    let after = null;  // the row it goes before; none when it is the newest (the usual case)
    const last = ui.eventsBody.lastElementChild;
    if (last && Number(last.dataset.seq) > seq) {
      for (const tr of ui.eventsBody.rows) {
        if (Number(tr.dataset.seq) > seq) { after = tr; break; }
      }
    }
    ui.eventsBody.insertBefore(row, after);
    ui.eventsCount.textContent = eventsCountText();
  }

  function eventDetail(e) {
    const d = e.data && typeof e.data === 'object' ? e.data : {};
    switch (e.type) {
      case 'run_started': return [d.model, d.resumed_at_step ? 'resumed at step ' + d.resumed_at_step : ''].filter(Boolean).join(', ');
      case 'model_request': return `${fmtNum(d.messages)} messages, ${fmtNum(d.tools)} tools${d.fallback ? ', fallback' : ''}`;
      case 'assistant_message': {
        const calls = Array.isArray(d.tool_calls) ? d.tool_calls.length : 0;
        return [preview(e.text), calls ? calls + (calls === 1 ? ' tool call' : ' tool calls') : ''].filter(Boolean).join(' · ');
      }
      case 'tool_started': return preview(e.text);
      case 'tool_finished': return `${e.ok === false ? 'failed' : 'ok'}, ${fmtMs(e.elapsed_ms)} · ${preview(e.text, 80)}`;
      case 'step_finished': {
        const u = d.usage || {};
        return `${fmtNum(u.prompt_tokens)} prompt + ${fmtNum(u.completion_tokens)} completion tokens, ${fmtMs(e.elapsed_ms)}`;
      }
      case 'run_finished': return statusLabel(d.status) + (e.elapsed_ms ? ', ' + fmtMs(e.elapsed_ms) : '');
      case 'approval': return [d.decision, d.reviewer ? 'by ' + d.reviewer : '', d.reason ? preview(d.reason, 60) : ''].filter(Boolean).join(' ');
      case 'error': return preview(e.text);
      default: return preview(e.text);
    }
  }

  function eventRow(e) {
    const dataset = { seq: String(e.seq), via: e.via, type: String(e.type || '') };
    if (e.id) dataset.eventId = String(e.id);
    return h('tr', { dataset },
      h('td', { class: 'num', text: String(e.seq) }),
      h('td', {}, eventTime(e.at)),
      h('td', { text: statusLabel(e.type) }),
      h('td', { class: 'num', text: e.step ? String(e.step) : '' }),
      h('td', { text: e.tool_name ? e.tool_name + (e.tool_call_id ? ' (' + e.tool_call_id + ')' : '') : '' }),
      h('td', { class: 'detail', text: eventDetail(e) }));
  }

  function eventsCountText() {
    const shown = insp.events.size;
    const stored = insp.run ? Number(insp.run.events) : NaN;
    return shown + (shown === 1 ? ' event' : ' events') +
      (Number.isFinite(stored) && stored > shown ? ` shown of ${stored} stored (loading the rest)` : '');
  }

  function buildInspector() {
    const id = insp.id;
    ui.summary = h('dl', { class: 'run-summary', id: 'run-summary' });
    ui.inputs = h('div', { id: 'run-inputs' });
    ui.actions = h('div', { class: 'run-actions', id: 'run-actions' });
    ui.answer = h('section', { id: 'run-answer', 'aria-labelledby': 'run-answer-heading', hidden: true });
    ui.modelBody = h('tbody');
    ui.modelTable = h('table', { id: 'run-model-calls', class: 'compact' },
      h('caption', { text: 'Each step\'s model call: tokens and latency.' }),
      h('thead', {}, h('tr', {}, ['Step', 'Prompt tokens', 'Completion tokens', 'Latency', 'Attempts', 'Finish']
        .map((t, i) => h('th', { scope: 'col', class: i > 0 && i < 5 ? 'num' : null, text: t })))),
      ui.modelBody, h('tfoot'));
    ui.steps = h('div', { id: 'run-steps' });
    ui.eventsBody = h('tbody');
    ui.eventsCount = h('p', { class: 'events-count', id: 'run-events-count' });
    const eventsTable = h('table', { id: 'run-events', class: 'compact' },
      h('caption', { text: 'The run\'s events in order, as stored; new ones are added while it runs.' }),
      h('thead', {}, h('tr', {}, ['Seq', 'Time', 'Type', 'Step', 'Tool (call)', 'Detail']
        .map((t, i) => h('th', { scope: 'col', class: i === 0 || i === 3 ? 'num' : null, text: t })))),
      ui.eventsBody);
    ui.inspBody.replaceChildren(
      ui.summary, ui.inputs, ui.actions, ui.answer,
      h('section', { 'aria-labelledby': 'run-model-heading' },
        h('h3', { id: 'run-model-heading', text: 'Model calls' }), h('div', { class: 'table-scroll' }, ui.modelTable)),
      h('section', { 'aria-labelledby': 'run-steps-heading' },
        h('h3', { id: 'run-steps-heading', tabindex: '-1', text: 'Steps' }), ui.steps),
      h('section', { 'aria-labelledby': 'run-events-heading' },
        h('h3', { id: 'run-events-heading', tabindex: '-1', text: 'Events' }), ui.eventsCount,
        h('div', { class: 'table-scroll' }, eventsTable)));
    for (const seq of [...insp.events.keys()].sort((a, b) => a - b)) ui.eventsBody.append(eventRow(insp.events.get(seq)));
    ui.inspHeading.textContent = 'Run ' + id;
  }

  function renderInspector() {
    const run = insp.run;
    const lease = run.lease;
    const rows = [
      ['Status', statusBadge(run.status)],
      ['App', run.app],
      ['Held by', lease ? [lease.holder, lease.until ? ' (lease until ' : '', lease.until ? time(lease.until) : '', lease.until ? ')' : '']
        : 'no one (the run is not running anywhere)'],
      ['Executing here', run.executing_here ? 'yes, on this server' : 'no'],
      ['Created', time(run.created_at)],
      ['Updated', time(run.updated_at)],
      ['Steps', fmtNum(run.steps)],
      ['Model', run.model && run.model.name ? run.model.name : ''],
    ];
    ui.summary.replaceChildren(...rows.flatMap(([k, v]) => [h('dt', { text: k }), h('dd', { dataset: { field: k } }, v)]));
    ui.summary.querySelector('dd').id = 'run-status';
    // What the run was asked (it may hold patient data: on the page only, folded).
    if (!ui.inputs.firstChild && run.inputs && typeof run.inputs === 'object') {
      ui.inputs.append(h('details', { class: 'value' }, h('summary', { text: 'The run\'s inputs' }),
        preBlock('The run\'s inputs', pretty(run.inputs), 'inputs')));
    }
    renderActions();
    renderAnswer();
    renderModelCalls();
    renderSteps();
    ui.eventsCount.textContent = eventsCountText();
  }

  function renderActions() {
    const run = insp.run;
    if (run.status !== 'running') {
      ui.actions.replaceChildren(insp.waiting.length
        ? h('p', {}, 'Paused for approval of ' + insp.waiting.length + ' call(s): ', h('a', { href: '#approvals', text: 'decide in Approvals' }))
        : '');
      return;
    }
    if (ui.actions.querySelector('#run-cancel, #run-cancel-confirm')) return;  // keep focus and a pending question
    ui.actions.replaceChildren(h('button', { type: 'button', id: 'run-cancel', class: 'danger', text: 'Cancel this run…',
      on: { click: askCancel } }));
  }

  function askCancel() {
    const id = insp.id;
    const message = h('p', { id: 'run-cancel-message', class: 'field-error', role: 'alert' });
    const no = h('button', { type: 'button', text: 'No, keep it running', on: { click: () => {
      ui.actions.replaceChildren();
      renderActions();
      ui.actions.querySelector('#run-cancel')?.focus();
    } } });
    const yes = h('button', { type: 'button', id: 'run-cancel-yes', class: 'danger', text: 'Yes, cancel the run', on: { click: async () => {
      yes.disabled = true;
      try {
        await api.post('/v1/runs/' + encodeURIComponent(id) + '/cancel');
        MR.announce('Cancelling the run: it ends interrupted and can be resumed.');
        ui.actions.replaceChildren(h('p', { role: 'status', text: 'Cancelling… the run ends interrupted.' }));
        scheduleRunRefresh(false);
      } catch (err) {
        yes.disabled = false;
        message.textContent = 'The run could not be cancelled: ' + err.message;
      }
    } } });
    ui.actions.replaceChildren(h('div', { id: 'run-cancel-confirm', class: 'confirm', role: 'group', 'aria-labelledby': 'run-cancel-question' },
      h('p', { id: 'run-cancel-question', text: `Cancel run ${id}? The agent stops at once and the run ends interrupted; it can be resumed later from its last checkpoint.` }),
      yes, ' ', no, message));
    no.focus();
  }

  // The run's answer: its text and an answer tool's fields when the app
  // gives them (chat, cxr), else the whole result (an app's own shape), unfolded.
  function renderAnswer() {
    const result = insp.run.result;
    if (result === null || result === undefined) { ui.answer.hidden = true; return; }
    const isObject = typeof result === 'object';
    const answer = isObject ? result.answer : result;
    const text = typeof answer === 'string' && answer.trim() ? answer : '';
    const fields = isObject && result.final_fields && typeof result.final_fields === 'object' ? result.final_fields : null;
    const error = isObject && typeof result.error === 'string' ? result.error : '';
    const whole = isObject ? pretty(result) : '';
    ui.answer.hidden = false;
    ui.answer.replaceChildren(
      h('h3', { id: 'run-answer-heading', text: text ? 'Answer' : 'Result' }),
      MR.cdsLabel(runHref(insp.id, 'steps'), 'See the steps and tool results it is based on'),
      text ? h('p', { class: 'answer', text }) : '',
      fields ? h('div', { class: 'value' }, h('p', { class: 'value-label', text: 'The answer\'s fields' }),
        preBlock('The answer\'s fields', pretty(fields), 'answer-fields')) : '',
      error ? h('p', { class: 'field-error', text: 'Error: ' + error }) : '',
      !isObject ? '' : text || fields
        ? h('details', { class: 'value' }, h('summary', { text: 'The whole result (JSON)' }), preBlock('The whole result', whole, 'result-json'))
        : preBlock('The result', whole, 'result-json'));
  }

  function renderModelCalls() {
    let prompt = 0, completion = 0, latency = 0;
    const rows = insp.steps.map((s) => {
      const u = s.usage || {};
      prompt += Number(u.prompt_tokens) || 0;
      completion += Number(u.completion_tokens) || 0;
      latency += Number(s.model_ms) || 0;
      return h('tr', { dataset: { step: String(s.index) } },
        h('th', { scope: 'row' }, h('a', { href: runHref(insp.id, 'step-' + s.index), text: 'Step ' + s.index })),
        h('td', { class: 'num tokens-prompt', text: fmtNum(u.prompt_tokens) }),
        h('td', { class: 'num tokens-completion', text: fmtNum(u.completion_tokens) }),
        h('td', { class: 'num latency', text: fmtMs(s.model_ms) }),
        h('td', { class: 'num', text: fmtNum(s.attempts) }),
        h('td', { text: s.model_error ? 'failed: ' + preview(s.model_error, 60) : (s.finish_reason || '') }));
    });
    ui.modelBody.replaceChildren(...rows);
    if (!rows.length) ui.modelBody.append(h('tr', {}, h('td', { colSpan: 6, text: 'No step has ended yet.' })));
    ui.modelTable.tFoot.replaceChildren(rows.length ? h('tr', {},
      h('th', { scope: 'row', text: 'Total' }), h('td', { class: 'num', text: fmtNum(prompt) }),
      h('td', { class: 'num', text: fmtNum(completion) }), h('td', { class: 'num', text: fmtMs(latency) }),
      h('td'), h('td')) : '');
  }

  // Steps are kept by index: one already shown keeps its element (and its
  // open <details>) unless the stored step changed.
  function renderSteps() {
    const seen = new Set();
    let prev = null;
    for (const s of insp.steps) {
      const key = JSON.stringify(s);
      seen.add(s.index);
      let el = insp.stepEls.get(s.index);
      if (!el || el.dataset.key !== key) {
        const fresh = stepElement(s);
        fresh.dataset.key = key;
        if (el) el.replaceWith(fresh);
        el = fresh;
        insp.stepEls.set(s.index, el);
      }
      if (el.previousElementSibling !== prev || el.parentNode !== ui.steps) {
        ui.steps.insertBefore(el, prev ? prev.nextSibling : ui.steps.firstChild);
      }
      prev = el;
    }
    for (const [index, el] of insp.stepEls) {
      if (!seen.has(index)) { el.remove(); insp.stepEls.delete(index); }
    }
    const empty = ui.steps.querySelector('.no-steps');
    if (insp.steps.length && empty) empty.remove();
    if (!insp.steps.length && !empty) ui.steps.append(h('p', { class: 'no-steps muted', text: 'No step has ended yet.' }));
  }

  function stepElement(s) {
    const a = s.assistant || {};
    const calls = Array.isArray(a.tool_calls) ? a.tool_calls : [];
    const results = new Map((s.tool_results || []).map((r) => [r.tool_call_id, r]));
    const u = s.usage || {};
    const headingId = 'step-' + s.index + '-heading';
    return h('section', { class: 'step', id: 'step-' + s.index, dataset: { step: String(s.index) }, 'aria-labelledby': headingId },
      h('h4', { id: headingId, tabindex: '-1' }, (s.kind === 'fallback' ? 'Fallback step ' : 'Step ') + s.index),
      h('p', { class: 'model-call' }, 'Model call: ',
        h('span', { class: 'tokens-prompt', text: fmtNum(u.prompt_tokens) }), ' prompt + ',
        h('span', { class: 'tokens-completion', text: fmtNum(u.completion_tokens) }), ' completion tokens, ',
        h('span', { class: 'latency', text: fmtMs(s.model_ms) }), ' latency',
        s.attempts > 1 ? `, ${s.attempts} attempts` : '', s.elapsed_ms ? ` · step ${fmtMs(s.elapsed_ms)}` : ''),
      s.model_error ? h('p', { class: 'field-error', text: 'The model call failed: ' + s.model_error }) : '',
      s.parse_error ? h('p', { class: 'field-error', text: 'The reply was unusable: ' + s.parse_error }) : '',
      a.content ? block('The model wrote', String(a.content), 'assistant-text') : '',
      calls.map((c) => toolCallElement(c, results.get(c.id))),
      (s.tool_results || []).filter((r) => !calls.some((c) => c.id === r.tool_call_id))
        .map((r) => toolCallElement({ id: r.tool_call_id, name: r.name, arguments: '' }, r)),
      (s.notes || []).length ? h('ul', { class: 'notes' }, s.notes.map((n) => h('li', { text: n }))) : '');
  }

  function toolCallElement(call, result) {
    const outcome = !result ? 'no result stored' : result.ok ? 'ok' : 'failed';
    return h('div', { class: 'tool-call', dataset: { callId: call.id || '', tool: call.name || '' } },
      h('p', { class: 'tool-head' }, h('span', { class: 'tool-name', text: call.name || '(unnamed)' }),
        h('span', { class: 'muted', text: ' call ' + (call.id || '') + ' · ' }),
        h('span', { class: 'outcome outcome-' + outcome.replace(/ /g, '-'), text: outcome }),
        result && result.elapsed_ms ? h('span', { class: 'muted', text: ' · ' + fmtMs(result.elapsed_ms) }) : ''),
      call.arguments !== '' ? block('Arguments', pretty(call.arguments ?? ''), 'args') : '',
      result ? block(result.ok ? 'Result' : 'Result (error)', pretty(result.ok ? String(result.content ?? '')
        : String(result.error || result.content || '')), 'result') : '');
  }

  function mountInspector() {
    ui.inspHeading = h('h2', { id: 'run-heading', tabindex: '-1', text: 'Run' });
    ui.inspBody = h('div', { id: 'run-body' });
    return h('div', { id: 'run-inspector', hidden: true },
      h('p', { class: 'back' }, h('a', { href: '#runs', id: 'run-back', text: '← All runs' })),
      ui.inspHeading, ui.inspBody);
  }

  function focusSection(section) {
    const target = section === 'steps' ? document.getElementById('run-steps-heading')
      : section === 'events' ? document.getElementById('run-events-heading')
        : /^step-\d+$/.test(section || '') ? document.querySelector('#' + section + ' h4') : ui.inspHeading;
    if (target) target.focus();
  }

  async function openRun(id, section) {
    const isNew = insp.id !== id;
    if (isNew) {
      clearTimeout(insp.timer);
      Object.assign(insp, newInspection(id));
      ui.eventsBody = null;
      ui.inspHeading.textContent = 'Run ' + id;
      ui.inspBody.replaceChildren(h('p', { class: 'busy', text: 'Loading the run…' }));
    }
    ui.listEl.hidden = true;
    ui.inspEl.hidden = false;
    if (isNew) {
      insp.inFlight = true;
      try { await loadRun('all'); } finally { insp.inFlight = false; }
      if (insp.want && !insp.timer) insp.timer = setTimeout(runRefresh, 500);
    }
    if (insp.id === id) focusSection(section);
  }

  // ================================================================ live ==
  function onEvent(e) {
    if (['run_started', 'run_finished', 'step_finished', 'approval'].includes(e.type)) scheduleListRefresh();
    if (!insp.id || e.run_id !== insp.id) return;
    addEvent(e, 'stream');
    if (insp.run === null) return;  // the first load is under way: it reads the run after
    if (['step_finished', 'run_finished', 'approval', 'run_started', 'error'].includes(e.type)) scheduleRunRefresh(false);
    checkGap();
  }

  MR.registerView('runs', {
    title: 'Runs',
    mount(el) {
      ui.listEl = mountList();
      ui.inspEl = mountInspector();
      el.append(ui.listEl, ui.inspEl);
      MR.events.subscribe(onEvent);
      MR.events.onState((state) => {
        if (state !== 'open') return;
        if (insp.id && insp.failed) scheduleRunRefresh(insp.wantEvents);
        if (list.stale) scheduleListRefresh();
      });
      loadApps();
    },
    show(parts) {
      visible = true;
      const [id, section] = parts;
      if (id) {
        openRun(id, section);
        return;
      }
      const from = insp.id;
      clearTimeout(insp.timer);
      Object.assign(insp, newInspection(null));
      ui.inspEl.hidden = true;
      ui.listEl.hidden = false;
      loadList().then(() => {
        const link = from && ui.table.querySelector(`a[data-run-id="${CSS.escape(from)}"]`);
        if (link) link.focus();
      });
    },
    hide() {
      visible = false;
      clearTimeout(insp.timer);
      Object.assign(insp, newInspection(null));  // shown again, the run is loaded again
    },
  });
})();
