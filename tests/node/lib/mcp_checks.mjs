// The checks both MCP server scripts run (tests/node/mcp_server_stdio.mjs,
// mcp_server_http.mjs) with the official TypeScript SDK's Client, connected
// to `medreact mcp --packs calc,literature --page-size 7`:
//
//   listing   every page of tools/list, each tool seen once, the union equal
//             to `medreact tools list` for the two packs
//   call      body_mass_index: a text block and structuredContent, which the
//             SDK validates against the outputSchema it was given
//   errors    bad arguments → isError with the field named; an unknown tool →
//             a JSON-RPC error -32602
//   progress  a slow call (the fixture answers "slowly" after 400 ms) with
//             onprogress: the start arrives while it runs. (The end is sent
//             just before the response; the SDK handles notifications a
//             microtask late and drops those that arrive with the response
//             in one read, so the end is checked by tests/unit/mcp_server_test.cc.)
//   cancel    search_pubmed against a PubMed that never answers (the fixture
//             below): an AbortSignal ends the call at the client, and the
//             server cancels its request to the fixture (its socket closes)
import { execFileSync } from 'node:child_process';
import http from 'node:http';

export function check(ok, what, got) {
  if (!ok) {
    console.error(`MISMATCH: ${what}${got === undefined ? '' : `; got ${JSON.stringify(got).slice(0, 600)}`}`);
    process.exit(1);
  }
  console.log(`ok: ${what}`);
}

// A PubMed that accepts each request and never answers, except a search for
// "slowly", answered after 400 ms with no records; `closed` resolves when a
// request left unanswered is closed by the client (medreact).
export async function startHangingPubMed() {
  let seen;
  const requested = new Promise((resolve) => { seen = resolve; });
  let closedResolve;
  const closed = new Promise((resolve) => { closedResolve = resolve; });
  const server = http.createServer((req, res) => {
    if (req.url.includes('slowly')) {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ esearchresult: { count: '0', retmax: '0', retstart: '0', idlist: [] } }));
      }, 400);
      return;
    }
    seen();
    res.on('close', () => closedResolve());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, requested, closed, close: () => { server.closeAllConnections(); server.close(); } };
}

export const packs = 'calc,literature';

function expectedNames(medreact) {
  const names = [];
  for (const pack of packs.split(',')) {
    const out = execFileSync(medreact, ['tools', 'list', '--pack', pack], { encoding: 'utf8' });
    for (const spec of JSON.parse(out)) names.push(spec.name);
  }
  return names;
}

