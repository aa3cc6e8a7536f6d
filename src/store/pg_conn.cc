// PgConnection over libpq (see pg_conn.h).
//
// libpq is loaded at the first Connect (dlopen), not when the program starts,
// as libcurl is (core/http_curl.cc): libpq pulls in TLS, Kerberos and LDAP
// (about 20 shared libraries), which every command would otherwise map and
// relocate at start-up although only a store given as a postgres:// URL uses
// it (StartupLibrariesTest holds `--help`, `calc`, triage and extract to
// that). Only its header is compiled in; its functions are called through
// one table (Pq()), bound once.
#include "store/pg_conn.h"

#include <dlfcn.h>
#include <libpq-fe.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <utility>

namespace medreact {

namespace {

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  }
  return true;
}

// libpq's messages end with a newline (and may span lines): one line.
std::string OneLine(const char* text) {
  std::string out = text ? text : "";
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  std::replace(out.begin(), out.end(), '\n', ' ');
  return out;
}

void IgnoreNotice(void*, const char*) {}

// The libpq functions medreact calls, by name (the table below is bound from them).
#define MEDREACT_LIBPQ_FUNCTIONS(X) \
  X(PQclear) \
  X(PQcmdTuples) \
  X(PQconnectdbParams) \
  X(PQerrorMessage) \
  X(PQexec) \
  X(PQexecParams) \
  X(PQfinish) \
  X(PQgetisnull) \
  X(PQgetlength) \
  X(PQgetvalue) \
  X(PQnfields) \
  X(PQntuples) \
  X(PQreset) \
  X(PQresultErrorField) \
  X(PQresultErrorMessage) \
  X(PQresultStatus) \
  X(PQsetNoticeProcessor) \
  X(PQstatus) \
  X(PQtransactionStatus)

struct PqApi {
#define MEDREACT_PQ_MEMBER(name) decltype(&::name) name = nullptr;
  MEDREACT_LIBPQ_FUNCTIONS(MEDREACT_PQ_MEMBER)
#undef MEDREACT_PQ_MEMBER
};

constexpr const char* kLibpq = "libpq.so.5";

