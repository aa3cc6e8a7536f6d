// The official MCP TypeScript SDK's client against `medreact mcp` over stdio
// (StdioClientTransport spawning the binary), run by tests/integration/
// mcp_server_npm_test.cc:
//
//   MEDREACT_BINARY=build/medreact MEDREACT_TMP=/tmp/x node tests/node/mcp_server_stdio.mjs
//
// The checks are tests/node/lib/mcp_checks.mjs'. Exits 0 printing "all checks
// passed", else 1 naming the first mismatch.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { check, packs, runChecks, startHangingPubMed } from './lib/mcp_checks.mjs';

const medreact = process.env.MEDREACT_BINARY;
const tmp = process.env.MEDREACT_TMP;
if (!medreact || !tmp) {
  console.error('usage: MEDREACT_BINARY=... MEDREACT_TMP=... node mcp_server_stdio.mjs');
  process.exit(2);
}
const pubmed = await startHangingPubMed();
const transport = new StdioClientTransport({
  command: medreact,
  args: ['mcp', '--packs', packs, '--page-size', '7'],
  env: { ...process.env, MEDREACT_PUBMED_URL: pubmed.url, XDG_CACHE_HOME: tmp, MEDREACT_LOG_LEVEL: 'info' },
  stderr: 'pipe',
});
let stderr = '';
transport.stderr.on('data', (d) => { stderr += d; });
const client = new Client({ name: 'medreact-test', version: '1.0.0' });
await client.connect(transport);
try {
  await runChecks(client, { medreact, pubmed });
  // The server's log (stderr) says the call was cancelled; nothing of it on stdout.
  for (let i = 0; i < 100 && !/search_pubmed .*cancelled/.test(stderr); i++) await new Promise((r) => setTimeout(r, 100));
  check(/search_pubmed .*cancelled/.test(stderr), 'the server logged the cancelled call on stderr', stderr);
  check(!/metformin/.test(stderr), 'the log does not carry the arguments', stderr);
} finally {
  await client.close();
  pubmed.close();
}
console.log('all checks passed');
