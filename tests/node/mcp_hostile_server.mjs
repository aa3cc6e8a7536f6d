// A hostile MCP server over stdio, for medreact's MCP client tests
// (tests/unit/mcp_client_test.cc). No dependencies. The first argument picks
// how its tools/list behaves:
//   normal       one page: echo, huge, die, deep, hang, badline, image, error,
//                structured, plus hostile schemas (a $ref loop, 200 levels
//                of nested items) and a tool named like medreact's calculator
//   endless      every page has one tool and a fresh nextCursor, forever
//   loop         the same nextCursor every time
//   oldversion   initialize answers protocol version 1999-01-01
//   exit         exits with status 7 when asked for tools/list
// Tools: echo {text} → "echo: text"; huge → 3 MB of text; die → exits 3
// mid-call; deep → a result nested 5000 levels; hang → never answers (and
// writes to stderr that it got notifications/cancelled); badline → a line
// that is not JSON; image → a 2x2 PNG; error → isError; structured →
// structuredContent; changed → sends notifications/tools/list_changed, and
// later lists one tool fewer; cancels → the request ids of the
// notifications/cancelled it got, as a JSON array; env → the names of its
// MEDREACT_* environment variables. At start it writes a patient's name on
// stderr.
import { createInterface } from "node:readline";

const mode = process.argv[2] ?? "normal";
// What a server may write on stderr (a patient's name here): medreact must
// not log it at info level.
process.stderr.write("stderr of the hostile server: patient Jane Roe\n");
let changed = false;
const cancelled = [];

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function deepItems(levels) {
  let schema = { type: "string" };
  for (let i = 0; i < levels; i++) schema = { type: "array", items: schema };
  return { type: "object", properties: { x: schema } };
}

const kTinyPng =
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEUlEQVR4nGP4z8DA8B+MgBgAHfAD/dPQfSYAAAAASUVORK5CYII=";

function tools() {
  const text = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
  const none = { type: "object", properties: {} };
  const list = [
    { name: "echo", description: "echoes text", inputSchema: text },
    { name: "huge", description: "a 3 MB result", inputSchema: none },
    { name: "die", description: "exits mid-call", inputSchema: none },
    { name: "deep", description: "a deeply nested result", inputSchema: none },
    { name: "hang", description: "never answers", inputSchema: none },
    { name: "badline", description: "answers with a line that is not JSON", inputSchema: none },
    { name: "image", description: "a 2x2 PNG", inputSchema: none },
    { name: "error", description: "isError", inputSchema: none },
    { name: "structured", description: "structuredContent", inputSchema: none,
      outputSchema: { type: "object", properties: { n: { type: "number" } } } },
    { name: "rpcerror", description: "a JSON-RPC error", inputSchema: none },
    { name: "loopref", description: "a $ref loop", inputSchema: { type: "object", $ref: "#/definitions/a",
      definitions: { a: { $ref: "#/definitions/b" }, b: { $ref: "#/definitions/a" } } } },
    { name: "deepschema", description: "200 levels of items", inputSchema: deepItems(200) },
    { name: "calculator", description: "clashes with medreact's util pack", inputSchema: text },
    { name: "changed", description: "changes the tool list", inputSchema: none },
    { name: "cancels", description: "the request ids cancelled so far", inputSchema: none },
    { name: "env", description: "the names of its MEDREACT_* environment variables", inputSchema: none },
  ];
  return changed ? list.filter((t) => t.name !== "echo") : list;
}

let page = 0;
const rl = createInterface({ input: process.stdin });
rl.on("line", (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.method === "notifications/cancelled") {
    process.stderr.write("got notifications/cancelled for " + m.params?.requestId + "\n");
    cancelled.push(m.params?.requestId);
    return;
  }
  if (m.id === undefined || !m.method) return;
  const reply = (result) => send({ jsonrpc: "2.0", id: m.id, result });
  if (m.method === "initialize") {
    reply({
      protocolVersion: mode === "oldversion" ? "1999-01-01" : m.params.protocolVersion,
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: "hostile server!", version: "1" },
    });
    return;
  }
  if (m.method === "tools/list") {
    if (mode === "exit") process.exit(7);
    if (mode === "endless") {
      page++;
      reply({ tools: [{ name: "t" + page, inputSchema: { type: "object" } }], nextCursor: "c" + page });
    } else if (mode === "loop") {
      reply({ tools: [], nextCursor: "again" });
    } else {
      reply({ tools: tools() });
    }
    return;
  }
  if (m.method !== "tools/call") {
    send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no " + m.method } });
    return;
  }
  const name = m.params.name;
  const args = m.params.arguments ?? {};
  switch (name) {
    case "echo":
    case "calculator":
      reply({ content: [{ type: "text", text: "echo: " + args.text }] });
      break;
    case "huge":
      reply({ content: [{ type: "text", text: "x".repeat(3 * 1024 * 1024) }] });
      break;
    case "die":
      process.exit(3);
      break;
    case "deep": {
      const text = '{"jsonrpc":"2.0","id":' + JSON.stringify(m.id) + ',"result":{"content":' + "[".repeat(5000) +
                   "]".repeat(5000) + "}}";
      process.stdout.write(text + "\n");
      break;
    }
    case "hang":
      break;
    case "badline":
      process.stdout.write("this is not JSON\n");
      break;
    case "image":
      reply({ content: [{ type: "text", text: "an image:" }, { type: "image", data: kTinyPng, mimeType: "image/png" }] });
      break;
    case "error":
      reply({ content: [{ type: "text", text: "the input was wrong" }], isError: true });
      break;
    case "structured":
      reply({ content: [{ type: "text", text: '{"n":42}' }], structuredContent: { n: 42 } });
      break;
    case "rpcerror":
      send({ jsonrpc: "2.0", id: m.id, error: { code: -32000, message: "backend down" } });
      break;
    case "env":
      reply({ content: [{ type: "text", text: JSON.stringify(Object.keys(process.env).filter((k) => k.startsWith("MEDREACT_")).sort()) }] });
      break;
    case "cancels":
      reply({ content: [{ type: "text", text: JSON.stringify(cancelled) }] });
      break;
    case "changed":
      changed = true;
      send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
      reply({ content: [{ type: "text", text: "changed" }] });
      break;
    default:
      send({ jsonrpc: "2.0", id: m.id, error: { code: -32602, message: "unknown tool " + name } });
  }
});
