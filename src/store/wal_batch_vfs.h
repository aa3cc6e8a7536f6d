// A SQLite VFS for the run store that writes each commit's WAL frames with
// one write call instead of two per frame (issue 22, docs/benchmarks.md).
//
// SQLite writes a WAL frame as two pwrite calls, its 24-byte header and its
// page: a checkpoint's commit of ~6 pages was ~12 calls, and on ext4 each
// call pays for the inode's time update whatever its size (bench: 14 pwrite
// calls of a 7-frame commit took ~27 µs of CPU, one pwrite of the same bytes
// ~4 µs). This VFS is the default one except for WAL files, whose writes it
// gathers while they run on from one another and hands to the default VFS
// as one write when:
//   - the page of a commit frame (a frame header whose "database size after
//     commit" is not 0) has been added: the commit's last write, so it
//     returns only once the frames are with the OS, before SQLite publishes
//     the commit to readers (the wal-index header). A commit is therefore
//     as durable as without this VFS (a killed process keeps it; with
//     synchronous=FULL SQLite syncs after it as before), and a failed write
//     fails the commit;
//   - the next write does not follow on, or the file is read, synced,
//     truncated, asked its size, given a file control or closed: every other
//     use of the file sees it as written;
//   - the gathered bytes reach 64 KiB (a large transaction; the default
//     VFS writes at most 128 KiB - 1 a call);
//   - the connection lets go of a shared-memory lock (the WAL's write lock
//     among them): a transaction that spilled frames and rolled back leaves
//     none behind for a later flush to lay over another writer's frames.
// The main database file is the default VFS's own behind a wrapper that
// passes every call through (it only adds that last flush); every other file
// (the -shm, journals, temporary files) is the default VFS's, untouched.
//
// Thread-safety: registered once per process (thread-safe); a file is used
// by its connection only, as SQLite's own files are.
#ifndef MEDREACT_STORE_WAL_BATCH_VFS_H_
#define MEDREACT_STORE_WAL_BATCH_VFS_H_

namespace medreact {

// The VFS's name for sqlite3_open_v2, registered (not as the default) at the
// first call; nullptr (SQLite's default VFS) when it could not be.
const char* WalBatchVfsName();

}  // namespace medreact

#endif  // MEDREACT_STORE_WAL_BATCH_VFS_H_
