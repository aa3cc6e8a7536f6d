#!/usr/bin/env bash
# Assembles the seed corpus of every fuzz target, one folder per target:
#
#   fuzz/make_corpus.sh [BUILD_DIR] [OUT_DIR]     (defaults: build-sanitize, BUILD_DIR/fuzz-seeds)
#
# from what is in the repository, never copied into it:
#   - fuzz/seeds/<target>/        small hand-written seeds (committed)
#   - fuzz/regressions/<target>/  crash reproducers (committed)
#   - cuts of the fixtures: the worklist's FHIR records and Synthea bundles
#     (tests/fixtures/synthea, cut to a few dozen clinical resources, as a
#     Bundle and as NDJSON), mock scripts (examples/), the JSON blocks of
#     docs/mock-llm.md, the extraction schemas and notes, the first lines of
#     the growth tables (CSV), the text-protocol replies of the example
#     scripts, and the tool parameter schemas printed by BUILD_DIR/medreact.
# Each seed is at most 64 KiB. OUT_DIR is rebuilt from scratch. Needs jq for
# the cuts (without it only the committed files are used, with a warning).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${1:-build-sanitize}
OUT=${2:-$BUILD_DIR/fuzz-seeds}
TARGETS=(json json_repair text_protocol sse chat_completion fhir schema py_literal csv mock_script note_facts findings literature dicom image research_report imaging_reply run_state multipart mcp_message mcp_reply otel)
MAX_BYTES=65536

rm -rf "$OUT"
for t in "${TARGETS[@]}"; do mkdir -p "$OUT/$t"; done

# add TARGET NAME < content: one seed, skipped when empty or too large.
add() {
  local file="$OUT/$1/$2"
  cat > "$file"
  local size
  size=$(stat -c %s "$file")
  if [ "$size" -gt "$MAX_BYTES" ]; then rm -f "$file"; fi
}
# add_file TARGET FILE [PREFIX]
add_file() { add "$1" "${3:-}$(echo "$2" | tr '/' '_')" < "$2"; }

