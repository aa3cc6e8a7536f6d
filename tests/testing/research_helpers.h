// Shared by the research memory tests (tests/unit/research_*_test.cc): record
// builders, opening and storing that fail the test on an error, and the
// lexical calibration set (tests/fixtures/research/similarity_calibration.json).
#ifndef MEDREACT_TESTS_TESTING_RESEARCH_HELPERS_H_
#define MEDREACT_TESTS_TESTING_RESEARCH_HELPERS_H_

#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "testing/build_paths.h"
#include "apps/research/research_memory.h"
#include "medreact/json.h"

namespace medreact::testing {

inline constexpr char kQuestion[] = "Does testosterone therapy improve libido in older men?";

inline Evidence Paper(std::string url, std::string id, std::string title, std::string abstract = "",
                      EvidenceSource source = EvidenceSource::kPubMed) {
  Evidence e;
  e.url = std::move(url);
  e.id = std::move(id);
  e.title = std::move(title);
  e.abstract = std::move(abstract);
  e.source = source;
  return e;
}

inline ResearchMemory OpenOrDie(const std::string& path = "", ResearchMemoryOptions options = {},
                                std::string query = kQuestion) {
  Result<ResearchMemory> m = ResearchMemory::Open(path, std::move(query), std::move(options));
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return std::move(m).value();
}

// Every field, for comparing records read back with those stored.
inline auto EvidenceTuple(const Evidence& e) {
  return std::make_tuple(e.id, e.url, e.title, e.abstract, e.authors, e.year, static_cast<int>(e.source), e.type,
                         e.citation, e.peer_reviewed, e.other_ids);
}

inline StoreReport StoreOrDie(ResearchMemory& m, std::vector<Evidence> items) {
  Result<StoreReport> r = m.Store(std::move(items));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : StoreReport{};
}

struct CalibrationText {
  std::string name;
  std::string text;  // title + abstract
  Evidence evidence;
};

struct Calibration {
  std::vector<CalibrationText> distinct;                            // D1..D8
  std::vector<std::pair<std::string, CalibrationText>> hard;        // (pair, text)
  std::vector<std::pair<std::string, CalibrationText>> duplicates;  // (of, text)
};

inline Calibration LoadCalibration() {
  std::ifstream in(std::string(MEDREACT_SOURCE_DIR) + "/tests/fixtures/research/similarity_calibration.json");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const Json j = Json::parse(buffer.str());
  auto text = [](const Json& x, const std::string& name) {
    const std::string title = x.at("title").get<std::string>();
    const std::string abstract = x.at("abstract").get<std::string>();
    CalibrationText t{.name = name, .text = title + "\n\n" + abstract};
    t.evidence = Paper("https://calibration.example/" + name, "", title, abstract);
    return t;
  };
  Calibration c;
  for (const Json& x : j.at("distinct")) c.distinct.push_back(text(x, x.at("name").get<std::string>()));
  for (const Json& x : j.at("hard_distinct")) {
    c.hard.emplace_back(x.at("pair").get<std::string>(), text(x, x.at("name").get<std::string>()));
  }
  for (const Json& x : j.at("near_duplicates")) {
    const std::string of = x.at("of").get<std::string>();
    c.duplicates.emplace_back(of, text(x, of + "-version"));
  }
  return c;
}

inline const CalibrationText& Named(const Calibration& c, const std::string& name) {
  for (const CalibrationText& t : c.distinct) {
    if (t.name == name) return t;
  }
  ADD_FAILURE() << "no text " << name;
  return c.distinct.front();
}

}  // namespace medreact::testing

#endif  // MEDREACT_TESTS_TESTING_RESEARCH_HELPERS_H_
