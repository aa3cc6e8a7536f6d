// The research app tests' peers: a fake HTTP transport answering the
// literature clients from the recorded responses (tests/fixtures/literature)
// in process, and a model that plays scripted replies per agent (chosen by
// the run's finishing tool) and the rules planner for the rest.
#ifndef MEDREACT_TESTS_TESTING_RESEARCH_FIXTURE_H_
#define MEDREACT_TESTS_TESTING_RESEARCH_FIXTURE_H_

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "apps/research/research_app.h"
#include "apps/research/research_planner.h"
#include "medreact/http.h"
#include "testing/literature_server.h"

namespace medreact::testing {

inline constexpr char kResearchQuestion[] = "What is the evidence for Keytruda in cancer?";

// Every search: ClinicalTrials.gov → the keytruda page; PubMed → PMID
// 27797938; Europe PMC preprints → the hand-made page.
class FixtureTransport : public HttpTransport {
 public:
  Result<HttpResponse> Send(const HttpRequest& request, const HttpChunkHandler&, const CancellationToken&) override {
    HttpResponse r;
    r.status = 200;
    r.headers = {{"content-type", "application/json"}};
    const std::string& url = request.url;
    if (url.find("esearch.fcgi") != std::string::npos) {
      r.body = R"({"header":{"type":"esearch"},"esearchresult":{"count":"1","idlist":["27797938"]}})";
    } else if (url.find("efetch.fcgi") != std::string::npos) {
      r.headers = {{"content-type", "text/xml"}};
      r.body = LiteratureFixture("ncbi_efetch_pubmed_structured_abstract.xml");
    } else if (url.find("/studies") != std::string::npos) {
      r.body = LiteratureFixture("ctgov_v2_search_keytruda_pagesize3.json");
    } else if (url.find("SRC%3APPR") != std::string::npos) {
      r.body = LiteratureFixture("europepmc_search_preprints_core.handmade.json");
    } else {
      r.status = 404;
      r.body = "{}";
    }
    return r;
  }
};

// Online through FixtureTransport, no cache, no waits, environment ignored.
inline LiteraturePackOptions FixtureLiterature() {
  LiteraturePackOptions o;
  o.client.online = true;
  o.client.use_cache = false;
  o.client.max_retries = 0;
  o.client.transport = std::make_shared<FixtureTransport>();
  o.client.sleep = [](Millis) {};
  o.getenv = [](const char*) -> const char* { return nullptr; };
  return o;
}

inline ResearchConfig FixtureConfig() {
  ResearchConfig c;
  c.literature = FixtureLiterature();
  c.results_per_search = 3;
  return c;
}

// Scripted replies per agent role (the finishing tool's name); the rules
// planner for a role whose script is empty. Every reply reports `usage`.
class RoleModel : public ChatModel {
 public:
  using Reply = std::function<Result<ModelResponse>(const ModelRequest&, const ModelCallContext&)>;

  void Push(const std::string& role, Reply reply) {
    std::lock_guard<std::mutex> lock(mu_);
    scripts_[role].push_back(std::move(reply));
  }
  void PushCall(const std::string& role, const std::string& tool, const Json& args) {
    Push(role, [tool, args](const ModelRequest&, const ModelCallContext&) -> Result<ModelResponse> {
      ModelResponse r;
      static std::atomic<int> next{0};
      r.message = Message::Assistant("", {ToolCall{"s" + std::to_string(++next), tool, DumpJson(args)}});
      return r;
    });
  }
  void PushText(const std::string& role, const std::string& text) {
    Push(role, [text](const ModelRequest&, const ModelCallContext&) -> Result<ModelResponse> {
      ModelResponse r;
      r.message = Message::Assistant(text);
      return r;
    });
  }
  // For a role: this reply whenever its script is empty.
  void SetDefault(const std::string& role, Reply reply) {
    std::lock_guard<std::mutex> lock(mu_);
    defaults_[role] = std::move(reply);
  }
  void set_usage(int64_t tokens) { usage_tokens_ = tokens; }
  // Says it can stream text (ModelCapabilities::streaming); the replies decide what they stream.
  void set_streaming(bool streaming) { streaming_ = streaming; }
  ModelCapabilities capabilities() const override { return {.streaming = streaming_}; }
  int calls(const std::string& role) {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_[role];
  }

  Result<ModelResponse> Complete(const ModelRequest& request, const ModelCallContext& ctx) override {
    const std::string role = request.answer_tool ? request.answer_tool->name : "";
    Reply reply;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++calls_[role];
      auto& q = scripts_[role];
      if (!q.empty()) {
        reply = std::move(q.front());
        q.pop_front();
      } else if (defaults_.count(role)) {
        reply = defaults_[role];
      }
    }
    Result<ModelResponse> r = reply ? reply(request, ctx) : planner_->Complete(request, ctx);
    if (r.ok()) r->usage = Usage{usage_tokens_ / 2, usage_tokens_ - usage_tokens_ / 2, usage_tokens_};
    return r;
  }
  std::string name() const override { return "role-model"; }
  std::string protocol() const override { return "scripted"; }

 private:
  std::mutex mu_;
  std::map<std::string, std::deque<Reply>> scripts_;
  std::map<std::string, Reply> defaults_;
  std::map<std::string, int> calls_;
  std::unique_ptr<ChatModel> planner_ = MakeResearchRulesPlanner();
  int64_t usage_tokens_ = 0;
  bool streaming_ = false;
};

inline Json Ledger(const std::string& next, bool progress = true, bool loop = false) {
  return {{"is_request_satisfied", false}, {"is_in_loop", loop}, {"is_progress_being_made", progress},
          {"next_speaker", next}, {"instruction", "do the " + next + " step"}};
}

}  // namespace medreact::testing

#endif  // MEDREACT_TESTS_TESTING_RESEARCH_FIXTURE_H_
