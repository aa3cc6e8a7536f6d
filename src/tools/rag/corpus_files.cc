// The file-system side of RagIndex (corpus_files.h): the scan that never
// leaves the corpus, the guarded read, and the private cache location.
#include "tools/rag/corpus_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <utility>

#include "core/file_io.h"
#include "tools/rag/rag_index.h"

namespace medreact {
namespace fs = std::filesystem;
namespace {

std::string MiB(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// True when `path` (canonical) is `root` (canonical) or lies under it.
bool IsInside(const std::string& root, const std::string& path) {
  if (path == root) return true;
  const std::string prefix = !root.empty() && root.back() == '/' ? root : root + "/";  // "/" stays "/"
  return path.compare(0, prefix.size(), prefix) == 0;
}

int64_t MtimeNs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
}

const char* FileKind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISDIR(mode)) return "a folder";
  return "not a regular file";
}

}  // namespace

uint64_t Fnv1a64Value(std::string_view bytes) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

bool IsIndexableName(const fs::path& path) {
  std::string ext = path.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".md" || ext == ".markdown" || ext == ".txt";
}

Result<std::string> ReadCorpusFile(const CorpusFile& file, const std::string& corpus_real) {
  const int fd = ::open(file.absolute.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return Status::Unavailable(std::string("cannot open it: ") + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) return Status::Unavailable(std::string("cannot stat it: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return Status::FailedPrecondition(std::string("it is ") + FileKind(st.st_mode));
  if (st.st_dev != file.device || st.st_ino != file.inode) {
    return Status::Unavailable("it was replaced while the corpus was being indexed; open the index again");
  }
  char proc[64];
  std::snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
  std::error_code ec;
  const fs::path real = fs::read_symlink(proc, ec);  // where the descriptor really points (Linux)
  if (!ec && !IsInside(corpus_real, real.string())) {
    return Status::FailedPrecondition("it resolves to a file outside the corpus folder");
  }
  std::string text;
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::Unavailable(std::string("cannot read it: ") + std::strerror(errno));
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > kMaxRagFileBytes) {
      return Status::FailedPrecondition("it is larger than " + MiB(kMaxRagFileBytes) + ", the limit for one document");
    }
  }
  return text;
}

Status PrepareCacheFolder(const fs::path& dir) {
  if (Status s = MakePrivateFolders(dir.string()); !s.ok()) {
    return Status::Unavailable(s.message() +
                               " for the RAG index; set XDG_CACHE_HOME to a writable folder or pass a database path");
  }
  for (const fs::path& own : {dir.parent_path(), dir}) {
    struct stat st;
    if (::lstat(own.c_str(), &st) != 0) {
      return Status::Unavailable("cannot use the RAG index folder '" + own.string() + "': " + std::strerror(errno));
    }
    if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) {
      return Status::FailedPrecondition("the RAG index folder '" + own.string() + "' is " +
                                        (S_ISDIR(st.st_mode) ? "owned by another user" : "not a folder (a link?)") +
                                        "; the index is not kept there: remove it, or pass a database path");
    }
    if ((st.st_mode & 077) != 0 && ::chmod(own.c_str(), 0700) != 0) {
      return Status::Unavailable("cannot make '" + own.string() + "' private (chmod 0700): " + std::strerror(errno));
    }
  }
  return Status::OK();
}

Status PrepareDatabaseFile(const std::string& path, bool default_location) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
    return Status::OK();
  }
  if (errno != EEXIST) {
    return Status::Unavailable("cannot create the RAG index '" + path + "': " + std::strerror(errno) +
                               (default_location ? std::string("; set XDG_CACHE_HOME to a writable folder")
                                                 : std::string("; choose a writable path")));
  }
  if (!default_location) return Status::OK();
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) {
    return Status::FailedPrecondition("the RAG index '" + path + "' is not a regular file of this user (a link?); "
                                      "delete it to rebuild the index");
  }
  if ((st.st_mode & 077) != 0 && ::chmod(path.c_str(), 0600) != 0) {
    return Status::Unavailable("cannot make '" + path + "' private (chmod 0600): " + std::strerror(errno));
  }
  return Status::OK();
}

