// Valid JSON of the wrong shape in a patient's record (issue 9, class 6): a
// real Synthea bundle with fields swapped, deterministically, for values of
// other types (null, strings, numbers at the ends of the double range, arrays,
// objects). Every variant either fails to load with an error or loads; every
// FHIR tool and the triage rules planner then run over it to an answer. None
// may throw or crash (the sanitizer build runs this too).
#include <random>

#include <gtest/gtest.h>

#include "apps/triage/triage_app.h"
#include "core/file_io.h"
#include "medreact/tool_registry.h"
#include "testing/fixtures.h"
#include "tools/fhir/fhir_pack.h"
#include "tools/fhir/fhir_store.h"

namespace medreact {
namespace {

// Replaces about one value in `one_in` (and whole subtrees with it) by a value
// of another type; returns the number of replacements.
int Mutate(Json& value, std::mt19937& rng, int one_in) {
  static const Json kReplacements[] = {
      nullptr, 1e308, -1e308, 0, -1, 4.5, "", "x", "2024-13-45T99:99:99Z", "1900-01-01",
      Json::array(), Json::object(), true, Json::array({1, "a", nullptr}), Json{{"a", Json::array()}},
      "\u0000\u001b[31m"};
  int changed = 0;
  if (value.is_object() || value.is_array()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (std::uniform_int_distribution<int>(0, one_in - 1)(rng) == 0) {
        *it = kReplacements[std::uniform_int_distribution<size_t>(0, std::size(kReplacements) - 1)(rng)];
        ++changed;
      } else {
        changed += Mutate(*it, rng, one_in);
      }
    }
  }
  return changed;
}

// Arguments a model might send: every required property filled by type.
Json ArgumentsFor(const ToolSpec& spec) {
  Json args = Json::object();
  const Json& properties = spec.parameters.value("properties", Json::object());
  for (auto it = properties.begin(); it != properties.end(); ++it) {
    const Json& p = it.value();
    if (p.contains("enum") && p["enum"].is_array() && !p["enum"].empty()) {
      args[it.key()] = p["enum"][0];
    } else if (p.value("type", "") == "string") {
      args[it.key()] = it.key() == "category" ? "coagulation" : "warfarin";
    } else if (p.value("type", "") == "integer" || p.value("type", "") == "number") {
      args[it.key()] = 5;
    } else if (p.value("type", "") == "boolean") {
      args[it.key()] = true;
    }
  }
  return args;
}

TEST(FhirHostileTest, WrongTypesAnywhereInARecordNeverCrashTheToolsOrTriage) {
  const auto bundles = testing::SyntheaBundles();
  ASSERT_FALSE(bundles.empty());
  Result<std::string> text = ReadUserFile(bundles.front().string(), "bundle", kMaxRecordBytes);
  ASSERT_TRUE(text.ok());
  const Json original = ParseJson(*text).value();

  int loaded = 0, variants = 0;
  for (int one_in : {3, 20, 200}) {
    for (uint32_t seed = 1; seed <= 25; ++seed) {
      std::mt19937 rng(seed * 7919 + static_cast<uint32_t>(one_in));
      Json bundle = original;
      if (Mutate(bundle, rng, one_in) == 0) continue;
      ++variants;
      Result<FhirStore> store = FhirStore::FromJson(bundle, "mutated");
      if (!store.ok()) continue;
      ++loaded;
      auto shared = std::make_shared<const FhirStore>(std::move(*store));
      ToolRegistry registry;
      ASSERT_TRUE(RegisterFhirPack(registry, shared).ok());
      for (const ToolSpec& spec : registry.Specs()) {
        ToolResult r = registry.Execute({.id = "c", .name = spec.name, .arguments = DumpJson(ArgumentsFor(spec))},
                                        ToolContext{});
        if (r.ok) {
          EXPECT_TRUE(ParseJson(r.content).ok()) << spec.name << ": result is not JSON";
        }
        EXPECT_EQ(r.error.find("failed:"), std::string::npos) << spec.name << " threw: " << r.error;
      }
      TriageConfig config;  // no model: the rules planner
      TriageOutcome out = RunTriage(shared, {.findings = "Acute pulmonary embolism, right lower lobe"}, config);
      const int priority = out.result.value("priority_level", 0);
      EXPECT_TRUE(priority >= 1 && priority <= 3) << "seed " << seed;
    }
  }
  EXPECT_GE(variants, 30);
  EXPECT_GE(loaded, 10);  // enough variants get past the loader to exercise the tools
}

}  // namespace
}  // namespace medreact
