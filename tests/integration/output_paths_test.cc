// Every output flag of every command against paths that are not files
// (issue 23, items 2 and 3), as the medreact binary meets them:
//
//   - cloned device nodes (a null and a full device made with mknod in a
//     temporary folder: never the machine's own /dev), a FIFO, a socket, and
//     symlinks to a device and to a FIFO: each refused before any work with
//     exit 2 and one line naming the path, and the node left exactly as it
//     was (type, device number, mode);
//   - a full disk (a small tmpfs mounted in a private mount namespace, filled
//     up): the event log, the trace and the result each fail by name and the
//     exit code says so; the run store's failed write is a clear error and
//     the runs committed before it are still there.
//
// Device nodes need root (mknod), the full disk a private mount namespace
// (unshare -m); each test says why it skips when the machine cannot.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "medreact/json.h"
#include "testing/build_paths.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::MockLlmProcess;
using testing::ProcessResult;
using testing::RunCommand;
using testing::TempDir;

const std::string kSource = MEDREACT_SOURCE_DIR;
const std::string kBundle = kSource + "/examples/worklist/01-pe-on-warfarin/fhir.json";
const std::string kWorklist = kSource + "/examples/worklist";
const std::string kChest = kSource + "/tests/fixtures/dicom/CR-MONO1-10-chest.dcm";
const std::string kNote = kSource + "/examples/extract/adult-weight-loss.txt";
const std::string kSchema = kSource + "/examples/extract/adult-weight-loss.schema.json";
const std::string kUnreachable = "http://127.0.0.1:1/v1";  // a run that started would fail here, exit 1

// One command with one output flag; `path` goes where the flag's value does.
struct OutputFlag {
  std::string name;  // "chat --trace"
  std::vector<std::string> argv;
};

// Every output flag of every command (grep the CLI for add_option of a path
// written: --out, --trace, --events, --report, --png, --json, --cache,
// --memory, --rag-db, --store). `scratch` holds the other files they need.
std::vector<OutputFlag> EveryOutputFlag(const std::string& path, const TempDir& scratch) {
  const std::string bin = MEDREACT_BINARY;
  const std::string store = scratch.File("runs.sqlite");
  std::vector<OutputFlag> flags = {
      {"chat --trace", {bin, "chat", "--llm-url", kUnreachable, "--no-store", "--trace", path, "q"}},
      {"chat --events", {bin, "chat", "--llm-url", kUnreachable, "--no-store", "--events", path, "q"}},
      {"chat --store", {bin, "chat", "--llm-url", kUnreachable, "--store", path, "q"}},
      {"triage --out", {bin, "triage", "--fhir", kBundle, "--findings", "Acute PE", "--no-store", "--out", path}},
      {"triage --trace", {bin, "triage", "--fhir", kBundle, "--findings", "Acute PE", "--no-store", "--trace", path}},
      {"triage --store",  // only a model's investigation is recorded
       {bin, "triage", "--fhir", kBundle, "--findings", "Acute PE", "--llm-url", kUnreachable, "--store", path}},
      {"extract --out", {bin, "extract", "--note", kNote, "--schema", kSchema, "--no-store", "--out", path}},
      {"extract --trace", {bin, "extract", "--note", kNote, "--schema", kSchema, "--no-store", "--trace", path}},
      {"extract --events", {bin, "extract", "--note", kNote, "--schema", kSchema, "--no-store", "--events", path}},
      {"extract --rag-db",
       {bin, "extract", "--note", kNote, "--schema", kSchema, "--no-store", "--corpus", kSource + "/data/guidelines",
        "--rag-db", path}},
      {"cxr --out", {bin, "cxr", kChest, "--question", "q", "--no-store", "--out", path}},
      {"cxr --trace", {bin, "cxr", kChest, "--question", "q", "--no-store", "--trace", path}},
      {"cxr --events", {bin, "cxr", kChest, "--question", "q", "--no-store", "--events", path}},
      {"cxr --image-dir", {bin, "cxr", kChest, "--question", "q", "--no-store", "--image-dir", path}},
      {"research --out", {bin, "research", "q?", "--planner", "rules", "--no-store", "--out", path}},
      {"research --report", {bin, "research", "q?", "--planner", "rules", "--no-store", "--report", path}},
      {"research --events", {bin, "research", "q?", "--planner", "rules", "--no-store", "--events", path}},
      {"research --trace", {bin, "research", "q?", "--planner", "rules", "--no-store", "--trace", path}},
      {"research --cache", {bin, "research", "q?", "--planner", "rules", "--no-store", "--cache", path}},
      {"research --memory", {bin, "research", "q?", "--planner", "rules", "--no-store", "--memory", path}},
      {"worklist --out", {bin, "worklist", kWorklist, "-q", "--no-store", "--out", path}},
      {"worklist --events", {bin, "worklist", kWorklist, "-q", "--no-store", "--out", scratch.File("wl"), "--events",
                             path}},
      {"runs resume --trace", {bin, "runs", "resume", "run_none", "--store", store, "--trace", path}},
      {"runs resume --events", {bin, "runs", "resume", "run_none", "--store", store, "--events", path}},
      {"runs approve --trace", {bin, "runs", "approve", "run_none", "--store", store, "--trace", path}},
      {"runs reject --events", {bin, "runs", "reject", "run_none", "--store", store, "--events", path}},
      {"runs list --store", {bin, "runs", "list", "--store", path}},
      {"dicom --png", {bin, "dicom", kChest, "--png", path}},
      {"dicom --json", {bin, "dicom", kChest, "--png", scratch.File("chest.png"), "--json", path}},
      {"eval medcalc --out", {bin, "eval", "medcalc", "--data", scratch.File("bench.csv"), "--out", path}},
  };
  return flags;
}