// Entries are visited in name order, depth first.
std::map<std::string, CorpusFile> ScanCorpus(const std::string& corpus_dir, const std::string& corpus_real,
                                             const std::function<bool(const fs::path&)>& is_own_file,
                                             std::vector<std::string>& warnings) {
  std::map<std::string, CorpusFile> found;
  struct stat root_stat;
  if (::stat(corpus_real.c_str(), &root_stat) != 0) {
    warnings.push_back("cannot list the corpus folder: " + std::string(std::strerror(errno)));
    return found;
  }
  std::set<std::pair<dev_t, ino_t>> folders{{root_stat.st_dev, root_stat.st_ino}};
  struct Folder {
    fs::path path;
    std::string relative;  // "" for the corpus itself
  };
  std::vector<Folder> pending{{fs::path(corpus_dir), ""}};
  auto skip = [&warnings](const std::string& relative, const std::string& why) {
    warnings.push_back("skipped '" + relative + "': " + why);
  };
  while (!pending.empty()) {
    Folder folder = std::move(pending.back());
    pending.pop_back();
    std::error_code ec;
    std::vector<fs::path> entries;
    for (fs::directory_iterator it(folder.path, ec), end; !ec && it != end; it.increment(ec)) {
      entries.push_back(it->path());
    }
    if (ec) {
      skip(folder.relative.empty() ? "." : folder.relative, "cannot list it: " + ec.message());
      continue;
    }
    std::sort(entries.begin(), entries.end());
    std::vector<Folder> subfolders;
    for (const fs::path& path : entries) {
      const std::string name = path.filename().string();
      if (name.empty() || name[0] == '.') continue;
      const std::string relative = folder.relative.empty() ? name : folder.relative + "/" + name;
      struct stat st;
      if (::lstat(path.c_str(), &st) != 0) {
        if (IsIndexableName(path)) skip(relative, std::string("cannot stat it: ") + std::strerror(errno));
        continue;
      }
      if (S_ISLNK(st.st_mode)) {
        const fs::path target = fs::canonical(path, ec);
        struct stat target_stat;
        if (ec || ::stat(path.c_str(), &target_stat) != 0) {
          skip(relative, "a symbolic link that cannot be followed (broken, or a loop of links)");
          continue;
        }
        const bool folder_link = S_ISDIR(target_stat.st_mode);
        if (!folder_link && !IsIndexableName(path)) continue;
        if (!IsInside(corpus_real, target.string())) {
          skip(relative, std::string("a symbolic link to a ") + (folder_link ? "folder" : "file") +
                             " outside the corpus folder; copy what should be indexed into the corpus");
          continue;
        }
        if (folder_link) {
          skip(relative, "a symbolic link to a folder inside the corpus; its documents are indexed under their "
                         "own path");
          continue;
        }
        st = target_stat;
      }
      if (S_ISDIR(st.st_mode)) {
        if (folders.insert({st.st_dev, st.st_ino}).second) {
          subfolders.push_back({path, relative});
        } else {
          skip(relative, "a folder that is already indexed (mounted twice?)");
        }
        continue;
      }
      if (!IsIndexableName(path)) continue;
      if (!S_ISREG(st.st_mode)) {
        skip(relative, std::string("it is ") + FileKind(st.st_mode) + ", not a document");
        continue;
      }
      if (is_own_file && is_own_file(path)) continue;
      if (static_cast<uint64_t>(st.st_size) > kMaxRagFileBytes) {
        skip(relative, std::to_string(st.st_size) + " bytes, larger than " + MiB(kMaxRagFileBytes) +
                           ", the limit for one document; split it");
        continue;
      }
      found.emplace(relative, CorpusFile{.absolute = path,
                                       .size = static_cast<int64_t>(st.st_size),
                                       .mtime_ns = MtimeNs(st),
                                       .device = st.st_dev,
                                       .inode = st.st_ino});
    }
    // Depth first, in name order.
    for (auto it = subfolders.rbegin(); it != subfolders.rend(); ++it) pending.push_back(std::move(*it));
  }
  return found;
}

Result<std::string> DefaultRagDbPath(const std::string& corpus_dir) {
  std::error_code ec;
  const fs::path real = fs::canonical(corpus_dir, ec);
  if (ec) return Status::NotFound("RAG corpus '" + corpus_dir + "': " + ec.message());
  // XDG Base Directory Specification: $XDG_CACHE_HOME if set to an absolute
  // path, else $HOME/.cache.
  fs::path cache;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && fs::path(xdg).is_absolute()) {
    cache = xdg;
  } else if (const char* home = std::getenv("HOME"); home && fs::path(home).is_absolute()) {
    cache = fs::path(home) / ".cache";
  } else {
    return Status::FailedPrecondition("no folder for the RAG index: set XDG_CACHE_HOME or HOME to an absolute "
                                      "path, or give a database path");
  }
  std::string name;
  for (char c : real.filename().string()) {
    name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ? c : '_';
    if (name.size() == 40) break;
  }
  if (name.empty() || name[0] == '.') name = "corpus" + name;
  char hash[20];
  std::snprintf(hash, sizeof(hash), "%016llx", static_cast<unsigned long long>(Fnv1a64Value(real.string())));
  return (cache / "medreact" / "rag" / (name + "-" + hash + ".sqlite")).string();
}

}  // namespace medreact
