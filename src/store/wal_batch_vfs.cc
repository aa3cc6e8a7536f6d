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
// left behind in memory. A transaction that spilled frames before its commit
// (larger than the page cache) and then rolled back leaves frames gathered
// that no commit will write: the main database file is wrapped too, and its
// shared-memory unlock (the WAL write lock's release, among others) writes
// what its WAL file holds first, as SQLite's own immediate writes would have
// been, before another writer may use those offsets.
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

struct DbFile;

// A WAL file: ours, then the default VFS's own file right after it.
struct WalFile {
  sqlite3_file base;  // pMethods = &kWalMethods
  sqlite3_file* real;
  Gathered* gathered;
  DbFile* db;         // its main database file, when that is ours
};

// A main database file: the default VFS's, passed through, knowing its WAL.
struct DbFile {
  sqlite3_file base;  // pMethods = &kDbMethods
  sqlite3_file* real;
  WalFile* wal;       // while open
};

constexpr size_t kOurs = sizeof(WalFile) > sizeof(DbFile) ? sizeof(WalFile) : sizeof(DbFile);
constexpr int kRealOffset = static_cast<int>((kOurs + 15) / 16 * 16);

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
  if (w->db) w->db->wal = nullptr;
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
    if (int rc = WriteThrough(w, data, amount, offset); rc != SQLITE_OK) return rc;  // gathered, then this
    g.commit_page_next = commit_header;
    return SQLITE_OK;
  }
  if (commit_page) return Flush(w);
  if (g.bytes.size() >= kMaxGathered) {
    if (int rc = Flush(w); rc != SQLITE_OK) return rc;
  }
  g.commit_page_next = commit_header;  // after any flush, which clears it
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

// The main database file's calls, passed through (its -shm is the default
// VFS's too); xShmLock writes the WAL's gathered bytes before an unlock.
DbFile* AsDb(sqlite3_file* f) { return reinterpret_cast<DbFile*>(f); }
sqlite3_file* Real(sqlite3_file* f) { return AsDb(f)->real; }

int DbClose(sqlite3_file* f) {
  if (AsDb(f)->wal) AsDb(f)->wal->db = nullptr;
  return Real(f)->pMethods->xClose(Real(f));
}
int DbRead(sqlite3_file* f, void* out, int n, sqlite3_int64 at) { return Real(f)->pMethods->xRead(Real(f), out, n, at); }
int DbWrite(sqlite3_file* f, const void* in, int n, sqlite3_int64 at) {
  return Real(f)->pMethods->xWrite(Real(f), in, n, at);
}
int DbTruncate(sqlite3_file* f, sqlite3_int64 size) { return Real(f)->pMethods->xTruncate(Real(f), size); }
int DbSync(sqlite3_file* f, int flags) { return Real(f)->pMethods->xSync(Real(f), flags); }
int DbFileSize(sqlite3_file* f, sqlite3_int64* size) { return Real(f)->pMethods->xFileSize(Real(f), size); }
int DbLock(sqlite3_file* f, int level) { return Real(f)->pMethods->xLock(Real(f), level); }
int DbUnlock(sqlite3_file* f, int level) { return Real(f)->pMethods->xUnlock(Real(f), level); }
int DbCheckReservedLock(sqlite3_file* f, int* out) { return Real(f)->pMethods->xCheckReservedLock(Real(f), out); }
int DbFileControl(sqlite3_file* f, int op, void* arg) { return Real(f)->pMethods->xFileControl(Real(f), op, arg); }
int DbSectorSize(sqlite3_file* f) { return Real(f)->pMethods->xSectorSize(Real(f)); }
int DbDeviceCharacteristics(sqlite3_file* f) { return Real(f)->pMethods->xDeviceCharacteristics(Real(f)); }
int DbShmMap(sqlite3_file* f, int page, int size, int extend, void volatile** out) {
  return Real(f)->pMethods->xShmMap(Real(f), page, size, extend, out);
}
int DbShmLock(sqlite3_file* f, int offset, int n, int flags) {
  // Nothing gathered outlives a lock: a rolled-back transaction's spilled
  // frames go to the file while this connection still holds the write lock
  // (beyond the last commit, as SQLite would have written them). A failure
  // is of no matter: no commit holds those frames.
  if ((flags & SQLITE_SHM_UNLOCK) && AsDb(f)->wal) Flush(AsDb(f)->wal);
  return Real(f)->pMethods->xShmLock(Real(f), offset, n, flags);
}
void DbShmBarrier(sqlite3_file* f) { Real(f)->pMethods->xShmBarrier(Real(f)); }
int DbShmUnmap(sqlite3_file* f, int delete_flag) { return Real(f)->pMethods->xShmUnmap(Real(f), delete_flag); }
int DbFetch(sqlite3_file* f, sqlite3_int64 at, int n, void** out) {
  return Real(f)->pMethods->xFetch(Real(f), at, n, out);
}
int DbUnfetch(sqlite3_file* f, sqlite3_int64 at, void* p) { return Real(f)->pMethods->xUnfetch(Real(f), at, p); }

const sqlite3_io_methods kDbMethods = {
    3,           DbClose,    DbRead,      DbWrite,    DbTruncate, DbSync,     DbFileSize,
    DbLock,      DbUnlock,   DbCheckReservedLock,     DbFileControl,          DbSectorSize,
    DbDeviceCharacteristics, DbShmMap,    DbShmLock,  DbShmBarrier,           DbShmUnmap,
    DbFetch,     DbUnfetch,
};

// Opens `name` with the default VFS into the memory after ours.
int OpenReal(const char* name, sqlite3_file* file, int flags, int* out_flags, sqlite3_file** real) {
  *real = reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(file) + kRealOffset);
  (*real)->pMethods = nullptr;
  const int rc = base_vfs->xOpen(base_vfs, name, *real, flags, out_flags);
  if (rc != SQLITE_OK && (*real)->pMethods) (*real)->pMethods->xClose(*real);
  return rc;
}

int Open(sqlite3_vfs*, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  file->pMethods = nullptr;  // not opened until the end
  if (flags & SQLITE_OPEN_MAIN_DB) {
    DbFile* d = AsDb(file);
    if (int rc = OpenReal(name, file, flags, out_flags, &d->real); rc != SQLITE_OK) return rc;
    // The default VFS's file may have no shared memory (version < 2): then
    // SQLite cannot use a WAL on it and this file needs no wrapper calls.
    if (d->real->pMethods->iVersion < 3) {
      d->real->pMethods->xClose(d->real);
      return base_vfs->xOpen(base_vfs, name, file, flags, out_flags);
    }
    d->wal = nullptr;
    d->base.pMethods = &kDbMethods;
    return SQLITE_OK;
  }
  if (!(flags & SQLITE_OPEN_WAL)) return base_vfs->xOpen(base_vfs, name, file, flags, out_flags);
  WalFile* w = AsWal(file);
  if (int rc = OpenReal(name, file, flags, out_flags, &w->real); rc != SQLITE_OK) return rc;
  w->gathered = new (std::nothrow) Gathered;
  if (!w->gathered) {
    w->real->pMethods->xClose(w->real);
    return SQLITE_NOMEM;
  }
  // Its database's file, ours when opened through this VFS.
  sqlite3_file* main = sqlite3_database_file_object(name);
  w->db = main && main->pMethods == &kDbMethods ? AsDb(main) : nullptr;
  if (w->db) w->db->wal = w;
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
