// ResearchMemory: opening, reading, ranking, hypotheses and conflicts,
// snapshots and summaries, over MemoryDb; storing is research_memory_store.cc.
// See research_memory.h for the contract.
#include "apps/research/research_memory.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "apps/research/research_memory_impl.h"

namespace medreact {
namespace memory_internal {

std::string SimilarityText(const Evidence& e) {
  std::string text = e.title;
  if (!IsBlank(e.abstract)) text += "\n\n" + e.abstract;
  return text;
}

std::string EmbeddingInput(const Entry& entry) {
  std::string text = SimilarityText(entry.stored.evidence);
  if (IsBlank(text)) text = entry.stored.key;  // servers refuse empty input
  if (text.size() > kMaxEmbeddingInputBytes) {
    size_t cut = kMaxEmbeddingInputBytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text.resize(cut);
  }
  return text;
}

Entry MakeEntry(std::string key, Evidence e) {
  Entry entry;
  entry.ids = CanonicalIdentifiers(e);
  entry.record_ids = std::any_of(entry.ids.begin(), entry.ids.end(), [](const std::string& id) {
    return StartsWith(id, "PMID:") || StartsWith(id, "NCT:");
  });
  entry.terms = CountTerms(SimilarityText(e));
  entry.stored.key = std::move(key);
  entry.stored.evidence = std::move(e);
  return entry;
}

double Dot(const Embedding& a, const Embedding& b) {
  double dot = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) dot += static_cast<double>(a[i]) * b[i];
  return dot;
}

std::string Fixed(double x, int digits) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.*f", digits, x);
  return buffer;
}

}  // namespace memory_internal

namespace {

// "Surname A, Surname B, Surname C, et al. Title. 2021. PMID:123."
std::string BuiltCitation(const Evidence& e) {
  std::vector<std::string> parts;
  if (!e.authors.empty()) {
    std::vector<std::string> first(e.authors.begin(), e.authors.begin() + std::min<size_t>(3, e.authors.size()));
    std::string authors = Join(first, ", ");
    if (e.authors.size() > 3) authors += ", et al";
    parts.push_back(authors);
  }
  std::string title = Trim(e.title);
  while (!title.empty() && title.back() == '.') title.pop_back();
  if (!title.empty()) parts.push_back(title);
  if (e.year > 0) parts.push_back(std::to_string(e.year));
  if (!IsBlank(e.id)) parts.push_back(Trim(e.id));
  return parts.empty() ? std::string("(untitled)") : Join(parts, ". ");
}

std::string OneLine(std::string_view text, size_t max_bytes) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (IsAsciiSpace(c)) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  if (out.size() > max_bytes) {
    size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out.resize(cut);
    out += "…";
  }
  return out;
}

}  // namespace

// ---- Ranking ------------------------------------------------------------------

