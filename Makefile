# iapsim — the everyday commands. `make test` is what CI runs (.ci/run).
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

.PHONY: build release test run bench install uninstall format clean

build:
	swift build

release:
	swift build $(RELEASE_FLAGS)

test:
	swift build --build-tests
	swift test --skip-build
	Tests/e2e/faults.sh .build/debug/iapsim
	Tests/e2e/flows.sh .build/debug/iapsim

# Medians of iapsim against a floor program built the same way (bench/bench.py).
bench: release
	cd bench/Floor && swift build $(RELEASE_FLAGS)
	python3 bench/bench.py "$$(swift build $(RELEASE_FLAGS) --show-bin-path)/iapsim" "bench/Floor/$$(cd bench/Floor && swift build $(RELEASE_FLAGS) --show-bin-path | sed 's|.*/bench/Floor/||')/Floor"

# Runs the main job on the bundled catalog: `make run ARGS="buy com.example.app.book"`.
ARGS ?= list
run:
	swift run iapsim $(ARGS)

install: release
	install -d "$(BINDIR)" "$(SHAREDIR)/catalog"
	install -m 0755 "$$(swift build $(RELEASE_FLAGS) --show-bin-path)/iapsim" "$(BINDIR)/iapsim"
	install -m 0644 catalog/Products.storekit catalog/Products.prices.json catalog/IAPProductIDs.plist "$(SHAREDIR)/catalog/"

uninstall:
	rm -f "$(BINDIR)/iapsim"
	rm -rf "$(SHAREDIR)"

format:
	swift format --in-place --recursive Sources Tests Package.swift

clean:
	rm -rf .build
