#!/usr/bin/env bash
# Start-up cost of medreact's commands (issue 22, docs/benchmarks.md "Start-up"):
# whole-process CPU per run (bench/cold_start.py: user + system from wait4,
# min / median / max of RUNS after one warm-up) and, with COUNT_INSTRUCTIONS=1,
# instructions per run (valgrind's callgrind, every thread; the same on a busy
# machine as on a quiet one). The commands:
#   help          medreact --help
#   calc          medreact calc body_mass_index (one calculator)
#   chat          a one-shot chat --no-store against medreact-mock-llm: 3 model calls,
#                 2 tool calls (calculator, current_time), then the answer
#   chat+store    the same with --store (one SQLite file for all the runs)
#
#   bash bench/startup.sh [BUILD_DIR] [RUNS]
#   COUNT_INSTRUCTIONS=1 bash bench/startup.sh build 40
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:-$here/../build}" && pwd)"
runs="${2:-40}"
bin="$build/medreact"

tmp="$(mktemp -d)"
server=
trap '[ -n "$server" ] && kill $server 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
cat > "$tmp/script.json" <<'JSON'
{"select": "by_turn", "responses": [
  {"message": {"content": null, "tool_calls": [{"id": "call_1", "name": "calculator", "arguments": "{\"expression\": \"17 * 23\"}"}]}},
  {"message": {"content": null, "tool_calls": [{"id": "call_2", "name": "current_time", "arguments": "{}"}]}},
  {"message": {"content": "17 * 23 = 391; it is now the time the tool gave."}}
]}
JSON
"$build/medreact-mock-llm" --script "$tmp/script.json" --port 0 --port-file "$tmp/port" >/dev/null 2>&1 &
server=$!
for _ in $(seq 1 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
[ -s "$tmp/port" ] || { echo "medreact-mock-llm did not start" >&2; exit 1; }
url="http://127.0.0.1:$(cat "$tmp/port")/v1"
question="What is 17 * 23, and what time is it?"

names=(help calc chat chat+store)
commands=(
  "$bin --help"
  "$bin calc body_mass_index --args {\"weight\":70,\"height\":175}"
  "$bin chat --llm-url $url --model mock --no-store"
  "$bin chat --llm-url $url --model mock --store $tmp/runs.sqlite"
)
for i in "${!names[@]}"; do
  read -r -a argv <<< "${commands[$i]}"
  case "${names[$i]}" in chat*) argv+=("$question") ;; esac
  "${argv[@]}" >/dev/null 2>&1 || { echo "${names[$i]}: the command failed: ${argv[*]}" >&2; exit 1; }
  printf '%-11s ' "${names[$i]}"
  python3 "$here/cold_start.py" -n "$runs" -- "${argv[@]}" | sed 's/   (.*//'
  if [ "${COUNT_INSTRUCTIONS:-0}" = 1 ]; then
    instructions=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "${argv[@]}" 2>&1 >/dev/null |
                   sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    printf '%-11s instructions: %s\n' "" "$instructions"
  fi
done
