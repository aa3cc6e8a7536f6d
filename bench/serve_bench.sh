#!/usr/bin/env bash
# Load figures for `medreact serve` (issue 25, docs/benchmarks.md "medreact serve").
# Builds nothing: needs BUILD_DIR/{medreact,medreact-mock-llm,medreact_serve_load}
# (`make build`). Starts the scripted model (zero latency) and, for each
# measurement, a fresh server on a fresh store in a temp folder, runs
# bench/serve_load.cc's mode against it, prints a table, and cleans up.
#
#   bash bench/serve_bench.sh [BUILD_DIR]
#   CLIENTS=4 SECS=10 STREAMS=1000 RATE=10 RUNS=200 bash bench/serve_bench.sh build
#   ONLY=streams bash bench/serve_bench.sh      # one of: create-triage create-chat streams overhead
#   RAW=1 ...                                   # also every key/value the tool printed
#   PERF_OUT=/tmp/serve.perf ONLY=streams ...   # also a perf profile of the server (/tmp/serve.perf.streams)
#   MEDREACT=/tmp/medreact-patched ...          # the server from another binary (A/B of a change)
#
# The chat: one calculator call, then the answer (2 model calls, 1 tool call).
# The triage: the rules planner (no model) on examples/worklist/01-pe-on-warfarin.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
clients="${CLIENTS:-4}" secs="${SECS:-10}" streams="${STREAMS:-1000}" rate="${RATE:-10}" runs="${RUNS:-200}"
max_runs="${MAX_RUNS:-4}" only="${ONLY:-}"
load="$build/medreact_serve_load"
medreact="${MEDREACT:-$build/medreact}"   # MEDREACT=PATH: another server binary (an A/B of a change)
for b in "$medreact" "$build/medreact-mock-llm" "$load"; do
  [ -x "$b" ] || { echo "missing $b: run make build first" >&2; exit 1; }
done

tmp="$(mktemp -d)"
mock= server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  [ -n "$mock" ] && kill "$mock" 2>/dev/null && wait "$mock" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

cat > "$tmp/script.json" <<'JSON'
{"select": "by_turn", "on_exhausted": "repeat_last", "responses": [
  {"message": {"content": null, "tool_calls": [{"id": "call_1", "name": "calculator", "arguments": "{\"expression\": \"17 * 23\"}"}]}},
  {"message": {"content": "17 * 23 = 391."}}
]}
JSON
"$build/medreact-mock-llm" --script "$tmp/script.json" --port 0 --port-file "$tmp/mock.port" >/dev/null 2>&1 &
mock=$!
for _ in $(seq 1 200); do [ -s "$tmp/mock.port" ] && break; sleep 0.05; done
[ -s "$tmp/mock.port" ] || { echo "medreact-mock-llm did not start" >&2; exit 1; }
llm="http://127.0.0.1:$(cat "$tmp/mock.port")/v1"

python3 - "$root" "$tmp" <<'PY'
import json, sys
root, tmp = sys.argv[1], sys.argv[2]
case = root + "/examples/worklist/01-pe-on-warfarin"
findings = open(case + "/findings.txt").read()
json.dump({"app": "triage", "inputs": {"fhir": case + "/fhir.json", "findings": findings, "planner": "rules"}},
          open(tmp + "/triage.json", "w"))
json.dump({"app": "chat", "inputs": {"message": "What is 17 * 23?", "packs": ["util"], "max_steps": 6}},
          open(tmp + "/chat.json", "w"))
PY

# start_server NAME: a fresh server on a fresh store; sets $server and $port.
start_server() {
  rm -f "$tmp/$1.port"
  "$medreact" serve --port 0 --port-file "$tmp/$1.port" --store "$tmp/$1.sqlite" --no-access-log \
    --llm-url "$llm" --model mock --max-retries 0 --max-runs "$max_runs" --input-root "$root/examples" \
    --rate 1000000 --burst 1000000 >"$tmp/$1.log" 2>&1 &
  server=$!
  for _ in $(seq 1 200); do [ -s "$tmp/$1.port" ] && break; sleep 0.05; done
  [ -s "$tmp/$1.port" ] || { echo "medreact serve did not start:" >&2; cat "$tmp/$1.log" >&2; exit 1; }
  port=$(cat "$tmp/$1.port")
}
stop_server() {
  kill "$server" && wait "$server" || true
  server=
}
# profile MODE: with PERF_OUT=PREFIX, a perf profile (call graphs) of the server
# in PREFIX.MODE, until it stops.
profile() {
  [ -n "${PERF_OUT:-}" ] || return 0
  perf record -q -g -p "$server" -o "$PERF_OUT.$1" >/dev/null 2>&1 &
}
# get KEY FILE: the value the tool printed for KEY.
get() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

want() { [ -z "$only" ] || [ "$only" = "$1" ]; }

