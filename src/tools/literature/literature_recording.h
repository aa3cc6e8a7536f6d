// Recorded literature responses, imported into the literature cache so that a
// question can be run offline from responses checked into a repository (the
// `make run` demo: examples/research/).
//
// A recording is JSON lines, one response per line:
//   {"method": "GET", "url": "https://...", "status": 200,
//    "content_type": "application/json", "body": "..."}
// Each becomes the cache entry for LiteratureCacheKey(method, url), exactly
// as if it had been fetched online; an offline run then finds it. Blank
// lines and lines starting with '#' are skipped. Nothing is sent anywhere.
#ifndef MEDREACT_TOOLS_LITERATURE_LITERATURE_RECORDING_H_
#define MEDREACT_TOOLS_LITERATURE_LITERATURE_RECORDING_H_

#include <string>

#include "medreact/status.h"

namespace medreact {

// Imports every line of `recording_path` into the cache at `cache_path` ("" =
// the default cache). Returns the number of responses imported. Errors name
// the file and the line (nothing is imported from a file with a bad line).
Result<int> ImportLiteratureRecording(const std::string& recording_path, const std::string& cache_path);

}  // namespace medreact

#endif  // MEDREACT_TOOLS_LITERATURE_LITERATURE_RECORDING_H_
