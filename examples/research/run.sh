#!/usr/bin/env bash
# The research demo (`make run`, after the other demos): one short
# multi-agent research run with no network and no model. The literature cache
# is a fresh file under the build folder, seeded with the one real recorded
# response in keytruda.jsonl (see make_recording.py); the rules planner plays
# every agent. Usage: examples/research/run.sh BUILD_DIR
set -euo pipefail
build="${1:-build}"
here="$(cd "$(dirname "$0")" && pwd)"
# The run is recorded in a store under the build folder, never in the user's own.
export MEDREACT_STORE="$(cd "$build" && pwd)/demo-runs.sqlite"
out="$build/research-demo"
rm -rf "$out" && mkdir -p "$out"
echo
echo "== 4. Multi-agent literature research, offline (a real recorded response, rules planner) =="
echo
echo "Scripted: no language model runs here. The rules planner plays every agent (manager, search, judge,"
echo "  hypothesis, report) by fixed rules: key-term searches, a judge that counts study designs and term"
echo "  matches (Keytruda and pembrolizumab count as one term), a template report. It reads no abstract."
echo "Real: ClinicalTrials.gov's reply to a search for \"keytruda\" (3 trials with a pembrolizumab arm),"
echo "  recorded earlier and replayed from a fresh cache. No recording exists for the PubMed and Europe PMC"
echo "  searches or the judge's follow-up queries, so those searches fail (offline, nothing is fetched)"
echo "  and the report lists them."
echo
echo "\$ medreact research \"What is the evidence for Keytruda?\" --planner rules --results 3 \\"
echo "    --cache $out/literature.sqlite --replay examples/research/keytruda.jsonl \\"
echo "    --out $out/report.json --events $out/events.jsonl --trace $out/trace.json --report $out/report.md"
status=0
"$build/medreact" research "What is the evidence for Keytruda?" --planner rules --results 3 \
  --cache "$out/literature.sqlite" --replay "$here/keytruda.jsonl" \
  --out "$out/report.json" --events "$out/events.jsonl" --trace "$out/trace.json" --report "$out/report.md" || status=$?
echo
cat "$out/report.md"
echo
echo "Report: $out/report.md; structured: $out/report.json; events: $out/events.jsonl; trace: $out/trace.json (exit $status)"
