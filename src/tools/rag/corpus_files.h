// The file-system side of RagIndex: listing the corpus without ever leaving
// it, reading one document with its checks, and the private per-user folder
// and file of the index (see rag_index.h for the contract as a whole).
//
// The corpus folder is a boundary. A symbolic link to a document is followed
// only when the target's real path lies inside the corpus; a link to a folder
// is never followed (inside the corpus its documents are indexed under their
// own path, outside they are not the corpus), so loops of links cannot occur,
// and a folder is entered once even when mounted twice; FIFOs, sockets and
// devices are never opened; documents over kMaxRagFileBytes are left out.
//
// Plain functions over the file system: thread-compatible (no shared state).
#ifndef MEDREACT_TOOLS_RAG_CORPUS_FILES_H_
#define MEDREACT_TOOLS_RAG_CORPUS_FILES_H_

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "medreact/status.h"

namespace medreact {

// One document found by ScanCorpus.
struct CorpusFile {
  std::filesystem::path absolute;  // as reached from the corpus folder (may be a link inside it)
  int64_t size = 0;
  int64_t mtime_ns = 0;
  dev_t device = 0;  // of the file itself, so ReadCorpusFile reads what was scanned
  ino_t inode = 0;
};

// FNV-1a, 64 bits.
uint64_t Fnv1a64Value(std::string_view bytes);

// *.md, *.markdown, *.txt (any case).
bool IsIndexableName(const std::filesystem::path& path);

// The documents under `corpus_dir` (whose canonical path is `corpus_real`),
// keyed by their path relative to it ('/'-separated), in name order, hidden
// names skipped. `is_own_file` (may be empty) names files to pass over in
// silence (the index's own). Each file left out that would otherwise have
// been indexed adds "skipped '<relative path>': <why>" to `warnings`; no
// warning names an absolute path.
std::map<std::string, CorpusFile> ScanCorpus(const std::string& corpus_dir, const std::string& corpus_real,
                                             const std::function<bool(const std::filesystem::path&)>& is_own_file,
                                             std::vector<std::string>& warnings);

// Reads one scanned document, refusing anything but that regular file, inside
// `corpus_real`, at most kMaxRagFileBytes: the file is opened without
// blocking (a FIFO swapped in cannot hang the reader) and checked through its
// descriptor (regular, the same device and inode as scanned, and, where
// /proc/self/fd tells, a real path inside the corpus). Errors say why without
// the absolute path.
Result<std::string> ReadCorpusFile(const CorpusFile& file, const std::string& corpus_real);

// Creates `dir` and its missing parents, each new folder 0700, and makes sure
// `dir` and its parent (medreact/rag) are folders of this user, not links,
// that no one else can read (chmod 0700 when they were wider).
Status PrepareCacheFolder(const std::filesystem::path& dir);

// Creates the database file 0600 (O_EXCL, O_NOFOLLOW) unless it exists. At
// the default location an existing file must be a regular file of this user,
// and is made 0600 when it was wider.
Status PrepareDatabaseFile(const std::string& path, bool default_location);

}  // namespace medreact

#endif  // MEDREACT_TOOLS_RAG_CORPUS_FILES_H_
