# ICTKit: the two commands a new user types are `make demo` and `make test`;
# `make install` puts ict, its man pages and shell completions under PREFIX.
SWIFT ?= swift
PREFIX ?= /usr/local
DESTDIR ?=
ICT_RELEASE = .build/release/ict
# The statically linked ict that make install installs, built in its own
# scratch directory: SwiftPM does not relink when only --static-swift-stdlib
# changes, so in .build a dynamic release build could take its place.
STATIC_BUILD = .build-static
# On Linux ict is a static executable: no dynamic loader, which resolved
# thousands of libstdc++ and libc symbols before main (3.9 million
# instructions; a small conversion's page faults went from 692 to 249).
# libxml2's own libraries (ICU, liblzma) come from pkg-config --static, and
# ICU's C++ library. The Swift runtime is static on every platform
# (--static-swift-stdlib).
# The functions a short run uses are laid out side by side (lld's
# --symbol-ordering-file, each function in its own section): a small
# conversion took 117 page faults instead of 155 when this was made; with
# today's modules (TypedStream, NIBArchive, CoreDataFiles and SQLite linked
# in, Foundation and CoreFoundation no longer) it takes 142 (2026-11-25,
# perf stat -e page-faults -r 20; 147 with the list written before
# Foundation left, 195 with that morning's); the list is
# scripts/ict-startup.order, written
# by scripts/startup-order.sh, to be run again when the start-up path moves
# (a stale list costs page faults, never correctness).
ifeq ($(shell uname -s),Linux)
STATIC_FLAGS = -Xswiftc -static-executable $(foreach lib,$(shell pkg-config --static --libs-only-l libxml-2.0 libpng 2>/dev/null) -lstdc++,-Xlinker $(lib)) \
	-Xswiftc -use-ld=lld -Xswiftc -Xfrontend -Xswiftc -function-sections \
	-Xlinker --symbol-ordering-file=$(CURDIR)/scripts/ict-startup.order -Xlinker --no-warn-symbol-ordering
endif
ICT_STATIC = $(STATIC_BUILD)/release/ict
# The man pages made from the commands' help by swift-argument-parser's
# generate-manual plugin (which writes them under .build/plugins, cleared by
# later builds), copied here with the version in each page's footer.
MAN_PAGES = $(STATIC_BUILD)/man
PLUGIN_MAN_PAGES = .build/plugins/GenerateManual/outputs/ICTCommand

BINDIR = $(DESTDIR)$(PREFIX)/bin
MAN1DIR = $(DESTDIR)$(PREFIX)/share/man/man1
BASH_COMPLETIONS = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSH_COMPLETIONS = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISH_COMPLETIONS = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

.PHONY: demo test python-test bench-python test-all check-install build static manual install bench bench-check clean fuzz fuzz-check lint docs examples

build:
	scripts/install-deps.sh build
	$(SWIFT) build -c release --product ict

demo: build
	scripts/demo.sh $(ICT_RELEASE)

# The tests start python3 about 260 times (the outside readers their expected
# values come from: plistlib, jsonschema, pytypedstream, nibarchive, …). Where
# python3 is a pyenv shim, as on this project's machines, each start first runs
# a dozen bash processes (0.4 s of wall time and 0.1 CPU-s each, measured): the
# tests run with the interpreter's own folder first on PATH. Elsewhere (Debian's
# /usr/bin/python3) this changes nothing.
PYTHON_BIN = $(shell python3 -c 'import os, sys; print(os.path.dirname(sys.executable))' 2>/dev/null)
SWIFT_TEST = $(if $(PYTHON_BIN),PATH="$(PYTHON_BIN):$$PATH" )$(SWIFT) test

# The tests alone: a debug build and the whole suite but the slow suites and
# the install checks (make check-install, ICT_INSTALL_TESTS=1), so the loop
# stays short and never checks a stale static build.
test:
	scripts/install-deps.sh test
	$(SWIFT) build --build-tests
	$(SWIFT_TEST) --skip-build
	$(MAKE) python-test

