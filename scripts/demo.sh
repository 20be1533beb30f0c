#!/usr/bin/env bash
# Runs the freshly built `ict` on the sample files, as `make demo` shows them.
set -euo pipefail
ict=${1:-.build/release/ict}
cd "$(dirname "$0")/.."
run() { printf '\n$ ict %s\n' "$*"; "$ict" "$@"; }
run inspect SampleDocs/Info.plist
run validate SampleDocs/Info.plist
run convert SampleDocs/Info.plist --format json
run list SampleDocs
run inspect SampleDocs/Astronaut.ict
run inspect --data SampleDocs/Chelsea.ict
run validate SampleDocs/*.ict
