// Brand and generic drug names as one term, for the research rules judge: a
// question about "Keytruda" is answered by a record about "pembrolizumab",
// and the other way round.
//
// The table (drug_names.cc) pairs a brand name with its active ingredient as
// RxNorm names them (US National Library of Medicine, RxNorm: the brand name
// concept, term type BN, and its ingredient, term type IN, joined by RxNorm's
// "has_tradename" / "tradename_of" relationship). Written from that
// relationship, not downloaded: only single-ingredient US brands whose
// pairing is not in doubt are listed; a name the table lacks is its own only variant. Matching
// is on lower-case ASCII words, as KeyTerms (research_prompts.h) gives them.
//
// Pure functions over a constant table; thread-safe.
#ifndef MEDREACT_APPS_RESEARCH_DRUG_NAMES_H_
#define MEDREACT_APPS_RESEARCH_DRUG_NAMES_H_

#include <string>
#include <string_view>
#include <vector>

namespace medreact {

struct BrandIngredient {
  const char* brand;       // lower case: "keytruda"
  const char* ingredient;  // lower case, RxNorm ingredient: "pembrolizumab"
};

// The whole table, in the order written (for docs and tests).
const std::vector<BrandIngredient>& BrandIngredientTable();

// The ingredient of a brand name ("keytruda" → "pembrolizumab"); "" when the
// name is no brand in the table (an ingredient itself, or unknown).
// Case-insensitive.
std::string IngredientOfBrand(std::string_view name);

// Every name that means the same drug as `term`, the term first: a brand →
// {brand, ingredient, the ingredient's other brands}; an ingredient → {it,
// its brands}; anything else → {term}. Lower case.
std::vector<std::string> DrugNameVariants(std::string_view term);

}  // namespace medreact

#endif  // MEDREACT_APPS_RESEARCH_DRUG_NAMES_H_
