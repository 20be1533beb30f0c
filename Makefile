# ICTKit: the two commands a new user types are `make demo` and `make test`.
SWIFT ?= swift
ICT_RELEASE = .build/release/ict
# The statically linked ict that make install installs, built in its own
# scratch directory: SwiftPM does not relink when only --static-swift-stdlib
# changes, so in .build a dynamic release build could take its place.
STATIC_BUILD = .build-static
ICT_STATIC = $(STATIC_BUILD)/release/ict

.PHONY: demo test build static bench clean

build:
	scripts/install-deps.sh build
	$(SWIFT) build -c release --product ict

demo: build
	scripts/demo.sh $(ICT_RELEASE)

# The static binary's tests check what static makes, so it comes first.
test: static
	scripts/install-deps.sh test
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

static:
	scripts/install-deps.sh build
	$(SWIFT) build -c release --static-swift-stdlib --product ict --scratch-path $(STATIC_BUILD)

bench:
	scripts/bench.sh

clean:
	rm -rf .build $(STATIC_BUILD) Benchmarks/.build
