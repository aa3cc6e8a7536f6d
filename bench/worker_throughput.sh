#!/usr/bin/env bash
# Worklist throughput through the job queue (issue 28): CASES cases (the
# example worklist's, repeated) enqueued with `worklist --enqueue`, triaged
# by 1, 2 and 4 `medreact worker --until-empty` processes (concurrency 1
# each) against medreact-mock-llm, whose 4 replies per case each wait
# DELAY_MS. The model-bound limit for W workers is CASES × 4 × DELAY_MS / W:
# what the time would be if only the model's latency counted. The figure is
# that limit over the measured wall time (1.0 = nothing but the model).
#
#   bash bench/worker_throughput.sh [BUILD_DIR] [STORE] [CASES] [DELAY_MS]
#
# STORE: "pg" (default) starts a throwaway PostgreSQL 15 in a temporary
# folder (initdb + postgres on a free loopback port, as the `postgres` user
# when run as root) and uses a fresh database per worker count; "sqlite"
# uses a fresh SQLite file per worker count; or a postgres:// URL of yours
# (each worker count adds a batch and its runs there).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build}"
store_kind="${2:-pg}"
cases="${3:-40}"
delay="${4:-200}"
calls=4

tmp="$(mktemp -d)"
chmod 755 "$tmp"
pg_pid=""
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  [ -n "$pg_pid" ] && kill -INT "$pg_pid" 2>/dev/null && wait "$pg_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

# The cases.
mapfile -t sources < <(find "$here/../examples/worklist" -mindepth 1 -maxdepth 1 -type d | sort)
for i in $(seq 0 $((cases - 1))); do
  src="${sources[$((i % ${#sources[@]}))]}"
  cp -r "$src" "$tmp/list-$(printf %03d "$i")-$(basename "$src")" 2>/dev/null || true
done
mkdir -p "$tmp/list"
mv "$tmp"/list-* "$tmp/list/"

call() { printf '{"delay_ms": %s, "message": {"content": null, "tool_calls": [{"id": "%s", "name": "%s", "arguments": %s}]}}' \
  "$delay" "$1" "$2" "$3"; }
cat > "$tmp/script.json" <<JSON
{"select": "by_turn", "responses": [
  $(call c1 check_medication_status '"{\"medication_name\": \"anticoag\"}"'),
  $(call c2 get_recent_labs '"{\"category\": \"Coag\"}"'),
  $(call c3 get_vital_signs '"{}"'),
  $(call c4 submit_assessment '"{\"final_assessment\": \"Reviewed.\", \"risk_adjustment\": \"NONE\", \"critical_findings\": []}"')
]}
JSON
"$build/medreact-mock-llm" --script "$tmp/script.json" --port-file "$tmp/port" >/dev/null &
server=$!
while [ ! -s "$tmp/port" ]; do sleep 0.05; done
llm="http://127.0.0.1:$(cat "$tmp/port")/v1"

as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ "$store_kind" = pg ]; then
  bin=/usr/lib/postgresql/15/bin
  mkdir -p "$tmp/pg"
  [ "$(id -u)" = 0 ] && chown postgres "$tmp/pg"
  as_pg "$bin/initdb" -D "$tmp/pg/data" -U postgres -A trust >/dev/null
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  # PG_OPTS: extra server settings, e.g. "-c synchronous_commit=off" (a commit not waiting for its fsync).
  # shellcheck disable=SC2086
  as_pg "$bin/postgres" -D "$tmp/pg/data" -p "$port" -k "$tmp/pg" -c listen_addresses=127.0.0.1 ${PG_OPTS:-} \
    >"$tmp/pg/log" 2>&1 &
  pg_pid=$!
  until as_pg "$bin/pg_isready" -h 127.0.0.1 -p "$port" -q; do sleep 0.1; done
fi

printf '%-8s %-8s %-10s %-12s %-10s\n' workers cases wall_s limit_s fraction
for workers in 1 2 4; do
  case "$store_kind" in
    pg)
      as_pg "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres "w$workers"
      store="postgres://postgres@127.0.0.1:$port/w$workers" ;;
    sqlite) store="$tmp/w$workers.sqlite" ;;
    *) store="$store_kind" ;;
  esac
  "$build/medreact" worklist "$tmp/list" --store "$store" --enqueue >/dev/null
  start=$(date +%s.%N)
  pids=()
  for _ in $(seq 1 "$workers"); do
    "$build/medreact" worker --store "$store" --llm-url "$llm" --model mock --until-empty -q &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  end=$(date +%s.%N)
  "$build/medreact" worklist "$tmp/list" --store "$store" --wait --out "$tmp/out-$workers" -q >/dev/null
  python3 - "$start" "$end" "$cases" "$calls" "$delay" "$workers" <<'PY'
import sys
start, end, cases, calls, delay, workers = map(float, sys.argv[1:])
wall = end - start
limit = cases * calls * delay / 1000 / workers
print(f"{int(workers):<8} {int(cases):<8} {wall:<10.2f} {limit:<12.2f} {limit / wall:<10.3f}")
PY
done