EvidenceRanking ResearchMemory::Impl::Rank(std::string_view text, size_t n, const CancellationToken& cancel) {
  std::lock_guard<std::mutex> write(write_mu);
  EvidenceRanking ranking;
  ranking.similarity = "lexical";
  if (entries.empty() || n == 0) return ranking;

  std::vector<double> scores(entries.size(), 0);
  bool scored = false;
  if (embedder) {
    std::vector<Entry> work = entries;
    std::vector<size_t> need;
    for (size_t i = 0; i < work.size(); ++i) {
      if (work[i].stored.vector.empty()) need.push_back(i);
    }
    std::vector<std::string> extra;
    if (query_vector_text != text || query_vector.empty()) extra.emplace_back(text);
    Result<std::vector<Embedding>> done =
        need.empty() && extra.empty() ? std::vector<Embedding>{} : Embed(work, need, extra, cancel);
    if (done.ok()) {
      if (!extra.empty()) {
        query_vector = std::move(done->front());
        query_vector_text = std::string(text);
      }
      if (query_vector.size() == work.front().stored.vector.size()) {
        for (size_t i = 0; i < work.size(); ++i) scores[i] = Dot(query_vector, work[i].stored.vector);
        scored = true;
        ranking.similarity = "embeddings";
      } else {
        ranking.warning = "embeddings unavailable, lexical similarity (TF-IDF) used: the query's vector has " +
                          std::to_string(query_vector.size()) + " dimensions, the memory's " +
                          std::to_string(work.front().stored.vector.size());
      }
      // Keep the vectors computed for ranking; a failure to save them only costs a later request.
      if (!need.empty()) {
        Status saved = db->Begin();
        for (size_t i : need) {
          if (saved.ok()) saved = db->SetEmbedding(work[i].stored.seq, work[i].stored.vector);
        }
        if (saved.ok()) saved = db->SetMeta("embeddings_model", options.embeddings_model);
        if (saved.ok()) saved = db->Commit();
        if (saved.ok()) {
          Apply(std::move(work));
        } else {
          db->Rollback();
          Warn("embeddings computed for ranking were not saved: " + saved.message());
        }
      }
    } else {
      ranking.warning = EmbeddingsWarning(done.status());
    }
  }
  if (!scored) {
    const TermCounts query_terms = CountTerms(text);
    std::vector<const TermCounts*> docs;
    for (const Entry& e : entries) docs.push_back(&e.terms);
    const TfIdfSpace space(docs);
    const SparseVector q = space.Vector(query_terms);
    for (size_t i = 0; i < entries.size(); ++i) scores[i] = Cosine(q, space.Vector(entries[i].terms));
  }
  if (!ranking.warning.empty()) Warn(ranking.warning);

  std::vector<size_t> order(entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  order.resize(std::min(n, order.size()));
  std::lock_guard<std::mutex> lock(state_mu);
  for (size_t i : order) {
    ranking.items.push_back({.key = entries[i].stored.key,
                             .reference = static_cast<int>(i) + 1,
                             .score = scores[i],
                             .evidence = entries[i].stored.evidence});
  }
  return ranking;
}

// ---- The class ------------------------------------------------------------------

ResearchMemory::ResearchMemory(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ResearchMemory::ResearchMemory(ResearchMemory&&) noexcept = default;
ResearchMemory& ResearchMemory::operator=(ResearchMemory&&) noexcept = default;
ResearchMemory::~ResearchMemory() = default;

Result<ResearchMemory> ResearchMemory::Open(const std::string& path, std::string query,
                                            ResearchMemoryOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  query = Trim(query);
  Result<std::unique_ptr<MemoryDb>> db = MemoryDb::Open(path);
  if (!db.ok()) return db.status();
  impl->db = std::move(*db);
  MemoryDb& d = *impl->db;

  // Schema, question and contents in one transaction.
  if (Status s = d.Begin(); !s.ok()) return s;
  Result<MemoryContents> contents = [&]() -> Result<MemoryContents> {
    Result<bool> created = d.EnsureSchema(query);
    if (!created.ok()) return created.status();
    Result<MemoryContents> loaded = d.Load();
    if (!loaded.ok()) return loaded.status();
    if (!query.empty() && loaded->query != query) {
      return Status::FailedPrecondition("research memory '" + path + "' holds another question ('" +
                                        Preview(loaded->query, 80) +
                                        "'); reopen it without a question to resume it, or use another file");
    }
    // Vectors of another embeddings model are no use: drop them.
    if (!options.embeddings_url.empty() && loaded->has_embeddings_model &&
        loaded->embeddings_model != options.embeddings_model) {
      if (Status s = d.ClearEmbeddings(); !s.ok()) return s;
      if (Status s = d.SetMeta("embeddings_model", options.embeddings_model); !s.ok()) return s;
      for (StoredEvidence& e : loaded->evidence) e.vector.clear();
    }
    return loaded;
  }();
  if (!contents.ok()) {
    d.Rollback();
    return contents.status();
  }
  if (Status s = d.Commit(); !s.ok()) return s;
  if (Status s = d.EnableWal(); !s.ok()) return s;

  impl->query = contents->query;
  if (!options.embeddings_url.empty()) {
    impl->embedder.emplace(EmbeddingsClientOptions{.base_url = options.embeddings_url,
                                                   .model = options.embeddings_model,
                                                   .api_key = options.api_key,
                                                   .transport = options.transport,
                                                   .timeout = options.embeddings_timeout});
  }
  impl->options = std::move(options);
  for (StoredEvidence& row : contents->evidence) {
    Entry entry = MakeEntry(row.key, std::move(row.evidence));
    entry.stored.seq = row.seq;
    entry.stored.vector = std::move(row.vector);
    impl->entries.push_back(std::move(entry));
  }
  Impl::Index(impl->entries, impl->by_key, impl->by_id);
  impl->hypotheses = std::move(contents->hypotheses);
  impl->conflicts = std::move(contents->conflicts);
  impl->iteration = contents->iteration;
  return ResearchMemory(std::move(impl));
}

const std::string& ResearchMemory::query() const { return impl_->query; }
const std::string& ResearchMemory::path() const { return impl_->path; }

Result<StoreReport> ResearchMemory::Store(std::vector<Evidence> items, const CancellationToken& cancel,
                                          Deadline deadline) {
  return impl_->Store(std::move(items), cancel, deadline);
}

Result<std::vector<std::string>> ResearchMemory::StoreEvidence(std::vector<Evidence> items,
                                                               const CancellationToken& cancel) {
  Result<StoreReport> report = impl_->Store(std::move(items), cancel, Deadline::Never());
  if (!report.ok()) return report.status();
  return std::move(report->new_keys);
}

std::vector<Evidence> ResearchMemory::GetAllEvidence() const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  std::vector<Evidence> out;
  out.reserve(impl_->entries.size());
  for (const Entry& e : impl_->entries) out.push_back(e.stored.evidence);
  return out;
}

std::vector<std::string> ResearchMemory::EvidenceKeys() const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  std::vector<std::string> out;
  for (const Entry& e : impl_->entries) out.push_back(e.stored.key);
  return out;
}

