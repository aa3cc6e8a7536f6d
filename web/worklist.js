// The Worklist view (Sentinel-X's CT triage worklist, seed 001, issue 26).
//
// #worklist: start a worklist (a folder under the server's input roots, or
// case folders uploaded), and follow it: a real table sorted by final
// priority then waiting time, filters with counts, needs_review as text,
// live updates from the tab's event stream (runs of app `triage`: the
// worklist is fetched again, at most twice a second), announcements (polite;
// assertive for a new P1) and a "Pause updates" toggle. Re-rendering keeps
// the focused case's row focused and where it was on screen.
// #worklist/case/RUN_ID: one case: the findings, the final priority with its
// risk adjustment and reason, the FHIR facts the tools returned (each linked
// to its tool call in the trace) and the reasoning trace.
//
// Routes: GET /v1/worklists (this server's worklists, the folders of cases),
// POST /v1/worklists (JSON or multipart), GET /v1/worklists/{id},
// POST /v1/worklists/{id}/cancel, GET /v1/runs/{id} and GET /v1/runs/{id}/triage.
// Privacy: the hash carries run ids only (opaque); the title names the view.
'use strict';

(() => {
  const { h, api } = MR;
  const PRIORITY = {
    1: { text: 'P1: CRITICAL', icon: '\u25B2', cls: 'prio-1' },   // ▲
    2: { text: 'P2: HIGH RISK', icon: '\u25C6', cls: 'prio-2' },  // ◆
    3: { text: 'P3: ROUTINE', icon: '\u25CF', cls: 'prio-3' },    // ●
  };
  const FAILED = { text: 'Not triaged', icon: '\u2715', cls: 'prio-failed' };  // ✕
  const FILTERS = [
    { key: 'all', label: 'All', test: () => true },
    { key: 'p1', label: 'P1 critical', test: (c) => c.priority_level === 1 },
    { key: 'p2', label: 'P2 high risk', test: (c) => c.priority_level === 2 },
    { key: 'p3', label: 'P3 routine', test: (c) => c.priority_level === 3 },
    { key: 'review', label: 'Needs review', test: (c) => c.needs_review === true },
    { key: 'failed', label: 'Not triaged', test: (c) => !c.ok },
  ];
  const COLUMNS = [
    { key: 'priority', label: 'Priority', sortable: true },
    { key: 'case', label: 'Case', sortable: true },
    { key: 'review', label: 'Review' },
    { key: 'adjustment', label: 'Risk adjustment' },
    { key: 'waiting', label: 'Waiting', sortable: true },
    { key: 'status', label: 'Run' },
  ];

  const state = {
    worklists: [], folders: [],
    id: null,            // the worklist shown
    data: null,          // it, as rendered
    pending: null,       // it, fetched while updates are paused
    seen: new Set(),     // keys of the cases already shown (announced once)
    filter: 'all', sortKey: 'priority', sortDir: 'ascending',
    paused: false, visible: false,
    caseRun: null,       // the case view's run id
    returnTo: null,      // the case whose row gets the focus back
  };
  const el = {};

  const keyOf = (c) => c.run_id || 'case:' + c.case;
  const prio = (c) => (c.ok && PRIORITY[c.priority_level]) || FAILED;

  function waitingMs(c) {
    const t = Date.parse(c.done_at || '');
    return Number.isNaN(t) ? 0 : Math.max(0, Date.now() - t);
  }
  function fmtWaiting(c) {
    if (!c.done_at) return '';
    const min = Math.floor(waitingMs(c) / 60000);
    if (min < 1) return 'under 1 min';
    if (min < 60) return min + ' min';
    return Math.floor(min / 60) + ' h ' + (min % 60) + ' min';
  }

  // ------------------------------------------------------------ ordering --
  // Final priority (1 first; not triaged last), then the longest waiting.
  function byPriority(a, b) {
    const pa = a.ok ? a.priority_level || 9 : 10;
    const pb = b.ok ? b.priority_level || 9 : 10;
    if (pa !== pb) return pa - pb;
    return waitingMs(b) - waitingMs(a) || String(a.case).localeCompare(String(b.case));
  }
  function sorted(cases) {
    const sign = state.sortDir === 'ascending' ? 1 : -1;
    const cmp = state.sortKey === 'case' ? (a, b) => String(a.case).localeCompare(String(b.case))
      : state.sortKey === 'waiting' ? (a, b) => waitingMs(a) - waitingMs(b) || byPriority(a, b)
        : byPriority;
    return [...cases].sort((a, b) => sign * cmp(a, b));
  }

  // --------------------------------------------------------------- loads --
  // Refetches are coalesced: at most one request in flight and one every 500 ms.
  let timer = null;
  let due = 0;  // when the timer fires
  let inflight = false;
  let again = false;
  let lastFetch = 0;
  function scheduleRefresh(delay = 0) {
    if (!state.id) return;
    const wait = Math.max(delay, lastFetch + 500 - Date.now(), 0);
    if (timer && due <= Date.now() + wait) return;  // one is due sooner already
    clearTimeout(timer);
    due = Date.now() + wait;
    timer = setTimeout(runRefresh, wait);
  }
  async function runRefresh() {
    timer = null;
    if (inflight) { again = true; return; }
    inflight = true;
    lastFetch = Date.now();
    try {
      await loadWorklist();
    } finally {
      inflight = false;
      if (again) { again = false; scheduleRefresh(); }
    }
  }

  async function loadLists() {
    const res = await api.get('/v1/worklists');
    state.worklists = res.worklists || [];
    state.folders = res.folders || [];
    el.datalist.replaceChildren(...state.folders.map((f) =>
      h('option', { value: f.dir, label: f.dir + ' (' + f.cases + ' cases)' })));
    if (!el.dir.value && state.folders.length) el.dir.value = state.folders[0].dir;
    el.folders.textContent = state.folders.length
      ? 'Folders with cases on this server: ' + state.folders.map((f) => f.dir + ' (' + f.cases + ')').join(', ') + '.'
      : 'This server has no folder of cases under its input roots: upload the cases instead.';
    renderPicker();
  }

  async function loadWorklist() {
    const id = state.id;
    if (!id) return;
    let w;
    try {
      w = (await api.get('/v1/worklists/' + encodeURIComponent(id))).worklist;
    } catch (err) {
      showError(el.listError, err);
      return;
    }
    if (id !== state.id) return;  // another worklist was chosen meanwhile
    if (state.paused && state.data && state.data.id === w.id) {
      state.pending = w;
      renderPause();
    } else {
      apply(w);
    }
    if (w.status === 'running' && state.visible) scheduleRefresh(3000);  // events wake it sooner; the fallback
  }

  // A fetched worklist becomes the shown one: the new cases are announced.
  function apply(w) {
    const same = state.data && state.data.id === w.id;
    const fresh = (w.cases || []).filter((c) => !state.seen.has(keyOf(c)));
    if (!same) state.seen = new Set();
    for (const c of w.cases || []) state.seen.add(keyOf(c));
    const ended = same && state.data.status === 'running' && w.status !== 'running';
    state.data = w;
    state.pending = null;
    // The picker's line for it follows (its option's text only: the select keeps its state).
    const option = [...el.picker.options].find((o) => o.value === w.id);
    if (option) option.textContent = pickerText(w);
    render();
    if (same && fresh.length) announceNew(fresh);
    if (ended) MR.announce('Worklist ' + w.status + ': ' + w.cases_done + ' of ' + w.cases_total + ' cases triaged.');
  }

  function announceNew(fresh) {
    const count = (p) => fresh.filter((c) => c.ok && c.priority_level === p).length;
    const parts = [1, 2, 3].filter((p) => count(p)).map((p) => count(p) + ' ' + PRIORITY[p].text);
    const failed = fresh.filter((c) => !c.ok).length;
    if (failed) parts.push(failed + ' not triaged');
    const text = fresh.length + (fresh.length === 1 ? ' new case: ' : ' new cases: ') + parts.join(', ') + '.';
    const p1 = fresh.filter((c) => c.ok && c.priority_level === 1);
    if (p1.length) {
      MR.announce('New P1 critical case' + (p1.length > 1 ? 's' : '') + ': ' + p1.map((c) => c.case).join(', ') +
        '. ' + text, true);
    } else {
      MR.announce(text);
    }
  }

  // -------------------------------------------------------------- render --
  const pickerText = (w) => MR.fmtTime(w.created_at) + ' — ' + w.status + ', ' + w.cases_done + ' of ' +
    w.cases_total + ' cases';
  function renderPicker() {
    const options = state.worklists.map((w) => h('option', { value: w.id, text: pickerText(w) }));
    el.picker.replaceChildren(...(options.length ? options : [h('option', { value: '', text: 'No worklist yet' })]));
    if (state.id) el.picker.value = state.id;
    el.picker.disabled = options.length === 0;
  }

  function render() {
    const w = state.data;
    const cases = (w && w.cases) || [];
    el.summary.textContent = !w ? 'No worklist yet: start one above.'
      : w.status === 'running' ? 'Running: ' + w.cases_done + ' of ' + w.cases_total + ' cases triaged so far.'
        : 'Worklist ' + w.status + ': ' + w.cases_done + ' of ' + w.cases_total + ' cases triaged, ' +
          w.cases_failed + ' failed.';
    el.cancel.hidden = !(w && w.status === 'running');
    for (const f of FILTERS) {
      const b = el.filterButtons[f.key];
      b.textContent = f.label + ' (' + cases.filter(f.test).length + ')';
      b.setAttribute('aria-pressed', String(state.filter === f.key));
    }
    for (const th of el.table.tHead.rows[0].cells) {
      if (th.dataset.key === state.sortKey) th.setAttribute('aria-sort', state.sortDir);
      else th.removeAttribute('aria-sort');
    }
    const filter = FILTERS.find((f) => f.key === state.filter);
    renderRows(sorted(cases.filter(filter.test)));
    renderPause();
    const rows = el.table.tBodies[0].querySelectorAll('tr[data-key]').length;
    // For bench/page_load.mjs: when the rows were in the table (kept bounded).
    if (performance.getEntriesByName('mr-worklist-rendered').length > 50) performance.clearMarks('mr-worklist-rendered');
    performance.mark('mr-worklist-rendered', { detail: { rows } });
  }

  function row(c) {
    const p = prio(c);
    const link = c.run_id
      ? h('a', { href: '#worklist/case/' + encodeURIComponent(c.run_id), class: 'case-link', text: c.case,
        dataset: { key: keyOf(c) } })
      : h('span', { text: c.case });
    const adj = c.risk_adjustment ? c.risk_adjustment + (c.base_priority && c.priority_level
      ? ' (P' + c.base_priority + ' \u2192 P' + c.priority_level + ')' : '') : (c.ok ? 'none (no agent)' : '');
    const status = !c.ok ? (c.not_run ? 'not run' : 'failed: ' + (c.error || ''))
      : (c.status || '') + (c.status && c.status !== 'finished' ? ': investigation not finished, base priority kept' : '') +
        (c.fell_back ? ' (rules fallback)' : '') + (c.resumed ? ' (resumed)' : '');
    return h('tr', { dataset: { key: keyOf(c), sig: JSON.stringify(c) } },
      h('td', {}, h('span', { class: 'prio ' + p.cls }, h('span', { class: 'prio-icon', 'aria-hidden': 'true', text: p.icon }), ' ', p.text)),
      h('th', { scope: 'row', class: 'case-cell' }, link),
      h('td', {}, c.needs_review ? h('span', { class: 'review-flag', text: 'Needs review' }) : ''),
      h('td', { text: adj }),
      h('td', { class: 'num waiting', text: fmtWaiting(c) }),
      h('td', { class: c.ok ? null : 'error-text', text: status }));
  }

  // Rows are reused by case; one that has the focus keeps it and stays where
  // it was on screen (the page scrolls by what was inserted above it).
  function renderRows(cases) {
    const body = el.table.tBodies[0];
    const active = document.activeElement;
    const focusKey = active && body.contains(active) ? active.closest('tr').dataset.key : null;
    const before = focusKey ? active.getBoundingClientRect().top : 0;
    const old = new Map([...body.rows].filter((r) => r.dataset.key).map((r) => [r.dataset.key, r]));
    const want = cases.map((c) => {
      const r = old.get(keyOf(c));
      if (r && r.dataset.sig === JSON.stringify(c)) {
        r.querySelector('.waiting').textContent = fmtWaiting(c);
        return r;
      }
      const fresh = row(c);
      if (r && r.dataset.key === focusKey) {
        // Its cells change in place; the focused link itself stays.
        [...fresh.cells].forEach((cell, i) => { if (i !== 1) r.replaceChild(cell, r.cells[i]); });
        r.dataset.sig = fresh.dataset.sig;
        return r;
      }
      return fresh;
    });
    const keep = new Set(want);
    for (const r of [...body.rows]) if (!keep.has(r)) r.remove();
    let cursor = body.firstChild;
    for (const r of want) {
      if (r === cursor) cursor = cursor.nextSibling;
      else body.insertBefore(r, cursor);
    }
    if (want.length === 0) {
      const w = state.data;
      body.append(h('tr', {}, h('td', {
        colSpan: COLUMNS.length,
        text: !w ? 'No worklist yet.' : (w.cases || []).length ? 'No case matches this filter.'
          : w.status === 'running' ? 'Waiting for the first case to be triaged…' : 'This worklist has no case.',
      })));
    }
    if (focusKey) {
      const again = body.querySelector('tr[data-key="' + CSS.escape(focusKey) + '"] a.case-link');
      if (again) {
        if (document.activeElement !== again) again.focus({ preventScroll: true });
        const after = again.getBoundingClientRect().top;
        if (after !== before) window.scrollBy(0, after - before);
      }
    }
  }

  function renderPause() {
    el.pause.setAttribute('aria-pressed', String(state.paused));
    let text = '';
    if (state.paused) {
      const w = state.pending;
      const waiting = w ? (w.cases || []).filter((c) => !state.seen.has(keyOf(c))).length : 0;
      const changed = w && w.status !== state.data.status;
      text = 'Updates paused: ' + (waiting === 1 ? '1 new case waits' : waiting + ' new cases wait') +
        (changed ? ' (the worklist has ' + w.status + ')' : '') + '.';
    }
    el.pauseState.textContent = text;
  }

  function showError(target, err) {
    target.textContent = err ? (err.field ? err.message + ' (' + err.field + ')' : err.message) : '';
  }

  // ------------------------------------------------------------- actions --
  async function choose(id) {
    state.id = id;
    state.data = null;
    state.pending = null;
    state.seen = new Set();
    showError(el.listError, null);
    render();
    await loadWorklist();
  }

  async function started(res, form, message) {
    showError(message, null);
    form.reset();
    const w = res.worklist;
    await loadLists().catch(() => {});
    state.id = w.id;
    state.seen = new Set();
    state.data = null;
    apply(w);
    renderPicker();
    MR.announce('Worklist started: ' + w.cases_total + ' cases to triage.');
    scheduleRefresh(500);
  }

  async function startFromFolder(event) {
    event.preventDefault();
    const dir = el.dir.value.trim();
    if (!dir) {
      el.dirError.textContent = 'Name a folder on the server (one of those listed).';
      el.dir.focus();
      return;
    }
    const body = { dir };
    const n = Number(el.concurrency.value);
    if (el.concurrency.value) body.concurrency = n;
    try {
      await started(await api.post('/v1/worklists', body), el.folderForm, el.dirError);
      if (!el.concurrency.value) el.concurrency.value = '2';
    } catch (err) {
      showError(el.dirError, err);
      (err.field === 'concurrency' ? el.concurrency : el.dir).focus();
    }
  }

  // The chosen folder's files CASE/fhir.json, CASE/findings.txt and
  // CASE/case.json (CASE: the file's folder); other files are left out.
  async function startFromUpload(event) {
    event.preventDefault();
    const form = new FormData();
    let files = 0;
    const skipped = [];
    for (const f of el.upload.files) {
      const parts = (f.webkitRelativePath || f.name).split('/');
      if (parts.length >= 2 && ['fhir.json', 'findings.txt', 'case.json'].includes(parts[parts.length - 1])) {
        form.append(parts[parts.length - 2] + '/' + parts[parts.length - 1], f, parts[parts.length - 1]);
        files += 1;
      } else {
        skipped.push(f.name);
      }
    }
    if (files === 0) {
      el.uploadError.textContent = 'No case files found: choose a folder whose sub-folders (one per case) hold ' +
        'fhir.json and findings.txt' + (skipped.length ? ' (found only ' + skipped.slice(0, 3).join(', ') + ')' : '') + '.';
      el.upload.focus();
      return;
    }
    if (el.uploadConcurrency.value) form.append('concurrency', el.uploadConcurrency.value);
    try {
      await started(await api.postForm('/v1/worklists', form), el.uploadForm, el.uploadError);
    } catch (err) {
      showError(el.uploadError, err);
      el.upload.focus();
    }
  }

  function onSort(event) {
    const th = event.target.closest('th');
    if (!th || !event.target.closest('button')) return;
    const key = th.dataset.key;
    if (state.sortKey === key) state.sortDir = state.sortDir === 'ascending' ? 'descending' : 'ascending';
    else { state.sortKey = key; state.sortDir = key === 'waiting' ? 'descending' : 'ascending'; }
    render();
  }

  function togglePause() {
    state.paused = !state.paused;
    if (!state.paused && state.pending) {
      apply(state.pending);
      MR.announce('Updates resumed.');
    } else {
      renderPause();
      MR.announce(state.paused ? 'Updates paused.' : 'Updates resumed.');
    }
  }

  // Up and Down move between the cases' links, Home and End to the first and last.
  function onRowKey(event) {
    const link = event.target.closest('a.case-link');
    if (!link || !['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(event.key)) return;
    const links = [...el.table.tBodies[0].querySelectorAll('a.case-link')];
    const i = links.indexOf(link);
    const next = event.key === 'ArrowDown' ? links[i + 1] : event.key === 'ArrowUp' ? links[i - 1]
      : event.key === 'Home' ? links[0] : links[links.length - 1];
    event.preventDefault();
    if (next) next.focus();
  }

  async function cancel() {
    try {
      await api.post('/v1/worklists/' + encodeURIComponent(state.id) + '/cancel');
      MR.announce('Cancelling the worklist: the cases not started will not be triaged.');
      scheduleRefresh(300);
    } catch (err) {
      showError(el.listError, err);
    }
  }

  // ----------------------------------------------------------- the list --
  function mountList() {
    el.dir = h('input', { id: 'wl-dir', name: 'dir', type: 'text', list: 'wl-folders', autocomplete: 'off',
      'aria-describedby': 'wl-dir-help wl-dir-error', spellcheck: 'false' });
    el.datalist = h('datalist', { id: 'wl-folders' });
    el.folders = h('p', { id: 'wl-dir-help', class: 'help' });
    el.dirError = h('p', { id: 'wl-dir-error', class: 'form-error', role: 'alert' });
    el.concurrency = h('input', { id: 'wl-concurrency', name: 'concurrency', type: 'number', min: '1', max: '16',
      value: '2', inputmode: 'numeric' });
    el.folderForm = h('form', { class: 'wl-form', on: { submit: startFromFolder } },
      h('h3', { text: 'From a folder on the server' }),
      h('div', { class: 'field' }, h('label', { for: 'wl-dir', text: 'Folder of cases' }), el.dir, el.datalist),
      el.folders,
      h('div', { class: 'field' }, h('label', { for: 'wl-concurrency', text: 'Cases at once' }), el.concurrency),
      h('button', { type: 'submit', text: 'Start worklist' }), el.dirError);

    el.upload = h('input', { id: 'wl-upload', name: 'cases', type: 'file', multiple: true, webkitdirectory: true,
      'aria-describedby': 'wl-upload-help wl-upload-error' });
    el.uploadConcurrency = h('input', { id: 'wl-upload-concurrency', type: 'number', min: '1', max: '16', value: '2' });
    el.uploadError = h('p', { id: 'wl-upload-error', class: 'form-error', role: 'alert' });
    el.uploadForm = h('form', { class: 'wl-form', on: { submit: startFromUpload } },
      h('h3', { text: 'Upload cases' }),
      h('div', { class: 'field' }, h('label', { for: 'wl-upload', text: 'Folder to upload' }), el.upload),
      h('p', { id: 'wl-upload-help', class: 'help', text: 'One sub-folder per case holding fhir.json, findings.txt ' +
        'and optionally case.json; other files are not sent.' }),
      h('div', { class: 'field' }, h('label', { for: 'wl-upload-concurrency', text: 'Cases at once' }), el.uploadConcurrency),
      h('button', { type: 'submit', text: 'Upload and start' }), el.uploadError);

    el.picker = h('select', { id: 'wl-picker', on: { change: () => choose(el.picker.value) } });
    el.cancel = h('button', { type: 'button', class: 'secondary', text: 'Cancel this worklist', hidden: true,
      on: { click: cancel } });
    el.summary = h('p', { id: 'wl-summary', class: 'wl-summary' });
    el.listError = h('p', { id: 'wl-error', class: 'form-error', role: 'alert' });
    el.filterButtons = {};
    const filters = h('div', { class: 'wl-filters', role: 'group', 'aria-label': 'Show cases' },
      FILTERS.map((f) => {
        el.filterButtons[f.key] = h('button', { type: 'button', 'aria-pressed': 'false', dataset: { filter: f.key },
          on: { click: () => { state.filter = f.key; render(); } } });
        return el.filterButtons[f.key];
      }));
    el.pause = h('button', { type: 'button', id: 'wl-pause', 'aria-pressed': 'false', text: 'Pause updates',
      on: { click: togglePause } });
    el.pauseState = h('p', { id: 'wl-pause-state', class: 'pause-state' });
    el.table = h('table', { id: 'worklist', class: 'worklist' },
      h('caption', { text: 'Cases by final priority, then the longest waiting. Sortable columns have a button in their heading.' }),
      h('thead', {}, h('tr', {}, COLUMNS.map((c) => h('th', { scope: 'col', dataset: { key: c.key } },
        c.sortable ? h('button', { type: 'button', text: c.label }) : c.label)))),
      h('tbody'));
    el.table.tHead.addEventListener('click', onSort);
    el.table.tBodies[0].addEventListener('keydown', onRowKey);

    el.list = h('div', { class: 'wl-list' },
      h('section', { 'aria-labelledby': 'wl-start-heading', class: 'wl-start' },
        h('h2', { id: 'wl-start-heading', text: 'Start a worklist' }),
        h('div', { class: 'wl-forms' }, el.folderForm, el.uploadForm)),
      h('section', { 'aria-labelledby': 'wl-cases-heading' },
        h('h2', { id: 'wl-cases-heading', text: 'Cases' }),
        h('div', { class: 'wl-bar' },
          h('div', { class: 'field' }, h('label', { for: 'wl-picker', text: 'Worklist' }), el.picker), el.cancel),
        el.summary, el.listError,
        MR.cdsLabel(null),
        h('div', { class: 'wl-bar' }, filters, h('div', { class: 'wl-pause' }, el.pause, el.pauseState)),
        h('div', { class: 'table-wrap' }, el.table)));
    // The list's decision-support label: the basis of each row is its case view.
    const cds = el.list.querySelector('.cds');
    cds.append('Each case links to its findings, the record facts and the reasoning the priority rests on.');
    return el.list;
  }

  // ----------------------------------------------------------- the case --
  let caseTimer = null;

  async function loadCase(runId, tries = 0) {
    let view;
    let triage = null;
    let triageError = null;
    try {
      view = await api.get('/v1/runs/' + encodeURIComponent(runId));
    } catch (err) {
      el.case.replaceChildren(backLink(), h('p', { class: 'form-error', role: 'alert', text: err.message }));
      return false;
    }
    try {
      triage = await api.get('/v1/runs/' + encodeURIComponent(runId) + '/triage');
    } catch (err) {
      triageError = err;
    }
    if (state.caseRun !== runId) return false;
    renderCase(runId, view, triage, triageError);
    // A case's result is written just after its run ends: look again a few times.
    const ended = view.run.status !== 'running' && view.run.status !== 'awaiting_approval';
    if (triageError && triageError.status === 404 && ended && tries < 5) {
      setTimeout(() => { if (state.caseRun === runId && !el.case.hidden) loadCase(runId, tries + 1); }, 1000);
    }
    return true;
  }

  function backLink() {
    return h('p', {}, h('a', { href: '#worklist', class: 'back-link', text: '\u2190 Back to the worklist' }));
  }

  function dl(pairs) {
    return h('dl', { class: 'facts-dl' }, pairs.filter(Boolean).flatMap(([k, v]) => [h('dt', { text: k }), h('dd', {}, v)]));
  }

  function parseJson(text) {
    if (typeof text !== 'string') return text;
    try { return JSON.parse(text); } catch (_) { return null; }
  }

  // Echoes of the question and identifiers: not facts for this list (the trace keeps them).
  const SKIP = ['truncated', 'expanded_to', 'patient_id', 'birth_date', 'query', 'lookback_days'];
  // A tool result as a few readable lines (what the record said).
  function factLines(result) {
    const data = parseJson(result.content);
    if (!result.ok) return ['The tool failed: ' + (result.error || 'no reason given')];
    if (!data || typeof data !== 'object') return [String(result.content || '').slice(0, 300)];
    const lines = [];
    const item = (o) => {
      if (!o || typeof o !== 'object') return String(o);
      const name = o.name || o.display || o.code || o.description || o.type || '';
      const value = o.value !== undefined && o.value !== null ? ' ' + o.value + (o.unit ? ' ' + o.unit : '') : '';
      const extra = ['status', 'flag', 'date', 'start_date', 'onset', 'recorded_date', 'criticality']
        .filter((k) => o[k]).map((k) => k.replace('_', ' ') + ' ' + o[k]);
      return (name + value).trim() + (extra.length ? ' (' + extra.join(', ') + ')' : '');
    };
    for (const [k, v] of Object.entries(data)) {
      if (SKIP.includes(k)) continue;
      if (Array.isArray(v)) {
        if (v.length === 0) lines.push(k.replace(/_/g, ' ') + ': none');
        else if (typeof v[0] === 'object') for (const o of v.slice(0, 6)) lines.push(item(o));
        else lines.push(k.replace(/_/g, ' ') + ': ' + v.slice(0, 10).join(', '));
        if (v.length > 6 && typeof v[0] === 'object') lines.push('… and ' + (v.length - 6) + ' more');
      } else if (v && typeof v === 'object') {
        lines.push(k.replace(/_/g, ' ') + ': ' + Object.entries(v).filter(([a]) => !SKIP.includes(a))
          .map(([a, b]) => a.replace(/_/g, ' ') + ' ' + (b && typeof b === 'object' ? JSON.stringify(b) : b)).join(', '));
      } else if (v !== null && v !== '') {
        lines.push(k.replace(/_/g, ' ') + ': ' + (v === true ? 'yes' : v === false ? 'no' : v));
      }
    }
    return lines.slice(0, 12);
  }

  function argsText(args) {
    const a = parseJson(args);
    if (!a || typeof a !== 'object') return String(args || '');
    const parts = Object.entries(a).map(([k, v]) => k + ': ' + (typeof v === 'string' ? v : JSON.stringify(v)));
    return parts.join(', ');
  }

  const callId = (id) => 'wl-call-' + String(id).replace(/[^A-Za-z0-9_-]/g, '_');

  function jumpTo(event) {
    const target = document.getElementById(event.currentTarget.dataset.target);
    if (!target) return;
    event.preventDefault();
    target.focus();
    target.scrollIntoView({ block: 'start' });
  }

  function renderCase(runId, view, triage, triageError) {
    const run = view.run;
    const r = triage && triage.result;
    const reasoning = (r && r.agent_reasoning) || {};
    const finals = (run.result && run.result.final_fields) || {};
    const caseName = (triage && triage.case) || (run.inputs && run.inputs.worklist && run.inputs.worklist.case) || runId;
    const traceHref = '#worklist/case/' + encodeURIComponent(runId) + '/trace';
    const answerTool = 'submit_assessment';

    // The priority and why.
    let priority;
    if (r) {
      const p = PRIORITY[r.priority_level] || FAILED;
      const base = PRIORITY[r.base_priority];
      priority = h('section', { 'aria-labelledby': 'wl-prio-heading', class: 'case-block' },
        h('h3', { id: 'wl-prio-heading', text: 'Final priority' }),
        h('p', { class: 'prio-big' }, h('span', { class: 'prio ' + p.cls },
          h('span', { class: 'prio-icon', 'aria-hidden': 'true', text: p.icon }), ' ', p.text)),
        dl([
          ['Base priority (from the findings)', base ? base.text : String(r.base_priority)],
          ['Risk adjustment', (reasoning.risk_adjustment || 'none (no agent ran)') +
            (base ? ': P' + r.base_priority + ' \u2192 P' + r.priority_level : '')],
          ['Its reason', reasoning.final_assessment || 'No assessment.'],
          ['Rationale', r.rationale || ''],
          ['Needs review', r.needs_review
            ? h('span', {}, h('span', { class: 'review-flag', text: 'Needs review' }), ' ',
              (r.review_reasons || []).join('; '))
            : 'No'],
          ['Decided by', r.planner === 'model' ? 'the model\'s investigation' : r.planner || ''],
          r.record && r.record.as_of ? ['Record read as of', r.record.as_of + (r.record.as_of_source ? ' (' + r.record.as_of_source + ')' : '')] : null,
        ]));
    } else {
      priority = h('section', { 'aria-labelledby': 'wl-prio-heading', class: 'case-block' },
        h('h3', { id: 'wl-prio-heading', text: 'Final priority' }),
        h('p', { class: 'form-error', text: triageError ? triageError.message : 'No triage result.' }),
        finals.risk_adjustment ? dl([['Risk adjustment (the agent\'s answer)', finals.risk_adjustment],
          ['Its reason', finals.final_assessment || '']]) : null);
    }

    // The findings.
    const critical = reasoning.critical_findings || finals.critical_findings || [];
    const findings = h('section', { 'aria-labelledby': 'wl-findings-heading', class: 'case-block' },
      h('h3', { id: 'wl-findings-heading', text: 'Imaging findings' }),
      h('p', { class: 'findings-text', text: (r && r.visual_findings) || (run.inputs && run.inputs.findings) || '' }),
      h('h4', { text: 'Critical findings the agent named' }),
      critical.length ? h('ul', {}, critical.map((c) => h('li', { text: c }))) : h('p', { text: 'None.' }));

    // The facts and the trace.
    const facts = [];
    const steps = view.steps || [];
    const trace = h('ol', { class: 'trace' }, steps.map((s) => {
      const calls = (s.assistant && s.assistant.tool_calls) || [];
      const results = new Map((s.tool_results || []).map((t) => [t.tool_call_id, t]));
      return h('li', { class: 'step' },
        h('h4', { text: 'Step ' + (s.index || '') + (s.kind && s.kind !== 'step' ? ' (' + s.kind + ')' : '') }),
        s.assistant && s.assistant.content ? h('pre', { class: 'thought', text: s.assistant.content }) : null,
        s.model_error ? h('p', { class: 'error-text', text: 'Model error: ' + s.model_error }) : null,
        s.parse_error ? h('p', { class: 'error-text', text: 'Unusable reply: ' + s.parse_error }) : null,
        calls.length ? h('ul', { class: 'calls' }, calls.map((c) => {
          const res = results.get(c.id);
          if (res && c.name !== answerTool) facts.push({ call: c, result: res, step: s.index });
          return h('li', { id: callId(c.id), class: 'call', tabindex: '-1' },
            h('p', { class: 'call-head' }, 'Tool call ', h('code', { text: c.name }), ' ',
              h('span', { class: 'muted', text: '(' + c.id + ')' })),
            h('p', { class: 'label', text: 'Arguments' }), h('pre', { text: argsText(c.arguments) || '(none)' }),
            h('p', { class: 'label', text: res ? (res.ok ? 'Result' : 'Error') : 'No result recorded' }),
            res ? h('pre', { class: 'result', text: res.ok ? prettyJson(res.content) : res.error }) : null);
        })) : null);
    }));
    const factList = facts.length ? h('ul', { class: 'facts' }, facts.map((f) => h('li', { class: 'fact' },
      h('p', { class: 'fact-head' }, h('a', {
        href: '#worklist/case/' + encodeURIComponent(runId) + '/call/' + encodeURIComponent(f.call.id),
        dataset: { target: callId(f.call.id) }, on: { click: jumpTo },
        text: f.call.name + (argsText(f.call.arguments) ? ' (' + argsText(f.call.arguments) + ')' : ''),
      }), h('span', { class: 'muted', text: ' — step ' + f.step + ', see the tool call' })),
      h('ul', {}, factLines(f.result).map((line) => h('li', { text: line }))))))
      : h('p', { text: 'The tools returned no record facts for this case.' });

    // A re-render (the run went on) keeps the focus on the element of the same id.
    const focusId = el.case.contains(document.activeElement) ? document.activeElement.id : '';
    el.case.replaceChildren(
      backLink(),
      h('h2', { id: 'wl-case-heading', tabindex: '-1', text: 'Case ' + caseName }),
      MR.cdsLabel(traceHref, 'See the reasoning trace it is based on'),
      h('p', { class: 'muted', text: 'Run ' + run.status + ', ' + (run.steps || 0) + ' steps, updated ' + MR.fmtTime(run.updated_at) + '.' }),
      priority, findings,
      h('section', { 'aria-labelledby': 'wl-facts-heading', class: 'case-block' },
        h('h3', { id: 'wl-facts-heading', text: 'FHIR facts the tools returned' }),
        h('p', { class: 'muted', text: 'Each fact links to the tool call that produced it in the trace below.' }),
        factList),
      h('section', { 'aria-labelledby': 'wl-trace-heading', class: 'case-block' },
        h('h3', { id: 'wl-trace-heading', tabindex: '-1', text: 'Reasoning trace' }),
        steps.length ? trace : h('p', { text: 'No step recorded yet.' })));
    el.case.dataset.runId = runId;
    el.case.dataset.status = run.status;
    if (focusId && document.getElementById(focusId)) document.getElementById(focusId).focus({ preventScroll: true });
  }

  function prettyJson(text) {
    const v = parseJson(text);
    return v && typeof v === 'object' ? JSON.stringify(v, null, 2) : String(text || '');
  }

  function scheduleCase() {
    if (caseTimer) return;
    caseTimer = setTimeout(() => { caseTimer = null; if (state.caseRun) loadCase(state.caseRun); }, 700);
  }

  // Where to put the focus inside the case view for a sub-route.
  function focusCasePart(parts) {
    let target = document.getElementById('wl-case-heading');
    if (parts[2] === 'trace') target = document.getElementById('wl-trace-heading');
    if (parts[2] === 'call' && parts[3]) target = document.getElementById(callId(parts[3])) || target;
    if (target) {
      target.focus();
      if (parts[2]) target.scrollIntoView({ block: 'start' });
    }
  }

  // ------------------------------------------------------------- events --
  // A triage started while the shown worklist is not running may be a new
  // worklist (another tab, the API): the picker is read again, at most every 2 s.
  let listsTimer = null;
  function scheduleLists() {
    if (listsTimer) return;
    listsTimer = setTimeout(async () => {
      try {
        await loadLists();
        if (!state.id && state.worklists.length) await choose(state.worklists[0].id);
      } catch (_) { /* the next event tries again */ }
      listsTimer = setTimeout(() => { listsTimer = null; }, 2000);
    }, 300);
  }

  function onEvent(event) {
    if (event.app !== 'triage') return;
    if (state.caseRun && event.run_id === state.caseRun && state.visible) scheduleCase();
    if (!state.visible) return;
    if (state.data && state.data.status === 'running') scheduleRefresh();
    else if (event.type === 'run_started') scheduleLists();
  }

  // ----------------------------------------------------------- the view --
  MR.registerView('worklist', {
    title: 'Worklist',
    mount(container) {
      el.case = h('div', { class: 'wl-case', hidden: true });
      container.append(mountList(), el.case);
      MR.events.subscribe(onEvent);
      setInterval(() => {
        if (!state.visible || !state.data) return;
        for (const r of el.table.tBodies[0].rows) {
          const c = (state.data.cases || []).find((x) => keyOf(x) === r.dataset.key);
          if (c) r.querySelector('.waiting').textContent = fmtWaiting(c);
        }
      }, 30000);
    },
    async show(parts) {
      state.visible = true;
      if (parts[0] === 'case' && parts[1]) {
        const runId = parts[1];
        el.list.hidden = true;
        el.case.hidden = false;
        state.returnTo = runId;
        if (state.caseRun !== runId || el.case.dataset.runId !== runId) {
          state.caseRun = runId;
          el.case.replaceChildren(backLink(), h('p', { text: 'Loading the case…' }));
          await loadCase(runId);
        }
        if (state.caseRun === runId) focusCasePart(parts);
        return;
      }
      state.caseRun = null;
      el.case.hidden = true;
      el.list.hidden = false;
      try {
        await loadLists();
        if (!state.id && state.worklists.length) state.id = state.worklists[0].id;
        renderPicker();
        if (state.id) await loadWorklist(); else render();
      } catch (err) {
        showError(el.listError, err);
      }
      if (state.returnTo) {
        const link = el.table.querySelector('tr[data-key="' + CSS.escape(state.returnTo) + '"] a.case-link');
        state.returnTo = null;
        if (link) link.focus();
      }
    },
    hide() { state.visible = false; },
  });
})();
