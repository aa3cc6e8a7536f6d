// Server-Sent Events framing, shared by every streaming provider (the
// OpenAI-compatible client's chunks, Anthropic's typed events next).
//
// The body is lines ending in "\n" or "\r\n"; an event is a run of lines ended
// by a blank line; its "data:" lines (one optional space after the colon) are
// joined with "\n", and its "event:" line names it. Comment lines
// (":keep-alive") and other fields ("id:", "retry:") are ignored. Bytes may
// arrive split anywhere, even inside "\r\n": the decoder keeps the partial
// line. An event with no data line is not dispatched.
#ifndef MEDREACT_LLM_SSE_H_
#define MEDREACT_LLM_SSE_H_

#include <functional>
#include <string>
#include <string_view>

namespace medreact {

struct SseEvent {
  std::string name;   // the "event:" field; "" when absent (the default "message")
  std::string data;   // data lines joined with "\n"
  bool at_end = false;  // dispatched by Finish(): the stream ended without the closing blank line
};

class SseDecoder {
 public:
  // Returns false to stop decoding (the handler found an error or is done).
  using Handler = std::function<bool(SseEvent&& event)>;

  // Feeds bytes; dispatches every complete event. False when the handler
  // stopped; later calls then do nothing and return false.
  bool Feed(std::string_view bytes, const Handler& on_event);
  // End of stream: the last line without its newline and an event without
  // its blank line are dispatched (with at_end set). False when the handler stopped.
  bool Finish(const Handler& on_event);
  // An event has begun (data seen) but not been dispatched.
  bool has_pending() const { return has_data_ || !partial_line_.empty(); }

 private:
  bool Line(std::string_view line, const Handler& on_event);
  bool Dispatch(bool at_end, const Handler& on_event);

  std::string partial_line_;
  std::string name_;
  std::string data_;
  bool has_data_ = false;
  bool stopped_ = false;
};

// The answer to a streamed request may be one JSON body instead of events: a
// server that ignores "stream": true, or an error answer (4xx/5xx). This
// keeps the bytes while they still look like one JSON object (the first
// byte that is not blank is '{') and lets them go at the first sign of a
// stream, so a long stream is never held twice.
class JsonBodySniffer {
 public:
  // Feeds bytes; whether the body may still be one JSON object.
  bool Feed(std::string_view bytes);
  bool maybe_json() const { return maybe_json_; }
  // The bytes so far while maybe_json(); "" after.
  const std::string& body() const { return body_; }

 private:
  std::string body_;
  bool maybe_json_ = true;
};

}  // namespace medreact

#endif  // MEDREACT_LLM_SSE_H_
