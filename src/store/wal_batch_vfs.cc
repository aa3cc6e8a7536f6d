// The run store's VFS: the WAL's writes gathered into one per commit. See
// wal_batch_vfs.h for when the gathered bytes are written.
//
// The WAL format (https://www.sqlite.org/fileformat.html, "The Write-Ahead
// Log"): a 32-byte file header, then frames of a 24-byte header and a page;
// bytes 4..7 of a frame header, big-endian, are the database's size in pages
// after a commit for the frame that ends one, else 0. SQLite writes a frame
// as its header then its page (walWriteOneFrame), and after a transaction's
// last frame may write frame headers again elsewhere in the file
// (walRewriteChecksums): a commit frame's header that does not follow on
// from gathered bytes is written through at once, so the commit is never
// left behind in memory.
#include "store/wal_batch_vfs.h"

#include <sqlite3.h>

#include <cstdint>
#include <cstring>
#include <new>
#include <string>

namespace medreact {
namespace {

constexpr char kName[] = "medreact-wal-batch";
constexpr int kFrameHeaderBytes = 24;
// Written once this many bytes are gathered; and never more than kMaxWrite
// in one write: the unix VFS writes at most 128 KiB - 1 per call
// (seekAndWrite masks the size with 0x1ffff).
constexpr size_t kMaxGathered = 64 * 1024;
constexpr size_t kMaxWrite = 0x1ffff;

sqlite3_vfs* base_vfs = nullptr;  // the default VFS, set once at registration

// What a WAL file holds back: bytes for [start, start + bytes.size()).
struct Gathered {
  std::string bytes;
  sqlite3_int64 start = 0;
  bool commit_page_next = false;  // the last write was a commit frame's header
};

// A WAL file: ours, then the default VFS's own file right after it.
struct WalFile {
  sqlite3_file base;  // pMethods = &kWalMethods
  sqlite3_file* real;
  Gathered* gathered;
};
constexpr int kRealOffset = static_cast<int>((sizeof(WalFile) + 15) / 16 * 16);

WalFile* AsWal(sqlite3_file* f) { return reinterpret_cast<WalFile*>(f); }

// Writes what is gathered as one write. The bytes are dropped either way: a
// failure fails the SQLite call that caused it (a commit rolls back).
int Flush(WalFile* w) {
  Gathered& g = *w->gathered;
  g.commit_page_next = false;
  if (g.bytes.empty()) return SQLITE_OK;
  const int rc = w->real->pMethods->xWrite(w->real, g.bytes.data(), static_cast<int>(g.bytes.size()), g.start);
  g.bytes.clear();
  return rc;
}

int WalClose(sqlite3_file* f) {
  WalFile* w = AsWal(f);
  const int flushed = Flush(w);
  const int rc = w->real->pMethods->xClose(w->real);
  delete w->gathered;
  w->gathered = nullptr;
  return flushed != SQLITE_OK ? flushed : rc;
}

int WalRead(sqlite3_file* f, void* out, int amount, sqlite3_int64 offset) {
  WalFile* w = AsWal(f);
  if (int rc = Flush(w); rc != SQLITE_OK) return rc;
  return w->real->pMethods->xRead(w->real, out, amount, offset);
}

// Writes `data` straight through, after what is gathered.
int WriteThrough(WalFile* w, const void* data, int amount, sqlite3_int64 offset) {
  if (int rc = Flush(w); rc != SQLITE_OK) return rc;
  return w->real->pMethods->xWrite(w->real, data, amount, offset);
}

int WalWrite(sqlite3_file* f, const void* data, int amount, sqlite3_int64 offset) {
  WalFile* w = AsWal(f);
  Gathered& g = *w->gathered;
  const auto* bytes = static_cast<const unsigned char*>(data);
  const bool header = amount == kFrameHeaderBytes;
  const bool commit_header = header && (bytes[4] | bytes[5] | bytes[6] | bytes[7]) != 0;
  const bool commit_page = g.commit_page_next && !header;  // the commit's last write
  bool follows_on = !g.bytes.empty() && offset == g.start + static_cast<sqlite3_int64>(g.bytes.size());
  if (follows_on && g.bytes.size() + static_cast<size_t>(amount) > kMaxWrite) {
    if (int rc = Flush(w); rc != SQLITE_OK) return rc;
    follows_on = false;
  }
  if (!follows_on) {
    if (int rc = Flush(w); rc != SQLITE_OK) return rc;
    if (commit_header) {  // nothing of the commit gathered: nothing held back
      if (int rc = w->real->pMethods->xWrite(w->real, data, amount, offset); rc != SQLITE_OK) return rc;
      g.commit_page_next = true;  // its page, when it comes next, goes straight through too
      return SQLITE_OK;
    }
    if (commit_page) return w->real->pMethods->xWrite(w->real, data, amount, offset);
  }
  try {
    if (g.bytes.empty()) g.start = offset;
    g.bytes.append(reinterpret_cast<const char*>(bytes), static_cast<size_t>(amount));
  } catch (const std::bad_alloc&) {
    return WriteThrough(w, data, amount, offset);  // what was gathered first, then this
  }
  if (commit_page || g.bytes.size() >= kMaxGathered) return Flush(w);
  g.commit_page_next = commit_header;
  return SQLITE_OK;
}

int WalTruncate(sqlite3_file* f, sqlite3_int64 size) {
  WalFile* w = AsWal(f);
  if (int rc = Flush(w); rc != SQLITE_OK) return rc;
  return w->real->pMethods->xTruncate(w->real, size);
}

int WalSync(sqlite3_file* f, int flags) {
  WalFile* w = AsWal(f);
  if (int rc = Flush(w); rc != SQLITE_OK) return rc;
  return w->real->pMethods->xSync(w->real, flags);
}

int WalFileSize(sqlite3_file* f, sqlite3_int64* size) {
  WalFile* w = AsWal(f);
  if (int rc = Flush(w); rc != SQLITE_OK) return rc;
  return w->real->pMethods->xFileSize(w->real, size);
}

int WalLock(sqlite3_file* f, int level) { return AsWal(f)->real->pMethods->xLock(AsWal(f)->real, level); }
int WalUnlock(sqlite3_file* f, int level) { return AsWal(f)->real->pMethods->xUnlock(AsWal(f)->real, level); }
int WalCheckReservedLock(sqlite3_file* f, int* out) {
  return AsWal(f)->real->pMethods->xCheckReservedLock(AsWal(f)->real, out);
}

int WalFileControl(sqlite3_file* f, int op, void* arg) {
  WalFile* w = AsWal(f);
  if (int rc = Flush(w); rc != SQLITE_OK) return rc;
  return w->real->pMethods->xFileControl(w->real, op, arg);
}

int WalSectorSize(sqlite3_file* f) { return AsWal(f)->real->pMethods->xSectorSize(AsWal(f)->real); }
int WalDeviceCharacteristics(sqlite3_file* f) {
  return AsWal(f)->real->pMethods->xDeviceCharacteristics(AsWal(f)->real);
}

// Version 1: a WAL file is never memory-mapped and has no shared memory of
// its own (the wal-index is the database file's).
const sqlite3_io_methods kWalMethods = {
    1,         WalClose,       WalRead,     WalWrite,   WalTruncate, WalSync, WalFileSize, WalLock, WalUnlock,
    WalCheckReservedLock, WalFileControl, WalSectorSize, WalDeviceCharacteristics,
    nullptr,   nullptr,        nullptr,     nullptr,    nullptr,     nullptr,
};

int Open(sqlite3_vfs*, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  if (!(flags & SQLITE_OPEN_WAL)) return base_vfs->xOpen(base_vfs, name, file, flags, out_flags);
  WalFile* w = AsWal(file);
  w->base.pMethods = nullptr;  // not opened until the end
  auto* real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(file) + kRealOffset);
  real->pMethods = nullptr;
  const int rc = base_vfs->xOpen(base_vfs, name, real, flags, out_flags);
  if (rc != SQLITE_OK) {
    if (real->pMethods) real->pMethods->xClose(real);
    return rc;
  }
  w->real = real;
  w->gathered = new (std::nothrow) Gathered;
  if (!w->gathered) {
    real->pMethods->xClose(real);
    return SQLITE_NOMEM;
  }
  w->base.pMethods = &kWalMethods;
  return SQLITE_OK;
}

}  // namespace

const char* WalBatchVfsName() {
  static const char* const name = []() -> const char* {
    sqlite3_vfs* base = sqlite3_vfs_find(nullptr);
    if (!base || base->szOsFile <= 0) return nullptr;
    static sqlite3_vfs vfs;
    vfs = *base;  // every call but xOpen is the default VFS's (pAppData too)
    vfs.pNext = nullptr;
    vfs.zName = kName;
    vfs.szOsFile = kRealOffset + base->szOsFile;
    vfs.xOpen = Open;
    base_vfs = base;
    if (sqlite3_vfs_register(&vfs, /*makeDflt=*/0) != SQLITE_OK) return nullptr;
    return kName;
  }();
  return name;
}

}  // namespace medreact
