// RunResearch (research_app.h): a research run (research_run.h), or one
// resumed from its checkpoint, with the model or the rules planner, and its
// result and trace.
#include "apps/research/research_app.h"

#include <map>
#include <memory>
#include <utility>

#include "apps/common/app_runner.h"
#include "apps/research/research_planner.h"
#include "apps/research/research_report.h"
#include "apps/research/research_run.h"
#include "core/text_util.h"

namespace medreact {
namespace {

OrderedJson BuildResult(const std::string& question, const ResearchOutcome& out, const Json& judgement,
                        const ResearchMemory& memory) {
  OrderedJson r;
  r["question"] = question;
  r["report"] = ToJson(out.report);
  r["report_from_agent"] = out.report_from_agent;
  r["stop_reason"] = out.stop_reason;
  if (!out.report_from_agent) r["fallback_reason"] = out.fallback_reason;
  r["rounds"] = out.rounds;
  r["evidence_count"] = out.evidence_count;
  r["judgement"] = OrderedJson::parse(DumpJson(judgement));
  OrderedJson hypotheses = OrderedJson::array();
  for (const Hypothesis& h : memory.GetHypotheses()) {
    hypotheses.push_back({{"drug", h.drug}, {"target", h.target}, {"pathway", h.pathway}, {"effect", h.effect},
                          {"confidence", h.confidence}, {"statement", h.statement}, {"evidence", h.evidence}});
  }
  r["hypotheses"] = std::move(hypotheses);
  // The report's references in its numbering (order of first citation), and
  // every gathered record in the memory's (storage order) with the number it
  // is cited as, if any.
  const std::vector<Evidence> all = memory.GetAllEvidence();
  std::map<int, int> cited_as;  // memory number → report number
  OrderedJson references = OrderedJson::array();
  int k = 0;
  for (const std::vector<int>* list : {&out.reference_numbers, &out.uncited_numbers}) {
    for (int m : *list) {
      cited_as[m] = ++k;
      if (m < 1 || static_cast<size_t>(m) > all.size()) continue;
      const Evidence& e = all[m - 1];
      references.push_back({{"ref", k}, {"memory_ref", m}, {"cited", list == &out.reference_numbers},
                            {"id", e.id}, {"other_ids", e.other_ids}, {"url", e.url}, {"title", e.title},
                            {"type", e.type}, {"source", EvidenceSourceName(e.source)}, {"year", e.year}});
    }
  }
  r["references"] = std::move(references);
  OrderedJson evidence = OrderedJson::array();
  int n = 0;
  for (const Evidence& e : all) {
    ++n;
    auto it = cited_as.find(n);
    const OrderedJson ref = it == cited_as.end() ? OrderedJson(nullptr) : OrderedJson(it->second);
    evidence.push_back({{"memory_ref", n}, {"ref", ref}, {"id", e.id}, {"url", e.url}, {"title", e.title},
                        {"type", e.type}, {"source", EvidenceSourceName(e.source)}, {"year", e.year}});
  }
  r["evidence"] = std::move(evidence);
  OrderedJson failed = OrderedJson::array();
  for (const FailedSearch& f : out.failed_searches) {
    failed.push_back({{"round", f.round}, {"tool", f.tool}, {"source", f.source}, {"query", f.query},
                      {"error", f.error}});
  }
  r["failed_searches"] = std::move(failed);
  r["planner"] = out.planner;
  if (out.fell_back) r["model_failure"] = out.model_failure;
  r["usage"] = OrderedJson::parse(DumpJson(ToJson(out.usage)));
  r["errors"] = out.errors;
  return r;
}

}  // namespace

ResearchOutcome RunResearch(const std::string& question, const ResearchConfig& config) {
  ResearchOutcome out;
  Result<ResearchMemory> opened = ResearchMemory::Open(config.memory_path, question, config.memory);
  if (!opened.ok()) {
    out.status = opened.status().WithContext("research memory");
    return out;
  }
  auto memory = std::make_shared<ResearchMemory>(std::move(opened).value());
  std::unique_ptr<ResearchRun> research;
  if (!config.resume_from.is_null()) {
    // A checkpoint: its memory, its planner, its round state; no fallback now.
    const Json& checkpoint = config.resume_from;
    if (!checkpoint.is_object() || IntegerOr(checkpoint, "version", 0) != kResearchCheckpointVersion) {
      out.status = Status::InvalidArgument("research checkpoint: not one of version " +
                                           std::to_string(kResearchCheckpointVersion));
      return out;
    }
    if (Status s = memory->Restore(checkpoint.value("memory", Json())); !s.ok()) {
      out.status = s.WithContext("research memory");
      return out;
    }
    out.planner = StringOr(checkpoint, "planner", "rules");
    out.fell_back = out.planner == "rules (fallback)";
    out.model_failure = StringOr(checkpoint, "model_failure");
    std::shared_ptr<ChatModel> model = config.model;
    if (out.planner != "model") {
      model = std::shared_ptr<ChatModel>(MakeResearchRulesPlanner());
    } else if (!model) {
      out.status = Status::InvalidArgument("the research ran with a model; resuming it needs one");
      return out;
    }
    const std::string planner = out.planner, failure = out.model_failure;
    research = std::make_unique<ResearchRun>(question, config, memory, out, planner, failure);
    research->Run(std::move(model), /*may_fall_back=*/false, &checkpoint);
    if (!out.status.ok()) return out;
    out.planner = planner;
    out.fell_back = planner == "rules (fallback)";
    out.model_failure = failure;
    if (out.fell_back) {
      out.errors.insert(out.errors.begin(),
                        "the model never answered, the rules planner researched instead: " + failure);
    }
  } else {
    std::string never_answered;
    const FallbackOutcome who = RunWithFallback(
        config.model, [] { return std::shared_ptr<ChatModel>(MakeResearchRulesPlanner()); },
        config.fallback_to_rules, config.cancel, [&](std::shared_ptr<ChatModel> model) -> std::optional<std::string> {
          const bool first = research == nullptr;
          std::vector<ResearchEvent> earlier = std::move(out.events);
          std::vector<std::string> errors = std::move(out.errors);
          out = ResearchOutcome{};
          out.events = std::move(earlier);
          out.errors = std::move(errors);
          const std::string planner = !first ? "rules (fallback)" : config.model ? "model" : "rules";
          research = std::make_unique<ResearchRun>(question, config, memory, out, planner, never_answered);
          std::optional<std::string> why =
              research->Run(std::move(model), first && config.model && config.fallback_to_rules);
          if (why) never_answered = *why;
          return why;
        });
    out.planner = who.planner;
    out.fell_back = who.fell_back;
    out.model_failure = who.model_failure;
    if (who.fell_back) {
      out.errors.insert(out.errors.begin(),
                        "the model never answered, the rules planner researched instead: " + who.model_failure);
    }
  }
  if (!out.status.ok()) return out;
  const Json judgement = research->judgement_json();
  out.result = BuildResult(question, out, judgement, *memory);
  Json events = Json::array();
  for (const ResearchEvent& e : out.events) events.push_back(ToJson(e));
  out.trace = {{"question", question},
               {"planner", out.planner},
               {"stop_reason", out.stop_reason},
               {"report_from_agent", out.report_from_agent},
               {"fallback_reason", out.fallback_reason},
               {"rounds", out.rounds},
               {"usage", ToJson(out.usage)},
               {"errors", out.errors},
               {"events", std::move(events)},
               {"ledgers", research->ledgers()},
               {"agent_runs", research->agent_runs()},
               {"report", ResearchRun::Plain(ToJson(out.report))}};
  return out;
}

}  // namespace medreact
