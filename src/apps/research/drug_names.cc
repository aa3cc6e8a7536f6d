// Brand → ingredient (drug_names.h).
#include "apps/research/drug_names.h"

#include "core/text_util.h"

namespace medreact {
namespace {

// Source: RxNorm (US National Library of Medicine), brand name (BN) →
// ingredient (IN) by the has_tradename relationship. US brand names of
// single-ingredient products only, written by hand (no RxNorm release is
// bundled); a pair is listed only where it is not in doubt.
const std::vector<BrandIngredient> kTable = {
    // Immune checkpoint inhibitors and other oncology antibodies
    {"keytruda", "pembrolizumab"},
    {"opdivo", "nivolumab"},
    {"yervoy", "ipilimumab"},
    {"tecentriq", "atezolizumab"},
    {"imfinzi", "durvalumab"},
    {"bavencio", "avelumab"},
    {"libtayo", "cemiplimab"},
    {"herceptin", "trastuzumab"},
    {"avastin", "bevacizumab"},
    {"rituxan", "rituximab"},
    // Oncology small molecules
    {"gleevec", "imatinib"},
    {"tagrisso", "osimertinib"},
    {"ibrance", "palbociclib"},
    {"revlimid", "lenalidomide"},
    // Anticoagulants and antiplatelets
    {"coumadin", "warfarin"},
    {"jantoven", "warfarin"},
    {"eliquis", "apixaban"},
    {"xarelto", "rivaroxaban"},
    {"savaysa", "edoxaban"},
    {"plavix", "clopidogrel"},
    // Cardiovascular and metabolic
    {"lipitor", "atorvastatin"},
    {"zocor", "simvastatin"},
    {"crestor", "rosuvastatin"},
    {"lasix", "furosemide"},
    {"zestril", "lisinopril"},
    {"prinivil", "lisinopril"},
    {"norvasc", "amlodipine"},
    {"lanoxin", "digoxin"},
    {"glucophage", "metformin"},
    {"jardiance", "empagliflozin"},
    {"farxiga", "dapagliflozin"},
    {"ozempic", "semaglutide"},
    {"wegovy", "semaglutide"},
    {"synthroid", "levothyroxine"},
    // Immunology
    {"humira", "adalimumab"},
    {"remicade", "infliximab"},
    {"enbrel", "etanercept"},
    // Other
    {"zoloft", "sertraline"},
    {"prozac", "fluoxetine"},
    {"tylenol", "acetaminophen"},
    {"advil", "ibuprofen"},
    {"motrin", "ibuprofen"},
};

}  // namespace

const std::vector<BrandIngredient>& BrandIngredientTable() { return kTable; }

std::string IngredientOfBrand(std::string_view name) {
  const std::string lower = AsciiLower(TrimView(name));
  for (const BrandIngredient& row : kTable) {
    if (lower == row.brand) return row.ingredient;
  }
  return "";
}

std::vector<std::string> DrugNameVariants(std::string_view term) {
  const std::string lower = AsciiLower(TrimView(term));
  std::vector<std::string> out = {lower};
  std::string ingredient = IngredientOfBrand(lower);
  if (ingredient.empty()) ingredient = lower;  // the term may be an ingredient itself
  auto add = [&out](const std::string& name) {
    for (const std::string& seen : out) {
      if (seen == name) return;
    }
    out.push_back(name);
  };
  for (const BrandIngredient& row : kTable) {
    if (ingredient == row.ingredient) {
      add(row.ingredient);
      add(row.brand);
    }
  }
  return out;
}

}  // namespace medreact
