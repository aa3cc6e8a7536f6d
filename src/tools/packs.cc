#include "tools/packs.h"

#include "medreact/agent.h"
#include "tools/util/util_pack.h"

namespace medreact {

std::vector<PackInfo> KnownPacks() {
  return {
      {"util", "current_time and a safe calculator; no patient data, no network"},
      {"finish", "final_answer and terminate: explicit end-of-task tools"},
  };
}

std::vector<std::string> SplitPackList(const std::string& list) {
  std::vector<std::string> out;
  std::string item;
  auto flush = [&] {
    size_t b = item.find_first_not_of(" \t");
    size_t e = item.find_last_not_of(" \t");
    if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
    item.clear();
  };
  for (char c : list) {
    if (c == ',') {
      flush();
    } else {
      item += c;
    }
  }
  flush();
  return out;
}

Status RegisterPacks(ToolRegistry& registry, const std::vector<std::string>& packs) {
  for (const auto& pack : packs) {
    Status s;
    if (pack == "util") {
      s = RegisterUtilPack(registry);
    } else if (pack == "finish") {
      s = RegisterFinishTools(registry);
    } else {
      std::string known;
      for (const auto& p : KnownPacks()) known += (known.empty() ? "" : ", ") + p.name;
      return Status::InvalidArgument("unknown tool pack '" + pack + "' (known packs: " + known + ")");
    }
    if (!s.ok()) return s.WithContext("pack '" + pack + "'");
  }
  return Status::OK();
}

}  // namespace medreact
