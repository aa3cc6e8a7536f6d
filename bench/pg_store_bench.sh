#!/bin/sh
# The run store's checkpoint cost on PostgreSQL beside SQLite
# (BM_StoreCheckpointPerStep*, bench/store_bench.cc): starts a PostgreSQL 15
# in a temporary folder on a loopback port (as the `postgres` user when run
# as root), with its default durability (fsync on, synchronous_commit on: a
# commit is on disk when it returns, like SQLite with --store-fsync) unless
# PG_SYNC=off (synchronous_commit off: like SQLite's default, safe against a
# killed process, not a power cut), runs both benchmarks, stops the server.
#
#   bench/pg_store_bench.sh [build dir]          (default: build)
#   PG_SYNC=off BENCH_FILTER=Postgres bench/pg_store_bench.sh
set -eu
BUILD=${1:-build}
BIN=/usr/lib/postgresql/15/bin
DIR=$(mktemp -d /tmp/medreact-pgbench.XXXXXX)
AS=""
if [ "$(id -u)" = 0 ]; then chown postgres "$DIR"; AS="runuser -u postgres --"; fi
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
$AS "$BIN/initdb" -D "$DIR/data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1
$AS "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -o "-p $PORT -k $DIR -c listen_addresses=127.0.0.1 -c synchronous_commit=${PG_SYNC:-on}" start >/dev/null
trap '$AS "$BIN/pg_ctl" -D "$DIR/data" -m fast stop >/dev/null; rm -rf "$DIR"' EXIT
$AS "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U postgres bench
MEDREACT_BENCH_PG_URL="postgres://postgres@127.0.0.1:$PORT/bench" \
  "$BUILD/medreact_bench" --benchmark_filter="${BENCH_FILTER:-BM_StoreCheckpointPerStep}" --benchmark_min_time=1
