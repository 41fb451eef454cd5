# symbolicate — build, example, tests, benchmark.
#
#   make run     installs what the build and the example need, builds, symbolicates the bundled example
#   make test    the tests of the libraries, in the test process, several at once (a minute or two)
#   make check   every test: those of make test, the oracles, the producers' programs, the
#                end-to-end tests of the release program, packaging and the browser (the grouping
#                page's screenshot: .build/test-output/group.png); then make fuzz-replay
#   make test-shuffled  runs every test in a random order (SEED=N to repeat one; Tests/run-shuffled.sh)
#   make bench   measures against llvm-symbolizer
#   make symbol-order  lists the functions a run executes, for the linker to put together
#   make fuzz    fuzzes every parser for FUZZ_SECONDS each (default 60); fails on any finding
#   make fuzz-replay  runs every parser's harness over its kept inputs and seeds (CI)
#   make install installs the program, its manual page and shell completions under PREFIX
#                (default /usr/local; DESTDIR stages them); make uninstall removes them
#   make deb     builds the Debian package symbolicate_VERSION_ARCH.deb in .build/deb

SWIFT       ?= swift
RELEASE_BIN := .build/release/symbolicate
# The order the linker puts the release program's functions in (make symbol-order).
SYMBOL_ORDER := packaging/symbol-order.txt
FIXTURES    := Fixtures/build/manifest.txt
# More options for the release build (the tests of `make install` and `make deb` give
# --ignore-lock: they run while `swift test` holds the lock of .build).
SWIFT_BUILD_FLAGS ?=
FUZZ_SECONDS ?= 60

# Debian packages `make run` needs (make setup): the build (libelf, zlib and zstd for the DWARF
# shim; LLVM 19's demangler library; the headers of libcurl and libdebuginfod) and the example's
# fixtures (Fixtures/build.sh: gcc, LLVM 14's and 19's linkers and dsymutil, binutils, python3, rustc).
PACKAGES := libelf-dev zlib1g-dev libzstd-dev llvm-19-dev libcurl4-openssl-dev libdebuginfod-dev \
            gcc g++ lld-14 llvm-14 llvm lld-19 llvm-19 binutils python3 rustc
# What make deb adds (make setup-deb): dpkg-shlibdeps and dpkg-architecture.
DEB_PACKAGES := dpkg-dev
# What the tests add (make setup-test, for make test and make check): libdwarf (the DWARF reader's
# reference), glibc's debug file, the producers' compilers (Fixtures/producers.sh), a debuginfod
# server, strace, make deb's tools and its lint, man, a terminal (script), bash's completion,
# a browser, GNU time and GNU parallel, the zstd tool (symbol servers' compressed files), and
# protoc with Python's protobuf package (the tests' encoder of protobuf reports, Fixtures/
# encode_protobuf_report.py; the build itself needs neither).
TEST_PACKAGES := $(DEB_PACKAGES) libdwarf-dev libc6-dbg clang-14 clang-19 debuginfod strace \
            lintian man-db bsdutils bash-completion \
            chromium time parallel zstd protobuf-compiler python3-protobuf

# The test targets of make check's tier only (Package.swift): make test runs every other one.
CHECK_TARGETS := IntegrationTests CLITests
# make check's end-to-end tests run the release program (CLITests: SYMBOLICATE_TEST_BINARY).
CHECK_ENV   := SYMBOLICATE_TEST_BINARY=$(CURDIR)/$(RELEASE_BIN)
TEST_OUTPUT := .build/test-output
# `swift test --parallel` shows what a test printed only when it failed: the skips for want of
# the shared corpus are said once, after the tests.
CORPUS_NOTE := [ -d ../shared/corpus ] || echo "../shared/corpus is absent: the tests that read the shared corpus were skipped"
empty :=
space := $(empty) $(empty)

# Where `make install` puts things: $(DESTDIR)$(PREFIX)/...
PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d

# The manual page and the completion scripts, made from the built program.
GENERATED       := .build/generated
MAN_PAGE        := $(GENERATED)/symbolicate.1
GENERATE_MANUAL := .build/tools/debug/generate-manual
ARGUMENT_PARSER := .build/checkouts/swift-argument-parser
# The commit the program is built from, for --version (see Sources/symbolicate/Version.swift).
BUILD_COMMIT    := Sources/symbolicate/BuildCommit.swift
# The manual page's date: the commit's, so that the page does not change from one day to the next.
MAN_DATE        ?= $(shell git log -1 --format=%cs 2>/dev/null || date -u +%F)

