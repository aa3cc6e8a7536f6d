#!/usr/bin/env bash
# Peak memory of a concurrent worklist (issue 11): CASES copies of the 0.9 MB
# Synthea record of Evelyn McCullough, triaged natively through
# medreact-mock-llm (4 model calls per case, each reply delayed DELAY_MS so
# that CONCURRENCY cases are in flight at once), peak RSS from /usr/bin/time.
# Memory per case = the rise of the peak from concurrency 1 to N, over N - 1.
#
#   bash bench/worklist_memory.sh [BUILD_DIR] [CONCURRENCY] [CASES] [DELAY_MS]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build}"
concurrency="${2:-8}"
cases="${3:-16}"
delay="${4:-200}"
record="$here/../tests/fixtures/synthea/Evelyn_McCullough_d041a90b-f72b-4601-8b61-e086eb5dd42e.json"

tmp="$(mktemp -d)"
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$tmp"' EXIT
for i in $(seq -w 1 "$cases"); do
  mkdir -p "$tmp/list/case-$i"
  cp "$record" "$tmp/list/case-$i/fhir.json"
  echo "Filling defect in the right pulmonary artery consistent with acute pulmonary embolism." \
    > "$tmp/list/case-$i/findings.txt"
done
call() { printf '{"delay_ms": %s, "message": {"content": null, "tool_calls": [{"id": "%s", "name": "%s", "arguments": %s}]}}' \
  "$delay" "$1" "$2" "$3"; }
cat > "$tmp/script.json" <<JSON
{"select": "by_turn", "responses": [
  $(call c1 get_patient_manifest '"{}"'),
  $(call c2 check_medication_status '"{\"medication_name\": \"anticoag\"}"'),
  $(call c3 get_recent_labs '"{\"category\": \"Coag\"}"'),
  $(call c4 submit_assessment '"{\"final_assessment\": \"Acute PE.\", \"risk_adjustment\": \"NONE\", \"critical_findings\": []}"')
]}
JSON
"$build/medreact-mock-llm" --script "$tmp/script.json" --port-file "$tmp/port" >/dev/null &
server=$!
while [ ! -s "$tmp/port" ]; do sleep 0.05; done

/usr/bin/time -f '%M' -o "$tmp/rss" "$build/medreact" worklist "$tmp/list" --concurrency "$concurrency" \
  --llm-url "http://127.0.0.1:$(cat "$tmp/port")/v1" --model mock --out "$tmp/out" -q > "$tmp/table" || true
triaged=$(grep -c '"case"' "$tmp/out/worklist.json" || true)
planners=$(grep -ho '"planner": *"[^"]*"' "$tmp/out"/case-*.json | sort | uniq -c | tr -s " " | tr "\n" ";")
echo "concurrency $concurrency, $cases cases ($triaged in worklist.json; $planners): peak RSS $(( $(cat "$tmp/rss") / 1024 )) MiB ($(cat "$tmp/rss") KiB)"
