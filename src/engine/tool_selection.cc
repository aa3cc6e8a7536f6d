#include "engine/tool_selection.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <cmath>
#include <map>
#include <set>

#include "core/text_util.h"
#include "llm/context_fit.h"

namespace medreact {
namespace {

constexpr size_t kFindToolsResults = 5;
constexpr size_t kRecentMessages = 4;       // recent messages read into the query
constexpr size_t kQueryBytesPerMessage = 1500;

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool StopWord(const std::string& w) {
  static const std::set<std::string> kStop = {
      "the", "and", "for", "with", "from", "that", "this", "are", "was", "were", "has", "have", "not", "but",
      "its", "his", "her", "who", "what", "which", "when", "how", "use", "used", "one", "per", "any", "all",
      "you", "your", "can", "may", "into", "than", "then", "there", "their", "also", "each", "given", "get",
      "give", "returns", "return", "value", "values", "tool", "tools", "call", "about", "please", "patient",
      "man", "woman", "year", "old"};
  return kStop.count(w) > 0;
}

// Lower-case ASCII words of two or more characters, not numbers, a plural 's' dropped.
std::vector<std::string> Words(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (cur.size() > 3 && cur.back() == 's' && cur[cur.size() - 2] != 's') cur.pop_back();
    const bool number = std::all_of(cur.begin(), cur.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (cur.size() >= 2 && !number && !StopWord(cur)) out.push_back(cur);
    cur.clear();
  };
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      cur.push_back(static_cast<char>(std::tolower(u)));
    } else {
      flush();
    }
  }
  flush();
  return out;
}

std::vector<std::string> ToolWords(const ToolSpec& spec) {
  std::vector<std::string> words = Words(spec.name);
  for (const std::string& w : Words(spec.description)) words.push_back(w);
  if (spec.parameters.is_object() && spec.parameters.contains("properties") &&
      spec.parameters["properties"].is_object()) {
    for (const auto& [key, value] : spec.parameters["properties"].items()) {
      for (const std::string& w : Words(key)) words.push_back(w);
    }
  }
  return words;
}

// One tool's share, rounded up: a sum of these is never below the estimate
// of the whole list.
int64_t ShortTokens(const ToolSpec& spec) { return EstimateToolTokens({ShortenedToolSpec(spec)}) + 1; }

// The task (the first user message) and the recent messages' text and calls.
std::string QueryText(const std::vector<Message>& messages) {
  std::string q;
  size_t first_user = messages.size();
  for (size_t i = 0; i < messages.size(); ++i) {
    if (messages[i].role == Role::kUser) {
      first_user = i;
      q += messages[i].content + "\n";
      break;
    }
  }
  const size_t from = messages.size() > kRecentMessages ? messages.size() - kRecentMessages : 0;
  for (size_t i = from; i < messages.size(); ++i) {
    if (i == first_user || messages[i].role == Role::kSystem) continue;
    q += messages[i].content.substr(0, kQueryBytesPerMessage) + "\n";
    for (const ToolCall& c : messages[i].tool_calls) q += c.arguments.substr(0, kQueryBytesPerMessage) + "\n";
  }
  return q;
}

}  // namespace

ToolSpec FindToolsSpec() {
  ToolSpec spec;
  spec.name = kFindToolsName;
  spec.description =
      "Search the tools that are not offered now (the context window is too small for all of them). "
      "Give a few words (a measurement, a score, a condition); the best matches are listed with one line "
      "each and offered from your next step on.";
  spec.parameters = Json{{"type", "object"},
                         {"properties", {{"query", {{"type", "string"}, {"description", "what the tool should do"}}}}},
                         {"required", {"query"}}};
  return spec;
}

