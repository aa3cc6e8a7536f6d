// Reading an app's JSON inputs (service/app_runs.h): the check of the
// inputs against the app table's schema (AppRow::inputs_schema, the subset
// it uses: type, enum, minimum, maximum, minLength, minItems, items,
// required, additionalProperties) and the paths resolved inside the input
// roots. Every refusal is InvalidArgument "inputs.KEY: what" with `*field`
// set to the JSON path (inputs.KEY, inputs.KEY[i]).
#ifndef MEDREACT_SERVICE_APP_INPUTS_H_
#define MEDREACT_SERVICE_APP_INPUTS_H_

#include <optional>
#include <string>
#include <vector>

#include "medreact/json.h"
#include "medreact/status.h"

namespace medreact::service {

// InvalidArgument "`path`: `what`", `*field` = path (field may be null).
Status InputError(std::string* field, const std::string& path, const std::string& what);

// `value` (at JSON path `path`) against `schema`.
Status CheckAgainstSchema(const Json& schema, const Json& value, const std::string& path, std::string* field);

// `inputs` with every path the schema marks ("format": "path", alone or as
// an array's items) replaced by its real path, checked to be absolute and
// inside one of `roots` (each resolved too).
Result<Json> ResolveInputPaths(const Json& schema, const Json& inputs, const std::vector<std::string>& roots,
                               std::string* field);

// Typed reads of checked inputs (the schema already refused a wrong type).
std::string InputText(const Json& inputs, const char* key, const std::string& fallback = "");
std::optional<int64_t> InputInteger(const Json& inputs, const char* key);
std::vector<std::string> InputTexts(const Json& inputs, const char* key);

// The input a Prepare function's message is about: "inputs.KEY" for the
// first key of `keys` the message names as "(KEY)" or with one of its
// aliases ({alias, key}); "" when none.
std::string FieldNamed(const std::string& message, const std::vector<std::string>& keys,
                       const std::vector<std::pair<std::string, std::string>>& aliases);

}  // namespace medreact::service

#endif  // MEDREACT_SERVICE_APP_INPUTS_H_