size_t ResearchMemory::evidence_count() const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  return impl_->entries.size();
}

std::optional<Evidence> ResearchMemory::FindEvidence(std::string_view key_or_id) const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  std::optional<size_t> i = impl_->Find(key_or_id);
  if (!i) return std::nullopt;
  return impl_->entries[*i].stored.evidence;
}

std::optional<int> ResearchMemory::ReferenceNumber(std::string_view key_or_id) const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  std::optional<size_t> i = impl_->Find(key_or_id);
  if (!i) return std::nullopt;
  return static_cast<int>(*i) + 1;
}

EvidenceRanking ResearchMemory::RankEvidence(std::string_view query, size_t n, const CancellationToken& cancel) {
  return impl_->Rank(query, n, cancel);
}

std::vector<Evidence> ResearchMemory::GetRelevantEvidence(size_t n, const CancellationToken& cancel) {
  std::vector<Evidence> out;
  for (ScoredEvidence& s : impl_->Rank(impl_->query, n, cancel).items) out.push_back(std::move(s.evidence));
  return out;
}

Status ResearchMemory::AddHypothesis(Hypothesis h) {
  if (!std::isfinite(h.confidence) || h.confidence < 0 || h.confidence > 1) {
    return Status::InvalidArgument("hypothesis confidence must be between 0 and 1, got " + Fixed(h.confidence, 3));
  }
  if (IsBlank(h.statement) && IsBlank(h.drug)) {
    return Status::InvalidArgument("a hypothesis needs a statement or at least a drug");
  }
  std::lock_guard<std::mutex> write(impl_->write_mu);
  Result<std::vector<std::string>> keys = impl_->ResolveRefs(h.evidence, "the hypothesis");
  if (!keys.ok()) return keys.status();
  h.evidence = std::move(*keys);
  if (Status s = impl_->db->Begin(); !s.ok()) return s;
  Status s = impl_->db->InsertHypothesis(h);
  if (s.ok()) s = impl_->db->Commit();
  if (!s.ok()) {
    impl_->db->Rollback();
    return s;
  }
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  impl_->hypotheses.push_back(std::move(h));
  return Status::OK();
}

