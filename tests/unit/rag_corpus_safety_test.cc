// Tests for the RAG corpus boundary and the index's location (rag_index.h):
// links out of the corpus (files and folders, absolute and relative, to
// system files and devices) are never indexed, links to folders are never
// followed (so loops of links cannot occur), FIFOs and sockets are never
// opened, documents over 8 MiB are left out, and each of these is a warning
// naming the path inside the corpus; a file that turns into one of them
// leaves the index. The index lives in a private per-user
// cache (XDG_CACHE_HOME, else HOME/.cache), never in the corpus.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/subprocess.h"
#include "tools/rag/rag_index.h"

namespace medreact {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::TempDir;

void Put(const TempDir& dir, const std::string& name, const std::string& content) {
  fs::create_directories(fs::path(dir.File(name)).parent_path());
  dir.Write(name, content);
}

RagIndex OpenOrDie(const std::string& dir, RagOptions options = {}) {
  Result<RagIndex> index = RagIndex::Open(dir, std::move(options));
  EXPECT_TRUE(index.ok()) << index.status().ToString();
  if (!index.ok()) std::abort();
  return std::move(*index);
}

std::set<std::string> Sources(const RagIndex& index, const std::string& query) {
  std::set<std::string> sources;
  Result<RagSearch> found = index.Search(query, 100);
  EXPECT_TRUE(found.ok()) << found.status().ToString();
  if (found.ok()) {
    for (const RagHit& hit : found->hits) sources.insert(hit.source);
  }
  return sources;
}

std::string AllWarnings(const RagUpdate& update) {
  std::string out;
  for (const std::string& w : update.warnings) out += w + "\n";
  return out;
}

mode_t Mode(const std::string& path) {
  struct stat st;
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Sets (or, with nullopt, unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// ---- The corpus boundary -------------------------------------------------------------

TEST(RagCorpusSafetyTest, LinksOutOfTheCorpusAreNeverIndexed) {
  TempDir outside, corpus;
  Put(outside, "secret.md", "# Secret\n\nzebrasecret leaked words\n");
  Put(outside, "notes/n.md", "# Notes\n\nzebrafolder leaked words\n");
  Put(corpus, "guide.md", "# Guide\n\ninsideword kept\n");
  Put(corpus, "sub/real.md", "# Real\n\ninsideword linked\n");
  fs::create_symlink(outside.File("secret.md"), corpus.File("leak.txt"));              // absolute, to a file
  fs::create_symlink(fs::relative(outside.File("secret.md"), corpus.path()), corpus.File("up.md"));  // relative
  fs::create_symlink(outside.File("notes"), corpus.File("linkdir"));                   // to a folder
  fs::create_symlink(outside.File("notes"), corpus.File("sub/deeper"));                // from a subfolder
  fs::create_symlink("/etc/passwd", corpus.File("passwd.txt"));
  fs::create_symlink("/dev/zero", corpus.File("zero.md"));                             // a device, outside
  fs::create_symlink(corpus.File("sub/real.md"), corpus.File("alias.md"));             // inside: followed
  fs::create_symlink(".", corpus.File("loop"));                                        // a folder loop
  fs::create_symlink("..", corpus.File("sub/up"));                                     // another one
  fs::create_symlink("selfloop.md", corpus.File("selfloop.md"));                       // a link loop
  fs::create_symlink("missing.md", corpus.File("dangling.md"));
  fs::create_symlink(outside.File("secret.md"), corpus.File("leak.json"));            // not a document: silent

  RagIndex index = OpenOrDie(corpus.path());
  const RagUpdate update = index.last_update();
  const std::string warnings = AllWarnings(update);
  EXPECT_TRUE(Sources(index, "zebrasecret").empty()) << "a file outside the corpus was indexed";
  EXPECT_TRUE(Sources(index, "zebrafolder").empty()) << "a folder outside the corpus was indexed";
  EXPECT_TRUE(Sources(index, "root daemon bin").empty()) << "/etc/passwd was indexed";
  EXPECT_EQ(Sources(index, "insideword"), (std::set<std::string>{"guide.md", "sub/real.md", "alias.md"}));
  EXPECT_EQ(update.files_scanned, 3u);
  EXPECT_THAT(warnings, AllOf(HasSubstr("skipped 'leak.txt': a symbolic link to a file outside the corpus"),
                              HasSubstr("skipped 'up.md': a symbolic link to a file outside"),
                              HasSubstr("skipped 'linkdir': a symbolic link to a folder outside"),
                              HasSubstr("skipped 'sub/deeper': a symbolic link to a folder outside"),
                              HasSubstr("skipped 'passwd.txt': a symbolic link to a file outside"),
                              HasSubstr("skipped 'zero.md': a symbolic link to a file outside"),
                              HasSubstr("skipped 'loop': a symbolic link to a folder inside the corpus"),
                              HasSubstr("skipped 'sub/up': a symbolic link to a folder inside the corpus"),
                              HasSubstr("skipped 'selfloop.md': a symbolic link that cannot be followed"),
                              HasSubstr("skipped 'dangling.md': a symbolic link that cannot be followed")));
  EXPECT_THAT(warnings, Not(HasSubstr("leak.json")));
  // Warnings name paths inside the corpus only.
  EXPECT_THAT(warnings, Not(HasSubstr(outside.path())));
  EXPECT_THAT(warnings, Not(HasSubstr(corpus.path())));
}

TEST(RagCorpusSafetyTest, AFileThatBecomesALinkOutLeavesTheIndex) {
  TempDir outside, corpus;
  Put(outside, "secret.md", "# Secret\n\nzebrasecret\n");
  Put(corpus, "a.md", "# A\n\nalpha original\n");
  Put(corpus, "b.md", "# B\n\nbeta\n");
  RagIndex index = OpenOrDie(corpus.path());
  EXPECT_EQ(Sources(index, "alpha"), (std::set<std::string>{"a.md"}));

  fs::remove(corpus.File("a.md"));
  fs::create_symlink(outside.File("secret.md"), corpus.File("a.md"));
  Result<RagUpdate> update = index.Refresh();
  ASSERT_TRUE(update.ok()) << update.status().ToString();
  EXPECT_EQ(update->files_removed, 1u);
  EXPECT_THAT(AllWarnings(*update), HasSubstr("skipped 'a.md': a symbolic link to a file outside"));
  EXPECT_TRUE(Sources(index, "alpha").empty());
  EXPECT_TRUE(Sources(index, "zebrasecret").empty());
  EXPECT_EQ(index.file_count(), 1u);
}

TEST(RagCorpusSafetyTest, FifosAndSocketsAreNeverOpened) {
  TempDir corpus;
  Put(corpus, "a.md", "# A\n\nalpha\n");
  // Opening a FIFO for reading blocks until a writer comes: the scan must not try.
  ASSERT_EQ(::mkfifo(corpus.File("pipe.md").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo(corpus.File("pipe.bin").c_str(), 0600), 0);
  const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string socket_path = corpus.File("sock.txt");
  ASSERT_LT(socket_path.size(), sizeof(address.sun_path));
  std::snprintf(address.sun_path, sizeof(address.sun_path), "%s", socket_path.c_str());
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);

  RagIndex index = OpenOrDie(corpus.path());
  ::close(sock);
  const std::string warnings = AllWarnings(index.last_update());
  EXPECT_EQ(index.last_update().files_scanned, 1u);
  EXPECT_THAT(warnings, AllOf(HasSubstr("skipped 'pipe.md': it is a FIFO, not a document"),
                              HasSubstr("skipped 'sock.txt': it is a socket, not a document")));
  EXPECT_THAT(warnings, Not(HasSubstr("pipe.bin")));
  EXPECT_EQ(Sources(index, "alpha"), (std::set<std::string>{"a.md"}));
}

TEST(RagCorpusSafetyTest, DocumentsOverTheSizeLimitAreLeftOut) {
  ASSERT_EQ(kMaxRagFileBytes, size_t{8} << 20);
  TempDir corpus;
  Put(corpus, "small.md", "# Small\n\nalpha\n");
  Put(corpus, "big.txt", "bigword " + std::string(kMaxRagFileBytes, 'x'));
  RagIndex index = OpenOrDie(corpus.path());
  EXPECT_EQ(index.last_update().files_scanned, 1u);
  EXPECT_THAT(AllWarnings(index.last_update()), AllOf(HasSubstr("skipped 'big.txt'"), HasSubstr("larger than 8 MiB")));
  EXPECT_TRUE(Sources(index, "bigword").empty());

  // An indexed document that grows past the limit leaves the index.
  Put(corpus, "small.md", "# Small\n\nalpha " + std::string(kMaxRagFileBytes, 'y'));
  Result<RagUpdate> update = index.Refresh();
  ASSERT_TRUE(update.ok()) << update.status().ToString();
  EXPECT_EQ(update->files_removed, 1u);
  EXPECT_THAT(AllWarnings(*update), HasSubstr("skipped 'small.md'"));
  EXPECT_EQ(index.chunk_count(), 0u);
}

// ---- Where the index lives ---------------------------------------------------------------

TEST(RagIndexLocationTest, DefaultIsAPrivatePerUserCacheOutsideTheCorpus) {
  TempDir cache, corpus;
  ScopedEnv xdg("XDG_CACHE_HOME", cache.path());
  Put(corpus, "a.md", "# A\n\nalpha\n");
  const std::string expected = *DefaultRagDbPath(corpus.path());
  EXPECT_EQ(fs::path(expected).parent_path(), fs::path(cache.path()) / "medreact" / "rag");
  EXPECT_THAT(fs::path(expected).filename().string(),
              AllOf(::testing::StartsWith(fs::path(corpus.path()).filename().string() + "-"),
                    ::testing::EndsWith(".sqlite")));
  {
    RagIndex index = OpenOrDie(corpus.path());
    EXPECT_EQ(index.db_path(), expected);
    EXPECT_EQ(index.last_update().files_added, 1u);
  }
  EXPECT_EQ(Mode(cache.File("medreact")), 0700u);
  EXPECT_EQ(Mode(cache.File("medreact/rag")), 0700u);
  EXPECT_EQ(Mode(expected), 0600u);
  // Nothing was written into the corpus.
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(corpus.path())) names.push_back(entry.path().filename());
  EXPECT_EQ(names, std::vector<std::string>{"a.md"});
  // Incremental re-indexing still works from there.
  RagIndex again = OpenOrDie(corpus.path());
  EXPECT_EQ(again.last_update().files_unchanged, 1u);
  EXPECT_EQ(again.last_update().reindexed(), 0u);
}

TEST(RagIndexLocationTest, ExistingCacheFoldersAndFilesAreMadePrivate) {
  TempDir cache, corpus;
  ScopedEnv xdg("XDG_CACHE_HOME", cache.path());
  Put(corpus, "a.md", "# A\n\nalpha\n");
  const std::string db = *DefaultRagDbPath(corpus.path());
  fs::create_directories(fs::path(db).parent_path());
  fs::permissions(cache.File("medreact"), fs::perms(0755));
  fs::permissions(cache.File("medreact/rag"), fs::perms(0777));
  { RagIndex index = OpenOrDie(corpus.path()); }
  fs::permissions(db, fs::perms(0644));
  { RagIndex index = OpenOrDie(corpus.path()); }
  EXPECT_EQ(Mode(cache.File("medreact")), 0700u);
  EXPECT_EQ(Mode(cache.File("medreact/rag")), 0700u);
  EXPECT_EQ(Mode(db), 0600u);

  // A link planted where the database goes is refused, not followed.
  TempDir other;
  Put(other, "b.md", "# B\n\nbeta\n");
  const std::string planted = *DefaultRagDbPath(other.path());
  fs::create_symlink(other.File("elsewhere.sqlite"), planted);
  Result<RagIndex> refused = RagIndex::Open(other.path());
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("not a regular file of this user"));
}

TEST(RagIndexLocationTest, HomeIsTheFallbackAndRelativeXdgIsIgnored) {
  TempDir home, corpus;
  Put(corpus, "a.md", "# A\n\nalpha\n");
  ScopedEnv home_env("HOME", home.path());
  const fs::path under_home = fs::path(home.path()) / ".cache" / "medreact" / "rag";
  {
    ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
    EXPECT_EQ(fs::path(*DefaultRagDbPath(corpus.path())).parent_path(), under_home);
    RagIndex index = OpenOrDie(corpus.path());
    EXPECT_TRUE(fs::exists(index.db_path()));
    EXPECT_EQ(Mode(home.File(".cache/medreact/rag")), 0700u);
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "relative/cache");  // the XDG spec says: ignore it
    EXPECT_EQ(fs::path(*DefaultRagDbPath(corpus.path())).parent_path(), under_home);
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
    ScopedEnv no_home("HOME", std::nullopt);
    Result<RagIndex> none = RagIndex::Open(corpus.path());
    ASSERT_FALSE(none.ok());
    EXPECT_THAT(none.status().message(), AllOf(HasSubstr("XDG_CACHE_HOME or HOME"), HasSubstr("database path")));
    // An explicit path needs neither.
    TempDir elsewhere;
    EXPECT_TRUE(RagIndex::Open(corpus.path(), {.db_path = elsewhere.File("i.sqlite")}).ok());
    EXPECT_EQ(Mode(elsewhere.File("i.sqlite")), 0600u);
  }
}

