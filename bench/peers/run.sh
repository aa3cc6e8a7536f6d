#!/usr/bin/env bash
# Optional side-by-side of the warm run (3 model calls, 2 tool calls) with
# LangGraph.js and OpenAI Agents JS, all against one medreact-mock-llm process
# (its CPU is not counted). Needs node and npm; installs the peers into
# bench/peers/node_modules on first use. Never part of `make test`.
#
#   bash bench/peers/run.sh [BUILD_DIR]     # default: build
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../../build}"
[ -d "$here/node_modules" ] || (cd "$here" && npm install --no-audit --no-fund)

tmp="$(mktemp -d)"
"$build/medreact-mock-llm" --script "$here/script.json" --port-file "$tmp/port" >/dev/null &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$tmp"' EXIT
while [ ! -s "$tmp/port" ]; do sleep 0.05; done
export MOCK_LLM_URL="http://127.0.0.1:$(cat "$tmp/port")/v1"

node "$here/langgraph.mjs"
node "$here/openai_agents.mjs"
"$build/medreact_bench" --benchmark_filter='BM_WarmRun' --benchmark_min_time=2
