// Internal to the offline extraction planner (extract_planner.cc): reading
// the conversation back (its own calls and their observations, by call key)
// and the small formatting and ranking helpers the plan uses. Pure functions;
// thread-safe.
#ifndef MEDREACT_APPS_EXTRACT_EXTRACT_PLAN_SUPPORT_H_
#define MEDREACT_APPS_EXTRACT_EXTRACT_PLAN_SUPPORT_H_

#include <map>
#include <string>
#include <vector>

#include "apps/common/planner_support.h"
#include "medreact/json.h"
#include "medreact/message.h"

namespace medreact::extract_plan {

struct Conversation {
  std::map<std::string, ToolObservation> known;  // call key → observation
  int turns = 0;                                 // the planner's own turns (calls whose id starts with its prefix)
  int calls = 0;
};

// "tool|canonical arguments": the key a call's observation is found by.
std::string CallKey(const std::string& name, const Json& args);

// The observations of every call in `messages`; turns and calls count those whose id starts with `id_prefix`.
Conversation ReadConversation(const std::vector<Message>& messages, const std::string& id_prefix);

// `value` with `digits` decimals.
std::string Fmt(double value, int digits);

// "weight_for_length" → "weight-for-length", "bmi_for_age" → "BMI-for-age".
std::string Readable(std::string indicator);

// A tool error without its prefix and the parameter schema it appends for a model.
std::string ShortToolError(std::string error);

// A member that is an array, else an empty one (tool results are read, not trusted).
const Json& ArrayField(const Json& object, const char* key);

// call_medical_function's arguments for `function`.
Json Call(const std::string& function, Json parameters);

// The severity word of a band ("moderate malnutrition" → "moderate"), "" when none.
std::string SeverityOf(const std::string& band);

// severe 3, moderate 2, mild 1, anything else 0.
int Rank(const std::string& severity);

}  // namespace medreact::extract_plan

#endif  // MEDREACT_APPS_EXTRACT_EXTRACT_PLAN_SUPPORT_H_
