# The two commands a newcomer needs on a fresh Debian 12 machine:
#   make run    install what is missing, build, run the bundled example (no model server needed)
#   make test   install what is missing, build, run every test
# Everything comes from Debian 12 packages; nothing else is downloaded, except two test-only
# npm packages (the openai client and playwright-core, pinned in tests/node/package-lock.json)
# when npm is there.
#
# Hardening (clang build in build-sanitize/: ASan + UBSan, libFuzzer targets):
#   make test-sanitize               every test under AddressSanitizer + UndefinedBehaviorSanitizer
#   make fuzz-smoke                  each fuzzer FUZZ_SMOKE_SECONDS (15) over its seeds; fails on a crash
#   make fuzz                        the long run: each fuzzer 10 million runs or 20 minutes, whichever
#                                    comes first (FUZZ_RUNS, FUZZ_SECONDS), corpora in build-sanitize/fuzz-corpus/

BUILD_DIR ?= build
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Why each package is here: see README.md, "Dependencies". RUN_DEPS build what
# `make run` runs (medreact and the scripted model server); TEST_DEPS add the
# test and benchmark frameworks.
RUN_DEPS  := g++ cmake ninja-build pkg-config make ccache \
             nlohmann-json3-dev libvalijson-dev libcurl4-openssl-dev libcpp-httplib-dev \
             libsqlite3-dev libspdlog-dev libfmt-dev libcli11-dev libpugixml-dev \
             libdcmtk-dev libpng-dev libjpeg62-turbo-dev libboost1.81-dev \
             libssl-dev libpq-dev
# chromium: the browser playwright-core drives in the page's tests (tests/node/page_*.mjs).
# postgresql-15: the server the PostgreSQL tests start (tests/testing/postgres_server.h).
TEST_DEPS := libgtest-dev libgmock-dev libbenchmark-dev chromium postgresql-15
DEPS      := $(RUN_DEPS) $(TEST_DEPS)
# The binaries `make run` runs; `make build` builds every target.
RUN_TARGETS := medreact medreact-mock-llm

# ccache: a rebuild of unchanged sources, in this folder or in another clone
# (CI's fresh checkout), is a cache hit. base_dir makes the paths relative, so
# another folder hashes the same; hash_dir off keeps the folder out of the hash
# (debug info then names the folder that filled the cache). No compile holds
# an absolute path (CMakeLists.txt keeps them in one file per target), and the
# precompiled header is off under ccache: a .gch names its folder, so every
# file compiled with it missed in another clone, while without it a clean
# clone's build is served from the cache (docs/benchmarks.md, "CI").
export CCACHE_BASEDIR    := $(CURDIR)
export CCACHE_NOHASHDIR  := 1
export CCACHE_SLOPPINESS := time_macros,include_file_mtime,include_file_ctime
CCACHE := $(shell command -v ccache 2>/dev/null)
LAUNCHER = $(if $(CCACHE),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache -DMEDREACT_PCH=OFF)
# The sanitizer/fuzzing build: clang with its sanitizer and libFuzzer runtimes,
# llvm for llvm-symbolizer (readable stacks), jq to cut seed corpora from fixtures.
SANITIZE_DEPS := clang libclang-rt-14-dev llvm jq

SANITIZE_DIR       ?= build-sanitize
FUZZ_SMOKE_SECONDS ?= 15
FUZZ_SECONDS       ?= 1200
FUZZ_RUNS          ?= 10000000
FUZZ_JOBS          ?= 2
# Every sanitizer report is fatal and goes to a log file (children of the tests
# included: the CLI and the mock server), listed after the run. Exit code 86 is
# never one of medreact's own. Leaks: fuzz/lsan.supp explains each suppression.
SANITIZE_LOGS := $(abspath $(SANITIZE_DIR))/sanitizer-logs
SANITIZE_ENV  := ASAN_OPTIONS=halt_on_error=1:exitcode=86:detect_leaks=1:check_initialization_order=1:strict_init_order=1:log_path=$(SANITIZE_LOGS)/asan:log_exe_name=1 \
                 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=86:log_path=$(SANITIZE_LOGS)/ubsan:log_exe_name=1 \
                 LSAN_OPTIONS=suppressions=$(CURDIR)/fuzz/lsan.supp:print_suppressions=0 \
                 ASAN_SYMBOLIZER_PATH=/usr/bin/llvm-symbolizer

.PHONY: all deps deps-run node-deps configure configure-run build build-run test run bench clean \
        deps-sanitize build-sanitize test-sanitize fuzz-corpus fuzz-smoke fuzz

all: build

# $(call apt_install,PACKAGES): installs the packages that are not installed yet.
define apt_install
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing missing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

