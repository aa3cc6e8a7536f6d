#!/usr/bin/env bash
# `make run`: the main job on the bundled examples, with no model server needed.
#
# 1. `medreact worklist examples/worklist`: fourteen CT triage cases (seed 001,
#    Sentinel-X) investigated concurrently by the deterministic rules planner
#    over each patient's FHIR record, sorted by final priority.
# 2. `medreact triage` on one of them driven by a "model": medreact-mock-llm
#    replays a recorded-style investigation through the text protocol, so the
#    HTTP client, the protocol parser and the same tools run for real.
set -euo pipefail
build=${1:-build}
cd "$(dirname "$0")/.."   # the repository root: paths below are relative to it
# The demo's runs are recorded in a store under the build folder, never in the
# user's own (~/.local/share/medreact/runs.sqlite).
export MEDREACT_STORE="$(cd "$build" && pwd)/demo-runs.sqlite"
here=examples
results="$build/worklist-results"
tmp=$(mktemp -d)
mock_pid=
trap '[ -n "$mock_pid" ] && kill "$mock_pid" 2>/dev/null; rm -rf "$tmp"' EXIT

echo "== 1. The worklist, triaged by the rules planner (no model server) =="
echo
echo "\$ medreact worklist examples/worklist --out $results"
"$build/medreact" worklist "$here/worklist" --out "$results" --quiet

echo
echo "== 2. One case investigated by a model (scripted server, text protocol) =="
echo
"$build/medreact-mock-llm" --script "$here/triage/script.json" --port 0 --port-file "$tmp/port" \
  >/dev/null 2>"$tmp/mock.log" &
mock_pid=$!
for _ in $(seq 1 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
[ -s "$tmp/port" ] || { echo "medreact-mock-llm did not start" >&2; exit 1; }
url="http://127.0.0.1:$(cat "$tmp/port")/v1"
case_dir="$here/worklist/01-pe-on-warfarin"
echo "\$ medreact triage --llm-url $url --protocol text \\"
echo "    --fhir examples/worklist/01-pe-on-warfarin/fhir.json \\"
echo "    --findings-file examples/worklist/01-pe-on-warfarin/findings.txt --base-priority 2 \\"
echo "    --trace $build/triage-trace.json -v"
"$build/medreact" triage --llm-url "$url" --model scripted-example --protocol text \
  --fhir "$case_dir/fhir.json" --findings-file "$case_dir/findings.txt" --base-priority 2 \
  --trace "$build/triage-trace.json" -v

echo
echo "== 3. Agentic extraction, offline plan (retrieve criteria, compute z-scores, fill the schema) =="
echo
echo "Scripted: no language model runs here. The offline planner reads the note with explicit patterns,"
echo "  retrieves the criteria, computes z-scores from the CDC tables and grades them by ASPEN/AND 2014"
echo "  (Becker et al., J Acad Nutr Diet 2014: z -1 to -1.9 mild, -2 to -2.9 moderate, -3 or below severe);"
echo "  the summary's headline names the z-score that sets the severity."
echo
echo "\$ medreact extract --note examples/extract/pediatric-malnutrition.txt \\"
echo "    --schema examples/extract/pediatric-malnutrition.schema.json \\"
echo "    --corpus data/guidelines --extras data/guidelines/extras.json --out $build/extract-result.json"
"$build/medreact" extract --note "$here/extract/pediatric-malnutrition.txt" \
  --schema "$here/extract/pediatric-malnutrition.schema.json" --corpus data/guidelines \
  --rag-db "$build/rag-index.sqlite" --extras data/guidelines/extras.json \
  --out "$build/extract-result.json" >/dev/null
grep -E '"(valid|malnutrition_present|severity|evidence_summary)"' "$build/extract-result.json" | cut -c1-200
echo
echo "Trace: $build/triage-trace.json ('medreact trace show' prints it); results: $results/,"
echo "$build/extract-result.json"
