// The clinician's page: the core every view stands on (same origin, no
// library, no inline script: the server's CSP allows none). Views live in
// their own files (worklist.js, cxr.js, research.js, runs.js,
// approvals.js), loaded after this one, and register with MR.registerView.
//
// What the core gives a view:
//   MR.h(tag, props, ...children)   build DOM; text only ever as textContent
//   MR.api.get/post/postForm(path)  the API, same origin; errors as MR.ApiError
//   MR.events.subscribe(fn)         the tab's one event stream (GET /v1/events)
//   MR.announce(text, assertive)    screen-reader announcements
//   MR.setStatus(text, isError)     the page's status line
//   MR.cdsLabel(basis)              the decision-support label with its basis
//   MR.fmtTime(iso)                 a stored time for people
//
// Privacy: the title names the product and the view only; the hash carries a
// view name and at most a run id (opaque, never a patient identifier).
'use strict';

const MR = (() => {
  // ---------------------------------------------------------------- DOM --
  // h('button', {class: 'x', type: 'button', on: {click: fn}, 'aria-label': 'y'}, 'text', child)
  function h(tag, props, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'on') {
        for (const [type, fn] of Object.entries(value)) el.addEventListener(type, fn);
      } else if (key === 'class') {
        el.className = value;
      } else if (key === 'text') {
        el.textContent = value;
      } else if (key === 'dataset') {
        Object.assign(el.dataset, value);
      } else if (key in el && !key.includes('-') && typeof value !== 'string') {
        el[key] = value;  // hidden, checked, disabled, value, colSpan ...
      } else if (key === 'value') {
        el.value = value;
      } else {
        el.setAttribute(key, value === true ? '' : String(value));
      }
    }
    for (const child of children.flat()) {
      if (child === undefined || child === null || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return el;
  }

  // ---------------------------------------------------------------- API --
  class ApiError extends Error {
    constructor(status, code, message, field) {
      super(message);
      this.status = status;
      this.code = code;
      this.field = field;
    }
  }

  async function parse(path, res) {
    if (res.status === 401) {
      session.signedIn = false;
      showSignIn('Your session has ended: sign in again.');
    }
    if (!res.ok) {
      let code = 'http_' + res.status;
      let message = res.status + ' ' + res.statusText;
      let field;
      try {
        const body = await res.json();
        if (body && body.error) {
          code = body.error.code || code;
          message = body.error.message || message;
          field = body.error.field;
        }
      } catch (_) { /* not JSON: keep the status line */ }
      throw new ApiError(res.status, code, message, field);
    }
    if (res.status === 204) return null;
    const type = res.headers.get('content-type') || '';
    return type.includes('json') ? res.json() : res.text();
  }

  // Every request of the page says so (x-medreact-page): the server asks it
  // of a POST signed in by the session cookie, which a page of another
  // origin cannot send without a CORS preflight the server refuses.
  const PAGE_HEADER = { 'x-medreact-page': '1' };

  const api = {
    async get(path) {
      const res = await fetch(path, { headers: { accept: 'application/json', ...PAGE_HEADER }, credentials: 'same-origin' });
      return parse(path, res);
    },
    async post(path, body) {
      const res = await fetch(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...PAGE_HEADER },
        credentials: 'same-origin',
        body: JSON.stringify(body === undefined ? {} : body),
      });
      return parse(path, res);
    },
    // A multipart body (FormData: the browser sets the boundary).
    async postForm(path, form) {
      const res = await fetch(path, {
        method: 'POST', headers: { accept: 'application/json', ...PAGE_HEADER }, credentials: 'same-origin', body: form,
      });
      return parse(path, res);
    },
  };

  // ------------------------------------------------------------- status --
  function setStatus(text, isError) {
    const el = document.getElementById('status');
    el.textContent = text || '';
    el.classList.toggle('error', Boolean(isError));
  }

  // Two live regions: polite for news, assertive for what cannot wait (a new
  // P1). The text is replaced, then set, so the same words are read twice.
  function announce(text, assertive) {
    const el = document.getElementById(assertive ? 'announce-assertive' : 'announce-polite');
    el.textContent = '';
    setTimeout(() => { el.textContent = text; }, 50);
  }

  // "Decision support" with what it is based on one click away (FDA CDS
  // guidance, criterion 4: the clinician can review the basis). `basis` is
  // a link target (e.g. '#runs/RUN_ID') or an element id on the page.
  function cdsLabel(basis, basisText) {
    return h('p', { class: 'cds' },
      h('span', { class: 'cds-tag', text: 'Decision support' }),
      ' AI-generated, for a clinician to review. ',
      basis ? h('a', { href: basis, text: basisText || 'See what it is based on' }) : null);
  }

  function fmtTime(iso) {
    if (!iso) return '';
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return String(iso);
    return d.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });
  }

  // ------------------------------------------------------------- events --
  // One EventSource per tab over every run (GET /v1/events), opened from the
  // store position the session answer gave, so nothing committed after the
  // views' first reads is missed. The browser reconnects by itself with
  // Last-Event-ID (a restarted server replays from its store); an event
  // seen twice (same store position) is handed to subscribers once.
  const events = (() => {
    const subscribers = new Set();
    let source = null;
    let lastId = 0;
    let state = 'closed';
    const stateListeners = new Set();

    function setState(next) {
      if (state === next) return;
      state = next;
      const el = document.getElementById('live');
      if (el) {
        el.textContent = next === 'open' ? 'Live' : next === 'connecting' ? 'Reconnecting…' : 'Offline';
        el.dataset.state = next;
      }
      for (const fn of stateListeners) fn(next);
    }

    function onMessage(msg) {
      const id = Number(msg.lastEventId);
      if (Number.isFinite(id) && id > 0) {
        if (id <= lastId) return;  // a replay overlap
        lastId = id;
      }
      let data;
      try { data = JSON.parse(msg.data); } catch (_) { return; }
      const event = { ...data, id, type: msg.type === 'message' ? data.type : msg.type };
      for (const fn of subscribers) {
        try { fn(event); } catch (err) { console.error(err); }
      }
    }

    // The event types the server sends (SSE `event:` lines); each needs its
    // own listener on an EventSource.
    // (include/medreact/events.h: EventTypeName.) A view that knows of
    // others adds them with addType before the stream opens.
    const TYPES = ['run_started', 'model_request', 'model_delta', 'assistant_message', 'tool_started',
      'tool_finished', 'step_finished', 'run_finished', 'error', 'graph_transition', 'approval'];

    let retryTimer = null;

    function open(since) {
      if (source) return;
      lastId = Math.max(lastId, Number(since) || 0);
      source = new EventSource('/v1/events?since=' + lastId);
      setState('connecting');
      source.onopen = () => setState('open');
      // A stored event of type `error` (SSE `event: error`) also reaches
      // onerror, as a MessageEvent: it is an event, not a broken connection.
      source.onerror = (ev) => {
        if (ev instanceof MessageEvent) return;
        if (source.readyState !== EventSource.CLOSED) {
          setState('connecting');  // the browser retries by itself, with Last-Event-ID
          return;
        }
        // An answer that was not a stream (a 401 after the session ended, a
        // 503 while a server starts): the browser gives up, the page does not.
        source = null;
        setState('closed');
        clearTimeout(retryTimer);
        retryTimer = setTimeout(reopen, 3000);
      };
      for (const type of TYPES) source.addEventListener(type, onMessage);
      source.onmessage = onMessage;  // a message without an `event:` line
    }

    async function reopen() {
      try {
        const info = await api.get('/v1/session');
        if (info.token_required && !info.signed_in) {
          showSignIn('Your session has ended: sign in again.');
          return;
        }
        open(lastId);
      } catch (_) {
        retryTimer = setTimeout(reopen, 3000);
      }
    }

    return {
      open,
      // Known event types can be added by a view before the stream opens.
      addType(type) { if (!TYPES.includes(type)) TYPES.push(type); if (source) source.addEventListener(type, onMessage); },
      subscribe(fn) { subscribers.add(fn); return () => subscribers.delete(fn); },
      onState(fn) { stateListeners.add(fn); return () => stateListeners.delete(fn); },
      get lastId() { return lastId; },
      get state() { return state; },
    };
  })();

  // ------------------------------------------------------------ session --
  // GET /v1/session says whether the server needs its token and whether this
  // browser holds a session (an HttpOnly cookie the page never reads).
  const session = { tokenRequired: false, signedIn: false, reviewer: '' };

  function showSignIn(message) {
    document.getElementById('signin').hidden = false;
    for (const v of document.querySelectorAll('.view')) v.hidden = true;
    document.getElementById('signin-message').textContent = message || '';
    document.getElementById('signin-token').focus();
  }

  async function signIn(event) {
    event.preventDefault();
    const token = document.getElementById('signin-token');
    try {
      await api.post('/v1/session', { token: token.value });
      token.value = '';
      document.getElementById('signin').hidden = true;
      await start();
    } catch (err) {
      document.getElementById('signin-message').textContent =
        err.code === 'unauthorized' ? 'That is not this server\'s token.' : err.message;
      token.focus();
    }
  }

  async function signOut() {
    try { await api.post('/v1/session/end'); } catch (_) { /* gone already */ }
    location.reload();
  }

  // -------------------------------------------------------------- views --
  const views = new Map();  // name → {title, mount, show, hide, mounted}
  let current = null;

  function registerView(name, view) {
    views.set(name, { ...view, mounted: false });
  }

  // '#runs/run_1' → {view: 'runs', parts: ['run_1']}
  function route() {
    const [view, ...parts] = location.hash.slice(1).split('/').map(decodeURIComponent);
    return { view: views.has(view) ? view : 'worklist', parts };
  }

  function go(hash) {
    if (location.hash === hash) showView();
    else location.hash = hash;
  }

  function showView() {
    if (!session.ready) return;
    const r = route();
    const view = views.get(r.view);
    for (const a of document.querySelectorAll('nav a[data-view]')) {
      if (a.dataset.view === r.view) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    document.getElementById('view-title').textContent = view.title;
    document.title = 'medreact — ' + view.title;
    if (current && current !== r.view) {
      const old = views.get(current);
      document.getElementById('view-' + current).hidden = true;
      if (old.hide) old.hide();
    }
    const container = document.getElementById('view-' + r.view);
    container.hidden = false;
    if (!view.mounted) {
      view.mounted = true;
      view.mount(container);
    }
    current = r.view;
    if (view.show) view.show(r.parts);
  }

  async function start() {
    setStatus('Loading…');
    let info;
    try {
      info = await api.get('/v1/session');
    } catch (err) {
      setStatus(err.message, true);
      return;
    }
    session.tokenRequired = Boolean(info.token_required);
    session.signedIn = Boolean(info.signed_in);
    document.getElementById('signout').hidden = !(session.tokenRequired && session.signedIn);
    if (session.tokenRequired && !session.signedIn) {
      setStatus('');
      showSignIn('');
      return;
    }
    setStatus('');
    session.ready = true;
    events.open(info.event_cursor || 0);
    showView();
  }

  document.addEventListener('DOMContentLoaded', () => {
    document.getElementById('signin-form').addEventListener('submit', signIn);
    document.getElementById('signout').addEventListener('click', signOut);
    window.addEventListener('hashchange', showView);
    start();
  });

  return {
    h, api, ApiError, events, announce, setStatus, cdsLabel, fmtTime, registerView, go, route, session,
  };
})();
