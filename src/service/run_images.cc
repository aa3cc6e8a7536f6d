// The run folder. See run_images.h.
#include "service/run_images.h"

#include <sys/stat.h>

#include "core/file_io.h"
#include "core/sha256.h"

namespace medreact::service {

Result<std::string> RunImageFolder::Put(std::string_view bytes) const {
  const std::string hash = Sha256Hex(bytes);
  const std::string path = PathOf(hash);
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && static_cast<size_t>(st.st_size) == bytes.size()) {
    return hash;  // kept already (Get checks the content when it is read)
  }
  if (Status s = MakePrivateFolders(dir_); !s.ok()) {
    return Status::Unavailable(s.message() + " (the run folder, where a run keeps the images it saw)");
  }
  if (Status s = WriteFileAtomic(path, bytes); !s.ok()) return s;
  return hash;
}

Result<std::string> RunImageFolder::Get(const std::string& sha256) const {
  const std::string path = PathOf(sha256);
  Result<std::string> bytes = ReadUserFile(path, "kept image", size_t{1} << 30);
  if (!bytes.ok()) {
    if (bytes.status().code() == StatusCode::kNotFound) {
      return Status::NotFound("the kept image " + path + " is missing");
    }
    return bytes.status();
  }
  if (Sha256Hex(*bytes) != sha256) {
    return Status::FailedPrecondition("the kept image " + path + " has changed (its content no longer has that "
                                      "sha-256)");
  }
  return bytes;
}

}  // namespace medreact::service
