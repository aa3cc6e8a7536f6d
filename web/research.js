// The Research view (#research, #research/RUN_ID): a question for the
// multi-agent research app (seed 003), what its agents do as they do it (the
// research events from the tab's one stream), and the report once written:
// its markdown rendered as elements (headings, paragraphs, lists, emphasis;
// never markup from the text), every inline [n] a link to reference n, every
// reference with its PMID / NCT / DOI linked to its public page, and the
// sources that failed. The report is decision support: its label links to
// the run it is based on (#runs/RUN_ID).
//
// Requests: one POST per question; one GET of the run when it is shown and
// when its report is complete; for a run this tab did not start, its stored
// events once (GET /v1/runs/ID/events, read until the run's end). Never one
// request per event.
'use strict';

(() => {
  const { h, api } = MR;

  // The research app's event types (src/apps/research/research_events.h):
  // the stream needs a listener per SSE type.
  const TYPES = ['started', 'thinking', 'searching', 'search_complete', 'judging', 'judge_complete', 'hypothesizing',
    'synthesizing', 'streaming', 'complete', 'error', 'progress'];
  for (const type of TYPES) MR.events.addType(type);

  const SOURCES = [
    { value: 'pubmed', label: 'PubMed' },
    { value: 'trials', label: 'ClinicalTrials.gov' },
    { value: 'preprints', label: 'Europe PMC preprints' },
  ];
  const AGENTS = { manager: 'Manager', search: 'Search', judge: 'Judge', hypothesis: 'Hypothesis', report: 'Report' };
  const KEEP_RUNS = 20;

  // run id → {events: Map seq → event, draft, report, result, status, question, fetched, backfill}
  const runs = new Map();
  const startedHere = new Set();
  let ui = null;        // the view's elements
  let current = null;   // the run shown

  function runOf(id) {
    let r = runs.get(id);
    if (!r) {
      r = { events: new Map(), draft: '', report: '', result: null, status: '', question: '', fetching: false };
      runs.set(id, r);
      if (runs.size > KEEP_RUNS) {
        for (const old of runs.keys()) {
          if (old !== current) { runs.delete(old); break; }
        }
      }
    }
    return r;
  }

  // ------------------------------------------------------------ markdown --
  // Links to a record's public page, from its identifier: PMID, NCT, DOI,
  // PMCID; null for anything else.
  function idLink(id) {
    const text = String(id || '').trim();
    let m;
    if ((m = /^PMID:\s*(\d{1,9})$/i.exec(text))) {
      return { label: 'PMID ' + m[1], href: 'https://pubmed.ncbi.nlm.nih.gov/' + m[1] + '/' };
    }
    if ((m = /^(NCT\d{8})$/i.exec(text))) {
      const nct = m[1].toUpperCase();
      return { label: nct, href: 'https://clinicaltrials.gov/study/' + nct };
    }
    if ((m = /^DOI:\s*(10\.\d{4,9}\/\S+)$/i.exec(text))) {
      return { label: 'DOI ' + m[1], href: 'https://doi.org/' + m[1].split('/').map(encodeURIComponent).join('/') };
    }
    if ((m = /^PMCID:\s*(PMC\d{1,10})$/i.exec(text))) {
      return { label: m[1], href: 'https://pmc.ncbi.nlm.nih.gov/articles/' + m[1] + '/' };
    }
    return null;
  }

  function external(href, text) {
    return h('a', { href, rel: 'noopener noreferrer', class: 'external', text });
  }

  // A citation link: in the page, to reference n (focus moves there).
  function citeLink(n) {
    return h('a', {
      href: '#research/' + encodeURIComponent(current || ''), class: 'cite', dataset: { ref: String(n) },
      'aria-label': 'Reference ' + n, text: String(n),
    });
  }

  // "[2, 4]" / "[2-5]" → [ '[', link 2, ', ', link 4, ']' ]; null when not a citation group.
  function citation(inner) {
    if (!/^\s*\d{1,4}(\s*(?:,|-|–)\s*\d{1,4})*\s*$/.test(inner)) return null;
    const out = ['['];
    const re = /(\d{1,4})|(\s*,\s*)|(\s*[-–]\s*)/g;
    let m;
    while ((m = re.exec(inner))) {
      if (m[1]) out.push(citeLink(Number(m[1])));
      else if (m[2]) out.push(', ');
      else out.push('–');
    }
    out.push(']');
    return out;
  }

  // Inline markdown → nodes: **strong**, *em* / _em_, `code`, [n] citations,
  // [text](https://…) links; everything else is text.
  function inline(text) {
    const nodes = [];
    const re = /\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|(?<![A-Za-z0-9])_([^_]+)_(?![A-Za-z0-9])|`([^`]+)`|\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)|\[([^\]]+)\]/g;
    let last = 0;
    let m;
    while ((m = re.exec(text))) {
      if (m.index > last) nodes.push(text.slice(last, m.index));
      if (m[1] !== undefined) nodes.push(h('strong', {}, inline(m[1])));
      else if (m[2] !== undefined) nodes.push(h('em', {}, inline(m[2])));
      else if (m[3] !== undefined) nodes.push(h('em', {}, inline(m[3])));
      else if (m[4] !== undefined) nodes.push(h('code', { text: m[4] }));
      else if (m[5] !== undefined) {
        nodes.push(m[6].startsWith('https://') ? external(m[6], m[5]) : m[5] + ' (' + m[6] + ')');
      } else {
        nodes.push(...(citation(m[7]) || [m[0]]));
      }
      last = re.lastIndex;
    }
    if (last < text.length) nodes.push(text.slice(last));
    return nodes;
  }

  // The sections the view shows from the run's result instead of the text.
  const STRUCTURED = /^(references|gathered, not cited|searches that failed)$/i;

  // Block markdown → elements: ATX headings (below the Report section's h3:
  // # → h4, ## → h5, deeper → h6),
  // paragraphs, bullet and numbered lists, rules. `skipStructured` leaves out
  // the References, Gathered-not-cited and failed-searches sections.
  function renderMarkdown(markdown, skipStructured) {
    const out = [];
    let para = [];
    let list = null;
    let skipping = false;
    let skipLevel = 0;
    const flushPara = () => {
      if (para.length) out.push(h('p', {}, inline(para.join(' '))));
      para = [];
    };
    const flushList = () => {
      if (list) out.push(list);
      list = null;
    };
    for (const raw of String(markdown || '').split(/\r?\n/)) {
      const line = raw.replace(/\s+$/, '');
      const heading = /^(#{1,6})\s+(.*?)\s*#*$/.exec(line);
      if (heading) {
        const level = heading[1].length;
        if (skipping && level > skipLevel) continue;
        skipping = false;
        flushPara();
        flushList();
        if (skipStructured && STRUCTURED.test(heading[2].trim())) {
          skipping = true;
          skipLevel = level;
          continue;
        }
        out.push(h('h' + Math.min(level + 3, 6), { class: 'md-h' + level }, inline(heading[2])));
        continue;
      }
      if (skipping) continue;
      const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
      const numbered = /^\s*(\d{1,4})[.)]\s+(.*)$/.exec(line);
      if (bullet || numbered) {
        flushPara();
        const tag = bullet ? 'ul' : 'ol';
        if (!list || list.tagName.toLowerCase() !== tag) {
          flushList();
          list = h(tag, numbered && numbered[1] !== '1' ? { start: Number(numbered[1]) } : {});
        }
        list.append(h('li', {}, inline(bullet ? bullet[1] : numbered[2])));
        continue;
      }
      if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
        flushPara();
        flushList();
        out.push(h('hr'));
        continue;
      }
      if (!line.trim()) {
        flushPara();
        flushList();
        continue;
      }
      if (list && /^\s{2,}/.test(line)) {  // a list item's continuation
        list.lastChild.append(' ', ...inline(line.trim()));
        continue;
      }
      flushList();
      para.push(line.trim());
    }
    flushPara();
    flushList();
    return out;
  }

  // ------------------------------------------------------------- events --
  function agentName(e) { return AGENTS[e.agent] || (e.agent ? e.agent : 'Research'); }

  // A graph transition ("search -> manager") says nothing a person needs.
  function shown(e) {
    if (e.type === 'progress' && e.data && typeof e.data === 'object' && 'node' in e.data) return false;
    if (e.type === 'streaming' && e.agent === 'report') return false;  // the draft is the report itself
    return TYPES.includes(e.type);
  }

  function details(e) {
    const d = e.data && typeof e.data === 'object' ? e.data : {};
    if (e.type === 'search_complete' && Array.isArray(d.searches) && d.searches.length) {
      return h('ul', { class: 'research-searches' }, d.searches.map((s) => h('li', { class: s.ok ? null : 'failed' },
        h('span', { class: 'source', text: s.source || s.tool || '' }), ': “' + (s.query || '') + '” ',
        s.ok ? (Number.isInteger(s.records) ? s.records + ' record(s)' : 'answered') : h('strong', { text: 'failed' }),
        s.ok || !s.error ? '' : ' — ' + s.error)));
    }
    if (e.type === 'judge_complete') {
      const parts = [];
      if (d.mechanism_reasoning) parts.push(h('li', {}, h('span', { class: 'label', text: 'Mechanism: ' }), d.mechanism_reasoning));
      if (d.clinical_reasoning) parts.push(h('li', {}, h('span', { class: 'label', text: 'Clinical: ' }), d.clinical_reasoning));
      return parts.length ? h('ul', { class: 'research-judgement' }, parts) : null;
    }
    if (e.type === 'progress' && e.agent === 'hypothesis' && Array.isArray(d.hypotheses)) {
      return h('ul', { class: 'research-hypotheses' }, d.hypotheses.map((x) => h('li', {},
        [x.drug, x.target, x.pathway, x.effect].filter(Boolean).join(' → '),
        Number.isFinite(x.confidence) ? ' (confidence ' + x.confidence + ')' : '',
        x.statement ? ': ' + x.statement : '')));
    }
    if (e.type === 'streaming' && d.text && d.text !== e.message) return h('p', { class: 'research-summary', text: d.text });
    return null;
  }

  function eventRow(e) {
    const failed = e.type === 'error';
    return h('li', { class: 'research-event' + (failed ? ' failed' : ''), dataset: { seq: String(e.seq), type: e.type } },
      h('span', { class: 'agent agent-' + (e.agent || 'research'), text: agentName(e) }),
      ' ',
      h('time', { datetime: e.at || e.timestamp || '', text: MR.fmtTime(e.at || e.timestamp) }),
      ' ',
      failed ? h('strong', { class: 'failed-tag', text: 'Failed: ' }) : null,
      h('span', { class: 'message', text: e.message || e.type }),
      details(e));
  }

  // Inserts the row in the run's order (a backfilled run's rows may come
  // after live ones).
  function addRow(e) {
    if (!ui || !shown(e)) return;
    const row = eventRow(e);
    const list = ui.events;
    let before = null;
    for (let i = list.children.length - 1; i >= 0; i--) {
      const seq = Number(list.children[i].dataset.seq);
      if (seq > e.seq) before = list.children[i];
      else break;
    }
    list.insertBefore(row, before);
    ui.eventsEmpty.hidden = true;
  }

  function onEvent(e) {
    if (!e.run_id || (e.app && e.app !== 'research') || !TYPES.includes(e.type)) return;
    if (!e.app && !runs.has(e.run_id)) return;
    const r = runOf(e.run_id);
    const seq = Number(e.seq);
    if (!Number.isFinite(seq) || r.events.has(seq)) return;
    r.events.set(seq, e);
    if (e.type === 'synthesizing') r.draft = '';  // a report (or the fallback's) starts anew
    if (e.type === 'streaming' && e.agent === 'report' && e.data && typeof e.data.text === 'string') {
      r.draft += e.data.text;
    }
    if (e.type === 'complete' && e.data && typeof e.data.report === 'string') r.report = e.data.report;
    if (e.run_id !== current) return;
    addRow(e);
    if (e.type === 'searching') MR.announce(agentName(e) + ': ' + e.message);
    if ((e.type === 'streaming' && e.agent === 'report') || e.type === 'synthesizing') renderReport();
    if (e.type === 'complete') {
      renderReport();
      MR.announce('The research report is written.');
      fetchRun(e.run_id);
      loadEarlier();
    }
    // The run's end without a report: it failed, or a search waits for a
    // person's decision (stored with the run's status).
    const paused = e.type === 'progress' && e.data && Array.isArray(e.data.awaiting_approval) && !e.agent;
    if ((e.type === 'error' && !e.agent) || paused) {
      MR.announce(e.message, true);
      fetchRun(e.run_id);
      loadEarlier();
    }
  }

  // A run this tab did not start: its stored events once, from the run's own
  // stream (read until its end; the live ones arrive on the tab's stream too,
  // each kept once by its number).
  async function backfill(id) {
    const r = runOf(id);
    if (r.backfilled) return;
    r.backfilled = true;
    const controller = new AbortController();
    try {
      const res = await fetch('/v1/runs/' + encodeURIComponent(id) + '/events', {
        headers: { accept: 'text/event-stream', 'x-medreact-page': '1' }, credentials: 'same-origin',
        signal: controller.signal,
      });
      if (!res.ok || !res.body) {
        r.backfilled = false;  // a later show tries again; fetchRun says what is wrong
        return;
      }
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let cut;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let type = 'message';
          let data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) type = line.slice(6).trim();
            else if (line.startsWith('data:')) data += line.slice(5).trim();
          }
          if (type === 'end') { controller.abort(); return; }
          if (!data) continue;
          let parsed;
          try { parsed = JSON.parse(data); } catch (_) { continue; }
          onEvent({ ...parsed, app: 'research', type: type === 'message' ? parsed.type : type });
        }
      }
    } catch (err) {
      if (err.name !== 'AbortError') MR.setStatus('The run\'s events could not be read: ' + err.message, true);
    }
  }

  // --------------------------------------------------------------- run --
  async function fetchRun(id) {
    const r = runOf(id);
    if (r.fetching) return;
    r.fetching = true;
    try {
      const body = await api.get('/v1/runs/' + encodeURIComponent(id));
      const run = body.run || {};
      if (run.app !== 'research') {
        if (id === current) showError('Run ' + id + ' is not a research run.');
        return;
      }
      r.status = run.status || '';
      r.question = (run.inputs && run.inputs.message) || r.question;
      const result = run.result || null;
      if (result && result.final_fields) {
        r.result = result.final_fields;
        if (typeof r.result.report?.markdown === 'string' && !r.report) r.report = r.result.report.markdown;
      }
      if (result && !r.report && typeof result.answer === 'string') r.report = result.answer;
      r.error = (result && result.error) || '';
      if (id === current) renderRun();
    } catch (err) {
      if (id === current) showError(err.status === 404 ? 'There is no run ' + id + '.' : err.message);
    } finally {
      r.fetching = false;
    }
  }

  function showError(text) {
    MR.setStatus(text, true);
  }

  function renderReport() {
    const r = runs.get(current);
    if (!r || !ui) return;
    const text = r.report || r.draft;
    ui.reportBody.replaceChildren(...renderMarkdown(text, Boolean(r.report)));
    ui.reportBody.dataset.state = r.report ? 'final' : text ? 'draft' : 'empty';
    ui.reportWaiting.hidden = Boolean(text);
    ui.reportDraft.hidden = !(text && !r.report);
    renderReferences(r);
  }

  function renderReferences(r) {
    const result = r.result;
    const refs = result && Array.isArray(result.references) ? result.references : null;
    ui.refsSection.hidden = !r.report;
    if (!refs) {
      ui.refs.replaceChildren();
      ui.refsNote.textContent = r.report ? 'Loading the references…' : '';
    } else {
      ui.refsNote.textContent = refs.length ? '' : 'The report cites no record.';
      ui.refs.replaceChildren(...refs.map((ref) => referenceItem(ref)));
    }
    const failed = result && Array.isArray(result.failed_searches) ? result.failed_searches : liveFailures(r);
    ui.failedSection.hidden = failed.length === 0;
    ui.failed.replaceChildren(...failed.map((f) => h('li', {},
      h('span', { class: 'source', text: f.source || f.tool || 'A source' }),
      f.query ? ' — “' + f.query + '”' : '', Number.isInteger(f.round) && f.round > 0 ? ' (round ' + f.round + ')' : '',
      ': ', h('span', { class: 'why', text: f.error || 'no reason given' }))));
  }

  function liveFailures(r) {
    return [...r.events.values()].filter((e) => e.type === 'error' && e.data && e.data.source)
      .sort((a, b) => a.seq - b.seq)
      .map((e) => ({ source: e.data.source, tool: e.data.tool, query: e.data.query, error: e.data.error, round: e.iteration }));
  }

  function referenceItem(ref) {
    const n = Number(ref.ref);
    const ids = [ref.id, ...(Array.isArray(ref.other_ids) ? ref.other_ids : [])];
    const links = [];
    const seen = new Set();
    for (const id of ids) {
      const link = idLink(id);
      if (!link || seen.has(link.href)) continue;
      seen.add(link.href);
      links.push(external(link.href, link.label));
    }
    if (!links.length && typeof ref.url === 'string' && ref.url.startsWith('https://')) {
      links.push(external(ref.url, ref.id || ref.url));
    } else if (!links.length && ref.id) {
      links.push(h('span', { class: 'ref-id', text: ref.id }));
    }
    const meta = [ref.type, ref.year ? String(ref.year) : '', ref.cited === false ? 'gathered, not cited' : '']
      .filter(Boolean).join(' · ');
    return h('li', { id: 'research-ref-' + n, tabindex: '-1', dataset: { ref: String(n) }, value: n },
      h('span', { class: 'ref-title', text: ref.title || '(no title)' }),
      meta ? h('span', { class: 'ref-meta', text: ' ' + meta + '.' }) : null,
      ' ', h('span', { class: 'ref-links' }, links.flatMap((a, i) => (i ? [' · ', a] : [a]))));
  }

  function renderRun() {
    const r = runs.get(current);
    if (!r || !ui) return;
    ui.run.hidden = false;
    ui.question.textContent = r.question || '';
    ui.runStatus.replaceChildren(r.status ? 'Status: ' + r.status.replace(/_/g, ' ') + (r.error ? ' — ' + r.error : '')
      : 'Status: running');
    if (r.status === 'awaiting_approval') {
      ui.runStatus.append(' ', h('a', { href: '#approvals', text: 'Decide on the searches waiting' }));
    }
    ui.cds.replaceChildren(MR.cdsLabel('#runs/' + encodeURIComponent(current), 'See the run this report is based on'));
    renderReport();
  }

  function showRun(id) {
    current = id;
    const r = runOf(id);
    ui.events.replaceChildren();
    ui.eventsEmpty.hidden = false;
    for (const e of [...r.events.values()].sort((a, b) => a.seq - b.seq)) addRow(e);
    renderRun();
    fetchRun(id);
    if (!startedHere.has(id)) backfill(id);
  }

  // -------------------------------------------------------------- form --
  // The message under a field (its live region); a control is marked invalid
  // too (the sources' fieldset only shows the message: a group has no aria-invalid).
  function fieldError(el, message) {
    const box = document.getElementById(el.id === 'research-sources' ? 'research-sources-error' : el.id + '-error');
    box.textContent = message || '';
    if (el.id === 'research-sources') return;
    if (message) el.setAttribute('aria-invalid', 'true');
    else el.removeAttribute('aria-invalid');
  }

  function clearErrors() {
    fieldError(ui.questionInput, '');
    fieldError(ui.sources, '');
    fieldError(ui.online, '');
    ui.formError.textContent = '';
  }

  async function submit(event) {
    event.preventDefault();
    clearErrors();
    const question = ui.questionInput.value.trim();
    const sources = [...ui.form.querySelectorAll('input[name="source"]:checked')].map((c) => c.value);
    if (!question) {
      fieldError(ui.questionInput, 'Enter a research question.');
      ui.questionInput.focus();
      return;
    }
    if (!sources.length) {
      fieldError(ui.sources, 'Choose at least one source.');
      ui.form.querySelector('input[name="source"]').focus();
      return;
    }
    ui.submit.disabled = true;
    try {
      const body = await api.post('/v1/runs', {
        app: 'research', inputs: { question, sources, online: ui.online.checked },
      });
      const id = body.run.id;
      startedHere.add(id);
      const r = runOf(id);
      r.question = question;
      r.status = body.run.status || 'running';
      MR.announce('Research started.');
      MR.go('#research/' + encodeURIComponent(id));
    } catch (err) {
      const field = String(err.field || '');
      const target = field.endsWith('question') ? ui.questionInput
        : field.includes('sources') ? ui.sources : field.endsWith('online') ? ui.online : null;
      if (target) {
        fieldError(target, err.message + (target === ui.online ? ' Clear this box to answer from recorded responses only.' : ''));
        (target === ui.sources ? ui.form.querySelector('input[name="source"]') : target).focus();
      } else {
        ui.formError.textContent = err.message;
      }
    } finally {
      ui.submit.disabled = false;
    }
  }

  async function loadEarlier() {
    try {
      const body = await api.get('/v1/runs?app=research&limit=20');
      const list = (body.runs || []);
      ui.earlier.replaceChildren(...list.map((run) => h('li', {},
        h('a', { href: '#research/' + encodeURIComponent(run.id), text: run.id }),
        ' ', h('span', { class: 'run-meta', text: (run.status || '').replace(/_/g, ' ') + ', ' + MR.fmtTime(run.created_at) }))));
      ui.earlierEmpty.hidden = list.length > 0;
    } catch (err) {
      ui.earlierEmpty.hidden = false;
      ui.earlierEmpty.textContent = 'Earlier research could not be listed: ' + err.message;
    }
  }

  // Citation links move the focus to their reference (the hash stays a route).
  function onCite(event) {
    const a = event.target.closest('a.cite');
    if (!a) return;
    event.preventDefault();
    const target = document.getElementById('research-ref-' + a.dataset.ref);
    if (!target) {
      MR.setStatus('Reference ' + a.dataset.ref + ' is not in the list yet.', true);
      return;
    }
    target.focus();
    target.scrollIntoView({ block: 'center' });
  }

  function mount(el) {
    const questionInput = h('textarea', {
      id: 'research-question', name: 'question', rows: 3, required: true,
      'aria-describedby': 'research-question-hint research-question-error',
    });
    const sources = h('fieldset', { id: 'research-sources', class: 'research-sources', 'aria-describedby': 'research-sources-error' },
      h('legend', { text: 'Sources' }),
      SOURCES.map((s) => h('label', { class: 'check' },
        h('input', { type: 'checkbox', name: 'source', value: s.value, checked: true }), ' ' + s.label)),
      h('p', { id: 'research-sources-error', class: 'field-error', role: 'alert' }));
    const online = h('input', {
      type: 'checkbox', id: 'research-online', name: 'online', checked: true,
      'aria-describedby': 'research-online-error',
    });
    const submitButton = h('button', { type: 'submit', text: 'Start research' });
    const formError = h('p', { id: 'research-form-error', class: 'field-error', role: 'alert' });
    const form = h('form', { id: 'research-form', novalidate: true, on: { submit } },
      h('label', { for: 'research-question', text: 'Research question' }),
      h('p', { id: 'research-question-hint', class: 'hint',
        text: 'A question about the literature, e.g. a drug and a condition. No patient details: the question is kept with the run.' }),
      questionInput,
      h('p', { id: 'research-question-error', class: 'field-error', role: 'alert' }),
      sources,
      h('p', { class: 'check' }, h('label', { for: 'research-online' }, online,
        ' Query the services online (the server must allow it); otherwise only recorded answers are used')),
      h('p', { id: 'research-online-error', class: 'field-error', role: 'alert' }),
      submitButton, formError);

    const events = h('ol', { id: 'research-events', class: 'research-events' });
    const eventsEmpty = h('p', { class: 'hint', text: 'Waiting for the agents…' });
    const reportBody = h('div', { id: 'research-report', class: 'research-report' });
    const reportWaiting = h('p', { class: 'hint', text: 'The report appears here when the report agent writes it.' });
    const reportDraft = h('p', { class: 'hint', text: 'Draft: the report as it is being written.' });
    const refs = h('ol', { id: 'research-references', class: 'research-references' });
    const refsNote = h('p', { class: 'hint' });
    const failed = h('ul', { id: 'research-failed', class: 'research-failed' });
    const question = h('p', { id: 'research-run-question', class: 'research-question' });
    const runStatus = h('p', { id: 'research-run-status' });
    const cds = h('div', { class: 'research-cds' });
    const refsSection = h('section', { 'aria-labelledby': 'research-refs-heading', class: 'research-refs', hidden: true },
      h('h3', { id: 'research-refs-heading', text: 'References' }), refsNote, refs);
    const failedSection = h('section', { 'aria-labelledby': 'research-failed-heading', class: 'research-failed-box', hidden: true },
      h('h3', { id: 'research-failed-heading', text: 'Sources that failed' }), failed);
    const run = h('section', { id: 'research-run', 'aria-labelledby': 'research-run-heading', hidden: true },
      h('h2', { id: 'research-run-heading', text: 'Research' }), question, runStatus, cds,
      h('div', { class: 'research-columns' },
        h('section', { 'aria-labelledby': 'research-events-heading', class: 'research-activity' },
          h('h3', { id: 'research-events-heading', text: 'What the agents do' }), eventsEmpty, events),
        h('section', { 'aria-labelledby': 'research-report-heading', class: 'research-output' },
          h('h3', { id: 'research-report-heading', text: 'Report' }), reportWaiting, reportDraft, reportBody,
          refsSection, failedSection)));
    const earlier = h('ul', { id: 'research-earlier', class: 'research-earlier' });
    const earlierEmpty = h('p', { class: 'hint', text: 'No research yet.' });
    el.append(
      h('section', { 'aria-labelledby': 'research-ask-heading', class: 'research-ask' },
        h('h2', { id: 'research-ask-heading', text: 'Ask a research question' }), form),
      run,
      h('section', { 'aria-labelledby': 'research-earlier-heading', class: 'research-earlier-box' },
        h('h2', { id: 'research-earlier-heading', text: 'Earlier research' }), earlierEmpty, earlier));
    el.addEventListener('click', onCite);
    ui = {
      form, questionInput, sources, online, submit: submitButton, formError, events, eventsEmpty, reportBody,
      reportWaiting, reportDraft, refs, refsNote, refsSection, failed, failedSection, question, runStatus, cds, run,
      earlier, earlierEmpty,
    };
  }

  // From load on: a research run's events are kept whichever view is shown.
  MR.events.subscribe(onEvent);

  MR.registerView('research', {
    title: 'Research',
    mount,
    show(parts) {
      const id = parts && parts[0];
      if (id) {
        if (id !== current) showRun(id);
      } else {
        current = null;
        ui.run.hidden = true;
      }
      loadEarlier();
    },
  });
})();
