// The settings the library names in its messages, and the flags that set
// them. Library code (everything under src/ but the CLI) names a setting, not
// a flag: an HTTP client or a program has no flags ("the model URL (llm_url)
// must start with http:// or https://"). A setting is always written alone in
// parentheses. Where the CLI prints such a message it calls WithFlagNames,
// which writes the flag (and its environment variable, where it has one) in
// place of the setting: "the model URL (--llm-url or MEDREACT_LLM_URL) must
// ...". A new setting named in a library message gets its row in the table.
#ifndef MEDREACT_CLI_SETTING_FLAGS_H_
#define MEDREACT_CLI_SETTING_FLAGS_H_

#include <string>
#include <string_view>
#include <vector>

#include "medreact/status.h"

namespace medreact::cli {

struct SettingFlag {
  std::string_view setting;  // as the library writes it: "llm_url"
  std::string_view flag;     // as the CLI user gives it: "--llm-url or MEDREACT_LLM_URL"
};

// Every setting a library message may name, with its flag.
const std::vector<SettingFlag>& SettingFlags();

// `message` with each "(setting)" of the table written "(flag)". Text that
// is not a whole parenthesised setting is left as it is.
std::string WithFlagNames(std::string_view message);

// The same status with its message rewritten; OK stays OK.
Status WithFlagNames(const Status& status);

}  // namespace medreact::cli

#endif  // MEDREACT_CLI_SETTING_FLAGS_H_
