#!/usr/bin/env bash
# The API-breakage check against the last release (issue 43, item 6): every public signature of the format and
# document modules that release had (scripts/api/RELEASE.txt, listed by scripts/public-signatures.sh at its tag)
# must still be here, declared the same, unless scripts/api/changes-since-RELEASE.txt lists it with the reason
# (a deliberate change, written in CHANGELOG). A signature added is not a break.
#
#   scripts/api-breakage.sh                 checks this tree (make lint runs it)
#   scripts/api-breakage.sh --self-test     checks the comparison on a planted baseline
#
# Why not `swift package diagnose-api-breaking-changes`: on Linux it cannot load this package's baseline (SwiftPM
# 6.3): the build-tool plugin's host build of PropertyList puts a second module map of CPropertyListSupport on the
# digester's search path ("redefinition of module 'CPropertyListSupport'"), so every module's baseline comes out
# empty. A listing kept in the repository also costs CI no second build of the release.
#
# Cutting a release: run scripts/public-signatures.sh > scripts/api/NEW.txt at its tag, point RELEASE below at it,
# and start an empty changes-since-NEW.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

RELEASE=0.12.0

# compare BASELINE CURRENT CHANGES RENAMES: the baseline's lines missing from CURRENT (removed, or declared
# otherwise) must be listed in CHANGES, and every symbol CHANGES lists must be such a line; prints what fails,
# exit 1 then. RENAMES lists the modules and types renamed since the release (old name, tab, new name, tab, the
# deprecated alias that keeps the old name compiling): the baseline's and CHANGES' lines are read with the new
# names (a module's as a symbol's first part, a type's as a word anywhere), so a renamed symbol declared the same
# is kept, not broken.
compare() {
    python3 - "$1" "$2" "$3" "$4" <<'PYTHON'
import re, sys

def lines(path):
    return [line for line in open(path, encoding="utf-8").read().splitlines() if line.strip()]

baseline, current, changes, renames_file = sys.argv[1:5]
modules, types = {}, {}
for number, line in enumerate(lines(renames_file), 1):
    if line.startswith("#"):
        continue
    fields = line.split("\t")
    if len(fields) != 4 or fields[0] not in ("module", "type") or not fields[3].strip():
        print(f"{renames_file}:{number}: not 'module|type<TAB>old<TAB>new<TAB>alias'")
        sys.exit(1)
    (modules if fields[0] == "module" else types)[fields[1]] = fields[2]

def renamed(line):
    module, dot, rest = line.partition(".")
    line = modules.get(module, module) + dot + rest
    for old, new in types.items():
        line = re.sub(rf"\b{re.escape(old)}\b", new, line)
    return line

now = set(lines(current))
broken = {}
for line in lines(baseline):
    line = renamed(line)
    if line not in now:
        broken.setdefault(line.split("\t", 1)[0], line)
listed = {}
for number, line in enumerate(open(changes, encoding="utf-8").read().splitlines(), 1):
    if not line.strip() or line.startswith("#"):
        continue
    key, _, reason = line.partition("\t")
    if not reason.strip():
        print(f"{changes}:{number}: {key}: no reason given after a tab")
        sys.exit(1)
    listed[renamed(key)] = reason
failed = False
for key in sorted(set(broken) - set(listed)):
    print(f"api-breakage: removed or changed since the release, not listed in {changes}: {broken[key]}")
    failed = True
for key in sorted(set(listed) - set(broken)):
    print(f"api-breakage: listed in {changes} but as the release declared it: {key}")
    failed = True
print(f"api-breakage: {len(broken)} public signatures of the release removed or changed, "
      f"{len(set(broken) & set(listed))} of them listed with a reason", file=sys.stderr)
sys.exit(1 if failed else 0)
PYTHON
}

self_test() {
    local scratch
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' RETURN
    printf 'M.a()\tfunc a()\nM.b(x:)\tfunc b(x: Int)\nM.c\tvar c: Int\n' > "$scratch/release.txt"
    printf 'M.a()\tfunc a()\nM.b(x:)\tfunc b(x: String)\nM.d\tvar d: Int\n' > "$scratch/now.txt"
    printf '# comment\nM.b(x:)\ttakes String now\n' > "$scratch/changes.txt"
    printf '# none\n' > "$scratch/renames.txt"
    if compare "$scratch/release.txt" "$scratch/now.txt" "$scratch/changes.txt" "$scratch/renames.txt" > "$scratch/out" 2>&1; then
        echo "self-test FAILED: a removed signature (M.c) not listed passed" >&2
        return 1
    fi
    grep -q 'not listed.*M\.c' "$scratch/out" || { echo "self-test FAILED: M.c not named" >&2; return 1; }
    ! grep -q 'M\.b\|M\.d\|M\.a' "$scratch/out" || { echo "self-test FAILED: a listed, added or kept signature was reported" >&2; return 1; }
    printf 'M.b(x:)\ttakes String now\nM.c\tremoved\nM.a()\tnot really changed\n' > "$scratch/changes.txt"
    if compare "$scratch/release.txt" "$scratch/now.txt" "$scratch/changes.txt" "$scratch/renames.txt" > "$scratch/out" 2>&1; then
        echo "self-test FAILED: an unchanged signature listed as changed passed" >&2
        return 1
    fi
    grep -q 'as the release declared it: M\.a()' "$scratch/out" || { echo "self-test FAILED: stale M.a() not named" >&2; return 1; }
    printf 'M.b(x:)\ttakes String now\nM.c\tremoved\n' > "$scratch/changes.txt"
    compare "$scratch/release.txt" "$scratch/now.txt" "$scratch/changes.txt" "$scratch/renames.txt" > /dev/null 2>&1 || {
        echo "self-test FAILED: every change listed, yet it failed" >&2
        return 1
    }
    # A module and a type renamed: their symbols, declared the same under the new names, are kept.
    printf 'M.T.f(x:)\tfunc f(x: T) -> T\nM.c\tvar c: Int\n' > "$scratch/release.txt"
    printf 'N.U.f(x:)\tfunc f(x: U) -> U\nN.c\tvar c: Int\n' > "$scratch/now.txt"
    printf '' > "$scratch/changes.txt"
    printf 'module\tM\tN\tthe module M\ntype\tT\tU\ttypealias T = U\n' > "$scratch/renames.txt"
    compare "$scratch/release.txt" "$scratch/now.txt" "$scratch/changes.txt" "$scratch/renames.txt" > "$scratch/out" 2>&1 || {
        echo "self-test FAILED: a renamed module and type, declared the same, were reported" >&2
        return 1
    }
    printf 'module\tM\tN\tthe module M\n' > "$scratch/renames.txt"
    if compare "$scratch/release.txt" "$scratch/now.txt" "$scratch/changes.txt" "$scratch/renames.txt" > "$scratch/out" 2>&1; then
        echo "self-test FAILED: a type renamed without its renames line passed" >&2
        return 1
    fi
    echo "self-test passed: an unlisted removal and a stale entry fail, a listed change, an addition and a listed rename pass"
}

case "${1:-}" in
--self-test) self_test ;;
"")
    current=$(mktemp)
    trap 'rm -f "$current"' EXIT
    scripts/public-signatures.sh > "$current"
    compare "scripts/api/$RELEASE.txt" "$current" "scripts/api/changes-since-$RELEASE.txt" "scripts/api/renames-since-$RELEASE.txt"
    ;;
*) echo "usage: $0 [--self-test]" >&2; exit 64 ;;
esac
