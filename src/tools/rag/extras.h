// ExtrasFile: short task hints looked up by keyword (seed 002's "extras":
// supplementary hints, tips and patterns that help a model understand the
// task, as opposed to guideline passages, which come from the RAG index).
//
// Format: a JSON array of objects
//   [{"keywords": ["percentile", "z-score"], "hint": "3rd percentile ≈ z −1.88", "source": "WHO 2006"}, ...]
// `keywords` (non-empty array of non-empty strings) and `hint` (non-empty
// string) are required; `source` is optional. Loading is strict: a bad entry
// is an error naming its JSON pointer, so a broken hints file is noticed at
// startup, not by the model.
//
// Matching: case-insensitive and punctuation-blind ("Z-score" = "z score" =
// "zscore"). A query keyword matches a hint when it equals one of the hint's
// keywords, or when all the words of the shorter one appear, in order, in the
// longer one ("malnutrition" matches "pediatric malnutrition"). Hints are
// ranked by how many query keywords they match, ties in file order.
// Immutable after loading: thread-safe.
#ifndef MEDREACT_TOOLS_RAG_EXTRAS_H_
#define MEDREACT_TOOLS_RAG_EXTRAS_H_

#include <string>
#include <vector>

#include "medreact/json.h"
#include "medreact/status.h"

namespace medreact {

struct ExtraHint {
  std::vector<std::string> keywords;
  std::string hint;
  std::string source;  // "" when the file gives none
};

struct ExtraMatch {
  const ExtraHint* hint = nullptr;       // points into the ExtrasFile: valid while it lives
  std::vector<std::string> matched;      // the query keywords that matched, as given
};

class ExtrasFile {
 public:
  // Reads and validates `path`; errors name the file.
  static Result<ExtrasFile> Load(const std::string& path);
  // `source` names the input in error messages.
  static Result<ExtrasFile> FromJson(const Json& document, const std::string& source = "extras JSON");

  const std::vector<ExtraHint>& hints() const { return hints_; }

  // The best `max_results` hints for these keywords; empty when none matches.
  std::vector<ExtraMatch> Lookup(const std::vector<std::string>& keywords, size_t max_results = 8) const;

 private:
  std::vector<ExtraHint> hints_;
  std::vector<std::vector<std::vector<std::string>>> normalized_;  // per hint, per keyword: its words
};

}  // namespace medreact

#endif  // MEDREACT_TOOLS_RAG_EXTRAS_H_
