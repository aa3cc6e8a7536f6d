// Conflicting duplicate keys in valid JSON, found by two linear SAX scans
// (nlohmann's callback parse would be quadratic in an array's length).
#include "llm/json_duplicate_keys.h"

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace medreact {
namespace {

// SAX events that do nothing, for the two scans below (nlohmann's SAX parse is
// linear; its callback parse is quadratic in an array's length).
struct NoopSax {
  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(Json::number_integer_t) { return true; }
  bool number_unsigned(Json::number_unsigned_t) { return true; }
  bool number_float(Json::number_float_t, const std::string&) { return true; }
  bool string(std::string&) { return true; }
  bool binary(Json::binary_t&) { return true; }
  bool start_object(size_t) { return true; }
  bool key(std::string&) { return true; }
  bool end_object() { return true; }
  bool start_array(size_t) { return true; }
  bool end_array() { return true; }
  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception&) { return false; }
};

// First scan: the keys each object repeats (objects numbered as they open).
struct RepeatedKeysSax : NoopSax {
  struct Frame {
    size_t object;  // 0 for an array
    std::unordered_set<std::string> keys;
  };
  std::vector<Frame> stack;
  size_t objects = 0;
  std::unordered_map<size_t, std::unordered_set<std::string>> repeated;

  bool start_object(size_t) { stack.push_back(Frame{++objects, {}}); return true; }
  bool start_array(size_t) { stack.push_back(Frame{0, {}}); return true; }
  bool end_object() { stack.pop_back(); return true; }
  bool end_array() { stack.pop_back(); return true; }
  bool key(std::string& k) {
    if (!stack.back().keys.insert(k).second) repeated[stack.back().object].insert(k);
    return true;
  }
};

// Second scan: records the text of each value of a repeated key (as tagged
// tokens) and compares the values one key is given. Key order inside a value
// counts, so two equal objects written in another order are called different:
// a refusal, never a wrong value.
struct ConflictingValuesSax : NoopSax {
  struct Frame {
    size_t object;
    std::string key;
    std::unordered_map<std::string, std::string> seen;
  };
  struct Recorder {
    size_t depth;  // the stack size at the value's start
    std::string key;
    std::string text;
  };
  explicit ConflictingValuesSax(const std::unordered_map<size_t, std::unordered_set<std::string>>* r)
      : repeated(r) {}
  const std::unordered_map<size_t, std::unordered_set<std::string>>* repeated;
  std::vector<Frame> stack;
  std::vector<Recorder> recorders;
  size_t objects = 0;
  bool conflict = false;

  void Emit(char tag, std::string_view token) {
    for (Recorder& r : recorders) {
      r.text += tag;
      r.text += std::to_string(token.size());
      r.text += ':';
      r.text.append(token);
    }
  }
  // Called after a value ends: completes the recorder whose value it was.
  bool ValueEnded() {
    if (!recorders.empty() && recorders.back().depth == stack.size()) {
      Recorder done = std::move(recorders.back());
      recorders.pop_back();
      // try_emplace leaves done.text alone when the key was seen before.
      const auto [it, inserted] = stack.back().seen.try_emplace(done.key, std::move(done.text));
      if (!inserted && it->second != done.text) conflict = true;
    }
    return !conflict;  // stop at the first conflict
  }
  bool null() { Emit('n', ""); return ValueEnded(); }
  bool boolean(bool v) { Emit('b', v ? "1" : "0"); return ValueEnded(); }
  bool number_integer(Json::number_integer_t v) { Emit('i', std::to_string(v)); return ValueEnded(); }
  bool number_unsigned(Json::number_unsigned_t v) { Emit('u', std::to_string(v)); return ValueEnded(); }
  bool number_float(Json::number_float_t, const std::string& text) { Emit('f', text); return ValueEnded(); }
  bool string(std::string& v) { Emit('s', v); return ValueEnded(); }
  bool start_object(size_t) {
    Emit('{', "");
    stack.push_back(Frame{++objects, {}, {}});
    return true;
  }
  bool start_array(size_t) {
    Emit('[', "");
    stack.push_back(Frame{0, {}, {}});
    return true;
  }
  bool end_object() { stack.pop_back(); Emit('}', ""); return ValueEnded(); }
  bool end_array() { stack.pop_back(); Emit(']', ""); return ValueEnded(); }
  bool key(std::string& k) {
    Emit('k', k);
    Frame& top = stack.back();
    top.key = k;
    const auto found = repeated->find(top.object);
    if (found != repeated->end() && found->second.contains(k)) recorders.push_back(Recorder{stack.size(), k, ""});
    return true;
  }
};

}  // namespace

bool HasConflictingKeys(std::string_view text) {
  RepeatedKeysSax keys;
  if (!Json::sax_parse(text.begin(), text.end(), &keys) || keys.repeated.empty()) return false;
  ConflictingValuesSax values(&keys.repeated);
  (void)Json::sax_parse(text.begin(), text.end(), &values);
  return values.conflict;
}

}  // namespace medreact