// What a node is, to see that nothing replaced, retyped or chmod'ed it.
struct NodeState {
  bool exists = false;
  mode_t mode = 0;
  dev_t rdev = 0;
  ino_t ino = 0;
  std::string link;  // a symlink's target
  bool operator==(const NodeState&) const = default;
};

NodeState StateOf(const std::string& path) {
  NodeState s;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return s;
  s = {.exists = true, .mode = st.st_mode, .rdev = st.st_rdev, .ino = st.st_ino};
  if (S_ISLNK(st.st_mode)) {
    char target[4096];
    const ssize_t n = ::readlink(path.c_str(), target, sizeof target);
    if (n > 0) s.link.assign(target, static_cast<size_t>(n));
  }
  return s;
}

// A socket file at `path`, bound (and left) by this process.
bool MakeSocket(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) return false;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

// Runs every output flag against `path` and checks each was refused before
// any work and left the node (and, for a symlink, its target) as it was.
void ExpectEveryFlagRefuses(const std::string& path, const std::string& target, const std::string& kind) {
  TempDir scratch;
  scratch.Write("bench.csv", "Row Number,Calculator ID\n");
  const NodeState before = StateOf(path);
  const NodeState target_before = StateOf(target);
  ASSERT_TRUE(before.exists) << path;
  for (const OutputFlag& f : EveryOutputFlag(path, scratch)) {
    ProcessResult r = RunCommand(f.argv, {{"XDG_CACHE_HOME", scratch.File("cache")}}, std::chrono::seconds(60));
    EXPECT_EQ(r.term_signal, 0) << f.name << " on " << kind;
    EXPECT_EQ(r.exit_code, 2) << f.name << " on " << kind << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr(path)) << f.name << " on " << kind;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << f.name << " on " << kind << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << f.name << " on " << kind << ": " << r.out;
    EXPECT_TRUE(StateOf(path) == before) << f.name << " changed " << kind;
    EXPECT_TRUE(StateOf(target) == target_before) << f.name << " changed the target of " << kind;
  }
  // Nothing was made beside it (a SQLite journal, a temporary file).
  const std::string folder = path.substr(0, path.rfind('/'));
  for (const char* suffix : {"-journal", "-wal", "-shm"}) {
    EXPECT_FALSE(StateOf(path + suffix).exists) << path + suffix;
  }
  (void)folder;
}

