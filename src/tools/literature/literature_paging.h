// The paging loop the token-paged literature APIs share (ClinicalTrials.gov's
// nextPageToken, Europe PMC's cursorMark): fetch pages until enough records,
// the last page (no next token), an empty page, a token seen before (a server
// that loops) or kMaxLiteraturePages. At most `max_results` records are kept,
// whatever a page holds; a note counts the ones left out.
#ifndef MEDREACT_TOOLS_LITERATURE_LITERATURE_PAGING_H_
#define MEDREACT_TOOLS_LITERATURE_LITERATURE_PAGING_H_

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "medreact/status.h"
#include "medreact/tool.h"
#include "tools/literature/literature_fetch.h"

namespace medreact {

inline constexpr int kMaxLiteraturePages = 10;

// `url(wanted, token)` is the page's URL asking for `wanted` more records;
// `parse` reads a body into a Page whose `evidence` is its records, `*total`
// the server's count (taken from the first page) and `*next` the next token.
// `first_token` starts the walk. Every page goes through fetcher.Get (cache,
// retries) under the name `what`; the first failure is returned.
template <class Page>
Result<LiteratureResults> FetchPages(const LiteratureFetcher& fetcher, const ToolContext& ctx, const char* what,
                                     int max_results, std::string first_token,
                                     const std::function<std::string(int wanted, const std::string& token)>& url,
                                     Result<Page> (*parse)(std::string_view), int64_t Page::*total,
                                     std::string Page::*next) {
  LiteratureResults results{.from_cache = true};
  std::string token = std::move(first_token);
  std::set<std::string> seen = {token};
  size_t beyond = 0;  // records a page held past max_results (a server that ignores the page size)
  for (int page_number = 0; page_number < kMaxLiteraturePages; ++page_number) {
    const int wanted = max_results - static_cast<int>(results.evidence.size());
    Page page;
    Result<LiteratureResponse> fetched =
        fetcher.Get({.url = url(wanted, token), .what = what}, ctx, [&page, parse](const CachedResponse& r) -> Status {
          Result<Page> parsed = parse(r.body);
          if (!parsed.ok()) return parsed.status();
          page = std::move(*parsed);
          return Status::OK();
        });
    if (!fetched.ok()) return fetched.status();
    results.from_cache = results.from_cache && fetched->from_cache;
    if (page_number == 0) results.total = page.*total;
    for (Evidence& e : page.evidence) {
      if (static_cast<int>(results.evidence.size()) < max_results) {
        results.evidence.push_back(std::move(e));
      } else {
        ++beyond;
      }
    }
    if (static_cast<int>(results.evidence.size()) >= max_results || (page.*next).empty() || page.evidence.empty() ||
        !seen.insert(page.*next).second) {
      break;
    }
    token = page.*next;
  }
  if (beyond > 0) {
    results.notes.push_back("the server returned " + std::to_string(beyond) + " record(s) beyond the " +
                            std::to_string(max_results) + " asked for; left out");
  }
  return results;
}

}  // namespace medreact

#endif  // MEDREACT_TOOLS_LITERATURE_LITERATURE_PAGING_H_