// `promise`, or a rejection naming `what` after `ms` (the timer is cleared, so
// it keeps no script alive).
function withTimeout(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

export async function runChecks(client, { medreact, pubmed }) {
  // initialize (done by connect): the version agreed and the capabilities.
  check(client.getServerVersion()?.name === 'medreact', 'serverInfo.name is medreact', client.getServerVersion());
  check(client.getServerCapabilities()?.tools?.listChanged === false, 'capabilities.tools.listChanged is false',
        client.getServerCapabilities());

  // Listing with paging.
  const seen = [];
  let cursor;
  let pages = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    pages++;
    check(page.tools.length <= 7, `page ${pages} holds at most 7 tools`, page.tools.length);
    for (const tool of page.tools) seen.push(tool);
    cursor = page.nextCursor;
  } while (cursor && pages < 100);
  const names = seen.map((t) => t.name);
  check(new Set(names).size === names.length, 'no tool is listed twice', names);
  const expected = expectedNames(medreact);
  check(pages === Math.ceil(expected.length / 7), `${pages} pages of 7 for ${expected.length} tools`, pages);
  check(JSON.stringify([...names].sort()) === JSON.stringify([...expected].sort()),
        'the pages together list every tool of the packs', names);
  const bmi = seen.find((t) => t.name === 'body_mass_index');
  check(bmi?.inputSchema?.type === 'object' && bmi?.outputSchema?.type === 'object',
        'a calculator lists its inputSchema and outputSchema', bmi);
  check(seen.find((t) => t.name === 'search_pubmed')?.outputSchema === undefined,
        'a tool without an output schema lists none');
  let badCursor;
  try { await client.listTools({ cursor: 'not-a-cursor' }); } catch (e) { badCursor = e; }
  check(badCursor?.code === -32602, 'a cursor the server never gave is -32602', badCursor?.message);

  // A call with structured content (the SDK validates it against outputSchema).
  const result = await client.callTool({ name: 'body_mass_index', arguments: { weight: 70, height: 175 } });
  check(!result.isError, 'body_mass_index succeeds', result);
  check(Math.abs(result.structuredContent?.value - 22.86) < 0.01 && result.structuredContent?.unit === 'kg/m²',
        'structuredContent carries the BMI 22.86 kg/m²', result.structuredContent);
  check(result.content?.[0]?.type === 'text' && JSON.parse(result.content[0].text).value === result.structuredContent.value,
        'the text block is the same result as JSON', result.content);

  // Errors: invalid arguments are a tool result; an unknown tool a protocol error.
  const bad = await client.callTool({ name: 'body_mass_index', arguments: { weight: 'heavy' } });
  check(bad.isError === true && /\/weight/.test(bad.content?.[0]?.text) && /\/height|height/.test(bad.content[0].text),
        'bad arguments come back as isError naming /weight and the missing height', bad);
  let unknown;
  try { await client.callTool({ name: 'no_such_tool', arguments: {} }); } catch (e) { unknown = e; }
  check(unknown?.code === -32602 && /no_such_tool/.test(unknown.message), 'an unknown tool is -32602 naming it',
        unknown?.message);

  // Progress: a call that takes a while reports its start.
  const progress = [];
  const withProgress = await client.callTool({ name: 'search_pubmed', arguments: { query: 'slowly' } }, undefined,
                                             { onprogress: (p) => progress.push(p) });
  check(!withProgress.isError && /No results found for: slowly/.test(withProgress.content?.[0]?.text), 'the slow search answers', withProgress);
  check(progress.length >= 1 && progress[0].progress === 0 && progress[0].total === 1 &&
        /search_pubmed started/.test(progress[0].message), 'onprogress received the start (0 of 1)', progress);
  check(progress.every((p, i) => i === 0 || p.progress >= progress[i - 1].progress), 'progress never goes back',
        progress);
  // A quick call with a progress token still answers (the SSE path over HTTP).
  const quick = await client.callTool({ name: 'anion_gap', arguments: { sodium: 140, chloride: 104, bicarbonate: 24 } },
                                      undefined, { onprogress: () => {} });
  check(!quick.isError && quick.structuredContent?.value === 12, 'anion_gap with a progress token gives 12', quick);

  // Cancellation: the fixture PubMed never answers.
  const abort = new AbortController();
  const slow = client.callTool({ name: 'search_pubmed', arguments: { query: 'metformin lactic acidosis' } }, undefined,
                               { signal: abort.signal, timeout: 120_000 });
  await withTimeout(pubmed.requested, 60_000, 'the server asks the fixture PubMed');
  abort.abort('the user changed their mind');
  let aborted;
  try { await slow; } catch (e) { aborted = e; }
  check(aborted !== undefined, 'the aborted call rejects at the client', aborted?.message);
  await withTimeout(pubmed.closed, 30_000, 'the server drops its request to PubMed once cancelled');
  check(true, 'the server cancelled the running call (its request to PubMed was closed)');
  const after = await client.callTool({ name: 'body_mass_index', arguments: { weight: 80, height: 180 } });
  check(Math.abs(after.structuredContent?.value - 24.69) < 0.01, 'the server still answers after a cancellation',
        after.structuredContent);
  await client.ping();
  check(true, 'ping answers');
}
