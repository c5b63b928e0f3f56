# iapsim — the everyday commands. `make test` is what CI runs (.ci/run, with CI=true).
PREFIX ?= /usr/local
BINDIR := $(DESTDIR)$(PREFIX)/bin
SHAREDIR := $(DESTDIR)$(PREFIX)/share/iapsim

# The release build links the Swift runtime statically on Linux: start-up is several
# milliseconds shorter (no dynamic loading of libswiftCore/Foundation), which matters to
# scripts that call iapsim in loops. macOS has no static stdlib option and needs none.
ifeq ($(shell uname -s),Linux)
RELEASE_FLAGS := -c release --static-swift-stdlib
else
RELEASE_FLAGS := -c release
endif

.PHONY: build release test run bench fuzz sanitize man docs screenshots install uninstall format lint clean

build:
	swift build

release:
	swift build $(RELEASE_FLAGS)

# A step that needs something outside the repository (a tool, PyPI, root, the corpus beside
# it) is skipped, saying why, when that is missing; where CI is set it fails instead
# (Tests/e2e/lib.sh, and External in the Swift tests). The end-to-end steps run two at a time
# and all of them, with a summary (Tests/e2e/run-all.sh; STEPS="crash apple" picks some).
test:
	Tests/e2e/tools.sh
	swift format lint --strict --recursive Sources Tests Package.swift
	swift build --build-tests
	swift test --skip-build
	Tests/e2e/run-all.sh .build/debug/iapsim

# Medians of iapsim against a floor program built the same way (bench/bench.py). The benches
# that build iapsim's modules as a path dependency plan afresh: a cached plan misses a source
# file added to the repository since, and the build then fails on what that file declares.
bench: release
	cd bench/Floor && swift build $(RELEASE_FLAGS)
	cd bench/Crypto && swift build $(RELEASE_FLAGS) --disable-build-manifest-caching
	swift build -c release --package-path bench/StoreKit --scratch-path .build/bench-storekit --disable-build-manifest-caching
	CRYPTOBENCH="bench/Crypto/$$(cd bench/Crypto && swift build $(RELEASE_FLAGS) --show-bin-path | sed 's|.*/bench/Crypto/||')/CryptoBench" \
	python3 bench/bench.py "$$(swift build $(RELEASE_FLAGS) --show-bin-path)/iapsim" "bench/Floor/$$(cd bench/Floor && swift build $(RELEASE_FLAGS) --show-bin-path | sed 's|.*/bench/Floor/||')/Floor"

# Runs the main job on the bundled catalog: `make run ARGS="buy com.example.app.book"`.
ARGS ?= list
run:
	swift run iapsim $(ARGS)

# libFuzzer on every fuzz/ target (FUZZ_TARGETS picks some), FUZZ_SECONDS each (default 600);
# crashes go to fuzz/crashes/.
fuzz:
	fuzz/run.sh

# The test suite under AddressSanitizer, then ThreadSanitizer.
sanitize:
	LSAN_OPTIONS=suppressions=$$PWD/Tests/lsan.supp swift test --sanitize=address
	swift test --sanitize=thread

# docs/iapsim.1 and docs/REFERENCE.md are generated from the commands' specs; a test fails
# when either is stale.
man: build
	.build/debug/iapsim help manpage > docs/iapsim.1

docs: man
	.build/debug/iapsim help reference > docs/REFERENCE.md
	.build/debug/iapsim help transaction-schema > docs/schemas/transaction.schema.json

# The screenshots docs/UI.md shows, taken by the browser story of `iapsim ui` (Tests/e2e/ui.sh).
screenshots: build
	Tests/e2e/ui.sh .build/debug/iapsim --docs

MANDIR := $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

install: release
	install -d "$(BINDIR)" "$(SHAREDIR)/catalog" "$(MANDIR)" "$(BASHDIR)" "$(ZSHDIR)" "$(FISHDIR)"
	install -m 0755 "$$(swift build $(RELEASE_FLAGS) --show-bin-path)/iapsim" "$(BINDIR)/iapsim"
	install -m 0644 catalog/Products.storekit catalog/Products.prices.json catalog/IAPProductIDs.plist "$(SHAREDIR)/catalog/"
	install -m 0644 docs/iapsim.1 "$(MANDIR)/iapsim.1"
	"$(BINDIR)/iapsim" completion bash > "$(BASHDIR)/iapsim"
	"$(BINDIR)/iapsim" completion zsh > "$(ZSHDIR)/_iapsim"
	"$(BINDIR)/iapsim" completion fish > "$(FISHDIR)/iapsim.fish"

uninstall:
	rm -f "$(BINDIR)/iapsim" "$(MANDIR)/iapsim.1" "$(BASHDIR)/iapsim" "$(ZSHDIR)/_iapsim" "$(FISHDIR)/iapsim.fish"
	rm -rf "$(SHAREDIR)"

format:
	swift format --in-place --recursive Sources Tests Package.swift

# The house style (.swift-format: 120 columns), as make test checks it.
lint:
	swift format lint --strict --recursive Sources Tests Package.swift

clean:
	rm -rf .build
