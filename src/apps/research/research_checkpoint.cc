// ResearchRun (research_run.h): what a round needs to go on, as a checkpoint
// (ResearchConfig::on_checkpoint), and back.
#include "apps/research/research_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <utility>

#include "apps/common/app_runner.h"
#include "apps/common/planner_support.h"
#include "apps/research/research_planner.h"
#include "apps/research/research_prompts.h"
#include "apps/research/research_report.h"
#include "apps/research/research_search_tools.h"
#include "core/text_util.h"
#include "core/time_util.h"
#include "medreact/graph.h"
#include "medreact/run_state.h"
#include "medreact/tool.h"

namespace medreact {

Json ResearchRun::Checkpoint(const Json& graph_state, const std::string& next, int steps) const {
  Json runs = Json::array();  // without their traces: the run store's steps keep them
  for (const Json& r : agent_runs_) {
    Json copy = r;
    copy.erase("trace");
    runs.push_back(std::move(copy));
  }
  const double elapsed = elapsed_before_ms_ + std::chrono::duration<double, std::milli>(
                                                  std::chrono::steady_clock::now() - started_)
                                                  .count();
  Json research = {{"round", round_}, {"last_speaker", last_speaker_}, {"instruction", instruction_},
                   {"searches", searches_}, {"last_search_new", last_search_new_},
                   {"judgement", judgement_fields_}, {"judgement_error", judgement_error_},
                   {"pending_queries", pending_queries_}, {"hypothesis_ran", hypothesis_ran_},
                   {"report", report_fields_}, {"search_calls", search_calls_},
                   {"failed_searches", FailedSearchesJson()}, {"stall_count", stall_count_},
                   {"replans", replans_}, {"history", history_}, {"ledgers", ledgers_}, {"agent_runs", runs},
                   {"stop_reason", stop_reason_}, {"stop_text", stop_text_}, {"answered_once", answered_once_},
                   {"usage", ToJson(out_.usage)}, {"errors", out_.errors}, {"elapsed_ms", elapsed}};
  // A search turn that waits for approval runs again (goes on) first.
  if (paused_search_) research["pending_search"] = ToJson(*paused_search_);
  return {{"version", kResearchCheckpointVersion},
          {"planner", planner_},
          {"model_failure", model_failure_},
          {"graph",
           {{"state", graph_state},
            {"next", paused_search_ ? "search" : next},
            {"steps", paused_search_ ? steps - 1 : steps}}},
          {"research", std::move(research)},
          {"memory", memory_->Snapshot()}};
}

Status ResearchRun::RestoreState(const Json& checkpoint) {
  const Json& r = checkpoint.value("research", Json());
  if (!r.is_object()) return Status::InvalidArgument("no research state");
  auto strings = [](const Json& j) {
    std::vector<std::string> out;
    if (j.is_array()) {
      for (const Json& v : j) {
        if (v.is_string()) out.push_back(v.get<std::string>());
      }
    }
    return out;
  };
  auto integer = [&r](const char* key) { return static_cast<int>(IntegerOr(r, key, 0)); };
  round_ = integer("round");
  out_.rounds = round_;
  last_speaker_ = StringOr(r, "last_speaker");
  instruction_ = StringOr(r, "instruction");
  searches_ = integer("searches");
  last_search_new_ = integer("last_search_new");
  judgement_fields_ = r.value("judgement", Json());
  if (!judgement_fields_.is_null()) {
    Result<JudgeAssessment> j = ReadJudgement(judgement_fields_);
    if (!j.ok()) return j.status().WithContext("the judgement");
    judgement_ = *j;
  }
  judgement_error_ = BoolOr(r, "judgement_error", false);
  pending_queries_ = strings(r.value("pending_queries", Json()));
  hypothesis_ran_ = BoolOr(r, "hypothesis_ran", false);
  report_fields_ = r.value("report", Json());
  if (!report_fields_.is_null()) {
    Result<ResearchReport> rep = ReadReport(report_fields_);
    if (!rep.ok()) return rep.status().WithContext("the report");
    report_ = *rep;
  }
  search_calls_ = integer("search_calls");
  for (const Json& f : r.value("failed_searches", Json::array())) {
    failed_searches_.push_back({.round = static_cast<int>(IntegerOr(f, "round", 0)), .tool = StringOr(f, "tool"),
                                .source = StringOr(f, "source"), .query = StringOr(f, "query"),
                                .error = StringOr(f, "error")});
  }
  stall_count_ = integer("stall_count");
  replans_ = integer("replans");
  history_ = r.value("history", Json::array());
  ledgers_ = r.value("ledgers", Json::array());
  agent_runs_ = r.value("agent_runs", Json::array());
  stop_reason_ = StringOr(r, "stop_reason");
  stop_text_ = StringOr(r, "stop_text");
  answered_once_ = BoolOr(r, "answered_once", false);
  const Json& usage = r.value("usage", Json::object());
  out_.usage = Usage{.prompt_tokens = IntegerOr(usage, "prompt_tokens", 0),
                     .completion_tokens = IntegerOr(usage, "completion_tokens", 0),
                     .total_tokens = IntegerOr(usage, "total_tokens", 0)};
  out_.errors = strings(r.value("errors", Json()));
  elapsed_before_ms_ = r.value("elapsed_ms", 0.0);
  pending_search_ = r.value("pending_search", Json());
  return Status::OK();
}

}  // namespace medreact
