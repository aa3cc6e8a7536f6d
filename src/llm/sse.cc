#include "llm/sse.h"

#include <utility>

namespace medreact {

bool SseDecoder::Feed(std::string_view bytes, const Handler& on_event) {
  while (!bytes.empty() && !stopped_) {
    const size_t newline = bytes.find('\n');
    if (newline == std::string_view::npos) {
      partial_line_.append(bytes);
      return true;
    }
    if (partial_line_.empty()) {
      if (!Line(bytes.substr(0, newline), on_event)) stopped_ = true;
    } else {
      partial_line_.append(bytes.substr(0, newline));
      std::string line = std::move(partial_line_);
      partial_line_.clear();
      if (!Line(line, on_event)) stopped_ = true;
    }
    bytes.remove_prefix(newline + 1);
  }
  return !stopped_;
}

bool SseDecoder::Finish(const Handler& on_event) {
  if (stopped_) return false;
  if (!partial_line_.empty()) {
    std::string line = std::move(partial_line_);
    partial_line_.clear();
    if (!Line(line, on_event)) return !(stopped_ = true);
  }
  if (has_data_ && !Dispatch(/*at_end=*/true, on_event)) stopped_ = true;
  return !stopped_;
}

bool SseDecoder::Line(std::string_view line, const Handler& on_event) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty()) return Dispatch(/*at_end=*/false, on_event);
  if (line.front() == ':') return true;  // comment / keep-alive
  const size_t colon = line.find(':');
  const std::string_view field = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field == "event") {
    name_.assign(value);
  } else if (field == "data") {
    if (has_data_) data_ += '\n';
    data_.append(value);
    has_data_ = true;
  }
  return true;  // id:, retry: and unknown fields
}

bool SseDecoder::Dispatch(bool at_end, const Handler& on_event) {
  if (!has_data_) {
    name_.clear();
    return true;
  }
  SseEvent event{std::move(name_), std::move(data_), at_end};
  name_.clear();
  data_.clear();
  has_data_ = false;
  return on_event(std::move(event));
}

bool JsonBodySniffer::Feed(std::string_view bytes) {
  if (!maybe_json_) return false;
  body_.append(bytes);
  const size_t first = body_.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && body_[first] != '{') {
    maybe_json_ = false;
    body_.clear();
    body_.shrink_to_fit();
  }
  return maybe_json_;
}

}  // namespace medreact
