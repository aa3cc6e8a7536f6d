// The official MCP TypeScript SDK's client against `medreact mcp --http`
// (StreamableHTTPClientTransport), run by tests/integration/
// mcp_server_npm_test.cc:
//
//   MEDREACT_BINARY=build/medreact MEDREACT_TMP=/tmp/x node tests/node/mcp_server_http.mjs
//
// Starts the server on a free loopback port with a token file, checks the
// door (no token 401, a foreign Origin 403, GET 405, no session 400), runs
// tests/node/lib/mcp_checks.mjs' checks, then ends the session (DELETE).
// Exits 0 printing "all checks passed", else 1 naming the first mismatch.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { check, packs, runChecks, startHangingPubMed } from './lib/mcp_checks.mjs';

const medreact = process.env.MEDREACT_BINARY;
const tmp = process.env.MEDREACT_TMP;
if (!medreact || !tmp) {
  console.error('usage: MEDREACT_BINARY=... MEDREACT_TMP=... node mcp_server_http.mjs');
  process.exit(2);
}
const token = 'mcp-http-test-token-0123456789';
const tokenFile = join(tmp, 'token');
writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
const portFile = join(tmp, 'port');
const pubmed = await startHangingPubMed();
const child = spawn(medreact, ['mcp', '--http', '--port', '0', '--port-file', portFile, '--token-file', tokenFile,
                               '--packs', packs, '--page-size', '7'],
                    { env: { ...process.env, MEDREACT_PUBMED_URL: pubmed.url, XDG_CACHE_HOME: tmp },
                      stdio: ['ignore', 'pipe', 'pipe'] });
let stdout = '';
let stderr = '';
child.stdout.on('data', (d) => { stdout += d; });
child.stderr.on('data', (d) => { stderr += d; });
for (let i = 0; i < 300 && !existsSync(portFile); i++) await new Promise((r) => setTimeout(r, 100));
check(existsSync(portFile), 'the server wrote its port', stderr);
const url = `http://127.0.0.1:${readFileSync(portFile, 'utf8').trim()}/mcp`;
const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
                              params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const auth = { authorization: `Bearer ${token}` };
let r = await fetch(url, { method: 'POST', headers: json, body: init });
check(r.status === 401, 'no token: 401', r.status);
r = await fetch(url, { method: 'POST', headers: { ...json, authorization: 'Bearer wrong-token-0123456789' }, body: init });
check(r.status === 401, 'a wrong token: 401', r.status);
r = await fetch(url, { method: 'POST', headers: { ...json, ...auth, origin: 'http://evil.example' }, body: init });
check(r.status === 403, 'a foreign Origin: 403', r.status);
r = await fetch(url, { method: 'GET', headers: { ...auth, accept: 'text/event-stream' } });
check(r.status === 405, 'GET (no server-initiated stream): 405', r.status);
r = await fetch(url, { method: 'POST', headers: { ...json, ...auth },
                       body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
check(r.status === 400, 'a request without a session: 400', r.status);
r = await fetch(url, { method: 'POST', headers: { ...json, ...auth, 'mcp-session-id': 'nope' },
                       body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
check(r.status === 404, 'an unknown session: 404', r.status);
r = await fetch(url, { method: 'POST', headers: { ...json, ...auth }, body: '{not json' });
check(r.status === 400 && (await r.json()).error?.code === -32700, 'not JSON: 400 with -32700');

const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth } });
const client = new Client({ name: 'medreact-test', version: '1.0.0' });
try {
  await client.connect(transport);
  check(typeof transport.sessionId === 'string' && transport.sessionId.length === 32, 'the session has an id',
        transport.sessionId);
  await runChecks(client, { medreact, pubmed });
  const session = transport.sessionId;
  await transport.terminateSession();
  r = await fetch(url, { method: 'POST', headers: { ...json, ...auth, 'mcp-session-id': session },
                         body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }) });
  check(r.status === 404, 'after DELETE the session is gone: 404', r.status);
  check(stdout === '', 'nothing on stdout over HTTP', stdout);
} finally {
  await client.close().catch(() => {});
  child.kill('SIGTERM');
  pubmed.close();
}
const code = await new Promise((resolve) => child.on('exit', (c) => resolve(c)));
check(code === 0, 'the server stops on SIGTERM with 0', { code, stderr });
console.log('all checks passed');
