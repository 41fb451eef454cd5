# symbolicate — build, example, tests, benchmark.
#
#   make run     installs what is missing, builds, symbolicates the bundled example
#   make test    builds the fixtures and runs every test (the grouping page's screenshot:
#                .build/test-output/group.png)
#   make bench   measures against llvm-symbolizer
#   make fuzz    fuzzes every parser for FUZZ_SECONDS each (default 60); fails on any finding
#   make fuzz-replay  runs every parser's harness over its kept inputs and seeds (CI)
#   make install installs the program, its manual page and shell completions under PREFIX
#                (default /usr/local; DESTDIR stages them); make uninstall removes them
#   make deb     builds the Debian package symbolicate_VERSION_ARCH.deb in .build/deb

SWIFT       ?= swift
RELEASE_BIN := .build/release/symbolicate
FIXTURES    := Fixtures/build/manifest.txt
# More options for the release build (the tests of `make install` and `make deb` give
# --ignore-lock: they run while `swift test` holds the lock of .build).
SWIFT_BUILD_FLAGS ?=
FUZZ_SECONDS ?= 60

# Debian packages the build, the fixtures and the tests need.
PACKAGES := libdwarf-dev libelf-dev zlib1g-dev libzstd-dev lld-14 llvm-14 llvm lld-19 llvm-19 binutils gcc g++ python3 libc6-dbg \
            clang-14 clang-19 \
            libcurl4-openssl-dev libdebuginfod-dev debuginfod strace llvm-19-dev rustc \
            dpkg-dev lintian man-db bsdutils bash-completion \
            chromium time parallel

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

.PHONY: setup build run test bench fuzz fuzz-replay fixtures producers clean commit man completions install uninstall deb

setup:
	@missing=""; for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "Installing:$$missing"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

# The release program: the Swift runtime linked in, no $$ORIGIN search path (nothing is loaded
# from beside it), its relocations resolved at start and then made read-only (bindnow), the
# commit it is built from compiled in.
build: setup commit
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) -c release --static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now \
		-Xswiftc -DSYMBOLICATE_BUILD_COMMIT --product symbolicate

# Writes $(BUILD_COMMIT) when the commit (or whether the tree has changes) differs from what it says.
commit:
	@commit=unknown; \
	if [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ]; then \
		commit=$$(git rev-parse --short=12 HEAD); \
		git diff --quiet HEAD -- 2>/dev/null || commit="$$commit-dirty"; \
	fi; \
	printf '%s\n' '// Written by make (see Version.swift); not kept in git.' '#if SYMBOLICATE_BUILD_COMMIT' \
		'extension Version {' '    static let buildCommit = "'"$$commit"'"' '}' '#endif' > $(BUILD_COMMIT).new; \
	if cmp -s $(BUILD_COMMIT).new $(BUILD_COMMIT); then rm $(BUILD_COMMIT).new; else mv $(BUILD_COMMIT).new $(BUILD_COMMIT); fi

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
deb: build man completions
	packaging/deb.sh $(RELEASE_BIN) $(GENERATED) .build/deb

fixtures: setup
	Fixtures/build.sh

# The same programs built by every DWARF producer here (Fixtures/producers.sh), for the tests.
producers: setup
	Fixtures/producers.sh

run: build fixtures
	$(RELEASE_BIN) -d Fixtures/build/macho Fixtures/build/reports/App-arm64.crash
	@echo
	@echo "Grouped by signature (symbolicate group), the example reports and those of Fixtures/build/group:"
	$(RELEASE_BIN) group -d Fixtures/build/macho Fixtures/build/reports Fixtures/build/group

# The release program is built first: the tests of make install and make deb use it.
test: setup fixtures producers build
	$(SWIFT) build --product symbolicate
	$(SWIFT) test --disable-swift-testing

bench: build fixtures
	BENCH_TARGETS_LAST=1 bench/run.sh
	bench/group.sh
	@if [ -f bench/build/targets.txt ]; then cat bench/build/targets.txt; fi

fuzz: setup fixtures
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run.sh

# Every harness once over its kept inputs and seeds (what CI runs): deterministic.
fuzz-replay: setup fixtures
	Fuzz/run.sh --replay

clean:
	rm -rf .build .build-fuzz Fixtures/build $(BUILD_COMMIT)
