// Duplicate keys with different values, for the tolerant JSON reader.
//
// RFC 8259 leaves duplicate names to the parser; nlohmann keeps the last. In a
// model's tool call or answer, {"dose": "5 mg", "dose": "50 mg"} has two
// readings, so ParseJsonLenient refuses it instead of picking one.
#ifndef MEDREACT_LLM_JSON_DUPLICATE_KEYS_H_
#define MEDREACT_LLM_JSON_DUPLICATE_KEYS_H_

#include <string_view>

#include "medreact/json.h"

namespace medreact {

// True when an object in `text` (valid JSON) gives one key two different
// values. A key repeated with the same value is only repeated. Values are
// compared as written, so equal objects whose keys come in another order count
// as different: a refusal, never a wrong value. Linear: valid JSON without
// repeated keys costs one SAX scan, with them a second.
bool HasConflictingKeys(std::string_view text);

}  // namespace medreact

#endif  // MEDREACT_LLM_JSON_DUPLICATE_KEYS_H_
