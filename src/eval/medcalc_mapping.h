// Maps a MedCalc-Bench row's "Relevant Entities" (a Python dict parsed into
// Json, see py_literal.h) to a calculator's arguments, generally: by the
// calculator's inputs, their names and `aliases`, never by row or note.
//
// Keys: normalised (NormalizeEntityKey: lower case, unicode subscripts and
// superscripts to digits, ≤/≥/</> to words, other punctuation to spaces,
// whitespace collapsed) and matched against each input's name (underscores as
// spaces) and aliases, normalised the same way. An exact match wins; failing
// that, a fuzzy match within a small edit distance catches typos such as
// "Congestive Heart Faliure" (optimal-string-alignment distance, so a swap of
// two letters costs 1; allowed: 1 for keys of 8-19 characters, 2 for 20 or
// more, none for shorter keys; the best input must be unique). One key may feed
// several inputs (MedCalc-Bench's steroid entity ['Dexamethasone PO', 7.96,
// 'mg'] gives both the drug and the dose); several keys feeding one input
// combine (booleans: any true; otherwise the exact match, then the first).
// Keys that match no input are ignored and listed.
//
// Values, by the input's type:
//   number/integer  7 | [7, 'mg/dL'] | ['Drug', 7, 'mg'] | "7 mg/dL" → 7 or
//                   {"value": 7, "unit": "mg/dL"} (units then go through
//                   units.h; unknown units fail in PrepareArgs with the list of
//                   accepted ones); a compound [5, 'ft', 7, 'in'] is summed in
//                   the input's canonical unit
//   boolean         True/False; 0/1; text: "no", "none...", "absent", "not
//                   mentioned" (and misspellings), "false", "negative",
//                   "normal" → false; any other text (e.g. a severity "Mild")
//                   → true. A key naming a category of which the input is
//                   one value ('Race' for black_race: its words are part of
//                   the input's name) is true only when the text names the
//                   rest ('Black'), false otherwise ('White')
//   choice          text matched to the input's choices: exactly (case,
//                   spacing, punctuation ignored), then through a small table
//                   of clinical synonyms (e.g. "mild" ~ "slight"), then by
//                   containment (the longest choice contained in the text, or
//                   the only choice containing it), then by edit distance;
//                   True/False → a yes/no-like choice when the input has one
//   sex, date       passed through (PrepareArgs accepts Male/Female, MM/DD/YYYY)
// Pure functions; thread-compatible.
#ifndef MEDREACT_EVAL_MEDCALC_MAPPING_H_
#define MEDREACT_EVAL_MEDCALC_MAPPING_H_

#include <string>
#include <string_view>
#include <vector>

#include "medreact/json.h"
#include "tools/calc/calculator.h"

namespace medreact::eval {

struct MappedArgs {
  Json args = Json::object();        // the calculator's arguments, for RunCalculator
  std::vector<std::string> ignored;  // entity keys that matched no input
  std::vector<std::string> notes;    // fuzzy key matches and values that could not be read
};

// "Partial pressure of oxygen (PaO₂) for Apache II" → "partial pressure of oxygen pao2 for apache ii".
std::string NormalizeEntityKey(std::string_view key);

// Optimal string alignment distance (Levenshtein plus adjacent transpositions), on bytes.
int EditDistance(std::string_view a, std::string_view b);

// The largest edit distance accepted for a fuzzy match of a normalised key of this length.
int AllowedKeyDistance(size_t length);

// Maps `entities` (a Json object) to `calculator`'s arguments. Never fails:
// what cannot be read is left out (and noted), so that PrepareArgs names the
// missing inputs.
MappedArgs MapEntities(const calc::Calculator& calculator, const Json& entities);

// One value read for one input (exposed for tests): the Json argument, or
// null when the value cannot serve this input (the reason in `why`).
Json ReadValueForInput(const calc::CalcInput& input, const Json& value, std::string* why);

}  // namespace medreact::eval

#endif  // MEDREACT_EVAL_MEDCALC_MAPPING_H_