TEST(RagIndexLocationTest, OneIndexPerFolderWhateverTheSpelling) {
  TempDir base;
  Put(base, "corpus/a.md", "# A\n\nalpha\n");
  Put(base, "other/a.md", "# A\n\nalpha\n");
  fs::create_symlink(base.File("corpus"), base.File("alias"));
  const std::string db = *DefaultRagDbPath(base.File("corpus"));
  EXPECT_EQ(*DefaultRagDbPath(base.File("corpus") + "/"), db);
  EXPECT_EQ(*DefaultRagDbPath(base.File("other/../corpus")), db);
  EXPECT_EQ(*DefaultRagDbPath(base.File("alias")), db);
  EXPECT_NE(*DefaultRagDbPath(base.File("other")), db);
  EXPECT_FALSE(DefaultRagDbPath(base.File("missing")).ok());
  { RagIndex index = OpenOrDie(base.File("corpus")); }
  RagIndex again = OpenOrDie(base.File("alias"));
  EXPECT_EQ(again.db_path(), db);
  EXPECT_EQ(again.last_update().files_unchanged, 1u);
}

TEST(RagIndexLocationTest, AnIndexOfAnotherCorpusIsRebuilt) {
  TempDir first, second, elsewhere;
  Put(first, "a.md", "# A\n\nalpha\n");
  Put(second, "b.md", "# B\n\nbeta\n");
  const std::string db = elsewhere.File("shared.sqlite");
  { RagIndex index = OpenOrDie(first.path(), {.db_path = db}); }
  RagIndex index = OpenOrDie(second.path(), {.db_path = db});
  EXPECT_THAT(index.last_update().rebuild_reason, HasSubstr("another corpus"));
  EXPECT_EQ(index.file_count(), 1u);
  EXPECT_TRUE(Sources(index, "alpha").empty());
  EXPECT_EQ(Sources(index, "beta"), (std::set<std::string>{"b.md"}));
}

}  // namespace
}  // namespace medreact