.PHONY: setup setup-deb setup-test build symbol-order run test check check-tests bench fuzz fuzz-replay fixtures producers clean commit man completions install uninstall deb

# Installs those of the packages $(1) that are missing.
define install-missing
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "Installing:$$missing"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
endef

setup:
	$(call install-missing,$(PACKAGES))

setup-deb:
	$(call install-missing,$(PACKAGES) $(DEB_PACKAGES))

setup-test:
	$(call install-missing,$(PACKAGES) $(TEST_PACKAGES))

# The release program: the Swift runtime linked in, no $$ORIGIN search path (nothing is loaded
# from beside it), its relocations resolved at start and then made read-only (bindnow), the
# commit it is built from compiled in. Linked by the toolchain's lld with its relative
# relocations packed (RELR, glibc 2.36 and later): the 48,000 pointers of Swift's metadata
# take 9 KB instead of 1.1 MB, which every run read at start; and its symbols not exported
# (nothing loads it as a library or looks its symbols up by name): the dynamic loader no
# longer searches 8,900 of them, 550 KB, for each symbol it binds. Every function is compiled
# into its own section, and the functions a run executes are linked together, in the order of
# $(SYMBOL_ORDER) (make symbol-order): the 1 MB of code a run uses is in one place instead of
# spread over 13 MB, of which the kernel maps the pages around every page touched. At start a
# run holds 8.3 MB, not 12.4.
build: setup commit
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) -c release --static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now \
		-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic \
		-Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xcxx -ffunction-sections \
		-Xlinker --symbol-ordering-file=$(CURDIR)/$(SYMBOL_ORDER) -Xlinker --no-warn-symbol-ordering \
		-Xswiftc -DSYMBOLICATE_BUILD_COMMIT --product symbolicate

# Writes $(SYMBOL_ORDER) from runs of the release program over the fixtures under Valgrind
# (packaging/symbol_order.py), then links the program again in its order. The linker does not
# know the file as an input of the build: the program is removed so that it is linked anew.
symbol-order: build fixtures
	$(call install-missing,valgrind)
	python3 packaging/symbol_order.py --binary $(RELEASE_BIN) -o $(SYMBOL_ORDER)
	rm -f $(RELEASE_BIN)
	$(MAKE) build

# Writes $(BUILD_COMMIT) when the commit (or whether the tree has changes) differs from what it says;
# through a file of this process's own, so that two makes at once (a test's and the user's) do not
# trip over each other.
commit:
	@commit=unknown; \
	if [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ]; then \
		commit=$$(git rev-parse --short=12 HEAD); \
		git diff --quiet HEAD -- 2>/dev/null || commit="$$commit-dirty"; \
	fi; \
	new=$(BUILD_COMMIT).new.$$$$; \
	printf '%s\n' '// Written by make (see Version.swift); not kept in git.' '#if SYMBOLICATE_BUILD_COMMIT' \
		'extension Version {' '    static let buildCommit = "'"$$commit"'"' '}' '#endif' > $$new; \
	if cmp -s $$new $(BUILD_COMMIT); then rm -f $$new; else mv -f $$new $(BUILD_COMMIT); fi

# swift-argument-parser's generate-manual, built from the package's own checkout (no network).
$(GENERATE_MANUAL): $(ARGUMENT_PARSER)/Package.swift
	$(SWIFT) build --package-path $(ARGUMENT_PARSER) --scratch-path .build/tools --product generate-manual

$(ARGUMENT_PARSER)/Package.swift:
	$(SWIFT) package resolve

# symbolicate(1), from the program's declarations (generate-manual, laid out by packaging/manpage.py).
man: build $(GENERATE_MANUAL)
	@mkdir -p $(GENERATED)
	python3 packaging/manpage.py --binary $(RELEASE_BIN) --generate-manual $(GENERATE_MANUAL) \
		--date $(MAN_DATE) -o $(MAN_PAGE)

# The bash, zsh and fish completion scripts, from the program's declarations (bash's without
# its #! line: the script is sourced, not run).
completions: build
	@mkdir -p $(GENERATED)
	$(RELEASE_BIN) --generate-completion-script bash | sed '1{/^#!/d}' > $(GENERATED)/symbolicate.bash
	$(RELEASE_BIN) --generate-completion-script zsh > $(GENERATED)/_symbolicate
	$(RELEASE_BIN) --generate-completion-script fish > $(GENERATED)/symbolicate.fish

