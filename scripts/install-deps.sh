#!/usr/bin/env bash
# Installs the Debian packages ICTKit needs, only those that are missing.
# Asks for root (sudo) only when something has to be installed.
# Usage: scripts/install-deps.sh [build|test|bench|examples]   (default: build)
set -euo pipefail

purpose=${1:-build}
# libicu-dev and liblzma-dev: the static archives of libxml2's own libraries, for `make static`.
packages=(libxml2-dev libpng-dev zlib1g-dev libicu-dev liblzma-dev libsqlite3-dev pkg-config)
case "$purpose" in
  build) ;;
  # chromium: the contact sheet's test opens ict list --html's page in a real headless browser.
  # syncthing: the sync engine the tests run as real devices on loopback (a peer planting links in a synced folder).
  # python3-dev, valgrind, binutils: the Python package's C extension (Python.h), the C client run under valgrind
  # with its library's debug sections stripped (objcopy), issue 42. protobuf-compiler: protoc --decode_raw, the
  # oracle of the protocol-buffer reader (issue 41).
  test) packages+=(python3 python3-venv python3-dev valgrind binutils time shared-mime-info imagemagick man-db chromium syncthing curl protobuf-compiler) ;;
  bench) packages+=(python3 libplist-utils) ;;
  # make examples runs CloudNoteApp on two Syncthing devices (scripts/syncthing-pair.sh).
  examples) packages+=(syncthing curl python3) ;;
  *) echo "install-deps.sh: unknown purpose '$purpose' (build, test, bench or examples)" >&2; exit 64 ;;
esac

# make python-test runs CPython's own test_plistlib (issue 42), which Debian ships apart from python3.
if [ "$purpose" = test ] && command -v python3 >/dev/null 2>&1 && ! python3 -c 'import test.test_plistlib' 2>/dev/null; then
  packages+=("libpython3.$(python3 -c 'import sys; print(sys.version_info[1])')-testsuite")
fi

if [ "$(uname -s)" = Darwin ]; then
  # macOS: libxml2 ships with the SDK; libpng and the rest come from Homebrew (brew install libpng).
  if [ "$purpose" = bench ] && ! command -v plistutil >/dev/null 2>&1; then
    echo "install-deps.sh: for the plistutil peer, run: brew install libplist" >&2
  fi
  exit 0
fi

if ! command -v dpkg >/dev/null 2>&1; then
  echo "install-deps.sh: not a Debian-based system; install these yourself: ${packages[*]}" >&2
  exit 0
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg -s "$package" >/dev/null 2>&1; then missing+=("$package"); fi
done
install_python_modules() {
  # The contract tests check --json output with python3's jsonschema (PyPI).
  if [ "$purpose" = test ] && ! python3 -c 'import jsonschema' >/dev/null 2>&1; then
    echo "Installing the Python module jsonschema (for the --json contract tests)"
    python3 -m pip install --quiet --disable-pip-version-check jsonschema \
      || echo "install-deps.sh: could not install jsonschema; the --json contract tests will be skipped" >&2
  fi
  # pytypedstream, pinned: the independent typed stream reader TypedStreamTests compare against, and bench row t's peer.
  if { [ "$purpose" = test ] || [ "$purpose" = bench ]; } && ! python3 -c 'import typedstream' >/dev/null 2>&1; then
    echo "Installing the Python module pytypedstream 0.1.0 (TypedStreamTests' peer, bench row t)"
    python3 -m pip install --quiet --disable-pip-version-check pytypedstream==0.1.0 \
      || echo "install-deps.sh: could not install pytypedstream; TypedStreamTests' comparison fails and bench row t is not measured" >&2
  fi
  # NIBArchiveTests check every decoded nib against PyPI's nibarchive; bench row u times it (pinned: its reading is the reference).
  if [ "$purpose" = test ] || [ "$purpose" = bench ]; then
    if ! python3 -c 'import nibarchive' >/dev/null 2>&1; then
      echo "Installing the Python module nibarchive 1.1.0 (the compiled-nib peer)"
      python3 -m pip install --quiet --disable-pip-version-check nibarchive==1.1.0 \
        || echo "install-deps.sh: could not install nibarchive; the nib peer tests will be skipped and bench row u not measured" >&2
    fi
  fi
  # KeyedArchiveTests check Foundation's classes decoded from keyed archives against PyPI's nska-deserialize; bench row y
  # times it (pinned: its reading is the reference).
  if [ "$purpose" = test ] || [ "$purpose" = bench ]; then
    if ! python3 -c 'import nska_deserialize' >/dev/null 2>&1; then
      echo "Installing the Python module nska-deserialize 1.5.1 (the keyed-archive peer)"
      python3 -m pip install --quiet --disable-pip-version-check nska-deserialize==1.5.1 \
        || echo "install-deps.sh: could not install nska-deserialize; the keyed-archive peer tests will be skipped and bench row y not measured" >&2
    fi
  fi
}

if [ ${#missing[@]} -eq 0 ]; then install_python_modules; exit 0; fi

echo "Installing missing Debian packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install-deps.sh: need root to install ${missing[*]}; run as root or install them yourself" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
install_python_modules
