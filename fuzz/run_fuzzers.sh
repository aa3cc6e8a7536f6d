#!/usr/bin/env bash
# Runs the libFuzzer binaries of a MEDREACT_FUZZ build, JOBS at a time, and
# writes a per-target summary (runs, exec/s, new inputs, crashes).
#
#   fuzz/run_fuzzers.sh [--build DIR] [--seconds N] [--runs R] [--jobs J] [--mode smoke|long] [TARGET...]
#
#   smoke  each target N seconds over its seeds (DIR/fuzz-seeds, from
#          make_corpus.sh) in a scratch corpus; stops at the first crash.
#   long   each target N seconds or --runs R executions (default 10 million),
#          whichever comes first, growing the kept corpus DIR/fuzz-corpus/<target>;
#          a crash ends that target's run (its input is saved).
#
# Crash inputs: DIR/fuzz-artifacts/<mode>/<target>/{crash,leak,timeout,oom}-*;
# logs: DIR/fuzz-logs/<mode>/<target>.log; summary: DIR/fuzz-summary-<mode>.txt.
# Exit status 1 when any target crashed (or failed to run), else 0.
# Replay one input: DIR/fuzz/<target>_fuzz FILE; minimise a crash:
#   DIR/fuzz/<target>_fuzz -minimize_crash=1 -max_total_time=60 -exact_artifact_path=OUT FILE
set -uo pipefail
cd "$(dirname "$0")/.."

BUILD=build-sanitize
SECONDS_EACH=15
JOBS=2
MODE=smoke
RUNS=10000000
TARGETS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD=$2; shift 2 ;;
    --seconds) SECONDS_EACH=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --mode) MODE=$2; shift 2 ;;
    -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
    *) TARGETS+=("$1"); shift ;;
  esac
done
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(json json_repair text_protocol sse chat_completion fhir schema py_literal csv
                                     mock_script note_facts findings literature dicom image research_report imaging_reply run_state multipart mcp_message mcp_reply otel)
case "$MODE" in smoke | long) ;; *) echo "run_fuzzers.sh: --mode smoke|long" >&2; exit 2 ;; esac

SEEDS=$BUILD/fuzz-seeds
LOGS=$BUILD/fuzz-logs/$MODE
ARTIFACTS=$BUILD/fuzz-artifacts/$MODE
SUMMARY=$BUILD/fuzz-summary-$MODE.txt
if [ "$MODE" = smoke ]; then CORPUS=$BUILD/fuzz-smoke-corpus; rm -rf "$CORPUS"; else CORPUS=$BUILD/fuzz-corpus; fi
mkdir -p "$LOGS" "$CORPUS"

# Reports go to stderr, where libFuzzer sees them and saves the input.
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:check_initialization_order=1:strict_init_order=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
[ -x /usr/bin/llvm-symbolizer ] && export ASAN_SYMBOLIZER_PATH=/usr/bin/llvm-symbolizer

dict_for() {
  case "$1" in
    text_protocol) echo fuzz/text_protocol.dict ;;
    py_literal) echo fuzz/py_literal.dict ;;
    note_facts) echo fuzz/note_facts.dict ;;
    findings) echo fuzz/findings.dict ;;
    multipart) echo fuzz/multipart.dict ;;
    csv | dicom | image) echo "" ;;
    *) echo fuzz/json.dict ;;
  esac
}

run_one() {
  local t=$1
  local bin=$BUILD/fuzz/${t}_fuzz log=$LOGS/$t.log art=$ARTIFACTS/$t
  mkdir -p "$art" "$CORPUS/$t" "$SEEDS/$t"
  local marker=$LOGS/$t.start
  touch "$marker"
  local max_len=16384
  [ "$t" = fhir ] && max_len=65536
  local flags=(-max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len"
               -print_final_stats=1 -artifact_prefix="$art/")
  # DCMTK reserves an element's declared length before reading its value: a
  # 913-byte file declaring ~4 GB asks malloc for 4 GB and then fails cleanly
  # ("Invalid stream") without touching those pages (the product's RSS stays
  # ~15 MB; docs/reliability.md, known limits). libFuzzer's default malloc
  # limit (= rss_limit) calls any such request an OOM; for dicom only the
  # resident size counts (rss_limit_mb above still catches real growth).
  [ "$t" = dicom ] && flags+=(-malloc_limit_mb=8192)
  local dict
  dict=$(dict_for "$t")
  [ -n "$dict" ] && flags+=(-dict="$dict")
  # Long runs stop at RUNS executions or the time limit, whichever comes first
  # (issue 9: 10 million or 20 minutes), in-process: fork mode is several
  # times slower per execution. A crash ends that target's run (the input is saved).
  [ "$MODE" = long ] && flags+=(-runs="$RUNS")
  local status=0
  if [ ! -x "$bin" ]; then
    echo "missing $bin (build with MEDREACT_FUZZ=ON: make build-sanitize)" > "$log"
    status=127
  else
    "$bin" "${flags[@]}" "$CORPUS/$t" "$SEEDS/$t" > "$log" 2>&1
    status=$?
  fi
  # Stats: libFuzzer's final stat:: lines (plain mode), else its last status line.
  local runs eps newu crashes first corpus
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  newu=$(sed -n 's/^stat::new_units_added: *//p' "$log" | tail -1)
  [ -n "$runs" ] || runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -1)
  if [ -z "$runs" ]; then  # fork mode: "#N: cov: .. exec/s E oom/timeout/crash: a/b/c .."
    local last
    last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1)
    runs=$(sed -n 's/^#\([0-9]*\):.*/\1/p' <<< "$last")
    eps=$(sed -n 's/.*exec\/s \([0-9]*\).*/\1/p' <<< "$last")
  fi
  crashes=$(find "$art" -maxdepth 1 -type f -newer "$marker" \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
            -o -name 'oom-*' \) | wc -l)
  corpus=$(find "$CORPUS/$t" -type f | wc -l)
  first=$(grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|invariant violated|^terminate called' "$log" \
          | cut -c1-150)
  local result=ok
  if [ "$status" -ne 0 ] || [ "$crashes" -gt 0 ]; then result=CRASH; fi
  [ "$status" = 127 ] && result=MISSING
  printf '%-16s %-7s %12s %8s %6s %7s %7s  %s\n' "$t" "$result" "${runs:-?}" "${eps:-?}" "${newu:--}" "$corpus" \
    "$crashes" "$first" > "$LOGS/$t.result"
  echo "[$MODE] $t: $result, ${runs:-?} runs, ${eps:-?} exec/s, $crashes crash input(s)"
}

echo "run_fuzzers.sh: ${#TARGETS[@]} targets, ${SECONDS_EACH}s each, $JOBS at a time ($MODE)"
rm -f "$LOGS"/*.result
running=0
for t in "${TARGETS[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
done
wait

{
  echo "# fuzz $MODE run, $(date -u +%Y-%m-%dT%H:%M:%SZ), ${SECONDS_EACH}s per target, $JOBS at a time"
  printf '%-16s %-7s %12s %8s %6s %7s %7s  %s\n' target result runs exec/s new corpus crashes "first report"
  for t in "${TARGETS[@]}"; do cat "$LOGS/$t.result" 2> /dev/null || printf '%-16s MISSING (no result)\n' "$t"; done
} > "$SUMMARY"
cat "$SUMMARY"
echo "summary: $SUMMARY; logs: $LOGS; crash inputs: $ARTIFACTS"
if grep -qE '^[a-z_]+ +(CRASH|MISSING)' "$SUMMARY"; then exit 1; fi
exit 0