# The Python package (python/, issue 42) installed as a user installs it, `pip install ./python`, into a
# virtual environment of its own (Debian's python3 refuses installs outside one), then its tests: CPython's
# own test_plistlib run against ictkit.plistlib (but the tests listed, each with its reason, in
# python/tests/cpython_test_plistlib_exclusions.txt) and the package's tests, from outside the source tree
# so the installed module is the one imported; with LD_LIBRARY_PATH empty and the toolchain off PATH, as a
# machine without Swift has it.
PYTHON_VENV = .build-python/venv
# The peers test_archive compares ictkit.archive with, pinned as scripts/install-deps.sh pins them for the Swift tests.
PYTHON_PEERS = nska-deserialize==1.5.1 pytypedstream==0.1.0 nibarchive==1.1.0
python-test:
	python3 -m venv $(PYTHON_VENV)
	$(PYTHON_VENV)/bin/python -m pip install --quiet --force-reinstall ./python
	$(PYTHON_VENV)/bin/python -m pip install --quiet $(PYTHON_PEERS)
	cd python/tests && env -u LD_LIBRARY_PATH PATH=/usr/bin:/bin ../../$(PYTHON_VENV)/bin/python run_cpython_test_plistlib.py
	cd python/tests && env -u LD_LIBRARY_PATH PATH=/usr/bin:/bin ../../$(PYTHON_VENV)/bin/python -m unittest -v test_ictkit test_archive test_coredata

# What make install installs, checked: the static ict runs alone, the man
# pages and completions are made (InstallTests, StaticBinaryTests; CI runs it).
INSTALL_SUITES = InstallTests|StaticBinaryTests
check-install: static manual
	scripts/install-deps.sh test
	$(SWIFT) build --build-tests
	ICT_INSTALL_TESTS=1 $(SWIFT_TEST) --skip-build --filter '$(INSTALL_SUITES)'

# make test, then the suites tagged slow (Tests/ICTCommandTests/SlowTests.swift:
# the real-world corpus sweep, the largest input, and every corpus input held to
# issue 20's bounds of 5 s and 256 MB; ten real Syncthing conflict copies of
# one note), which make test leaves out.
SLOW_SUITES = RealWorldCorpusTests|ValidateMemoryTests|InputBoundsTests|tenConflictCopies
test-all: test
	ICT_SLOW_TESTS=1 $(SWIFT_TEST) --skip-build --filter '$(SLOW_SUITES)'

# The formatting .swift-format describes, the one format reference, and the layering Package.swift and the imports
# keep (scripts/check-layers.sh), and every path split by its bytes in SystemSupport's PathName alone
# (scripts/check-paths.sh, which first checks itself on planted splits). Then no String path or Int32 descriptor in a public signature of the format and
# document modules but those allowlisted (scripts/public-signatures.sh, which first checks itself on a planted
# fixture; its check dumps the symbol graphs, building in debug as make test does); and no public signature of the
# last release removed or changed but those listed with their reason (scripts/api-breakage.sh). CI fails on any finding.
LINT_PATHS = Package.swift Sources Tests Plugins Benchmarks/Package.swift Benchmarks/Sources Fuzz/Package.swift Fuzz/Sources Examples
lint:
	$(SWIFT) format lint --strict --recursive $(LINT_PATHS)
	scripts/format-article.sh --check
	scripts/check-layers.sh
	scripts/check-paths.sh --self-test
	scripts/check-paths.sh
	scripts/public-signatures.sh --self-test
	scripts/public-signatures.sh --check
	scripts/api-breakage.sh --self-test
	scripts/api-breakage.sh

# The DocC documentation (swift-docc-plugin), warnings as errors, of ICTKit and
# of each module it re-exports (KeyedCoding, LiveQuery, UbiquityContainers and UbiquitousKeyValueStore have no
# catalog: their doc comments only). KeyedCodingAppleNames, Foundation's names for KeyedCoding's types, is
# not among them.
DOC_MODULES = ICTKit PropertyList FoundationValues DataLayers KeyedArchive TypedStream EmbeddedLayers CoreDataFiles KeyedCoding PackageFormat ConflictVersions FileCoordination UbiquityContainers UbiquitousKeyValueStore UniformTypes DocumentFormats DocumentObject LiveQuery AppleCompatibility
docs:
	for module in $(DOC_MODULES); do \
	  $(SWIFT) package generate-documentation --target $$module --warnings-as-errors || exit 1; \
	done

