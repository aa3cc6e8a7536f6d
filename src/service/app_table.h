// The app table: one row per app the run service knows, as the pack table
// (tools/packs.h) is for tools. A row says what an app's runs can do in the
// service — whether they can be resumed and from where, whether they can
// wait for a person's approval — and why not when they cannot, so that every
// front end refuses the same things with the same words.
#ifndef MEDREACT_SERVICE_APP_TABLE_H_
#define MEDREACT_SERVICE_APP_TABLE_H_

#include <string>
#include <vector>

#include "medreact/json.h"

namespace medreact::service {

struct AppRow {
  std::string name;     // the run's `app` in the store: "chat", "triage", ...
  std::string summary;  // one line for people
  // Resumable from its last checkpoint (`runs resume`); when not, why.
  bool resumable = false;
  std::string not_resumable_why;
  // Its calls can wait for approval (AgentOptions::needs_approval).
  bool waits_for_approval = false;
  // The JSON Schema of the app's inputs as a front end gives them (the
  // server's `POST /v1/runs {"app", "inputs"}`; service/app_runs.h reads
  // them): an object, its keys snake_case, unknown keys refused. A string
  // with "format": "path" names a file or folder on the server, which must
  // resolve inside the front end's input roots (AppRunContext::input_roots).
  Json inputs_schema = Json::object();
};
// Each app's runs are started and resumed by its part of the service:
// chat by RunService itself, triage and worklists by triage_runs.h, extract
// by extract_runs.h; PrepareResume checks a resume against this table first.

// Every app, in the order `medreact --help` lists them.
const std::vector<AppRow>& AppTable();
// The row of `app`, or nullptr.
const AppRow* FindApp(const std::string& app);

}  // namespace medreact::service

#endif  // MEDREACT_SERVICE_APP_TABLE_H_
