#!/bin/bash
# Tool selection on a small window (issue 27), against a REAL llama.cpp server:
# `medreact chat --tools calc` (the calculator pack: ~33k tokens of schemas) with
# a 4,096-token window. Every request must be accepted (HTTP 200, no
# exceed_context_size_error). The random-weight model cannot choose tools, so
# the recording proxy (logproxy.py FAKE_CALLS) replaces its first replies with
# find_tools, the tool it found, and a calculator; the real server still reads
# every real prompt (the tools offered, the history), and the last reply is
# the model's own text.
#
#   bash small_context_check.sh        # after llama_server_check.sh built llama-server
#
# Env: WORK (default /tmp/llama, as llama_server_check.sh), MEDREACT, MEDREACT_SRC, CTX (default 4096)
# Prints one line per request (tools offered, body bytes, medreact's estimate,
# the server's own prompt_tokens) and PASS/FAIL; exit 1 on a FAIL.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-/tmp/llama}
SRC=${MEDREACT_SRC:-$(cd "$HERE/../.." && pwd)}
MR=${MEDREACT:-$SRC/build/medreact}
CTX=${CTX:-4096}
PY=/usr/bin/python3
SERVER=$WORK/build/bin/llama-server
OUT=$WORK/small-context; rm -rf "$OUT"; mkdir -p "$OUT"
[ -x "$SERVER" ] || { echo "no $SERVER: run bench/llama_server/llama_server_check.sh first (it builds llama-server)"; exit 1; }
if [ ! -f "$WORK/tiny-words.gguf" ]; then
  { "$MR" tools list; cat "$SRC/README.md" "$SRC"/examples/worklist/*/fhir.json "$SRC"/examples/worklist/*/findings.txt; } > "$WORK/corpus.txt" 2>/dev/null
  $PY "$HERE/make_tiny_gguf.py" "$WORK/llama.cpp" "$WORK/tiny-words.gguf" "$WORK/corpus.txt" 4000 >/dev/null || exit 1
fi
free_port() { $PY -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT

port=$(free_port)
"$SERVER" -m "$WORK/tiny-words.gguf" --ctx-size "$CTX" --port "$port" --host 127.0.0.1 -n 48 -t 2 > "$OUT/server.log" 2>&1 &
PIDS+=($!)
for i in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.2; done
px=$(free_port)
FAKE_CALLS='[{"name":"find_tools","arguments":{"query":"Wells score pulmonary embolism"}},{"name":"wells_pe","arguments":{"heart_rate":110,"pe_most_likely":true}},{"name":"creatinine_clearance_cockcroft_gault","arguments":{"age":70,"sex":"male","weight":72,"creatinine":1.3}}]' \
  $PY "$HERE/logproxy.py" "$px" "$port" "$OUT/wire" & PIDS+=($!)
for i in $(seq 50); do [ -d "$OUT/wire" ] && curl -s -o /dev/null "http://127.0.0.1:$px/nope" && break; sleep 0.1; done
rm -f "$OUT"/wire/*
TASK="Man, 70 years, 72 kg, serum creatinine 1.3 mg/dL: creatinine clearance?"
echo "command: medreact chat --llm-url http://127.0.0.1:PORT/v1 --model tiny --tools calc --max-steps 6 --trace trace.json \"$TASK\""
MEDREACT_LOG_LEVEL=info "$MR" chat --llm-url "http://127.0.0.1:$px/v1" --model tiny --tools calc --max-steps 6 \
  --trace "$OUT/trace.json" -v "$TASK" > "$OUT/stdout.txt" 2> "$OUT/stderr.txt"
rc=$?
echo "medreact rc $rc"
$PY - "$OUT" "$CTX" <<'EOF'
import json, os, sys, glob
out, ctx = sys.argv[1], int(sys.argv[2])
fails = 0
print(f"window {ctx} tokens; per chat request: tools offered, body bytes, medreact's estimate (bytes/3 + 8/message), server prompt_tokens, HTTP")
n = 0
for req in sorted(glob.glob(f"{out}/wire/*-req.txt")):
    head, _, body = open(req, "rb").read().partition(b"\n")
    if b"/chat/completions" not in head: continue
    n += 1
    b = json.loads(body)
    tools = [t["function"]["name"] for t in b.get("tools", [])]
    est = sum(len(json.dumps(t)) for t in b.get("tools", [])) // 3 + sum(8 + len(json.dumps(m.get("content") or "")) // 3 for m in b["messages"])
    resp = open(req.replace("-req.txt", "-resp.txt"), "rb").read()
    status_line, _, rbody = resp.partition(b"\n")
    status = status_line.split()[1].decode()
    try: pt = json.loads(rbody)["usage"]["prompt_tokens"]
    except Exception: pt = "?"
    ok = status == "200"
    fails += not ok
    print(f"  request {n}: {len(tools)} tools [{', '.join(tools)}], {len(body)} bytes, estimate ~{est}, prompt_tokens {pt}, HTTP {status}")
    if not ok: print("    " + rbody[:300].decode(errors="replace"))
notes = [s for st in json.load(open(f"{out}/trace.json")).get("steps", []) for s in st.get("notes", [])]
for s in notes:
    if s.startswith("tools offered"): print("  trace: " + s[:400] + ("..." if len(s) > 400 else ""))
if n < 4: print(f"FAIL only {n} chat requests (expected find_tools, two calculators and an answer)"); fails += 1
print(("PASS" if fails == 0 else "FAIL") + f": {n} requests, {fails} refused")
sys.exit(1 if fails else 0)
EOF
