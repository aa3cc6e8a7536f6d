#include "core/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace medreact {
namespace {

std::string Quoted(const std::string& path) { return "'" + path + "'"; }

std::string Capitalised(std::string_view what) {
  std::string out(what);
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 'a' + 'A');
  return out;
}

std::string HumanBytes(size_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (1u << 20)) return std::to_string(bytes / (1u << 20)) + "+ MiB";
  return std::to_string(bytes) + " bytes";
}

Status TooLarge(std::string_view what, const std::string& where, size_t max_bytes) {
  return Status::InvalidArgument(Capitalised(what) + " " + where + " is larger than the " + HumanBytes(max_bytes) +
                                 " limit for a " + std::string(what));
}

// Reads from `fd` until end of file or max_bytes + 1 bytes.
Result<std::string> ReadCapped(int fd, std::string_view what, const std::string& where, size_t max_bytes,
                               size_t size_hint) {
  std::string data;
  data.reserve(std::min(size_hint, max_bytes) + 1);
  char buffer[64 * 1024];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::Unavailable("cannot read " + std::string(what) + " " + where + ": " + std::strerror(errno));
    }
    if (data.size() + static_cast<size_t>(n) > max_bytes) return TooLarge(what, where, max_bytes);
    data.append(buffer, static_cast<size_t>(n));
  }
  return data;
}

std::string ParentFolder(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

Result<std::string> ReadUserFile(const std::string& path, std::string_view what, size_t max_bytes) {
  if (path.empty()) return Status::InvalidArgument("no path given for the " + std::string(what));
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) {
      return Status::NotFound(Capitalised(what) + " " + Quoted(path) + " does not exist");
    }
    return Status::Unavailable("cannot open " + std::string(what) + " " + Quoted(path) + ": " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Status::Unavailable("cannot inspect " + std::string(what) + " " + Quoted(path) + ": " + std::strerror(err));
  }
  Result<std::string> data = Status::Internal("unread");
  if (S_ISDIR(st.st_mode)) {
    data = Status::InvalidArgument(Capitalised(what) + " " + Quoted(path) + " is a folder, not a file");
  } else if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)) {
    data = Status::InvalidArgument(Capitalised(what) + " " + Quoted(path) + " is not a regular file");
  } else if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > max_bytes) {
    data = TooLarge(what, Quoted(path), max_bytes);
  } else {
    data = ReadCapped(fd, what, Quoted(path), max_bytes, S_ISREG(st.st_mode) ? static_cast<size_t>(st.st_size) : 0);
  }
  ::close(fd);
  return data;
}

Result<std::string> ReadUserStream(std::FILE* stream, std::string_view what, size_t max_bytes) {
  std::fflush(stream);
  return ReadCapped(::fileno(stream), what, "on standard input", max_bytes, 0);
}

namespace {

// What a special file is, for a message.
const char* SpecialKind(mode_t mode) {
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

Status NotRegular(const std::string& path, std::string_view what, mode_t mode) {
  return Status::InvalidArgument("cannot write the " + std::string(what) + " to " + Quoted(path) + ": it is " +
                                 SpecialKind(mode) +
                                 ", not a regular file (writing there could replace or break it); give a file's "
                                 "path");
}

}  // namespace

Status CheckRegularOrNew(const std::string& path, std::string_view what) {
  struct stat st {};
  // stat follows a symlink: what it points at is what would be written.
  if (::stat(path.c_str(), &st) != 0) return Status::OK();
  if (S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument("cannot write the " + std::string(what) + " to " + Quoted(path) +
                                   ": it is a folder; give a file name");
  }
  if (!S_ISREG(st.st_mode)) return NotRegular(path, what, st.st_mode);
  return Status::OK();
}

Status CheckOutputPath(const std::string& path, std::string_view what) {
  if (path.empty()) return Status::InvalidArgument("no path given for the " + std::string(what));
  if (path == "-") {
    return Status::InvalidArgument("cannot write the " + std::string(what) +
                                   " to '-': standard output is not a file here; give a file's path");
  }
  if (Status s = CheckRegularOrNew(path, what); !s.ok()) return s;
  struct stat st {};
  const std::string folder = ParentFolder(path);
  if (::stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument("cannot write the " + std::string(what) + " to " + Quoted(path) + ": folder " +
                                   Quoted(folder) + " does not exist");
  }
  if (::access(folder.c_str(), W_OK) != 0) {
    return Status::InvalidArgument("cannot write the " + std::string(what) + " to " + Quoted(path) + ": folder " +
                                   Quoted(folder) + " is not writable");
  }
  return Status::OK();
}

Status WriteFileAtomic(const std::string& path, std::string_view text) {
  if (Status s = CheckOutputPath(path, "file"); !s.ok()) return s;
  static std::atomic<uint64_t> counter{0};
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Status::Unavailable("cannot write " + Quoted(path) + ": " + std::strerror(errno));
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return Status::Unavailable("write to " + Quoted(path) + " failed: " + std::strerror(err));
    }
    written += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return Status::Unavailable("write to " + Quoted(path) + " failed: " + std::strerror(err));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return Status::Unavailable("cannot replace " + Quoted(path) + ": " + std::strerror(err));
  }
  return Status::OK();
}