std::vector<ToolScore> RankTools(const std::vector<ToolSpec>& specs, const std::string& query) {
  std::vector<std::string> terms = Words(query);
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  std::vector<std::map<std::string, int>> tf(specs.size());
  std::vector<size_t> length(specs.size());
  std::map<std::string, int> df;
  double total_length = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    for (const std::string& w : ToolWords(specs[i])) ++tf[i][w];
    length[i] = 0;
    for (const auto& [w, n] : tf[i]) {
      length[i] += static_cast<size_t>(n);
      ++df[w];
    }
    total_length += static_cast<double>(length[i]);
  }
  if (specs.empty() || terms.empty()) return {};
  const double avg = std::max(1.0, total_length / static_cast<double>(specs.size()));
  const double n = static_cast<double>(specs.size());
  constexpr double k1 = 1.2, b = 0.75;
  std::vector<ToolScore> out;
  for (size_t i = 0; i < specs.size(); ++i) {
    ToolScore s{.index = i};
    std::vector<std::pair<double, std::string>> parts;
    for (const std::string& t : terms) {
      auto it = tf[i].find(t);
      if (it == tf[i].end()) continue;
      const double d = df[t];
      const double idf = std::log(1.0 + (n - d + 0.5) / (d + 0.5));
      const double f = it->second;
      const double part = idf * f * (k1 + 1) / (f + k1 * (1 - b + b * static_cast<double>(length[i]) / avg));
      s.score += part;
      parts.emplace_back(part, t);
    }
    if (s.score <= 0) continue;
    std::stable_sort(parts.begin(), parts.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    for (size_t k = 0; k < parts.size() && k < 3; ++k) s.terms.push_back(parts[k].second);
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(), [](const ToolScore& x, const ToolScore& y) { return x.score > y.score; });
  return out;
}

int64_t ToolBudget(int64_t window, int64_t reply_tokens, int64_t message_tokens) {
  const int64_t usable = std::max<int64_t>(0, window - reply_tokens);
  return std::max<int64_t>(0, std::min(usable * 2 / 5, usable - message_tokens));
}

std::string ToolSelection::Summary() const {
  std::string s = "tools offered: " + std::to_string(offered.size()) + " of " + std::to_string(total);
  if (all) return s + " (all fit the context window)";
  s += " (they do not all fit the context window; budget " + std::to_string(budget) + " tokens, about " +
       std::to_string(tokens) + " used):";
  for (size_t i = 0; i < offered.size(); ++i) {
    s += (i ? "; " : " ") + offered[i].name + " (" + offered[i].reason + ")";
  }
  if (!problem.empty()) s += ". " + problem;
  return s;
}

ToolSelection SelectTools(const ToolSelectionInput& in) {
  ToolSelection sel;
  const std::vector<ToolSpec>& specs = *in.specs;
  sel.total = specs.size();
  std::vector<int64_t> cost(specs.size());
  int64_t all_tokens = 0;
  for (size_t i = 0; i < specs.size(); ++i) all_tokens += cost[i] = ShortTokens(specs[i]);
  if (in.window <= 0 || specs.empty() || all_tokens + in.message_tokens + in.reply_tokens <= in.window) {
    sel.specs = specs;
    for (const ToolSpec& s : specs) sel.offered.push_back({s.name, "all fit"});
    sel.tokens = all_tokens;
    return sel;
  }
  sel.all = false;
  sel.budget = ToolBudget(in.window, in.reply_tokens, in.message_tokens);
  const ToolSpec find = FindToolsSpec();
  const bool registry_has_find = std::any_of(specs.begin(), specs.end(), [](const ToolSpec& s) {
    return s.name == kFindToolsName;
  });
  sel.tokens = registry_has_find ? 0 : ShortTokens(find);
  std::vector<bool> taken(specs.size(), false);
  auto take = [&](size_t i, std::string reason, bool always) {
    if (taken[i]) return;
    if (!always && sel.tokens + cost[i] > sel.budget) return;
    if (always && sel.tokens + cost[i] > sel.budget && sel.problem.empty()) {
      sel.problem = "'" + specs[i].name + "' (" + reason + ") is offered though the tools then need about " +
                    std::to_string(sel.tokens + cost[i]) + " tokens, more than their budget of " +
                    std::to_string(sel.budget) + " (shortened descriptions)";
    }
    taken[i] = true;
    sel.tokens += cost[i];
    sel.offered.push_back({specs[i].name, std::move(reason)});
  };
  auto index_of = [&](const std::string& name) -> std::optional<size_t> {
    for (size_t i = 0; i < specs.size(); ++i) {
      if (specs[i].name == name) return i;
    }
    return std::nullopt;
  };
  for (size_t i = 0; i < specs.size(); ++i) {
    if (Contains(in.finish_tools, specs[i].name)) take(i, "finishing tool", true);
  }
  for (const std::string& name : in.used) {
    if (auto i = index_of(name)) take(*i, "already used", true);
  }
  for (const std::string& name : in.requested) {
    if (auto i = index_of(name)) take(*i, "asked for by find_tools", false);
  }
  int rank = 0;
  for (const ToolScore& s : RankTools(specs, in.query)) {
    ++rank;
    if (taken[s.index]) continue;
    take(s.index, "rank " + std::to_string(rank) + " for '" + Join(s.terms, " ") + "'", false);
  }
  // Registration order for the request (stable across steps), find_tools last.
  for (size_t i = 0; i < specs.size(); ++i) {
    if (taken[i]) sel.specs.push_back(specs[i]);
  }
  if (!registry_has_find) {
    sel.specs.push_back(find);
    sel.offered.push_back({kFindToolsName, "asks for more tools"});
  }
  return sel;
}

