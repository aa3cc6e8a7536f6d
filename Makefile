# The two commands a newcomer needs on a fresh Debian 12 machine:
#   make run    install what is missing, build, run the bundled example (no model server needed)
#   make test   install what is missing, build, run every test
# Everything comes from Debian 12 packages; nothing is downloaded from anywhere else.

BUILD_DIR ?= build
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Why each package is here: see README.md, "Dependencies".
DEPS := g++ cmake ninja-build pkg-config make \
        nlohmann-json3-dev libvalijson-dev libcurl4-openssl-dev libcpp-httplib-dev \
        libsqlite3-dev libspdlog-dev libfmt-dev libcli11-dev \
        libgtest-dev libgmock-dev libbenchmark-dev

.PHONY: all deps configure build test run bench clean

all: build

deps:
	@missing=""; for p in $(DEPS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing missing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 300

run: build
	@bash examples/run.sh $(BUILD_DIR)

bench: build
	$(BUILD_DIR)/medreact_bench --benchmark_min_time=0.2

clean:
	rm -rf $(BUILD_DIR)
