#!/usr/bin/env bash
# Writes scripts/ict-startup.order: the functions the static `ict` runs for
# the small everyday jobs of bench rows s1-s4 (a small conversion, a type
# conformance, one key of a file), the conversion's first. The
# Makefile hands the file to lld (--symbol-ordering-file), which lays those
# functions out side by side at the start of the text segment: a short run
# then touches a few dozen pages of code instead of a hundred-odd scattered
# over 17 MB, and each page touched costs a page fault (about 2 µs here).
#
# Run it after changes that move the start-up path (new files on it, renamed
# functions): names that no longer exist are ignored by the linker, so a
# stale file costs speed, never correctness. Needs valgrind.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
command -v valgrind >/dev/null || { echo "startup-order: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
make static >&2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# valgrind cannot read the DWARF 5 the static build carries; symbols suffice.
cp .build-static/release/ict "$work/ict"
strip --strip-debug "$work/ict"
small="$work/small.plist"
python3 -c 'import plistlib,sys; sys.stdout.buffer.write(plistlib.dumps({"name":"x","items":[1,2.5,True,b"data"],"nested":{"k":"v"}}, fmt=plistlib.FMT_BINARY))' > "$small"
run() {
    local out="$work/cg.$1"
    shift
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$out" "$work/ict" "$@" >/dev/null 2>&1 || true
    # Each function is named once, at its first mention, as "fn=(ID) NAME" or "cfn=(ID) NAME".
    grep -oE '^c?fn=\([0-9]+\) .*' "$out" | sed -E "s/^c?fn=\([0-9]+\) //; s/'[0-9]+$//"
}
{
    run convert convert "$small" --format xml1 -o -
    run conforms types conforms public.png public.image
    run get get "$small" nested.k
} | awk '!seen[$0]++' > scripts/ict-startup.order
echo "startup-order: $(wc -l < scripts/ict-startup.order) functions in scripts/ict-startup.order" >&2