# Examples/: tools outside the package that use ICTKit's public API only,
# run on the sample documents (and on a damaged one, which must fail).
examples:
	$(SWIFT) build --package-path Examples/DocumentReport
	Examples/DocumentReport/.build/debug/DocumentReport SampleDocs/*.ict
	! Examples/DocumentReport/.build/debug/DocumentReport SampleDocs/malformed/truncated-archive.ict
	$(SWIFT) build --package-path Examples/DocumentPorts
	Examples/DocumentPorts/.build/debug/CTDocumentApp SampleDocs/*.ict
	Examples/DocumentPorts/.build/debug/NoteApp "SampleDocs/Shopping List.icfnote"
	Examples/DocumentPorts/.build/debug/NoteApp SampleDocs/conflict/Groceries.icfnote | grep 'state: \[inConflict\]'
	Examples/DocumentPorts/.build/debug/DoxApp "SampleDocs/Tutorial Note.dox" SampleDocs/malformed-notes/truncated-utf8.dox
	! Examples/DocumentPorts/.build/debug/NoteApp SampleDocs/malformed-notes/invalid-utf8.icfnote
	! Examples/DocumentPorts/.build/debug/CTDocumentApp SampleDocs/malformed/truncated-archive.ict
	scripts/install-deps.sh examples
	scripts/syncthing-pair.sh Examples/DocumentPorts/.build/debug/CloudNoteApp
	# The book's CTAppDelegate on two devices whose containers a folder sync keeps (here: cp): device two,
	# which has a setting of its own, is told device one's at launch and copies it into UserDefaults.
	KV=$$(mktemp -d) && mkdir "$$KV/one" "$$KV/two" && \
	ICT_UBIQUITY_CONTAINER="$$KV/one" Examples/DocumentPorts/.build/debug/SettingsApp set highScore 42 && \
	ICT_UBIQUITY_CONTAINER="$$KV/two" Examples/DocumentPorts/.build/debug/SettingsApp set theme dark && \
	cp "$$KV"/one/.ictkit-kvstore/*.plist "$$KV/two/.ictkit-kvstore/" && \
	ICT_UBIQUITY_CONTAINER="$$KV/two" Examples/DocumentPorts/.build/debug/SettingsApp | tee "$$KV/out" && \
	grep -q '^reason 1: UserDefaults highScore = 42$$' "$$KV/out"; status=$$?; rm -rf "$$KV"; exit $$status

# SwiftPM relinks only when an input it knows changes; the order file is
# not one, so a renewed order file removes the executable to be relinked.
static:
	scripts/install-deps.sh build
	if [ -f $(ICT_STATIC) ] && [ scripts/ict-startup.order -nt $(ICT_STATIC) ]; then rm -f $(ICT_STATIC); fi
	$(SWIFT) build -c release --static-swift-stdlib $(STATIC_FLAGS) --product ict --scratch-path $(STATIC_BUILD)

# The help text is the same in every configuration; debug shares make test's build.
manual:
	scripts/install-deps.sh build
	$(SWIFT) package plugin generate-manual --multi-page --configuration debug
	rm -rf $(MAN_PAGES)
	mkdir -p $(MAN_PAGES)
	version=$$(.build/debug/ict --version) && for page in $(PLUGIN_MAN_PAGES)/*.1; do \
	  sed "s/^\.Os$$/.Os ICTKit $$version/" "$$page" > "$(MAN_PAGES)/$${page##*/}"; \
	done

install: static manual
	install -d $(BINDIR) $(MAN1DIR) $(BASH_COMPLETIONS) $(ZSH_COMPLETIONS) $(FISH_COMPLETIONS)
	install -m 755 $(ICT_STATIC) $(BINDIR)/ict
	install -m 644 $(MAN_PAGES)/*.1 $(MAN1DIR)
	$(ICT_STATIC) --generate-completion-script bash > $(BASH_COMPLETIONS)/ict
	$(ICT_STATIC) --generate-completion-script zsh > $(ZSH_COMPLETIONS)/_ict
	$(ICT_STATIC) --generate-completion-script fish > $(FISH_COMPLETIONS)/ict.fish

# The benchmark harness compiles (a debug build, nothing measured): CI runs it, so a
# change of public API that breaks `make bench` is seen when it is made.
bench-check:
	touch Benchmarks/Package.swift
	$(SWIFT) build --package-path Benchmarks

bench:
	scripts/bench.sh

# Rows Y of issue 42 alone: ictkit.plistlib against plistlib (python/bench/bench_plistlib.py), as make bench
# runs them in its table.
bench-python:
	scripts/bench.sh --only Y

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
	rm -rf .build $(STATIC_BUILD) Benchmarks/.build Fuzz/.build .build-fuzz
