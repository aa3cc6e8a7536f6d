#!/usr/bin/env bash
# The general agent (`medreact chat`) against the scripted model server:
#   bash examples/chat/run.sh [BUILD_DIR]
#
# Starts medreact-mock-llm (the project's scripted OpenAI-compatible server) on
# a free loopback port with examples/chat/script.json, then runs `medreact chat`
# against it for real: HTTP, streaming, two parallel tool calls, the trace.
# The "model" here is a recording; the engine, client and tools are real.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
# The run is recorded in a store under the build folder, never in the user's own.
export MEDREACT_STORE="$(cd "$build" && pwd)/demo-runs.sqlite"
out=$(mktemp -d)
trap 'kill "$mock_pid" 2>/dev/null || true; rm -rf "$out"' EXIT

"$build/medreact-mock-llm" --script "$here/script.json" --port 0 --port-file "$out/port" >/dev/null 2>"$out/mock.log" &
mock_pid=$!
for _ in $(seq 1 200); do [ -s "$out/port" ] && break; sleep 0.05; done
[ -s "$out/port" ] || { echo "medreact-mock-llm did not start" >&2; exit 1; }
url="http://127.0.0.1:$(cat "$out/port")/v1"

question="A patient weighs 82 kg and is 1.74 m tall. What is the BMI, and what is today's date?"
echo "\$ medreact chat --llm-url $url --tools util --stream -v --trace trace.json \"$question\""
echo
"$build/medreact" chat --llm-url "$url" --model scripted-example --tools util --stream -v \
  --trace "$out/trace.json" "$question" >"$out/answer.txt" 2>"$out/live.txt" && status=0 || status=$?
echo "Live view (stderr: the model's streamed text, tool names and timings):"
sed 's/^/  | /' "$out/live.txt"
echo
echo "Answer (stdout):"
cat "$out/answer.txt"
echo
echo "\$ medreact trace show trace.json"
"$build/medreact" trace show "$out/trace.json"
exit "$status"