# 1. Committed seeds and reproducers.
for t in "${TARGETS[@]}"; do
  for kind in seeds regressions; do
    [ -d "fuzz/$kind/$t" ] || continue
    for f in "fuzz/$kind/$t"/*; do
      [ -f "$f" ] && add "$t" "$kind-$(basename "$f")" < "$f"
    done
  done
done

# 2. Files used as they are.
for f in examples/*/script.json; do add_file mock_script "$f"; add_file json "$f"; done
for f in examples/extract/*.schema.json; do add_file schema "$f"; add_file json "$f"; done
for f in examples/worklist/*/findings.txt; do add_file findings "$f"; done
for f in examples/extract/*.txt; do add_file text_protocol "$f"; add_file json_repair "$f"; add_file note_facts "$f"; done
for f in examples/worklist/*/case.json data/guidelines/extras.json; do add_file json "$f"; done
for f in examples/worklist/*/fhir.json; do
  [ "$(stat -c %s "$f")" -le 16384 ] && add_file fhir "$f"
done
for f in tests/fixtures/literature/*; do add_file literature "$f"; done
for f in tests/fixtures/dicom/*.dcm; do add_file dicom "$f"; done  # the large ones are skipped (MAX_BYTES)
for f in tests/fixtures/dicom/*.dcm; do add_file image "$f"; done  # SniffFormat sees DICOM too
for f in data/growth/cdc/*.csv; do head -n 12 "$f" | add csv "$(basename "$f")"; done
for f in data/growth/who/*girls*.csv; do head -n 6 "$f" | add csv "$(basename "$f")"; done

# 3. The JSON blocks of the mock server's manual (scripts, entries, bodies).
awk -v out="$OUT" '
  /^```json$/ { n++; inside = 1; file = sprintf("%s/mock_script/docs-mock-llm-%02d.json", out, n); next }
  /^```$/     { if (inside) close(file); inside = 0; next }
  inside      { print > file }
' docs/mock-llm.md
for f in "$OUT"/mock_script/docs-mock-llm-*.json; do
  cp "$f" "$OUT/chat_completion/"; cp "$f" "$OUT/json/"
done

# 4. Cuts that need jq.
if ! command -v jq > /dev/null; then
  echo "make_corpus.sh: jq not found; only committed seeds and plain fixtures are used" >&2
else
  n=0
  while IFS= read -r note; do
    n=$((n + 1))
    printf '%s' "$note" | add note_facts "notes-set-$n.txt"
  done < <(jq -r '.notes[].note' tests/fixtures/clinical/notes_set.json)
  n=0
  while IFS= read -r findings; do
    n=$((n + 1))
    printf '%s' "$findings" | add findings "findings-set-$n.txt"
  done < <(jq -r '.. | objects | select(has("findings")) | .findings | strings' tests/fixtures/clinical/findings_set.json)
  clinical='["Patient","Condition","MedicationRequest","Medication","Observation","AllergyIntolerance",
             "ImagingStudy","DiagnosticReport","Procedure","Encounter"]'
  synthea=(tests/fixtures/synthea/Clemente_Kreiger_*.json tests/fixtures/synthea/Luigi_Wiegand_*.json
           tests/fixtures/synthea/Evelyn_McCullough_*.json examples/worklist/12-*/fhir.json)
  for f in "${synthea[@]}"; do
    name=$(basename "$f" .json)
    [ "$name" = fhir ] && name=$(basename "$(dirname "$f")")
    name=${name%%_*}
    # Clinical entries only (Synthea's Claims are most of the bytes), no narrative text.
    cut=$(jq -c --argjson keep "$clinical" \
          '[.entry[] | select(.resource.resourceType as $t | $keep | index($t)) | del(.resource.text)]' "$f")
    for range in "0 12" "12 40" "40 70"; do
      set -- $range
      jq -c "{resourceType: \"Bundle\", type: \"transaction\", entry: .[$1:$2]}" <<< "$cut" \
        | add fhir "synthea-$name-$1.json"
    done
    jq -c '.[70:110][] | .resource' <<< "$cut" | add fhir "synthea-$name.ndjson"
  done
  # Text-protocol replies, as the example scripts serve them.
  n=0
  for f in examples/*/script.json; do
    while IFS= read -r -d '' reply; do
      n=$((n + 1))
      printf '%s' "$reply" | add text_protocol "script-reply-$n.txt"
      printf '%s' "$reply" | add json_repair "script-reply-$n.txt"
    done < <(jq -j '.responses[] | .message.content // empty | strings | (. + "\u0000")' "$f")
  done
  # Chat Completions bodies built from the scripts' message entries.
  n=0
  for f in examples/*/script.json "$OUT"/mock_script/seeds-*.json; do
    jq -c '.responses[]? | select(type == "object" and .message != null) |
           {choices: [{index: 0, finish_reason: "stop", message: (.message + {role: "assistant"}
             | if .tool_calls then .tool_calls |= map({id, type: "function",
                 function: {name, arguments: (.arguments // "{}")}}) else . end)}]}' "$f" 2> /dev/null \
    | while IFS= read -r body; do
        n=$((n + 1))
        printf '%s' "$body" | add chat_completion "from-$(basename "$(dirname "$f")")-$(basename "$f" .json)-$n.json"
      done || true
  done
  # Every tool's parameter schema, as the CLI prints them.
  if [ -x "$BUILD_DIR/medreact" ]; then
    n=0
    ASAN_OPTIONS=detect_leaks=0 "$BUILD_DIR/medreact" tools list | jq -c '.[] | .parameters' \
    | while IFS= read -r schema; do
        n=$((n + 1))
        printf '%s' "$schema" | add schema "tool-$n.json"
      done
  fi
fi

# 5. The JSON-ish targets share their JSON; repair also gets the replies.
# (Another target's reproducers are not shared: each crashes its own target.)
for t in chat_completion schema mock_script fhir; do
  for f in "$OUT/$t"/*; do
    case "$(basename "$f")" in *.ndjson | regressions-*) ;; *) cp -n "$f" "$OUT/json/$t-$(basename "$f")" ;; esac
  done
done
for f in "$OUT"/json/* "$OUT"/text_protocol/*; do
  case "$(basename "$f")" in regressions-*) ;; *) cp -n "$f" "$OUT/json_repair/" ;; esac
done

for t in "${TARGETS[@]}"; do
  printf '%-16s %4d seeds %8d bytes\n' "$t" "$(ls "$OUT/$t" | wc -l)" "$(cat "$OUT/$t"/* 2> /dev/null | wc -c)"
done
