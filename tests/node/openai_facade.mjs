// The official openai npm client against `medreact serve`'s OpenAI-compatible
// facade (src/server/api_openai.cc), run by tests/integration/
// server_openai_npm_test.cc against a server whose model is the scripted mock:
//
//   node tests/node/openai_facade.mjs http://127.0.0.1:PORT TOKEN
//
// The mock answers, in order: the plain completion (a calculator call, then
// "It is 4."), the streamed one (the same), the chest X-ray question ("No
// effusion is seen."), then a calculator call that waits for approval.
// Exits 0 when every check holds, else 1 naming the first mismatch.
import OpenAI from 'openai';
import zlib from 'node:zlib';

const [url, token] = process.argv.slice(2);
if (!url) {
  console.error('usage: node openai_facade.mjs SERVER_URL [TOKEN]');
  process.exit(2);
}
const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: token || 'none', maxRetries: 0, timeout: 60_000 });

function check(ok, what, got) {
  if (!ok) {
    console.error(`MISMATCH: ${what}${got === undefined ? '' : `; got ${JSON.stringify(got)}`}`);
    process.exit(1);
  }
}

// A small grey PNG built here (zlib only): signature, IHDR, IDAT, IEND.
function crc32(buf) {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}
function pngChunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
function greyPng(size) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8;  // bit depth
  ihdr[9] = 0;  // grey
  const rows = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(size + 1);  // filter byte 0, then the samples
    for (let x = 0; x < size; x++) row[x + 1] = (x * 8 + y * 4) % 256;
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', zlib.deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

// 1. The models.
const models = await client.models.list();
const ids = models.data.map((m) => m.id);
check(JSON.stringify(ids) === JSON.stringify(['medreact-chat', 'medreact-cxr', 'medreact-research']), 'models.list ids', ids);

// 2. A plain completion: the answer, usage over both model calls, the run id.
const { data: done, response } = await client.chat.completions
  .create({ model: 'medreact-chat', messages: [{ role: 'user', content: 'What is 2+2?' }], max_tokens: 200 })
  .withResponse();
const runId = response.headers.get('x-medreact-run-id');
check(runId && done.id === `chatcmpl-${runId}`, 'completion id is chatcmpl-<run id>', [done.id, runId]);
check(done.choices[0].message.content === 'It is 4.', 'completion content', done.choices[0].message.content);
check(done.choices[0].finish_reason === 'stop', 'completion finish_reason', done.choices[0].finish_reason);
check(done.usage?.total_tokens === 42 && done.usage?.prompt_tokens === 30, 'completion usage summed', done.usage);

// 3. Streamed with include_usage: reasoning (the tool), content, usage, the end.
const stream = await client.chat.completions.create({
  model: 'medreact-chat',
  messages: [{ role: 'user', content: 'What is 2+2?' }],
  stream: true,
  stream_options: { include_usage: true },
});
let reasoning = '';
let content = '';
let finish = null;
let usage = null;
let role = null;
for await (const chunk of stream) {
  const choice = chunk.choices[0];
  if (choice) {
    role = role ?? choice.delta?.role ?? null;
    reasoning += choice.delta?.reasoning_content ?? '';
    content += choice.delta?.content ?? '';
    finish = choice.finish_reason ?? finish;
  }
  if (chunk.usage) usage = chunk.usage;
}
check(role === 'assistant', 'stream role', role);
check(reasoning.includes('→ calculator {"expression":"2+2"}') && reasoning.includes('← {"expression":"2+2","result":4}'), 'stream reasoning', reasoning);
check(content === 'It is 4.', 'stream content', content);
check(finish === 'stop', 'stream finish_reason', finish);
check(usage?.total_tokens === 42, 'stream usage chunk', usage);

// 4. An image (data URL) to medreact-cxr.
const png = greyPng(32).toString('base64');
const cxr = await client.chat.completions.create({
  model: 'medreact-cxr',
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Is there a pleural effusion?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
      ],
    },
  ],
});
check(cxr.choices[0].message.content.includes('No effusion is seen.'), 'cxr answer', cxr.choices[0].message.content);

// 5. A run that pauses for approval ends with the message (streamed: no hang).
const paused = await client.chat.completions.create({
  model: 'medreact-chat',
  messages: [{ role: 'user', content: 'What is 2+2?' }],
  stream: true,
  medreact: { require_approval: ['tool:calculator'] },
});
let pausedText = '';
let pausedFinish = null;
for await (const chunk of paused) {
  pausedText += chunk.choices[0]?.delta?.content ?? '';
  pausedFinish = chunk.choices[0]?.finish_reason ?? pausedFinish;
}
check(/POST \/v1\/runs\/[^/]+\/approvals\/\{call_id\}/.test(pausedText), 'paused run names the approval route', pausedText);
check(pausedText.includes('calculator'), 'paused run names the waiting tool', pausedText);
check(pausedFinish === 'stop', 'paused run finish_reason', pausedFinish);

// 6. An error keeps its message for the client.
try {
  await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
  check(false, 'an unknown model is refused');
} catch (e) {
  check(e instanceof OpenAI.NotFoundError && e.message.includes("no model 'gpt-4o'"), 'unknown model error', e.message);
}

console.log('openai facade: all checks passed');