Status MakePrivateFolders(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> missing;
  for (fs::path p = dir; !p.empty() && p != p.root_path(); p = p.parent_path()) {
    struct stat st;
    if (::lstat(p.c_str(), &st) == 0) break;
    missing.push_back(p);
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST) {
      return Status::Unavailable("cannot create the folder " + Quoted(it->string()) + ": " + std::strerror(errno));
    }
  }
  return Status::OK();
}

Result<std::FILE*> OpenPrivateFile(const std::string& path, std::string_view what) {
  if (Status s = CheckOutputPath(path, what); !s.ok()) return s;
  auto cannot = [&](int err) {
    return Status::Unavailable("cannot write the " + std::string(what) + " to " + Quoted(path) + ": " +
                               std::strerror(err));
  };
  // A new file is made private (O_EXCL: created here, never through a
  // dangling symlink); an existing one (a symlink to it is followed) is
  // opened without creating it or blocking (a FIFO swapped in since the
  // check), checked to be a regular file, and only then truncated. Its mode
  // is its owner's choice: never fchmod what medreact did not create.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0 && errno == EEXIST) {
    fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return cannot(errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      const mode_t mode = st.st_mode;
      ::close(fd);
      return NotRegular(path, what, mode);
    }
    if (::ftruncate(fd, 0) != 0 || ::fcntl(fd, F_SETFL, 0) != 0) {
      const int err = errno;
      ::close(fd);
      return cannot(err);
    }
  }
  if (fd < 0) return cannot(errno);
  std::FILE* file = ::fdopen(fd, "w");
  if (file == nullptr) {
    ::close(fd);
    return Status::Unavailable("cannot write the " + std::string(what) + " to " + Quoted(path));
  }
  return file;
}

Result<std::unique_ptr<LineLog>> LineLog::Open(const std::string& path, std::string_view what) {
  Result<std::FILE*> file = OpenPrivateFile(path, what);
  if (!file.ok()) return file.status();
  return std::unique_ptr<LineLog>(new LineLog(*file, path, std::string(what)));
}

LineLog::LineLog(std::FILE* file, std::string path, std::string what)
    : file_(file), path_(std::move(path)), what_(std::move(what)) {}

LineLog::~LineLog() { std::fclose(file_); }  // every line was flushed: nothing left for fclose to fail on

void LineLog::Write(std::string_view line) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!failed_.ok()) {
    ++lost_;
    return;
  }
  errno = 0;
  const bool ok = std::fwrite(line.data(), 1, line.size(), file_) == line.size() && std::fputc('\n', file_) != EOF &&
                  std::fflush(file_) == 0;
  if (!ok) {
    failed_ = Status::Unavailable("writing the " + what_ + " to " + Quoted(path_) + " failed: " +
                                  (errno != 0 ? std::strerror(errno) : "short write"));
    lost_ = 1;
  }
}

Status LineLog::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (failed_.ok()) return failed_;
  return Status::Unavailable(failed_.message() + "; " + std::to_string(lost_) + " line(s) from then on are missing");
}

std::string AbsoluteInputPath(const std::string& path) {
  if (path.empty() || path == "-") return path;
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

}  // namespace medreact
