#!/usr/bin/env bash
# The research demo (`make run`, after the other demos): one short
# multi-agent research run with no network and no model. The literature cache
# is a fresh file under the build folder, seeded with the recorded responses
# in keytruda.jsonl (see make_recording.py); the rules planner plays every
# agent. Usage: examples/research/run.sh BUILD_DIR
set -euo pipefail
build="${1:-build}"
here="$(cd "$(dirname "$0")" && pwd)"
# The run is recorded in a store under the build folder, never in the user's own.
export MEDREACT_STORE="$(cd "$build" && pwd)/demo-runs.sqlite"
out="$build/research-demo"
rm -rf "$out" && mkdir -p "$out"
echo
echo "== 4. Multi-agent literature research, offline (recorded responses, rules planner) =="
echo
echo "\$ medreact research \"What is the evidence for Keytruda in cancer?\" --planner rules --results 3 \\"
echo "    --cache $out/literature.sqlite --replay examples/research/keytruda.jsonl \\"
echo "    --out $out/report.json --events $out/events.jsonl --trace $out/trace.json --report $out/report.md"
status=0
"$build/medreact" research "What is the evidence for Keytruda in cancer?" --planner rules --results 3 \
  --cache "$out/literature.sqlite" --replay "$here/keytruda.jsonl" \
  --out "$out/report.json" --events "$out/events.jsonl" --trace "$out/trace.json" --report "$out/report.md" || status=$?
echo
head -n 24 "$out/report.md"
echo "..."
echo
echo "Report: $out/report.md; structured: $out/report.json; events: $out/events.jsonl; trace: $out/trace.json (exit $status)"
