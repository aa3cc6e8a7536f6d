// The research memory's store and de-duplication at the sizes a literature
// server can hand it (issue 23 item 4): one Store of 1,000, 8,000 and 32,000
// records into an empty memory (SQLite in memory, lexical similarity: no
// embeddings server), the shape of one search whose server answered with far
// more than it was asked for. Records are generated: a title of 10 and an
// abstract of 40 words drawn from a 6,000-word vocabulary with a Zipf-like
// law (a few words in most records, most words in few), each with a DOI and a
// preprint id (no PMID or NCT number, so the meaning pass compares them);
// every 10th record repeats an earlier one's text under another DOI with one
// word changed (a near-duplicate the meaning pass must drop), every 25th
// repeats an earlier DOI in upper case (an identity duplicate).
// The figure is the time of the Store call; `kept` is what it stored.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "apps/research/research_memory.h"

namespace medreact {
namespace {

std::vector<std::string> MakeVocabulary() {
  std::vector<std::string> words;
  static const char* kSyllables[] = {"ca", "ro", "mi", "te", "lu", "pha", "gen", "dro", "vex", "sta",
                                     "ni", "qua", "bel", "tor", "zi", "mu", "fen", "kal", "por", "syn"};
  for (int i = 0; words.size() < 6000; ++i) {
    std::string w;
    int n = i;
    do {
      w += kSyllables[n % 20];
      n /= 20;
    } while (n > 0);
    if (w.size() >= 4) words.push_back(w);
  }
  return words;
}

std::vector<Evidence> MakeRecords(size_t n) {
  static const std::vector<std::string> kWords = MakeVocabulary();
  std::mt19937 rng(42);
  // Zipf-like: index = floor(V^u) - 1 for uniform u.
  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto word = [&] {
    const double v = std::pow(static_cast<double>(kWords.size()), u(rng));
    return kWords[std::min(kWords.size() - 1, static_cast<size_t>(v) - 1)];
  };
  auto text = [&](int words) {
    std::string s;
    for (int i = 0; i < words; ++i) s += (i ? " " : "") + word();
    return s;
  };
  std::vector<Evidence> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Evidence e;
    const std::string doi = "10.1101/2024." + std::to_string(i);
    e.id = "PPR:PPR" + std::to_string(100000 + i);
    e.url = "https://doi.org/" + doi;
    e.other_ids = {"DOI:" + doi};
    e.source = EvidenceSource::kEuropePmc;
    e.year = 2024;
    if (i > 0 && i % 25 == 0) {
      // The same DOI as an earlier record, spelled in upper case.
      const Evidence& earlier = out[i / 2];
      e.other_ids = {"DOI:" + earlier.other_ids.front().substr(4)};
      for (char& c : e.other_ids.front()) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      e.title = earlier.title;
      e.abstract = earlier.abstract;
    } else if (i > 0 && i % 10 == 0) {
      // An earlier record's text with one word changed, under another DOI.
      const Evidence& earlier = out[i / 3];
      e.title = earlier.title;
      e.abstract = earlier.abstract + " " + word();
    } else {
      e.title = text(10);
      e.abstract = text(40);
    }
    out.push_back(std::move(e));
  }
  return out;
}

void BM_ResearchMemoryStore(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const std::vector<Evidence> records = MakeRecords(n);
  size_t kept = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Result<ResearchMemory> memory = ResearchMemory::Open("", "bench question");
    std::vector<Evidence> items = records;
    state.ResumeTiming();
    Result<StoreReport> report = memory->Store(std::move(items));
    if (!report.ok()) {
      state.SkipWithError(report.status().ToString().c_str());
      break;
    }
    kept = memory->evidence_count();
  }
  state.counters["kept"] = static_cast<double>(kept);
}
BENCHMARK(BM_ResearchMemoryStore)->Arg(1000)->Arg(8000)->Arg(32000)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace medreact
