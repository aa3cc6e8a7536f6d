// The runs view: the apps (GET /v1/apps) and the runs (GET /v1/runs) in a
// sortable table. Only textContent is written: a run's text never becomes markup.
'use strict';

(() => {
  const { h, api } = MR;
  const state = { runs: [], sortKey: 'created_at', sortDir: 'descending' };
  const COLUMNS = [
    { key: 'id', label: 'Run' }, { key: 'app', label: 'App' }, { key: 'status', label: 'Status' },
    { key: 'steps', label: 'Steps', numeric: true }, { key: 'created_at', label: 'Created' },
    { key: 'updated_at', label: 'Updated' },
  ];
  let table;

  function compare(a, b, key, numeric) {
    const x = a[key] ?? '';
    const y = b[key] ?? '';
    if (numeric) return Number(x) - Number(y);
    return String(x).localeCompare(String(y));
  }

  function renderRuns() {
    for (const th of table.querySelectorAll('thead th')) {
      if (th.dataset.key === state.sortKey) th.setAttribute('aria-sort', state.sortDir);
      else th.removeAttribute('aria-sort');
    }
    const col = COLUMNS.find((c) => c.key === state.sortKey);
    const sign = state.sortDir === 'ascending' ? 1 : -1;
    const rows = [...state.runs].sort((a, b) => sign * compare(a, b, state.sortKey, col && col.numeric));
    const body = table.tBodies[0];
    body.replaceChildren();
    if (rows.length === 0) {
      body.append(h('tr', {}, h('td', { colSpan: COLUMNS.length, text: 'No runs yet.' })));
      return;
    }
    for (const run of rows) {
      body.append(h('tr', { dataset: { runId: run.id } },
        COLUMNS.map((c) => h('td', { class: c.numeric ? 'num' : null, text: run[c.key] ?? '' }))));
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

  async function load(appsList) {
    try {
      const [apps, runs] = await Promise.all([api.get('/v1/apps'), api.get('/v1/runs?limit=100')]);
      appsList.replaceChildren(...(apps.apps || []).map((app) =>
        h('li', {}, h('span', { class: 'app-name', text: app.name }), app.summary ? ': ' + app.summary : '')));
      state.runs = runs.runs || [];
      renderRuns();
    } catch (err) {
      MR.setStatus(err.message, true);
    }
  }

  MR.registerView('runs', {
    title: 'Runs',
    mount(el) {
      const appsList = h('ul', { id: 'apps', class: 'apps' });
      table = h('table', { id: 'runs' },
        h('caption', { text: 'Recent runs of this server. Select a column heading to sort.' }),
        h('thead', {}, h('tr', {}, COLUMNS.map((c) =>
          h('th', { scope: 'col', dataset: { key: c.key } }, h('button', { type: 'button', text: c.label }))))),
        h('tbody'));
      table.tHead.addEventListener('click', onSort);
      el.append(
        h('section', { 'aria-labelledby': 'apps-heading' }, h('h2', { id: 'apps-heading', text: 'Apps' }), appsList),
        h('section', { 'aria-labelledby': 'runs-heading' }, h('h2', { id: 'runs-heading', text: 'Runs' }), table));
      this.appsList = appsList;
    },
    show() { load(this.appsList); },
  });
})();