Result<const PqApi*> OpenLibpq() {
  void* library = ::dlopen(kLibpq, RTLD_LAZY | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = ::dlerror();
    return Status::Unavailable(std::string("cannot load ") + kLibpq + " (Debian package libpq5): " +
                               (why != nullptr ? why : "unknown error"));
  }
  static PqApi api;
  bool bound = true;
#define MEDREACT_PQ_BIND(name) \
  bound = bound && (api.name = reinterpret_cast<decltype(&::name)>(::dlsym(library, #name))) != nullptr;
  MEDREACT_LIBPQ_FUNCTIONS(MEDREACT_PQ_BIND)
#undef MEDREACT_PQ_BIND
  if (!bound) return Status::Unavailable(std::string(kLibpq) + " lacks a function medreact needs");
  return &api;
}

// Never destroyed (a connection may be closed during the exit).
const Result<const PqApi*>& LoadedLibpq() {
  static const auto* loaded = new Result<const PqApi*>(OpenLibpq());
  return *loaded;
}

// REQUIRES: LoadedLibpq() is ok: every caller holds a connection or a result,
// which only exist once Connect loaded it.
const PqApi& Pq() { return **LoadedLibpq(); }

}  // namespace

bool IsPostgresUrl(std::string_view s) {
  return StartsWithNoCase(s, "postgres://") || StartsWithNoCase(s, "postgresql://");
}

std::string RedactPostgresUrl(const std::string& url) {
  std::string out = url;
  const size_t scheme = out.find("://");
  if (scheme != std::string::npos) {
    const size_t host = scheme + 3;
    const size_t end = out.find_first_of("/?#", host);
    const size_t at = out.rfind('@', end == std::string::npos ? std::string::npos : end);
    if (at != std::string::npos && at >= host) {
      const size_t colon = out.find(':', host);
      if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  // password=... in the query (libpq reads it there too).
  const size_t query = out.find('?');
  if (query != std::string::npos) {
    size_t pos = query + 1;
    while (pos < out.size()) {
      size_t amp = out.find('&', pos);
      if (amp == std::string::npos) amp = out.size();
      if (StartsWithNoCase(std::string_view(out).substr(pos, amp - pos), "password=")) {
        out.replace(pos + 9, amp - pos - 9, "***");
        amp = pos + 12;
      }
      pos = amp + 1;
    }
  }
  return out;
}

bool IsRetryableSqlState(const std::string& sqlstate) { return sqlstate == "40001" || sqlstate == "40P01"; }

PgRows::PgRows(pg_result* res) : res_(res) {}
PgRows::~PgRows() {
  if (res_) Pq().PQclear(res_);
}
PgRows::PgRows(PgRows&& other) noexcept : res_(std::exchange(other.res_, nullptr)) {}
PgRows& PgRows::operator=(PgRows&& other) noexcept {
  if (this != &other) {
    if (res_) Pq().PQclear(res_);
    res_ = std::exchange(other.res_, nullptr);
  }
  return *this;
}
int PgRows::size() const { return res_ ? Pq().PQntuples(res_) : 0; }
int PgRows::columns() const { return res_ ? Pq().PQnfields(res_) : 0; }
bool PgRows::Null(int row, int col) const {
  return !res_ || row < 0 || col < 0 || row >= size() || col >= columns() || Pq().PQgetisnull(res_, row, col);
}
std::optional<std::string> PgRows::Get(int row, int col) const {
  if (Null(row, col)) return std::nullopt;
  return std::string(Pq().PQgetvalue(res_, row, col), static_cast<size_t>(Pq().PQgetlength(res_, row, col)));
}
std::string PgRows::Text(int row, int col) const { return Get(row, col).value_or(""); }
int64_t PgRows::Int(int row, int col) const {
  if (Null(row, col)) return 0;
  return std::strtoll(Pq().PQgetvalue(res_, row, col), nullptr, 10);
}
double PgRows::Double(int row, int col) const {
  if (Null(row, col)) return 0;
  return std::strtod(Pq().PQgetvalue(res_, row, col), nullptr);
}
int64_t PgRows::affected() const {
  if (!res_) return 0;
  const char* n = Pq().PQcmdTuples(res_);
  return n && *n ? std::strtoll(n, nullptr, 10) : 0;
}

PgConnection::PgConnection(pg_conn* conn, std::string url, PgConnectOptions options)
    : conn_(conn), url_(std::move(url)), redacted_(RedactPostgresUrl(url_)), options_(options) {}

PgConnection::~PgConnection() {
  if (conn_) Pq().PQfinish(conn_);
}

std::string PgConnection::Where() const { return "PostgreSQL '" + redacted_ + "'"; }

Result<std::unique_ptr<PgConnection>> PgConnection::Connect(const std::string& url, PgConnectOptions options) {
  if (!IsPostgresUrl(url)) {
    return Status::InvalidArgument("'" + RedactPostgresUrl(url) + "' is not a PostgreSQL URL (postgres://...)");
  }
  const std::string timeout =
      std::to_string(std::max<int64_t>(2, (options.connect_timeout.count() + 999) / 1000));
  // The URL is expanded by libpq (expand_dbname); the keywords after it win.
  const char* keys[] = {"dbname", "connect_timeout", "application_name", nullptr};
  const char* values[] = {url.c_str(), timeout.c_str(), "medreact", nullptr};
  if (const Result<const PqApi*>& libpq = LoadedLibpq(); !libpq.ok()) return libpq.status();
  pg_conn* conn = Pq().PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (!conn) return Status::Unavailable("PostgreSQL '" + RedactPostgresUrl(url) + "': out of memory");
  if (Pq().PQstatus(conn) != CONNECTION_OK) {
    std::string why = OneLine(Pq().PQerrorMessage(conn));
    Pq().PQfinish(conn);
    // libpq may quote the connection string's parts, never the URL's password
    // (it names host, port, user and database); redacted anyway.
    return Status::Unavailable("cannot connect to PostgreSQL '" + RedactPostgresUrl(url) + "': " + why);
  }
  std::unique_ptr<PgConnection> c(new PgConnection(conn, url, options));
  if (Status s = c->ApplySession(); !s.ok()) return s;
  return c;
}

Status PgConnection::ApplySession() {
  Pq().PQsetNoticeProcessor(conn_, &IgnoreNotice, nullptr);
  if (options_.read_only) {
    Result<PgRows> r = Exec("SET default_transaction_read_only = on", {}, "making the session read-only");
    if (!r.ok()) return r.status();
  }
  return Status::OK();
}

Status PgConnection::Fail(const std::string& what, pg_result* res) {
  const char* state = res ? Pq().PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  sqlstate_ = state ? state : "";
  std::string msg;
  if (res) {
    const char* primary = Pq().PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
    msg = primary ? OneLine(primary) : OneLine(Pq().PQresultErrorMessage(res));
  }
  if (msg.empty()) msg = OneLine(Pq().PQerrorMessage(conn_));
  if (res) Pq().PQclear(res);
  std::string text = Where() + (what.empty() ? "" : ": " + what) + ": ";
  if (Broken()) {
    text += "the connection was lost (" + msg + ")";
  } else {
    text += msg + (sqlstate_.empty() ? "" : " (SQLSTATE " + sqlstate_ + ")");
  }
  return Status::Unavailable(text);
}

Result<PgRows> PgConnection::Exec(const std::string& sql, const std::vector<std::optional<std::string>>& params,
                                  const std::string& what) {
  sqlstate_.clear();
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  pg_result* res = Pq().PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr,
                                values.empty() ? nullptr : values.data(), nullptr, nullptr, 0);
  const ExecStatusType st = res ? Pq().PQresultStatus(res) : PGRES_FATAL_ERROR;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return Fail(what, res);
  return PgRows(res);
}

Status PgConnection::ExecScript(const std::string& sql, const std::string& what) {
  sqlstate_.clear();
  pg_result* res = Pq().PQexec(conn_, sql.c_str());
  const ExecStatusType st = res ? Pq().PQresultStatus(res) : PGRES_FATAL_ERROR;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return Fail(what, res);
  Pq().PQclear(res);
  return Status::OK();
}

Status PgConnection::Begin(const std::string& mode) {
  Result<PgRows> r = Exec(mode.empty() ? "BEGIN" : "BEGIN " + mode, {}, "starting a transaction");
  return r.status();
}

Status PgConnection::Commit() {
  // A COMMIT of a failed transaction answers ROLLBACK, not an error: said here.
  if (Pq().PQtransactionStatus(conn_) == PQTRANS_INERROR) {
    Rollback();
    return Status::Unavailable(Where() + ": committing: the transaction failed earlier and was rolled back");
  }
  return Exec("COMMIT", {}, "committing").status();
}

Status PgConnection::Rollback() {
  if (!InTransaction()) return Status::OK();
  Result<PgRows> r = Exec("ROLLBACK", {}, "rolling back");
  return r.status();
}

bool PgConnection::InTransaction() const {
  const PGTransactionStatusType t = Pq().PQtransactionStatus(conn_);
  return t == PQTRANS_INTRANS || t == PQTRANS_INERROR || t == PQTRANS_ACTIVE;
}

bool PgConnection::Broken() const { return !conn_ || Pq().PQstatus(conn_) != CONNECTION_OK; }

Status PgConnection::Reconnect() {
  Pq().PQreset(conn_);
  if (Pq().PQstatus(conn_) != CONNECTION_OK) {
    return Status::Unavailable("cannot reconnect to " + Where() + ": " + OneLine(Pq().PQerrorMessage(conn_)));
  }
  return ApplySession();
}

}  // namespace medreact
