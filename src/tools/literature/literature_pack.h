// The "literature" tool pack: seed 003's search tools over three public
// sources, and the bibliography of what they found.
//
//   search_pubmed(query, max_results=10)           PubMed (NCBI E-utilities)
//   search_clinical_trials(query, max_results=10,  ClinicalTrials.gov API v2
//                          status?)
//   search_preprints(query, max_results=10)        Europe PMC, preprints only
//                                                  ("(query) AND SRC:PPR")
//   get_bibliography()                             numbered references of every
//                                                  record found so far
//
// A search answers with a compact text a model can read: per record its id,
// year, source, type, title, URL and the first ~300 bytes of the abstract
// (preprints marked "not peer reviewed"; trials with phase and status), then
// the source's notes. No match → "No results found for: <query>". A failed
// source → an error result naming it: "PubMed error: API rate limit exceeded
// (HTTP 200 body) (...)", "ClinicalTrials.gov error: HTTP 503 ...", "Europe
// PMC error: not in the literature cache (offline; use --online) ...". Each
// tool reaches only its own source, so one failing source never stops the
// others (the agent runs a turn's calls concurrently).
//
// Network access is opt-in (literature_fetch.h): offline, the default, the
// tools answer from the literature cache only.
//
// Every record a search returns goes to the pack's own list (for
// get_bibliography: first sighting kept, a record sharing an id or DOI/PMID/
// PMCID with an earlier one left out) and to `on_evidence` when set. The
// tools may run concurrently; the list and the hook are used under one lock,
// so the hook is called once at a time. Registration touches neither the
// disk nor the network: the cache is opened at the first search.
#ifndef MEDREACT_TOOLS_LITERATURE_LITERATURE_PACK_H_
#define MEDREACT_TOOLS_LITERATURE_LITERATURE_PACK_H_

#include <functional>
#include <string>
#include <vector>

#include "medreact/status.h"
#include "medreact/tool_registry.h"
#include "tools/literature/evidence.h"
#include "tools/literature/literature_fetch.h"

namespace medreact {

struct LiteraturePackOptions {
  // The clients' options, resolved at registration (ResolveLiteratureOptions:
  // environment, defaults, explicit URL → online). Default: offline, cache in
  // $XDG_CACHE_HOME/medreact/literature.sqlite
  LiteratureOptions client;
  // Receives the records of every search that found some, in the source's
  // order (the research memory subscribes here). Called from the tool's
  // thread, never two calls at once. Default: none
  std::function<void(const std::vector<Evidence>&)> on_evidence;
  // Environment lookup for the resolution (tests). Default: std::getenv
  std::function<const char*(const char*)> getenv;
};

// Registers the four tools, or none: InvalidArgument for a base URL that is
// not http(s); fails without registering anything when a name is taken.
Status RegisterLiteraturePack(ToolRegistry& registry, LiteraturePackOptions options = {});

// The names RegisterLiteraturePack adds, in registration order.
std::vector<std::string> LiteraturePackToolNames();

// The observation of one search: `source` is "PubMed", "ClinicalTrials.gov"
// or "Europe PMC (preprints)". Exposed for tests.
std::string FormatSearchResults(const std::string& source, const std::string& query, const LiteratureResults& results);

// "1. <citation> <url>" per record, numbered from 1; a line saying nothing was
// gathered yet when empty.
std::string FormatBibliography(const std::vector<Evidence>& evidence);

}  // namespace medreact

#endif  // MEDREACT_TOOLS_LITERATURE_LITERATURE_PACK_H_
