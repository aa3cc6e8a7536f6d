#!/bin/bash
# Checks medreact's context-window handling and tool-calling wire against a REAL
# llama.cpp server (llama-server) on loopback, with a tiny random-weight GGUF.
#
#   bash llama_server_check.sh            # everything (fetch, build, gguf, servers, checks)
#
# Env: WORK (default /tmp/llama): source, build, models, server logs
#      MEDREACT (default: build/medreact of this checkout), MEDREACT_SRC (default: this checkout)
#      NLC_VERSION (default 3.22.1): the npm package node-llama-cpp that ships llama.cpp's source
#      JOBS (default 2)
# Needs: npm, cmake, ninja, a C++ compiler, curl, Debian's python3 with python3-numpy
# (apt-get install python3-numpy python3-yaml). Helpers beside this script:
# make_tiny_gguf.py (writes the GGUF with llama.cpp's gguf-py) and logproxy.py (a
# loopback proxy that records each request/response, and can fake tool calls).
# Nothing leaves 127.0.0.1. Prints one PASS/FAIL/INFO line per check; exit 1 on a FAIL.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-/tmp/llama}
SRC=${MEDREACT_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
MR=${MEDREACT:-$SRC/build/medreact}
NLC_VERSION=${NLC_VERSION:-3.22.1}
JOBS=${JOBS:-2}
PY=/usr/bin/python3
OUT=$WORK/check; mkdir -p "$WORK" "$OUT"
FAILS=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; FAILS=$((FAILS + 1)); }
info() { echo "INFO $*"; }
free_port() { $PY -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT

# --- 1. llama.cpp source from the npm package node-llama-cpp ------------------
# The package ships llama.cpp as a git bundle: llama/gitRelease.bundle (tag in
# llama/llama.cpp.info.json).
if [ ! -d "$WORK/llama.cpp/.git" ]; then
  (cd "$WORK" && npm pack "node-llama-cpp@$NLC_VERSION" >/dev/null && tar xzf "node-llama-cpp-$NLC_VERSION.tgz" &&
   git clone -q package/llama/gitRelease.bundle llama.cpp) || { echo "cannot get llama.cpp source"; exit 1; }
fi
info "llama.cpp: $(cat "$WORK/package/llama/llama.cpp.info.json" 2>/dev/null | tr -d ' \n'), commit $(git -C "$WORK/llama.cpp" rev-parse HEAD)"

# --- 2. build llama-server only (CPU; no OpenSSL; no web UI download) ----------
if [ ! -x "$WORK/build/bin/llama-server" ]; then
  start=$(date +%s)
  nice -n 19 cmake -S "$WORK/llama.cpp" -B "$WORK/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF \
    -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DBUILD_SHARED_LIBS=OFF > "$WORK/cmake.log" 2>&1 || { echo "cmake failed: $WORK/cmake.log"; exit 1; }
  nice -n 19 ninja -C "$WORK/build" -j"$JOBS" llama-server > "$WORK/build.log" 2>&1 || { echo "build failed: $WORK/build.log"; exit 1; }
  info "llama-server built in $(( $(date +%s) - start )) s"
fi
SERVER=$WORK/build/bin/llama-server
info "$($SERVER --version 2>&1 | grep version:)"

# --- 3. tiny random-weight GGUFs ------------------------------------------------
# tiny.gguf: ~490 tokens, character-level (~1.5 bytes/token: far worse than medreact's 3-byte estimate)
# tiny-words.gguf: + prefixes of the 4000 most frequent words of medreact's own texts (~2.5-3.5 bytes/token)
$PY -c 'import numpy' 2>/dev/null || { echo "need Debian python3-numpy (apt-get install python3-numpy python3-yaml)"; exit 1; }
{ "$MR" tools list; cat "$SRC/README.md" "$SRC"/examples/worklist/*/fhir.json "$SRC"/examples/worklist/*/findings.txt; } > "$WORK/corpus.txt" 2>/dev/null
$PY "$HERE/make_tiny_gguf.py" "$WORK/llama.cpp" "$WORK/tiny.gguf" >/dev/null || exit 1
$PY "$HERE/make_tiny_gguf.py" "$WORK/llama.cpp" "$WORK/tiny-words.gguf" "$WORK/corpus.txt" 4000 >/dev/null || exit 1

# --- servers -------------------------------------------------------------------
declare -A PORT
start_server() {  # NAME ARGS...
  local name=$1; shift
  local p; p=$(free_port); PORT[$name]=$p
  "$SERVER" "$@" --port "$p" --host 127.0.0.1 -n 48 -t 2 > "$OUT/server-$name.log" 2>&1 &
  PIDS+=($!)
}
start_server chars2048 -m "$WORK/tiny.gguf" --ctx-size 2048
start_server w2048     -m "$WORK/tiny-words.gguf" --ctx-size 2048
start_server w512      -m "$WORK/tiny-words.gguf" --ctx-size 512
start_server w4608     -m "$WORK/tiny-words.gguf" --ctx-size 4608
start_server w8192     -m "$WORK/tiny-words.gguf" --ctx-size 8192
start_server nojinja   -m "$WORK/tiny-words.gguf" --ctx-size 8192 --no-jinja
mkdir -p "$WORK/models"; ln -sf "$WORK/tiny-words.gguf" "$WORK/models/tiny-words.gguf"
start_server router    --models-dir "$WORK/models" --ctx-size 2048
for name in "${!PORT[@]}"; do
  for i in $(seq 100); do curl -sf "http://127.0.0.1:${PORT[$name]}/health" >/dev/null && break; sleep 0.2; done
done

# run TAG SERVER [medreact triage args]: triage case 01 through the recording proxy
# (env FINDINGS: findings file; MODEL: model name; FAKE_CALLS: see logproxy.py)
CASE=$SRC/examples/worklist/01-pe-on-warfarin
triage() {
  local tag=$1 server=$2; shift 2
  local dir=$OUT/$tag; rm -rf "$dir"; mkdir -p "$dir"
  local px; px=$(free_port)
  $PY "$HERE/logproxy.py" "$px" "${PORT[$server]}" "$dir/wire" & local pxpid=$!
  for i in $(seq 50); do [ -d "$dir/wire" ] && curl -s -o /dev/null "http://127.0.0.1:$px/nope" && break; sleep 0.1; done
  rm -f "$dir"/wire/*
  MEDREACT_LOG_LEVEL=info "$MR" triage --llm-url "http://127.0.0.1:$px/v1" --model "${MODEL:-tiny}" --planner model \
    --fhir "$CASE/fhir.json" --findings-file "${FINDINGS:-$CASE/findings.txt}" -v "$@" > "$dir/stdout.json" 2> "$dir/stderr.txt"
  echo $? > "$dir/rc"
  kill $pxpid; wait $pxpid 2>/dev/null
}
has() { grep -q -- "$2" "$OUT/$1/stderr.txt"; }
wire() { cat "$OUT/$1"/wire/*-resp.txt 2>/dev/null; }

# --- a. GET /props: where is n_ctx? ---------------------------------------------
curl -s "http://127.0.0.1:${PORT[w2048]}/props" > "$OUT/props-w2048.json"
n=$($PY -c 'import json,sys;print(json.load(open(sys.argv[1]))["default_generation_settings"]["n_ctx"])' "$OUT/props-w2048.json" 2>/dev/null)
[ "$n" = 2048 ] && pass "a: /props default_generation_settings.n_ctx = $n" || fail "a: /props n_ctx not at default_generation_settings.n_ctx (got '$n')"
curl -s "http://127.0.0.1:${PORT[router]}/props" > "$OUT/props-router.json"
info "a: router-mode /props: $(head -c 200 "$OUT/props-router.json")"

# --- b. chat, plain and streamed ------------------------------------------------
for mode in "" --stream; do
  MEDREACT_LOG_LEVEL=info "$MR" chat --llm-url "http://127.0.0.1:${PORT[w2048]}/v1" --model tiny "hello" -v --max-steps 2 $mode \
    > "$OUT/chat$mode.out" 2> "$OUT/chat$mode.err"
  rc=$?
  [ $rc = 0 ] && [ -s "$OUT/chat$mode.out" ] && grep -q "context window 2048 tokens (from" "$OUT/chat$mode.err" &&
    pass "b: chat ${mode:-(no stream)}: rc 0, text answer, window 2048 learned from /props" || fail "b: chat $mode rc=$rc: $(tail -1 "$OUT/chat$mode.err")"
done
"$MR" chat --llm-url "http://127.0.0.1:${PORT[chars2048]}/v1" --model tiny "hello" > "$OUT/chat-chars.out" 2> "$OUT/chat-chars.err"
grep -q "does not fit the model's context window (give --context-size" "$OUT/chat-chars.err" &&
  info "b: char-level tokenizer: estimate passed, the server refused; reworded: $(grep -o 'HTTP 400.*' "$OUT/chat-chars.err" | head -1)"

# --- c. triage against 2k / 4.6k / 8k / 512 windows ------------------------------
triage w2048 w2048 --max-steps 4
has w2048 "context window 2048 tokens (from" && has w2048 "does not fit the model's context window: it needs about" &&
  [ "$(ls "$OUT/w2048/wire" | grep -c req)" = 1 ] &&
  pass "c: 2048 (probed): refused before sending: $(grep -o 'it needs about[^.]*' "$OUT/w2048/stderr.txt" | head -1)" || fail "c: 2048 probed"
triage w2048-cs w2048 --max-steps 4 --context-size 2048
has w2048-cs "but the window is 2048 tokens" && ! grep -q "GET /props" "$OUT"/w2048-cs/wire/*-req.txt 2>/dev/null &&
  pass "c: --context-size 2048: same refusal, /props not asked" || fail "c: --context-size 2048"
"$MR" triage --llm-url "http://127.0.0.1:${PORT[w2048]}/v1" --model tiny --planner model --fhir "$CASE/fhir.json" \
  --findings x --context-size 0 > /dev/null 2> "$OUT/cs0.err"
info "c: --context-size 0: $(head -1 "$OUT/cs0.err")"
triage w512 w512 --max-steps 4
has w512 "but the window is 512 tokens of which 128" && pass "c: 512 (probed): refused with numbers" || fail "c: 512"
triage w4608 w4608 --max-steps 6
has w4608 "tool descriptions shortened" && ! grep -q "HTTP 4" "$OUT/w4608/stderr.txt" &&
  pass "c: 4608: tool descriptions shortened, server accepted" || fail "c: 4608 fit"
FAKE_CALLS='[{"name":"get_patient_manifest"},{"name":"check_medication_status","arguments":{"medication_name":"anticoag"}},{"name":"get_recent_labs","arguments":{"category":"Coag"}},{"name":"search_clinical_history","arguments":{"query":"thrombo"}},{"name":"get_vital_signs","arguments":{"lookback_days":365}},{"name":"get_imaging_history"},{"name":"check_allergies"},{"name":"get_recent_labs","arguments":{"category":"Renal"}},{"name":"get_recent_labs","arguments":{"category":"CBC"}}]' \
  triage w4608-history w4608 --max-steps 12
if has w4608-history "history windowed" && ! wire w4608-history | grep -q "^HTTP [45]"; then
  pass "c: 4608 + 9 tool calls: $(grep -o 'history windowed to the last [0-9]* messages' "$OUT/w4608-history/stderr.txt" | sort -u | tr '\n' ';') every request 200"
else fail "c: history windowing"; fi
LONG=$OUT/findings-long.txt
$PY -c "import sys;b=open(sys.argv[1]).read().strip();x=' Additional incidental findings: mild dependent atelectasis at both lung bases; small hiatal hernia; degenerative changes of the thoracic spine; no pleural effusion; heart size normal; no pericardial effusion; thyroid unremarkable; scattered coronary calcifications.';open(sys.argv[2],'w').write(b+x*60+'\n')" "$CASE/findings.txt" "$LONG"
FINDINGS=$LONG triage w8192-long w8192 --max-steps 4
has w8192-long "but the window is 8192 tokens" && pass "c: 8192 + 16 kB findings: refused: $(grep -o 'it needs about[^.]*' "$OUT/w8192-long/stderr.txt" | head -1)" || fail "c: long findings"

# --- d. the server's own over-long error -----------------------------------------
triage w512-cs w512 --max-steps 4 --context-size 8192
body=$(grep -h -A1 "^HTTP 400" "$OUT"/w512-cs/wire/*-resp.txt | tail -1)
info "d: server body: $body"
echo "$body" | grep -q '"type":"exceed_context_size_error"' && has w512-cs "does not fit the model's context window (give --context-size" &&
  ! has w512-cs unreachable && pass "d: HTTP 400 exceed_context_size_error reworded: $(grep -o 'InvalidArgument: the request does not fit.*' "$OUT/w512-cs/stderr.txt" | head -1 | cut -c1-200)" || fail "d: rewording"
$PY -c "import json;print(json.dumps({'model':'tiny','stream':True,'messages':[{'role':'user','content':open('$LONG').read()}]}))" > "$OUT/long-body.json"
info "d: streamed over-long: $(curl -s -w ' -> HTTP %{http_code}' "http://127.0.0.1:${PORT[w512]}/v1/chat/completions" -H 'Content-Type: application/json' -H 'Accept: text/event-stream' --data @"$OUT/long-body.json")"

# --- e. tool-calling wire: Jinja on (default) and --no-jinja -----------------------
grep -h '"tool_choice"' "$OUT"/w4608/wire/*-req.txt >/dev/null && ! wire w4608 | grep -q "^HTTP [45]" &&
  pass "e: default (Jinja on): tools + tool_choice \"auto\" accepted (HTTP 200)" || fail "e: jinja tools"
triage nojinja nojinja --max-steps 4 --max-retries 2
info "e: --no-jinja: $(grep -h -A1 '^HTTP 500' "$OUT"/nojinja/wire/*-resp.txt | tail -1); medreact attempts: $(ls "$OUT/nojinja/wire" | grep -c 'resp' ) requests incl. /props"
if has nojinja "after 1 attempt\|cannot take native tool calls"; then pass "e: --no-jinja refusal not retried"
else fail "e: --no-jinja: HTTP 500 'tools param requires --jinja flag' retried as Unavailable: $(grep -o 'Unavailable: model call failed after [0-9]* attempts' "$OUT/nojinja/stderr.txt" | head -1)"; fi

# --- router mode: /props of the router itself has n_ctx 0 ---------------------------
MODEL=tiny-words triage router router --max-steps 2
if has router "context window 2048 tokens"; then pass "router: window learned (/props?model=)"
else fail "router: window not learned from router /props (n_ctx 0); fell back to the server's 400: $(grep -o 'HTTP 400[^)]*' "$OUT/router/stderr.txt" | head -1 | cut -c1-120)"; fi

echo "outputs in $OUT"; echo "$FAILS failed"
[ $FAILS = 0 ]
