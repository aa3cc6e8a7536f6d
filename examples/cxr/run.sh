#!/usr/bin/env bash
# The chest X-ray agent (`medreact cxr`) offline, with scripted imaging endpoints:
#   bash examples/cxr/run.sh [BUILD_DIR]
#
# Starts medreact-mock-llm on a free loopback port serving only the imaging
# routes of examples/cxr/endpoints.json (classifier, segmentation, grounding:
# hand-written answers, see make_endpoints.py), then runs `medreact cxr` on a
# real DICOM chest radiograph with no language model: the offline plan calls
# the tools over HTTP in MedRAX's order (read the DICOM and classify, then
# ground and segment what is above the threshold, then draw) and writes a
# templated summary that cites each tool. The result, the trace and the
# annotated PNG are kept in BUILD_DIR/cxr-demo/, printed at the end.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
# The run is recorded in a store under the build folder, never in the user's own.
export MEDREACT_STORE="$(cd "$build" && pwd)/demo-runs.sqlite"
root=$(cd "$here/../.." && pwd)
out="$(cd "$build" && pwd)/cxr-demo"
rm -rf "$out" && mkdir -p "$out"
trap 'kill "$mock_pid" 2>/dev/null || true' EXIT

"$build/medreact-mock-llm" --script "$here/endpoints.json" --port 0 --port-file "$out/port" >/dev/null 2>"$out/mock.log" &
mock_pid=$!
for _ in $(seq 1 200); do [ -s "$out/port" ] && break; sleep 0.05; done
[ -s "$out/port" ] || { echo "medreact-mock-llm did not start" >&2; exit 1; }
base="http://127.0.0.1:$(cat "$out/port")"
image="$root/tests/fixtures/dicom/CR-MONO1-10-chest.dcm"

echo "\$ medreact cxr CR-MONO1-10-chest.dcm --classifier-url $base/classify --segmentation-url $base/segment \\"
echo "    --grounding-url $base/ground --question \"Is the heart enlarged?\" --out result.json --image-dir images/"
echo
"$build/medreact" cxr "$image" --classifier-url "$base/classify" --segmentation-url "$base/segment" \
  --grounding-url "$base/ground" --question "Is the heart enlarged?" -v \
  --out "$out/result.json" --trace "$out/trace.json" --image-dir "$out/images" \
  >"$out/answer.txt" 2>"$out/live.txt" && status=0 || status=$?
echo "stderr (images, tools offered and why, progress):"
sed 's/^/  | /' "$out/live.txt"
echo
echo "Answer (stdout):"
cat "$out/answer.txt"
echo
echo "Result (answer, findings, tool calls and results): $out/result.json; annotated image in $out/images/"
exit "$status"