deps:
	$(call apt_install,$(DEPS))

deps-run:
	$(call apt_install,$(RUN_DEPS))

# -g1: line tables and function names (backtraces, profiles) without the
# variables' debug info, which is most of the compile and link time of -g.
# Configure a build dir of your own with -g for a debugger.
$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(LAUNCHER) \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"

configure: deps $(BUILD_DIR)/build.ninja

# Without GoogleTest and Benchmark installed the tests and benchmarks are not
# configured (CMake finds neither); `make test` installs them and re-configures.
configure-run: deps-run $(BUILD_DIR)/build.ninja

build: configure
	@if [ -f $(BUILD_DIR)/tests-not-configured ]; then cmake $(BUILD_DIR) >/dev/null; fi
	cmake --build $(BUILD_DIR) -j $(JOBS)

build-run: configure-run
	cmake --build $(BUILD_DIR) -j $(JOBS) --target $(RUN_TARGETS)

# The npm packages of the node tests (tests/node, README "Dependencies"): the openai
# client the facade's test drives, playwright-core that drives chromium in the page's
# test; installed from the committed lock file when node_modules is missing or older
# than it. Without npm the tests that need them are skipped, saying why.
NODE_DIR := tests/node
node-deps: $(NODE_DIR)/node_modules/.package-lock.json

$(NODE_DIR)/node_modules/.package-lock.json: $(NODE_DIR)/package-lock.json $(NODE_DIR)/package.json
	@if command -v npm >/dev/null 2>&1; then \
	  npm ci --prefix $(NODE_DIR) --no-audit --no-fund; \
	else \
	  echo "npm not found: the node tests (tests/node: openai client, page in chromium) will be skipped"; \
	fi

test: build node-deps
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 300

run: build-run
	@bash examples/run.sh $(BUILD_DIR)
	@bash examples/research/run.sh $(BUILD_DIR)
	@bash examples/cxr/run.sh $(BUILD_DIR)
	@bash examples/page.sh $(BUILD_DIR)

bench: build
	$(BUILD_DIR)/medreact_bench --benchmark_min_time=0.2

clean:
	rm -rf $(BUILD_DIR)

# --- Sanitizers and fuzzing (build-sanitize/) ---------------------------------

deps-sanitize: deps
	$(call apt_install,$(SANITIZE_DEPS))

# -O1 without NDEBUG: asserts (nlohmann's included) stay on; line tables are
# all a sanitizer report needs for file:line. No benchmark binary.
$(SANITIZE_DIR)/build.ninja:
	cmake -S . -B $(SANITIZE_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" $(LAUNCHER) \
	  -DCMAKE_CXX_COMPILER=clang++ \
	  -DMEDREACT_SANITIZE=ON -DMEDREACT_FUZZ=ON -DMEDREACT_BENCH=OFF

build-sanitize: deps-sanitize $(SANITIZE_DIR)/build.ninja
	cmake --build $(SANITIZE_DIR) -j $(JOBS)

test-sanitize: build-sanitize
	@rm -rf $(SANITIZE_LOGS) && mkdir -p $(SANITIZE_LOGS)
	@cd $(SANITIZE_DIR) && $(SANITIZE_ENV) ctest --output-on-failure -j $(JOBS) --timeout 600; status=$$?; \
	cd $(CURDIR); reports=$$(ls $(SANITIZE_LOGS)); \
	for f in $$reports; do echo "===== sanitizer report $(SANITIZE_LOGS)/$$f"; cat $(SANITIZE_LOGS)/$$f; done; \
	if [ -n "$$reports" ]; then echo "test-sanitize: $$(echo $$reports | wc -w) sanitizer report(s), see above"; exit 1; fi; \
	exit $$status

# Seeds per target under $(SANITIZE_DIR)/fuzz-seeds/ (committed seeds, regressions, cuts of fixtures).
fuzz-corpus: build-sanitize
	bash fuzz/make_corpus.sh $(SANITIZE_DIR) $(SANITIZE_DIR)/fuzz-seeds

# run_fuzzers.sh sets its own sanitizer options (reports on stderr, where libFuzzer reads them).
fuzz-smoke: fuzz-corpus
	bash fuzz/run_fuzzers.sh --build $(SANITIZE_DIR) --seconds $(FUZZ_SMOKE_SECONDS) \
	  --jobs $(FUZZ_JOBS) --mode smoke

fuzz: fuzz-corpus
	bash fuzz/run_fuzzers.sh --build $(SANITIZE_DIR) --seconds $(FUZZ_SECONDS) --runs $(FUZZ_RUNS) \
	  --jobs $(FUZZ_JOBS) --mode long