TEST(OutputPathsTest, EveryOutputFlagRefusesAFifoASocketAndASymlinkToAFifo) {
  TempDir dir;
  ASSERT_EQ(::mkfifo(dir.File("fifo").c_str(), 0644), 0);
  ASSERT_TRUE(MakeSocket(dir.File("sock")));
  ASSERT_EQ(::symlink(dir.File("fifo").c_str(), dir.File("link-fifo").c_str()), 0);
  ExpectEveryFlagRefuses(dir.File("fifo"), dir.File("fifo"), "a FIFO");
  ExpectEveryFlagRefuses(dir.File("sock"), dir.File("sock"), "a socket");
  ExpectEveryFlagRefuses(dir.File("link-fifo"), dir.File("fifo"), "a symlink to a FIFO");
}

TEST(OutputPathsTest, EveryOutputFlagRefusesClonedDevicesAndASymlinkToOne) {
  TempDir dir;
  // Clones of the null and full devices (1,3 and 1,7 on Linux), in a folder of
  // the test's own: the machine's /dev is never touched.
  if (::mknod(dir.File("null").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    GTEST_SKIP() << "cannot make a device node here (mknod: " << std::strerror(errno)
                 << "; needs root or CAP_MKNOD): the FIFO and socket test covers the check";
  }
  ASSERT_EQ(::mknod(dir.File("full").c_str(), S_IFCHR | 0640, makedev(1, 7)), 0);
  ASSERT_EQ(::symlink(dir.File("null").c_str(), dir.File("link-null").c_str()), 0);
  ExpectEveryFlagRefuses(dir.File("null"), dir.File("null"), "a null device");
  ExpectEveryFlagRefuses(dir.File("full"), dir.File("full"), "a full device");
  ExpectEveryFlagRefuses(dir.File("link-null"), dir.File("null"), "a symlink to a null device");
}

TEST(OutputPathsTest, StandardOutputOnAFullDeviceIsAFailureNamedOnStderr) {
  TempDir dir;
  if (::mknod(dir.File("full").c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0) {
    GTEST_SKIP() << "cannot make a device node here (mknod: " << std::strerror(errno) << "; needs root or CAP_MKNOD)";
  }
  const NodeState before = StateOf(dir.File("full"));
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"calc", "list"},
        std::vector<std::string>{"triage", "--fhir", kBundle, "--findings", "Acute PE", "--no-store"},
        std::vector<std::string>{"worklist", kWorklist, "-q", "--no-store", "--out", dir.File("wl")}}) {
    std::vector<std::string> argv = {"/bin/sh", "-c", "out=$1; shift; exec \"$@\" > \"$out\"", "sh",
                                     dir.File("full"), MEDREACT_BINARY};
    argv.insert(argv.end(), command.begin(), command.end());
    ProcessResult r = RunCommand(argv);
    EXPECT_EQ(r.term_signal, 0) << command[0];
    EXPECT_EQ(r.exit_code, 1) << command[0] << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr("writing to standard output failed")) << command[0];
  }
  EXPECT_TRUE(StateOf(dir.File("full")) == before);
}

TEST(OutputPathsTest, ResearchReportDashIsStandardOutputAndDashIsRefusedElsewhere) {
  TempDir scratch;
  ProcessResult trace = RunCommand(
      {MEDREACT_BINARY, "chat", "--llm-url", kUnreachable, "--no-store", "--trace", "-", "q"});
  EXPECT_EQ(trace.exit_code, 2) << trace.err;
  EXPECT_THAT(trace.err, HasSubstr("standard output is not a file here"));
  EXPECT_FALSE(StateOf("-").exists);
  ProcessResult report = RunCommand({MEDREACT_BINARY, "research", "q?", "--planner", "rules", "--no-store", "--cache",
                                     scratch.File("c.sqlite"), "--max-rounds", "1", "--report", "-", "-q"});
  EXPECT_EQ(report.term_signal, 0);
  EXPECT_NE(report.exit_code, 2) << report.err;
  EXPECT_FALSE(report.out.empty()) << report.err;  // the report, on stdout
}

// ---- A full disk --------------------------------------------------------------------

// unshare(1), by its path (RunCommand runs a path, not a name); "" when absent.
std::string Unshare() {
  for (const char* path : {"/usr/bin/unshare", "/bin/unshare"}) {
    if (::access(path, X_OK) == 0) return path;
  }
  return "";
}

