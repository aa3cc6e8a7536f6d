#!/usr/bin/env bash
# The clinician's page, last of `make run`: starts `medreact serve` for a
# moment over the demos' run store (BUILD_DIR/demo-runs.sqlite), checks that
# it serves the page and lists the demos' runs, stops it, and prints how to
# open the page yourself.
#   bash examples/page.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
store="$(cd "$build" && pwd)/demo-runs.sqlite"
out="$(cd "$build" && pwd)/page-demo"
rm -rf "$out" && mkdir -p "$out"
"$build/medreact" serve --store "$store" --port 0 --port-file "$out/port" --no-access-log 2>"$out/serve.log" &
serve_pid=$!
trap 'kill "$serve_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 200); do [ -s "$out/port" ] && break; sleep 0.05; done
[ -s "$out/port" ] || { echo "medreact serve did not start:" >&2; cat "$out/serve.log" >&2; exit 1; }
port=$(cat "$out/port")
# GET with bash alone (no curl on a fresh machine): HTTP/1.1, the connection closed after.
get() {
  exec 3<>"/dev/tcp/127.0.0.1/$port"
  printf 'GET %s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$1" "$port" >&3
  cat <&3
  exec 3<&-
}
page=$(get /)
case "$page" in "HTTP/1.1 200"*"<title>medreact</title>"*) ;; *) echo "GET / did not answer the page" >&2; exit 1 ;; esac
runs=$( (get "/v1/runs?limit=500" | grep -o '"id":"run_' || true) | wc -l)
kill "$serve_pid" && wait "$serve_pid" 2>/dev/null || true
trap - EXIT

echo
echo "== The clinician's page =="
echo "medreact serve answered GET / with the page, and its API listed the demos' $runs stored run(s)."
echo "To open it (loopback only; add --token-file to serve beyond this machine):"
echo
echo "  $build/medreact serve --store $build/demo-runs.sqlite"
echo "  then open http://127.0.0.1:8080/ in a browser"
echo
echo "(Worklists, chest X-rays and research started from the page need a model and imaging"
echo " endpoints: --llm-url, --classifier-url, ... as for the CLI; see README, \"medreact serve\".)"