std::vector<Hypothesis> ResearchMemory::GetHypotheses() const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  return impl_->hypotheses;
}

std::vector<Hypothesis> ResearchMemory::GetConfirmedHypotheses() const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  std::vector<Hypothesis> out;
  for (const Hypothesis& h : impl_->hypotheses) {
    if (h.confidence > impl_->options.confirmed_threshold) out.push_back(h);
  }
  return out;
}

Status ResearchMemory::AddConflict(Conflict c) {
  if (IsBlank(c.description)) return Status::InvalidArgument("a conflict needs a description of what disagrees");
  std::lock_guard<std::mutex> write(impl_->write_mu);
  Result<std::vector<std::string>> keys = impl_->ResolveRefs(c.evidence, "the conflict");
  if (!keys.ok()) return keys.status();
  c.evidence = std::move(*keys);
  if (Status s = impl_->db->Begin(); !s.ok()) return s;
  Status s = impl_->db->InsertConflict(c);
  if (s.ok()) s = impl_->db->Commit();
  if (!s.ok()) {
    impl_->db->Rollback();
    return s;
  }
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  impl_->conflicts.push_back(std::move(c));
  return Status::OK();
}

std::vector<Conflict> ResearchMemory::GetConflicts() const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  return impl_->conflicts;
}

int ResearchMemory::iteration_count() const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  return impl_->iteration;
}

Result<int> ResearchMemory::IncrementIteration() {
  std::lock_guard<std::mutex> write(impl_->write_mu);
  const int next = impl_->iteration + 1;
  if (Status s = impl_->db->Begin(); !s.ok()) return s;
  Status s = impl_->db->SetMeta("iteration", std::to_string(next));
  if (s.ok()) s = impl_->db->Commit();
  if (!s.ok()) {
    impl_->db->Rollback();
    return s;
  }
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  impl_->iteration = next;
  return next;
}

// ---- Summaries ------------------------------------------------------------------

// ---- Snapshot and restore (a research run's checkpoint) -----------------------

namespace {

Json HypothesisJson(const Hypothesis& h) {
  return {{"drug", h.drug}, {"target", h.target}, {"pathway", h.pathway}, {"effect", h.effect},
          {"confidence", h.confidence}, {"statement", h.statement}, {"evidence", h.evidence}};
}

std::vector<std::string> Strings(const Json& j, const char* key) {
  std::vector<std::string> out;
  if (const auto it = j.find(key); it != j.end() && it->is_array()) {
    for (const Json& v : *it) {
      if (v.is_string()) out.push_back(v.get<std::string>());
    }
  }
  return out;
}

}  // namespace

Json ResearchMemory::Snapshot() const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  Json evidence = Json::array();
  for (const Entry& e : impl_->entries) {
    evidence.push_back({{"key", e.stored.key}, {"evidence", EvidenceToJson(e.stored.evidence)}});
  }
  Json hypotheses = Json::array();
  for (const Hypothesis& h : impl_->hypotheses) hypotheses.push_back(HypothesisJson(h));
  Json conflicts = Json::array();
  for (const Conflict& c : impl_->conflicts) {
    conflicts.push_back({{"description", c.description}, {"evidence", c.evidence}, {"resolution", c.resolution}});
  }
  return {{"query", impl_->query},
          {"iteration", impl_->iteration},
          {"evidence", std::move(evidence)},
          {"hypotheses", std::move(hypotheses)},
          {"conflicts", std::move(conflicts)}};
}

