// Status and Result<T>: errors as values.
//
// Nothing throws across module boundaries in medreact. A function that can fail
// returns a Status (or a Result<T> holding either a value or a non-OK Status).
// Exceptions raised by libraries (nlohmann::json, libcurl wrappers, SQLite) are
// caught at the module edge and turned into a Status with a precise message.
// Both types are cheap to copy and thread-compatible (no shared state).
#ifndef MEDREACT_STATUS_H_
#define MEDREACT_STATUS_H_

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace medreact {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,    // the caller's input is wrong (bad flag, bad schema, bad file)
  kNotFound,           // a named thing does not exist (tool, file, resource)
  kParseError,         // text that should be JSON/SSE/FHIR is not
  kUnavailable,        // a peer could not be reached or answered 5xx; retrying may help
  kTimeout,            // a deadline passed
  kCancelled,          // the caller asked to stop
  kResourceExhausted,  // a budget or a rate limit was hit (HTTP 429 after retries)
  kFailedPrecondition, // the object is in the wrong state for the call
  kPermissionDenied,   // HTTP 401/403, or an opt-in feature that is off
  kInternal,           // a bug or an unexpected exception
};

const char* StatusCodeName(StatusCode code);

class Status {
 public:
  Status() = default;  // OK

  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string msg) { return {StatusCode::kInvalidArgument, std::move(msg)}; }
  static Status NotFound(std::string msg) { return {StatusCode::kNotFound, std::move(msg)}; }
  static Status ParseError(std::string msg) { return {StatusCode::kParseError, std::move(msg)}; }
  static Status Unavailable(std::string msg) { return {StatusCode::kUnavailable, std::move(msg)}; }
  static Status Timeout(std::string msg) { return {StatusCode::kTimeout, std::move(msg)}; }
  static Status Cancelled(std::string msg) { return {StatusCode::kCancelled, std::move(msg)}; }
  static Status ResourceExhausted(std::string msg) { return {StatusCode::kResourceExhausted, std::move(msg)}; }
  static Status FailedPrecondition(std::string msg) { return {StatusCode::kFailedPrecondition, std::move(msg)}; }
  static Status PermissionDenied(std::string msg) { return {StatusCode::kPermissionDenied, std::move(msg)}; }
  static Status Internal(std::string msg) { return {StatusCode::kInternal, std::move(msg)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "OK" or "<CodeName>: <message>".
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>".
  Status WithContext(const std::string& context) const;

  bool operator==(const Status&) const = default;

 private:
  Status(StatusCode code, std::string msg) : code_(code), message_(std::move(msg)) {}
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Either a T or a non-OK Status.
// REQUIRES: value()/operator* only when ok().
template <typename T>
class Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : data_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(data_).ok() && "Result constructed from an OK Status");
  }

  bool ok() const { return std::holds_alternative<T>(data_); }
  Status status() const { return ok() ? Status::OK() : std::get<Status>(data_); }

  T& value() & { return std::get<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  T value_or(T fallback) const { return ok() ? std::get<T>(data_) : std::move(fallback); }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace medreact

#endif  // MEDREACT_STATUS_H_
