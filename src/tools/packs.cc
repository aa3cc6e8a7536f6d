#include "tools/packs.h"

#include "medreact/agent.h"
#include "tools/calc/calc_pack.h"
#include "tools/fhir/fhir_pack.h"
#include "tools/util/util_pack.h"

namespace medreact {

std::vector<PackInfo> KnownPacks() {
  return {
      {"util", "current_time and a safe calculator; no patient data, no network"},
      {"finish", "final_answer and terminate: explicit end-of-task tools"},
      {"fhir", "a patient's FHIR R4 record (read-only): manifest, history, labs, medications, vitals, "
               "allergies, imaging; needs a bundle the user names"},
      {"calc", "clinical calculators (renal function, scores, ...), each citing its published formula; "
               "units converted; no patient data, no network"},
  };
}

std::vector<std::string> SplitPackList(const std::string& list) {
  std::vector<std::string> out;
  std::string item;
  auto flush = [&] {
    size_t b = item.find_first_not_of(" \t");
    size_t e = item.find_last_not_of(" \t");
    if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
    item.clear();
  };
  for (char c : list) {
    if (c == ',') {
      flush();
    } else {
      item += c;
    }
  }
  flush();
  return out;
}

namespace {

Status RegisterFhir(ToolRegistry& registry, const PackContext& context) {
  if (context.fhir_path.empty()) {
    return Status::InvalidArgument("the fhir pack reads a patient record: name it with --fhir BUNDLE");
  }
  auto store = FhirStore::LoadFile(context.fhir_path);
  if (!store.ok()) return store.status();
  if (!context.as_of.empty()) {
    if (Status s = store->SetAsOf(context.as_of); !s.ok()) return s;
  }
  return RegisterFhirPack(registry, std::make_shared<const FhirStore>(std::move(*store)));
}

}  // namespace

Status RegisterPacks(ToolRegistry& registry, const std::vector<std::string>& packs,
                     const PackContext& context) {
  for (const auto& pack : packs) {
    Status s;
    if (pack == "util") {
      s = RegisterUtilPack(registry);
    } else if (pack == "finish") {
      s = RegisterFinishTools(registry);
    } else if (pack == "calc") {
      s = RegisterCalcPack(registry);
    } else if (pack == "fhir") {
      s = RegisterFhir(registry, context);
    } else {
      std::string known;
      for (const auto& p : KnownPacks()) known += (known.empty() ? "" : ", ") + p.name;
      return Status::InvalidArgument("unknown tool pack '" + pack + "' (known packs: " + known + ")");
    }
    if (!s.ok()) return s.WithContext("pack '" + pack + "'");
  }
  return Status::OK();
}

}  // namespace medreact