Status ResearchMemory::Restore(const Json& snapshot) {
  auto bad = [](const std::string& what) {
    return Status::InvalidArgument("research memory snapshot: " + what);
  };
  if (!snapshot.is_object()) return bad("not an object");
  if (StringOr(snapshot, "query") != impl_->query) {
    return bad("it is of another question ('" + Preview(StringOr(snapshot, "query"), 80) + "')");
  }
  // Everything read before anything is written.
  std::vector<std::pair<std::string, Evidence>> records;
  for (const Json& row : snapshot.value("evidence", Json::array())) {
    const std::string key = row.is_object() ? StringOr(row, "key") : "";
    Result<Evidence> e = row.is_object() ? EvidenceFromJson(row.value("evidence", Json())) : bad("a record");
    if (key.empty() || !e.ok()) return bad("record " + std::to_string(records.size() + 1) + " is not one");
    records.emplace_back(key, std::move(*e));
  }
  std::vector<Hypothesis> hypotheses;
  for (const Json& h : snapshot.value("hypotheses", Json::array())) {
    if (!h.is_object()) return bad("a hypothesis is not an object");
    hypotheses.push_back({.drug = StringOr(h, "drug"), .target = StringOr(h, "target"),
                          .pathway = StringOr(h, "pathway"), .effect = StringOr(h, "effect"),
                          .confidence = h.value("confidence", 0.0), .statement = StringOr(h, "statement"),
                          .evidence = Strings(h, "evidence")});
  }
  std::vector<Conflict> conflicts;
  for (const Json& c : snapshot.value("conflicts", Json::array())) {
    if (!c.is_object()) return bad("a conflict is not an object");
    conflicts.push_back({.description = StringOr(c, "description"), .evidence = Strings(c, "evidence"),
                         .resolution = StringOr(c, "resolution")});
  }
  const int iteration = static_cast<int>(IntegerOr(snapshot, "iteration", 0));

  std::lock_guard<std::mutex> write(impl_->write_mu);
  MemoryDb& d = *impl_->db;
  if (Status s = d.Begin(); !s.ok()) return s;
  std::vector<Entry> entries;
  Status s = d.ClearContents();
  for (auto& [key, evidence] : records) {
    if (!s.ok()) break;
    Entry entry = MakeEntry(key, std::move(evidence));
    Result<int64_t> seq = d.InsertEvidence(entry.stored.key, entry.stored.evidence, {});
    if (!seq.ok()) s = seq.status();
    entry.stored.seq = seq.ok() ? *seq : 0;
    entries.push_back(std::move(entry));
  }
  for (const Hypothesis& h : hypotheses) {
    if (s.ok()) s = d.InsertHypothesis(h);
  }
  for (const Conflict& c : conflicts) {
    if (s.ok()) s = d.InsertConflict(c);
  }
  if (s.ok()) s = d.SetMeta("iteration", std::to_string(iteration));
  if (s.ok()) s = d.Commit();
  if (!s.ok()) {
    d.Rollback();
    return s;
  }
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  impl_->entries = std::move(entries);
  Impl::Index(impl_->entries, impl_->by_key, impl_->by_id);
  impl_->hypotheses = std::move(hypotheses);
  impl_->conflicts = std::move(conflicts);
  impl_->iteration = iteration;
  return Status::OK();
}

