# ICTKit: the two commands a new user types are `make demo` and `make test`.
SWIFT ?= swift
ICT_RELEASE = .build/release/ict

.PHONY: demo test build bench clean

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

clean:
	rm -rf .build Benchmarks/.build
