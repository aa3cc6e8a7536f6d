// Output files (issue 23, items 2 and 3), in process: a path that is not a new
// path or a regular file (a FIFO, a socket, a folder, a symlink to one, "-")
// is refused by every writer and never opened (a FIFO opened to write would
// block); an existing regular file keeps its owner's mode; the event log
// writes whole lines and says so. Devices and a full disk, with the real
// binary: tests/integration/output_paths_test.cc.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/file_io.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using testing::ReadFileOrEmpty;
using testing::TempDir;

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 ? st.st_mode : 0;
}

TEST(FileIoOutputTest, AnExistingFileIsTruncatedAndKeepsItsOwnersMode) {
  TempDir dir;
  dir.Write("events.jsonl", "an older, longer log\n");
  ASSERT_EQ(::chmod(dir.File("events.jsonl").c_str(), 0640), 0);
  Result<std::FILE*> file = OpenPrivateFile(dir.File("events.jsonl"), "event log");
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  std::fputs("new\n", *file);
  std::fclose(*file);
  EXPECT_EQ(ReadFileOrEmpty(dir.File("events.jsonl")), "new\n");
  EXPECT_EQ(ModeOf(dir.File("events.jsonl")) & 0777, 0640u);  // never chmod what medreact did not create

  Result<std::FILE*> created = OpenPrivateFile(dir.File("new.jsonl"), "event log");
  ASSERT_TRUE(created.ok());
  std::fclose(*created);
  EXPECT_EQ(ModeOf(dir.File("new.jsonl")) & 0777, 0600u);
}

TEST(FileIoOutputTest, FifosSocketsFoldersSymlinksToThemAndDashAreRefusedNeverOpened) {
  TempDir dir;
  ASSERT_EQ(::mkfifo(dir.File("fifo").c_str(), 0644), 0);
  ASSERT_EQ(::symlink(dir.File("fifo").c_str(), dir.File("link").c_str()), 0);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string sock = dir.File("sock");
  ASSERT_LT(sock.size(), sizeof addr.sun_path);
  std::memcpy(addr.sun_path, sock.c_str(), sock.size() + 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ::close(fd);
  const struct {
    std::string path, says;
  } cases[] = {{dir.File("fifo"), "a FIFO"}, {dir.File("link"), "a FIFO"}, {sock, "a socket"},
               {dir.path(), "a folder"}, {"-", "standard output is not a file here"}};
  for (const auto& c : cases) {
    const mode_t before = ModeOf(c.path);
    EXPECT_THAT(CheckOutputPath(c.path, "trace").message(), HasSubstr(c.says)) << c.path;
    // Each writer refuses it; none blocks on the FIFO (no reader) or replaces it.
    Result<std::FILE*> opened = OpenPrivateFile(c.path, "event log");
    EXPECT_FALSE(opened.ok()) << c.path;
    if (opened.ok()) std::fclose(*opened);
    EXPECT_FALSE(LineLog::Open(c.path, "event log").ok()) << c.path;
    EXPECT_FALSE(WriteFileAtomic(c.path, "x").ok()) << c.path;
    EXPECT_EQ(ModeOf(c.path), before) << c.path;
    if (c.path != "-") {
      EXPECT_FALSE(CheckRegularOrNew(c.path, "research memory").ok()) << c.path;
    }
  }
  EXPECT_EQ(::access("-", F_OK), -1);  // "-" never became a file
  EXPECT_TRUE(CheckRegularOrNew(dir.File("new.sqlite"), "research memory").ok());
  dir.Write("old.sqlite", "");
  EXPECT_TRUE(CheckRegularOrNew(dir.File("old.sqlite"), "research memory").ok());
}

TEST(FileIoOutputTest, ALineLogWritesWholeLinesAndIsOkWhenEveryWriteWas) {
  TempDir dir;
  Result<std::unique_ptr<LineLog>> log = LineLog::Open(dir.File("e.jsonl"), "event log");
  ASSERT_TRUE(log.ok());
  (*log)->Write("{\"a\": 1}");
  (*log)->Write("{\"b\": 2}");
  EXPECT_TRUE((*log)->status().ok());
  EXPECT_EQ(ReadFileOrEmpty(dir.File("e.jsonl")), "{\"a\": 1}\n{\"b\": 2}\n");  // flushed as written
}

}  // namespace
}  // namespace medreact
