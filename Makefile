# ICTKit: the two commands a new user types are `make demo` and `make test`.
SWIFT ?= swift
ICT_RELEASE = .build/release/ict

.PHONY: demo test build bench clean fuzz fuzz-check

build:
	scripts/install-deps.sh build
	$(SWIFT) build -c release --product ict

demo: build
	scripts/demo.sh $(ICT_RELEASE)

test:
	scripts/install-deps.sh test
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench:
	scripts/bench.sh

# Coverage-guided fuzzing of every reader (Fuzz/README.md): each target
# FUZZ_SECONDS in turn, or only TARGETS (make fuzz TARGETS=binary-plist).
FUZZ_SECONDS ?= 60
TARGETS ?=
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh run $(TARGETS)

# Every target over its committed corpus once, as CI does.
fuzz-check:
	scripts/fuzz.sh check $(TARGETS)

clean:
	rm -rf .build Benchmarks/.build Fuzz/.build .build-fuzz