std::string ResearchMemory::GetContextSummary(const CancellationToken& cancel) {
  const EvidenceRanking top = impl_->Rank(impl_->query, impl_->options.summary_evidence, cancel);
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  const Impl& m = *impl_;
  std::string out = "## Research memory\n\n";
  out += "**Question:** " + OneLine(m.query, 500) + "\n";
  out += "**Iteration:** " + std::to_string(m.iteration) + "\n";
  std::map<std::string, int> by_source;
  for (const Entry& e : m.entries) ++by_source[EvidenceSourceName(e.stored.evidence.source)];
  out += "**Evidence:** " + std::to_string(m.entries.size()) + (m.entries.size() == 1 ? " record" : " records");
  std::vector<std::string> counts;
  for (const auto& [source, count] : by_source) counts.push_back(source + " " + std::to_string(count));
  if (!counts.empty()) out += " (" + Join(counts, ", ") + ")";
  out += "\n";

  if (!top.items.empty()) {
    out += "\n### Most relevant evidence (" + top.similarity + " similarity to the question)\n\n";
    for (size_t i = 0; i < top.items.size(); ++i) {
      const Evidence& e = top.items[i].evidence;
      std::vector<std::string> facts;
      if (!IsBlank(e.id)) facts.push_back(Trim(e.id));
      if (e.year > 0) facts.push_back(std::to_string(e.year));
      facts.push_back(EvidenceSourceName(e.source));
      if (!IsBlank(e.type)) facts.push_back(Trim(e.type));
      if (!e.peer_reviewed) facts.push_back("not peer-reviewed");
      out += std::to_string(i + 1) + ". [" + std::to_string(top.items[i].reference) + "] " +
             OneLine(IsBlank(e.title) ? std::string("(untitled)") : e.title, 200) + " (" + Join(facts, "; ") + ")";
      if (!IsBlank(e.abstract)) out += " — " + OneLine(e.abstract, 300);
      out += "\n";
    }
  }

  // "[n]" for each cited key, in the memory's numbering.
  auto refs = [&m](const std::vector<std::string>& keys) {
    std::vector<std::string> numbers;
    for (const std::string& k : keys) {
      if (auto i = m.by_key.find(k); i != m.by_key.end()) numbers.push_back("[" + std::to_string(i->second + 1) + "]");
    }
    return numbers.empty() ? std::string() : " " + Join(numbers, "");
  };
  size_t confirmed = 0;
  for (const Hypothesis& h : m.hypotheses) confirmed += h.confidence > m.options.confirmed_threshold ? 1 : 0;
  out += "\n### Hypotheses (" + std::to_string(m.hypotheses.size()) + ", " + std::to_string(confirmed) +
         " confirmed with confidence > " + Fixed(m.options.confirmed_threshold, 1) + ")\n\n";
  if (m.hypotheses.empty()) out += "None yet.\n";
  for (const Hypothesis& h : m.hypotheses) {
    std::vector<std::string> chain;
    for (const std::string* part : {&h.drug, &h.target, &h.pathway, &h.effect}) {
      if (!IsBlank(*part)) chain.push_back(OneLine(*part, 120));
    }
    out += "- ";
    if (h.confidence > m.options.confirmed_threshold) out += "**confirmed** ";
    out += Join(chain, " → ") + " (confidence " + Fixed(h.confidence, 2) + ")";
    if (!IsBlank(h.statement)) out += ": " + OneLine(h.statement, 400);
    out += refs(h.evidence) + "\n";
  }
  out += "\n### Conflicts (" + std::to_string(m.conflicts.size()) + ")\n\n";
  if (m.conflicts.empty()) out += "None recorded.\n";
  for (const Conflict& c : m.conflicts) {
    out += "- " + OneLine(c.description, 400) + refs(c.evidence) + " — " +
           (IsBlank(c.resolution) ? std::string("open") : "resolved: " + OneLine(c.resolution, 300)) + "\n";
  }
  return out;
}

std::string ResearchMemory::Bibliography() const {
  std::lock_guard<std::mutex> lock(impl_->state_mu);
  std::string out;
  for (size_t i = 0; i < impl_->entries.size(); ++i) {
    const Evidence& e = impl_->entries[i].stored.evidence;
    std::string citation = OneLine(IsBlank(e.citation) ? BuiltCitation(e) : e.citation, 1000);
    while (!citation.empty() && citation.back() == '.') citation.pop_back();
    out += "[" + std::to_string(i + 1) + "] " + citation + ".";
    if (!IsBlank(e.url)) out += " " + Trim(e.url);
    out += "\n";
  }
  return out;
}

}  // namespace medreact
