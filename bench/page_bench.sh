#!/usr/bin/env bash
# The clinician's page: the worklist view's load time with 500 finished cases
# in chromium over loopback (issue 26; docs/benchmarks.md "The clinician's
# page (issue 26)"). Not part of `make test`. Builds nothing: needs
# BUILD_DIR/medreact (`make build`), `make node-deps` (playwright-core) and
# Debian's /usr/bin/chromium. Its temporary folder (cases, store) is removed after.
#
#   bash bench/page_bench.sh [BUILD_DIR]
#   CASES=500 LOADS=12 bash bench/page_bench.sh build
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
for b in "$build/medreact" "$build/medreact-mock-llm" /usr/bin/chromium /usr/bin/node; do
  [ -x "$b" ] || { echo "missing $b (make build; Debian's chromium and node)" >&2; exit 1; }
done
[ -d "$root/tests/node/node_modules/playwright-core" ] || { echo "run make node-deps first" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
MEDREACT_BINARY="$build/medreact" MEDREACT_MOCK_LLM="$build/medreact-mock-llm" MEDREACT_SOURCE_DIR="$root" \
MEDREACT_PAGE_ARTIFACTS="$tmp/artifacts" MEDREACT_TMP="$tmp" \
  node "$here/page_load.mjs"