// Why this machine cannot mount a tmpfs in a private mount namespace; "" when it can.
std::string FullDiskUnavailable() {
  if (Unshare().empty()) return "no unshare(1) here to make a private mount namespace";
  TempDir probe;
  ProcessResult r = RunCommand({Unshare(), "-m", "/bin/sh", "-c", "mount -t tmpfs -o size=64k tmpfs \"$1\"", "sh",
                                probe.path()});
  if (r.exit_code == 0) return "";
  return "no private mount namespace with a tmpfs here (unshare -m; mount needs CAP_SYS_ADMIN): " + r.err;
}

// `script` run by sh in a private mount namespace, with $1 a small tmpfs
// (`size`) and $2 the medreact binary; the tmpfs vanishes with it. "fill"
// in the script fills the tmpfs up.
ProcessResult OnSmallDisk(const std::string& mount_point, const std::string& size, const std::string& script,
                          const std::vector<std::string>& args = {}) {
  const std::string prelude =
      "set -u; mount -t tmpfs -o size=" + size + " tmpfs \"$1\" || exit 99; "
      "fill() { head -c 64000000 /dev/zero > \"$1/fill\" 2>/dev/null; true; }; ";
  std::vector<std::string> argv = {Unshare(), "-m", "/bin/sh", "-c", prelude + script, "sh", mount_point,
                                   MEDREACT_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, {}, std::chrono::seconds(120));
}

TEST(OutputPathsTest, AFullDiskFailsTheEventLogTheTraceAndTheResultByName) {
  if (std::string why = FullDiskUnavailable(); !why.empty()) GTEST_SKIP() << why;
  MockLlmProcess mock(R"({"responses": [{"message": {"content": "ok"}}], "on_exhausted": "repeat_last"})");
  ASSERT_TRUE(mock.ok());
  TempDir dir;
  struct Case {
    std::string name, flag, file;
    std::vector<std::string> args;
  };
  const std::vector<Case> cases = {
      {"chat --events", "--events", "events.jsonl", {"chat", "--llm-url", mock.base_url(), "--no-store", "q"}},
      {"chat --trace", "--trace", "trace.json", {"chat", "--llm-url", mock.base_url(), "--no-store", "q"}},
      {"triage --out", "--out", "result.json", {"triage", "--fhir", kBundle, "--findings", "Acute PE", "--no-store"}},
      {"triage --trace", "--trace", "trace.json",
       {"triage", "--fhir", kBundle, "--findings", "Acute PE", "--no-store", "--planner", "rules"}},
      {"extract --events", "--events", "events.jsonl", {"extract", "--note", kNote, "--schema", kSchema, "--no-store"}},
      {"worklist --events", "--events", "events.jsonl",
       {"worklist", kWorklist, "-q", "--no-store", "--out", dir.File("wl")}},
      {"research --events", "--events", "events.jsonl",
       {"research", "q?", "--planner", "rules", "--no-store", "--max-rounds", "1", "-q", "--cache",
        dir.File("c.sqlite")}},
      {"research --trace", "--trace", "trace.json",
       {"research", "q?", "--planner", "rules", "--no-store", "--max-rounds", "1", "-q", "--cache",
        dir.File("c.sqlite")}},
  };
  for (const Case& c : cases) {
    TempDir mount;
    std::vector<std::string> args = c.args;
    args.push_back(c.flag);
    args.push_back(mount.File(c.file));
    // The binary and its arguments are "$2" "$3" ...: the path is on the full tmpfs.
    ProcessResult r = OnSmallDisk(mount.path(), "256k", "fill \"$1\"; shift; exec \"$@\"", args);
    ASSERT_NE(r.exit_code, 99) << r.err;
    EXPECT_EQ(r.term_signal, 0) << c.name;
    EXPECT_EQ(r.exit_code, 1) << c.name << "\n" << r.err;
    EXPECT_THAT(r.err, HasSubstr(mount.File(c.file))) << c.name;
    EXPECT_THAT(r.err, HasSubstr("No space left on device")) << c.name;
  }
}