// --- ToolOffer ----------------------------------------------------------------

struct ToolOffer::Shared {
  std::mutex mu;
  std::vector<ToolSpec> specs;            // the agent's tools
  std::vector<std::string> requested;     // newest find_tools results first
  std::vector<std::string> last_offered;  // the last request's tools

  Json Find(const std::string& query) {
    std::lock_guard<std::mutex> lock(mu);
    Json found = Json::array();
    std::vector<std::string> names;
    for (const ToolScore& s : RankTools(specs, query)) {
      const ToolSpec& spec = specs[s.index];
      if (Contains(last_offered, spec.name)) continue;
      found.push_back(Json{{"name", spec.name}, {"description", ShortenedToolSpec(spec).description}});
      names.push_back(spec.name);
      if (names.size() == kFindToolsResults) break;
    }
    for (const std::string& r : requested) {
      if (!Contains(names, r)) names.push_back(r);
    }
    requested = std::move(names);
    Json out{{"query", query}, {"tools", found}};
    out["note"] = found.empty() ? "no tool that is not already offered matches; try other words (a measurement, a "
                                  "score or a condition)"
                                : "these tools are offered from your next step on";
    return out;
  }
};

namespace {

// A tool of the agent's registry, run through it (validation included).
class RegistryTool : public Tool {
 public:
  RegistryTool(std::shared_ptr<const ToolRegistry> registry, ToolSpec spec)
      : registry_(std::move(registry)), spec_(std::move(spec)) {}
  const ToolSpec& spec() const override { return spec_; }
  ToolResult Run(const Json& args, const ToolContext& ctx) override {
    return registry_->Execute(ToolCall{.id = "", .name = spec_.name, .arguments = DumpJson(args)}, ctx);
  }

 private:
  std::shared_ptr<const ToolRegistry> registry_;
  ToolSpec spec_;
};

}  // namespace

ToolOffer::ToolOffer(std::shared_ptr<const ToolRegistry> tools, std::vector<std::string> finish_tools)
    : tools_(std::move(tools)), finish_tools_(std::move(finish_tools)), shared_(std::make_shared<Shared>()) {}

ToolSelection ToolOffer::Select(const std::vector<Message>& messages, int64_t window, int64_t reply_tokens) {
  if (shared_->specs.empty()) {  // first partial-window request: nothing else reads them yet
    std::lock_guard<std::mutex> lock(shared_->mu);
    shared_->specs = tools_->Specs();
  }
  for (const Message& m : messages) {
    for (const ToolCall& c : m.tool_calls) {
      if (c.name != kFindToolsName && tools_->Find(c.name) && !Contains(used_, c.name)) used_.push_back(c.name);
    }
  }
  ToolSelectionInput in{.specs = &shared_->specs, .finish_tools = finish_tools_, .used = used_,
                        .query = QueryText(messages), .window = window,
                        .message_tokens = EstimateMessageTokens(messages), .reply_tokens = reply_tokens};
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    in.requested = shared_->requested;
  }
  ToolSelection sel = SelectTools(in);
  std::lock_guard<std::mutex> lock(shared_->mu);
  shared_->last_offered.clear();
  for (const OfferedTool& t : sel.offered) shared_->last_offered.push_back(t.name);
  if (!sel.all && !extended_ && !tools_->Find(kFindToolsName)) {
    auto registry = std::make_shared<ToolRegistry>();
    for (const ToolSpec& spec : shared_->specs) {
      (void)registry->Register(std::make_unique<RegistryTool>(tools_, spec));  // valid: registered once already
    }
    std::shared_ptr<Shared> shared = shared_;
    (void)registry->Register(MakeFunctionTool(FindToolsSpec(), [shared](const Json& args, const ToolContext&) {
      return ToolResult::OkJson(shared->Find(StringOr(args, "query", "")));
    }));
    extended_ = std::move(registry);
  }
  return sel;
}

std::shared_ptr<const ToolRegistry> ToolOffer::registry() const { return extended_ ? extended_ : tools_; }

Json ToolOffer::FindTools(const std::string& query) { return shared_->Find(query); }

}  // namespace medreact
