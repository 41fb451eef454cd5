# symbolicate — build, example, tests, benchmark.
#
#   make run     installs what is missing, builds, symbolicates the bundled example
#   make test    builds the fixtures and runs every test
#   make bench   measures against llvm-symbolizer
#   make fuzz    fuzzes every parser for FUZZ_SECONDS each (default 60); fails on any finding

SWIFT       ?= swift
RELEASE_BIN := .build/release/symbolicate
FIXTURES    := Fixtures/build/manifest.txt
FUZZ_SECONDS ?= 60

# Debian packages the build, the fixtures and the tests need.
PACKAGES := libdwarf-dev libelf-dev zlib1g-dev libzstd-dev lld-14 llvm-14 llvm lld-19 llvm-19 binutils gcc g++ python3 libc6-dbg parallel

.PHONY: setup build run test bench fuzz fixtures clean

setup:
	@missing=""; for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "Installing:$$missing"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: setup
	$(SWIFT) build -c release --static-swift-stdlib --product symbolicate

fixtures: setup
	Fixtures/build.sh

run: build fixtures
	$(RELEASE_BIN) -d Fixtures/build/macho Fixtures/build/reports/App-arm64.crash

test: setup fixtures
	$(SWIFT) build --product symbolicate
	$(SWIFT) test --disable-swift-testing

bench: build fixtures
	bench/run.sh

fuzz: setup fixtures
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run.sh

clean:
	rm -rf .build .build-fuzz Fixtures/build