echo "medreact serve on loopback; scripted model at zero latency; --max-runs $max_runs; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
for app in triage chat; do
  want "create-$app" || continue
  start_server "create-$app"
  "$load" create --port "$port" --clients "$clients" --seconds "$secs" --body-file "$tmp/$app.json" \
    --events-path "/v1/events?app=$app" > "$tmp/create-$app.out"
  stop_server
  o="$tmp/create-$app.out"
  [ "${RAW:-0}" = 1 ] && cat "$o"
  printf '\n## POST /v1/runs, %s: %s keep-alive clients for %s s\n' "$app" "$clients" "$secs"
  printf '| runs/s | POST p50 | POST p99 | POST max | not 201 | one /v1/events stream: events/s (min..max second) |\n|---|---|---|---|---|---|\n'
  printf '| %s | %s ms | %s ms | %s ms | %s | %s (%s..%s) |\n' "$(get runs_per_s "$o")" "$(get post_p50_ms "$o")" \
    "$(get post_p99_ms "$o")" "$(get post_max_ms "$o")" \
    "$(awk '$1 ~ /^post_status_|^post_failed/ { n += $2 } END { print n + 0 }' "$o")" \
    "$(get events_per_s "$o")" "$(get events_per_s_min_second "$o")" "$(get events_per_s_max_second "$o")"
done

if want streams; then
  start_server streams
  profile streams
  "$load" streams --port "$port" --streams "$streams" --rate "$rate" --seconds "$secs" --server-pid "$server" \
    --body-file "$tmp/chat.json" --path "/v1/events?app=chat" > "$tmp/streams.out"
  stop_server
  o="$tmp/streams.out"
  [ "${RAW:-0}" = 1 ] && cat "$o"
  printf '\n## %s open /v1/events streams, chat runs started at %s/s for %s s\n' "$(get streams_open "$o")" "$rate" "$secs"
  printf '| delay p50 / p99 / max | events delivered (per s) | per stream min..max | streams closed | RSS before -> open (per stream) | peak RSS | /healthz p50 / p99 / max |\n|---|---|---|---|---|---|---|\n'
  printf '| %s / %s / %s ms | %s (%s/s) | %s..%s | %s | %s -> %s kB (%s kB) | %s kB | %s / %s / %s ms (%s samples, %s failed) |\n' \
    "$(get delay_p50_ms "$o")" "$(get delay_p99_ms "$o")" "$(get delay_max_ms "$o")" \
    "$(get events_delivered "$o")" "$(get events_delivered_per_s "$o")" \
    "$(get events_per_stream_min "$o")" "$(get events_per_stream_max "$o")" "$(get streams_closed_by_server "$o")" \
    "$(get rss_before_kb "$o")" "$(get rss_open_kb "$o")" "$(get rss_per_stream_kb "$o")" "$(get rss_peak_kb "$o")" \
    "$(get healthz_p50_ms "$o")" "$(get healthz_p99_ms "$o")" "$(get healthz_max_ms "$o")" \
    "$(get healthz_n "$o")" "$(get healthz_failed "$o")"
  printf 'runs created %s (refused %s), POST p50 %s ms p99 %s ms\n' "$(get runs_created "$o")" \
    "$(get runs_refused "$o")" "$(get post_p50_ms "$o")" "$(get post_p99_ms "$o")"
fi

if want overhead; then
  start_server overhead
  profile overhead
  "$load" overhead --port "$port" --runs "$runs" --server-pid "$server" --body-file "$tmp/chat.json" \
    --llm-url "$llm" --store "$tmp/inproc.sqlite" > "$tmp/overhead.out"
  stop_server
  o="$tmp/overhead.out"
  [ "${RAW:-0}" = 1 ] && cat "$o"
  printf '\n## One chat run (1 calculator call + answer), %s runs one at a time\n' "$runs"
  printf '| path | wall p50 | wall p99 | CPU p50 | CPU p99 | CPU mean |\n|---|---|---|---|---|---|\n'
  printf '| server: POST + its events until end | %s ms | %s ms | %s ms | %s ms | %s ms (stat: %s ms) |\n' \
    "$(get server_wall_p50_ms "$o")" "$(get server_wall_p99_ms "$o")" "$(get server_cpu_p50_ms "$o")" \
    "$(get server_cpu_p99_ms "$o")" "$(get server_cpu_mean_ms "$o")" "$(get server_cpu_per_run_from_stat_ms "$o")"
  printf '| in process: RunService::StartChat | %s ms | %s ms | %s ms | %s ms | %s ms |\n' \
    "$(get inproc_wall_p50_ms "$o")" "$(get inproc_wall_p99_ms "$o")" "$(get inproc_cpu_p50_ms "$o")" \
    "$(get inproc_cpu_p99_ms "$o")" "$(get inproc_cpu_mean_ms "$o")"
fi
