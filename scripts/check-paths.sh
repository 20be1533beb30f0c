#!/usr/bin/env bash
# One way to split a path (issue 43, item 3), and by its bytes: no Swift file of Sources/ but
# SystemSupport's PathName.swift splits or compares a path by Swift's characters. To Swift, "/" followed by a
# combining mark (U+0301) is one Character, and so is a prepended mark followed by "/" (U+0600 "/"): a name that
# starts with a combining mark is a name like any other to the file system, but `lastIndex(of: "/")`,
# `split(separator: "/")` and `hasPrefix(folder + "/")` miss its slash (a path then split at the wrong place, a
# ".." step not seen, a file written beside the folder it should be in). PathName reads the bytes.
#
# Refused, outside PathName.swift: lastIndex(of: "/"), firstIndex(of: "/"), split(separator: "/"...),
# hasPrefix("/"), hasPrefix(... + "/") and dropFirst/dropLast(x.count + 1). A line that handles text that is not
# a path (a MIME type, a key path, a URI) says so with the words "not a path" in a comment on it.
#   scripts/check-paths.sh [ROOT]    ROOT: the repository (by default this one); exits 1 naming each line
#   scripts/check-paths.sh --self-test   plants each refused form, and one marked line, in a scratch tree
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [[ "${1:-}" == "--self-test" ]]; then
    scratch="$(mktemp -d)"
    trap 'rm -rf "$scratch"' EXIT
    mkdir -p "$scratch/Sources/Planted" "$scratch/Sources/SystemSupport"
    cat > "$scratch/Sources/Planted/Planted.swift" <<'SWIFT'
let a = path.lastIndex(of: "/")
let b = path.firstIndex(of: "/")
let c = path.split(separator: "/")
let d = path.hasPrefix("/")
let e = path.hasPrefix(folder + "/")
let f = path.dropLast(name.count + 1)
let g = mime.split(separator: "/")  // A MIME type, not a path.
SWIFT
    # PathName itself may.
    echo 'let h = path.lastIndex(of: "/")' > "$scratch/Sources/SystemSupport/PathName.swift"
    if output="$("$0" "$scratch" 2>&1)"; then
        echo "check-paths self-test: the planted tree passed" >&2
        exit 1
    fi
    found="$(grep -c '^check-paths: ' <<< "$output" || true)"
    if [[ "$found" != 6 ]] || grep -q 'Planted.swift:7:\|SystemSupport/PathName.swift' <<< "$output"; then
        echo "check-paths self-test: expected lines 1-6 of Planted.swift alone, got:" >&2
        echo "$output" >&2
        exit 1
    fi
    echo "check-paths self-test: 6 of 6 planted splits found, the marked line and PathName.swift let be"
    exit 0
fi

root="${1:-$here/..}"
python3 - "$root" <<'PY'
import pathlib, re, sys

root = pathlib.Path(sys.argv[1])
refused = re.compile(
    r'(lastIndex|firstIndex)\(of: "/"\)'
    r'|split\(separator: "/"'
    r'|hasPrefix\("/"\)'
    r'|hasPrefix\([^)]*\+ "/"\)'
    r'|(dropFirst|dropLast)\([a-zA-Z.]+\.count \+ 1\)'
)
breaches = []
for source in sorted((root / "Sources").rglob("*.swift")):
    if source.name == "PathName.swift" and source.parent.name == "SystemSupport":
        continue
    for number, line in enumerate(source.read_text().splitlines(), 1):
        code, _, comment = line.partition("//")
        if refused.search(code) and "not a path" not in comment:
            breaches.append(f"{source.relative_to(root)}:{number}: splits a path by characters, not bytes: use PathName ({line.strip()})")
for breach in breaches:
    print(f"check-paths: {breach}", file=sys.stderr)
sys.exit(1 if breaches else 0)
PY