install: build man completions
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 755 $(RELEASE_BIN) $(DESTDIR)$(BINDIR)/symbolicate
	install -m 644 $(MAN_PAGE) $(DESTDIR)$(MANDIR)/man1/symbolicate.1
	install -m 644 $(GENERATED)/symbolicate.bash $(DESTDIR)$(BASHCOMPDIR)/symbolicate
	install -m 644 $(GENERATED)/_symbolicate $(DESTDIR)$(ZSHCOMPDIR)/_symbolicate
	install -m 644 $(GENERATED)/symbolicate.fish $(DESTDIR)$(FISHCOMPDIR)/symbolicate.fish

# Removes the files `make install` installed (with the same PREFIX and DESTDIR), not the folders.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/symbolicate $(DESTDIR)$(MANDIR)/man1/symbolicate.1 \
		$(DESTDIR)$(BASHCOMPDIR)/symbolicate $(DESTDIR)$(ZSHCOMPDIR)/_symbolicate $(DESTDIR)$(FISHCOMPDIR)/symbolicate.fish

# The Debian package, in .build/deb (packaging/deb.sh).
deb: setup-deb build man completions
	packaging/deb.sh $(RELEASE_BIN) $(GENERATED) .build/deb

fixtures: setup
	Fixtures/build.sh

# The same programs built by every DWARF producer here (Fixtures/producers.sh), for the tests.
producers: setup-test
	Fixtures/producers.sh

run: build fixtures
	$(RELEASE_BIN) -d Fixtures/build/macho Fixtures/build/reports/App-arm64.crash
	@echo
	@echo "Grouped by signature (symbolicate group), the example reports and those of Fixtures/build/group:"
	$(RELEASE_BIN) group -d Fixtures/build/macho Fixtures/build/reports Fixtures/build/group

# The first tier: every test target but $(CHECK_TARGETS), a process per test, as many at
# once as there are cores. Each tier writes its tests' times to $(TEST_OUTPUT)/TIER.xml (xUnit).
# Only the test bundle is built (its product, named after the package), not the program's debug build.
test: setup-test fixtures
	@mkdir -p $(TEST_OUTPUT)
	@start=$$(date +%s); \
	$(SWIFT) build --product symbolicatePackageTests && \
	$(SWIFT) test --skip-build --disable-swift-testing --parallel --skip '^($(subst $(space),|,$(CHECK_TARGETS)))\.' \
		--xunit-output $(TEST_OUTPUT)/test.xml; status=$$?; \
	$(CORPUS_NOTE); echo "make test: $$(( $$(date +%s) - start )) s"; exit $$status

# Every test: the first tier (make test), then $(CHECK_TARGETS), the end-to-end ones against
# the release program (the tests of make install and make deb use it too), then every fuzz
# harness over its kept inputs.
check: test check-tests fuzz-replay

# The second tier alone: $(CHECK_TARGETS).
check-tests: setup-test fixtures producers build
	@mkdir -p $(TEST_OUTPUT)
	@start=$$(date +%s); \
	$(CHECK_ENV) $(SWIFT) test --disable-swift-testing --parallel --filter '^($(subst $(space),|,$(CHECK_TARGETS)))\.' \
		--xunit-output $(TEST_OUTPUT)/check.xml; status=$$?; \
	$(CORPUS_NOTE); echo "make check: the tests: $$(( $$(date +%s) - start )) s"; exit $$status

# The tests in a random order (Tests/run-shuffled.sh): groups of tests, each in a process of
# its own. SEED=N gives the same order again; without it a seed is drawn and printed.
.PHONY: test-shuffled
test-shuffled: setup-test fixtures producers build
	$(CHECK_ENV) Tests/run-shuffled.sh $(SEED)

bench: build fixtures
	bench/dyld_cache.sh
	BENCH_TARGETS_LAST=1 bench/run.sh
	bench/group.sh
	@if [ -f bench/build/targets.txt ]; then cat bench/build/targets.txt; fi

fuzz: setup fixtures
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run.sh

# Every harness once over its kept inputs and seeds (part of make check): deterministic.
fuzz-replay: setup fixtures
	Fuzz/run.sh --replay

clean:
	rm -rf .build .build-fuzz Fixtures/build $(BUILD_COMMIT)
