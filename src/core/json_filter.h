// ParseJson with a filter: the same guards (depth 256, numbers in range, no
// input text in messages), and nlohmann's parser callback, which sees each
// value as it is completed and may replace or drop it. For readers of large
// documents that keep a fraction of them (FhirStore's filtered load): the
// whole document is never built. ParseJsonFileFiltered reads from an open
// file as it parses, so the text is never held either; the depth guard is
// then applied as containers open.
#ifndef MEDREACT_CORE_JSON_FILTER_H_
#define MEDREACT_CORE_JSON_FILTER_H_

#include <cstdio>
#include <string_view>

#include "medreact/json.h"

namespace medreact {

Result<Json> ParseJsonFiltered(std::string_view text, const Json::parser_callback_t& filter);
Result<Json> ParseJsonFileFiltered(std::FILE* file, const Json::parser_callback_t& filter);

}  // namespace medreact

#endif  // MEDREACT_CORE_JSON_FILTER_H_
