// The clinician's page: a shell over medreact serve's API (same origin, no
// library, no inline script: the server's CSP allows none). This version
// shows the apps (GET /v1/apps) and the runs (GET /v1/runs) in a sortable
// table; the other views are placeholders. Only textContent is written: a
// run's text never becomes markup.
'use strict';

const VIEWS = {
  worklist: 'Worklist',
  cxr: 'Chest X-ray',
  research: 'Research',
  runs: 'Runs',
  approvals: 'Approvals',
};

const state = { runs: [], sortKey: 'created_at', sortDir: 'descending' };

function setStatus(text, isError) {
  const el = document.getElementById('status');
  el.textContent = text;
  el.classList.toggle('error', Boolean(isError));
}

async function getJson(path) {
  const res = await fetch(path, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
  if (res.status === 401) {
    throw new Error('This server needs a token, and this page cannot sign in yet: use the API with its bearer token.');
  }
  if (!res.ok) {
    let message = res.status + ' ' + res.statusText;
    try {
      const body = await res.json();
      if (body && body.error && body.error.message) message = body.error.message;
    } catch (_) { /* not JSON: keep the status line */ }
    throw new Error(path + ': ' + message);
  }
  return res.json();
}

function renderApps(apps) {
  const list = document.getElementById('apps');
  list.replaceChildren();
  for (const app of apps) {
    const li = document.createElement('li');
    const name = document.createElement('span');
    name.className = 'app-name';
    name.textContent = app.name;
    li.append(name);
    if (app.summary) li.append(document.createTextNode(': ' + app.summary));
    list.append(li);
  }
}

function compare(a, b, key, numeric) {
  const x = a[key] ?? '';
  const y = b[key] ?? '';
  if (numeric) return Number(x) - Number(y);
  return String(x).localeCompare(String(y));
}

function renderRuns() {
  const table = document.getElementById('runs');
  const numericKeys = new Set();
  for (const th of table.querySelectorAll('thead th')) {
    if (th.dataset.numeric) numericKeys.add(th.dataset.key);
    if (th.dataset.key === state.sortKey) th.setAttribute('aria-sort', state.sortDir);
    else th.removeAttribute('aria-sort');
  }
  const sign = state.sortDir === 'ascending' ? 1 : -1;
  const rows = [...state.runs].sort(
    (a, b) => sign * compare(a, b, state.sortKey, numericKeys.has(state.sortKey)));
  const body = table.tBodies[0];
  body.replaceChildren();
  if (rows.length === 0) {
    const tr = body.insertRow();
    const td = tr.insertCell();
    td.colSpan = 6;
    td.textContent = 'No runs yet.';
    return;
  }
  for (const run of rows) {
    const tr = body.insertRow();
    tr.dataset.runId = run.id;
    for (const key of ['id', 'app', 'status', 'steps', 'created_at', 'updated_at']) {
      const td = tr.insertCell();
      td.textContent = run[key] ?? '';
      if (numericKeys.has(key)) td.className = 'num';
    }
  }
}

function onSort(event) {
  const button = event.target.closest('th button');
  if (!button) return;
  const key = button.parentElement.dataset.key;
  if (state.sortKey === key) {
    state.sortDir = state.sortDir === 'ascending' ? 'descending' : 'ascending';
  } else {
    state.sortKey = key;
    state.sortDir = 'ascending';
  }
  renderRuns();
}

function showView() {
  const name = location.hash.slice(1);
  const view = Object.hasOwn(VIEWS, name) ? name : 'runs';
  for (const a of document.querySelectorAll('nav a[data-view]')) {
    if (a.dataset.view === view) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.getElementById('view-title').textContent = VIEWS[view];
  document.title = 'medreact — ' + VIEWS[view];
  document.getElementById('view-runs').hidden = view !== 'runs';
  document.getElementById('view-pending').hidden = view === 'runs';
}

async function load() {
  setStatus('Loading…');
  try {
    const [apps, runs] = await Promise.all([getJson('/v1/apps'), getJson('/v1/runs?limit=100')]);
    renderApps(apps.apps || []);
    state.runs = runs.runs || [];
    renderRuns();
    setStatus('');
  } catch (err) {
    setStatus(err.message, true);
  }
}

document.addEventListener('DOMContentLoaded', () => {
  document.querySelector('#runs thead').addEventListener('click', onSort);
  window.addEventListener('hashchange', showView);
  showView();
  load();
});
