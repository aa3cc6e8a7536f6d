// The run folder: where recorded runs keep the images they saw, by content
// hash, beside the run store: <store path>.images/<sha-256 hex>. Folder
// 0700, files 0600 (an image is patient data). A file is written once, then
// only read: two runs (or two turns) that saw the same bytes share it.
// Written before the checkpoint that names it commits, so a checkpoint
// never names an image that is not there (unless it was removed since).
//
// RunService::Prune deletes the files no remaining checkpoint or result
// names (an ended cxr run's result lists its images, for a run that
// continues its conversation), older than a grace period: a checkpoint may
// be about to name a new one.
#ifndef MEDREACT_SERVICE_RUN_IMAGES_H_
#define MEDREACT_SERVICE_RUN_IMAGES_H_

#include <string>
#include <string_view>
#include <utility>

#include "medreact/status.h"
#include "store/run_store.h"

namespace medreact::service {

// The server's upload folder beside the store (<store path>.uploads): files
// a request sent, kept 0600 by content ("<32 hex digits>-<safe name>") and
// named by the run inputs that use them. RunService::Prune removes those no
// remaining run names.
inline std::string UploadFolderForStore(const std::string& store_path) {
  return RunStoreFilesBase(store_path) + ".uploads";
}

class RunImageFolder {
 public:
  // The folder of the store at `store_path` (RunStoreFilesBase: a
  // PostgreSQL store's is a local folder).
  static std::string ForStore(const std::string& store_path) { return RunStoreFilesBase(store_path) + ".images"; }
  explicit RunImageFolder(std::string dir) : dir_(std::move(dir)) {}

  const std::string& dir() const { return dir_; }
  std::string PathOf(const std::string& sha256) const { return dir_ + "/" + sha256; }

  // Keeps `bytes` (the folder made when missing); returns their sha-256.
  // Unavailable naming the folder when it cannot be written.
  Result<std::string> Put(std::string_view bytes) const;
  // The bytes kept as `sha256`: NotFound naming the file when missing,
  // FailedPrecondition when its content no longer has that hash.
  Result<std::string> Get(const std::string& sha256) const;

 private:
  std::string dir_;
};

}  // namespace medreact::service

#endif  // MEDREACT_SERVICE_RUN_IMAGES_H_