TEST(OutputPathsTest, AStoreOnAFullDiskFailsClearlyAndKeepsTheRunsCommittedBefore) {
  if (std::string why = FullDiskUnavailable(); !why.empty()) GTEST_SKIP() << why;
  // The first chat is answered at once; the second one's answer comes 5 s
  // late, and the disk is filled while it waits; the third opens the full
  // store. (The 5 s are no timed assertion: the script waits until the second
  // run is recorded, which takes milliseconds, before it fills the disk.)
  MockLlmProcess mock(R"({"responses": [{"message": {"content": "first"}},
                                         {"message": {"content": "second"}, "delay_ms": 5000},
                                         {"message": {"content": "third"}}], "on_exhausted": "repeat_last"})");
  ASSERT_TRUE(mock.ok());
  TempDir mount;
  TempDir dir;
  // Exit codes, stderr and the final list go to files outside the tmpfs.
  const std::string script =
      "d=$1; bin=$2; out=$3; url=$4; store=$d/runs.sqlite; "
      "$bin chat --llm-url $url --store $store q1 > /dev/null 2> $out/first.err; echo first=$? > $out/codes; "
      "$bin chat --llm-url $url --store $store q2 > /dev/null 2> $out/second.err & pid=$!; "
      "i=0; until $bin runs list --store $store --status running 2>/dev/null | grep -q chat; do "
      "  i=$((i+1)); [ $i -gt 300 ] && break; sleep 0.1; done; "  // the second run is recorded and waits
      "fill $d; wait $pid; echo second=$? >> $out/codes; "
      "$bin chat --llm-url $url --store $store q3 > /dev/null 2> $out/third.err; echo third=$? >> $out/codes; "
      "rm -f $d/fill; "
      "$bin runs list --store $store --json > $out/list.json 2> $out/list.err; echo list=$? >> $out/codes";
  ProcessResult r = OnSmallDisk(mount.path(), "2m", script, {dir.path(), mock.base_url()});
  ASSERT_NE(r.exit_code, 99) << r.err;
  const std::string codes = testing::ReadFileOrEmpty(dir.File("codes"));
  auto err = [&dir](const char* name) { return testing::ReadFileOrEmpty(dir.File(name)); };
  EXPECT_THAT(codes, HasSubstr("first=0")) << codes << err("first.err");
  // The second run's checkpoint could not be written: said on stderr, with
  // what to do; the run still answers (a store problem never costs the answer).
  EXPECT_THAT(err("second.err"), HasSubstr("the disk holding it is full")) << codes << err("second.err");
  EXPECT_THAT(err("second.err"), HasSubstr("the run goes on without its checkpoints")) << err("second.err");
  EXPECT_THAT(codes, HasSubstr("second=1")) << codes;  // the record is incomplete: not a success
  EXPECT_THAT(err("second.err"), HasSubstr("its record of the run is incomplete")) << err("second.err");
  // The third opens the full store: it runs and records, or its store fails
  // mid-run (exit 1, said), or it stops at once (exit 2) saying the disk is
  // full; never a silent loss.
  EXPECT_THAT(codes, ::testing::AnyOf(HasSubstr("third=0"), HasSubstr("third=1"), HasSubstr("third=2")))
      << codes << err("third.err");
  if (codes.find("third=1") != std::string::npos) {
    EXPECT_THAT(err("third.err"), HasSubstr("its record of the run is incomplete")) << err("third.err");
  } else if (codes.find("third=0") == std::string::npos) {
    EXPECT_THAT(err("third.err"), HasSubstr("the disk holding it is full")) << err("third.err");
  }
  // What was committed before the disk filled is all there.
  EXPECT_THAT(codes, HasSubstr("list=0")) << codes << err("list.err");
  Result<Json> list = ParseJson(testing::ReadFileOrEmpty(dir.File("list.json")));
  ASSERT_TRUE(list.ok() && list->is_array()) << err("list.err");
  bool first_kept = false;  // the run committed before the disk filled, with its answer
  for (const Json& run : *list) {
    const Json* result = run.is_object() && run.contains("result") ? &run["result"] : nullptr;
    first_kept = first_kept || (StringOr(run, "status") == "finished" && result != nullptr &&
                                StringOr(*result, "answer") == "first");
  }
  EXPECT_TRUE(first_kept) << DumpJson(*list, 2);
}

}  // namespace
}  // namespace medreact
