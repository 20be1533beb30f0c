#!/usr/bin/env bash
# Lists every public signature of ICTKit's format and document modules, one line each
# ("Module.Type.member(labels:)<TAB>declaration"), sorted, from the symbol graphs SwiftPM dumps
# (`swift package dump-symbol-graph`, which builds the package in debug first).
#
#   scripts/public-signatures.sh             the list
#   scripts/public-signatures.sh --check     fails, listing each public signature that takes or returns a
#                                            String path or an Int32 file descriptor, but those in
#                                            scripts/public-signatures-allowlist.txt
#   scripts/public-signatures.sh --self-test compiles scripts/public-signatures-fixture/Planted.swift alone and
#                                            checks that the rule reports exactly its PLANTED declarations
#
# The modules: every Swift module in Sources/ but the command (ICTCommand), its tooling layer (ICTKitTooling),
# the C interface (ICTKitC), the old module names (Sources/Deprecated: re-exports, no declaration of their own)
# and the Apple-named layer (KeyedCodingAppleNames, AppleCompatibility), which
# takes URL as Apple's API does. A symbol counts for the module whose Sources/ folder declares it (the umbrella
# ICTKit re-exports the others' symbols; they are listed once, under their own module).
#
# The rule (issue 43, item 3: public API takes FilePath; no raw descriptor in a public signature):
#   - a String path: a parameter, a property or a function's result of type String, String? or [String] whose
#     name's last camel-case word is path(s), folder(s), directory/directories, dir, file(s), destination or source
#     (a move's, a save's, a link's) — for a parameter,
#     its label or its internal name (`save(to path: String)`, `init(folderPath: String)`); for a result, the
#     function's base name (`externalDataPath(fileName:) -> String`);
#   - the same in an enum case's associated value, by its label (or, unlabelled, by the case's name);
#   - an Int32 descriptor: a parameter, property or result of type Int32, Int32?, CInt or CInt? whose name's last
#     camel-case word is descriptor, fd, directory, folder or file, or whose label is relativeTo.
# A name (`ofDocumentNamed name: String`), a key path (`value(atKeyPath keyPath: String)`) or an error number
# (`systemErrorNumber: Int32?`) is not caught.
#
# The allowlist holds one symbol ("Module.Type.member(labels:)") a line, a tab, then the reason it stays;
# lines starting with # are comments. A listed symbol that no longer violates fails the check too, so the
# list only shrinks.
set -euo pipefail
cd "$(dirname "$0")/.."

EXCLUDED="ICTCommand ICTKitTooling ICTKitC KeyedCodingAppleNames AppleCompatibility Deprecated"
ALLOWLIST=scripts/public-signatures-allowlist.txt

# The symbol-graph JSON files in $1 (for modules $2...) to lines; the rule's findings too when RULE=1.
read_graphs() {
    python3 - "$@" <<'PYTHON'
import json, os, re, sys

folder, modules = sys.argv[1], set(sys.argv[2:])
mode = os.environ["MODE"]

PATH_WORDS = {"path", "paths", "folder", "folders", "directory", "directories", "dir", "file", "files",
              "destination", "source"}
DESCRIPTOR_WORDS = {"descriptor", "fd", "directory", "folder", "file"}
STRING_TYPES = {"String", "String?", "[String]"}
DESCRIPTOR_TYPES = {"Int32", "Int32?", "CInt", "CInt?"}

def last_word(name):
    words = [word.lower() for word in re.findall(r"[a-z0-9]+|[A-Z][a-z0-9]*", name or "")]
    if words[-2:] == ["key", "path"]:
        return "keypath"  # A key path into a value, not a file's.
    return words[-1] if words else ""

def spelled(fragments):
    return re.sub(r"\s+", " ", "".join(f["spelling"] for f in fragments)).strip()

def type_of(fragments):
    """The type in `name: Type` fragments (a parameter's, a property's)."""
    text = spelled(fragments)
    if ": " not in text:
        return ""
    kind = text.split(": ", 1)[1]
    return re.sub(r"\s*(=.*|\{.*\})$", "", kind).strip()

def findings(symbol):
    """What the rule finds in one symbol: a list of descriptions."""
    found = []
    kind = symbol["kind"]["identifier"]
    name = symbol["names"]["title"]
    def check(what, type_, names, labels=()):
        if type_ in STRING_TYPES and any(last_word(n) in PATH_WORDS for n in names):
            found.append(f"{what} is a String path")
        if type_ in DESCRIPTOR_TYPES and (
            any(last_word(n) in DESCRIPTOR_WORDS for n in names) or "relativeTo" in labels):
            found.append(f"{what} is an Int32 descriptor")
    signature = symbol.get("functionSignature")
    if signature is not None:
        for parameter in signature.get("parameters", []):
            names = [parameter["name"], parameter.get("internalName", "")]
            check(f"parameter '{spelled(parameter['declarationFragments'])}'",
                  type_of(parameter["declarationFragments"]), names, [parameter["name"]])
        returns = spelled(signature.get("returns", []))
        check(f"result '{returns}'", returns, [name.split("(")[0]])
    elif kind in ("swift.property", "swift.type.property"):
        check(f"property '{spelled(symbol['declarationFragments'])}'",
              type_of(symbol["declarationFragments"]), [name])
    elif kind == "swift.enum.case":
        # `case gained(path: String, count: Int)`: each associated value by its label, or by the case's name.
        match = re.match(r"case (\w+)\((.*)\)$", spelled(symbol["declarationFragments"]))
        if match:
            depth, part, parts = 0, "", []
            for character in match.group(2) + ",":
                depth += 1 if character in "([<" else -1 if character in ")]>" else 0
                if character == "," and depth == 0:
                    parts.append(part.strip())
                    part = ""
                else:
                    part += character
            for value in parts:
                labelled = re.match(r"(\w+): (.*)$", value)
                label, type_ = labelled.groups() if labelled else ("", value)
                check(f"associated value '{value}'", re.sub(r"\s*=.*$", "", type_).strip(), [label or match.group(1)])
    return found

lines, violations = set(), set()
for file in sorted(os.listdir(folder)):
    if not file.endswith(".symbols.json"):
        continue
    graph = json.load(open(os.path.join(folder, file)))
    for symbol in graph["symbols"]:
        if symbol.get("accessLevel") not in ("public", "open"):
            continue
        uri = symbol.get("location", {}).get("uri", "")
        # The last Sources/ on the way: the package's, wherever the clone itself lies.
        match = re.search(r".*/Sources/([^/]+)/", uri) or re.search(r"/(public-signatures-fixture)/", uri)
        if not match or match.group(1) not in modules:
            continue
        key = match.group(1) + "." + ".".join(symbol["pathComponents"])
        lines.add(f"{key}\t{spelled(symbol['declarationFragments'])}")
        for finding in findings(symbol):
            violations.add(f"{key}\t{finding}")
for line in sorted(lines if mode == "list" else violations):
    print(line)
PYTHON
}

# The Swift modules in scope: Sources/ folders holding Swift, but the excluded.
in_scope_modules() {
    for folder in Sources/*/; do
        module=$(basename "$folder")
        [[ " $EXCLUDED " == *" $module "* ]] && continue
        compgen -G "$folder*.swift" > /dev/null || find "$folder" -name '*.swift' -print -quit | grep -q . || continue
        echo "$module"
    done
}

# The package's symbol graphs: the folder SwiftPM writes them to.
dump_graphs() {
    local output
    # The dump reads every module the package builds, the test targets' too (a clean clone has none yet).
    output=$(swift build --build-tests 2>&1) || {
        echo "$output" >&2
        return 1
    }
    output=$(swift package dump-symbol-graph --skip-synthesized-members --minimum-access-level public 2>&1) || {
        echo "$output" >&2
        return 1
    }
    sed -n 's/^Files written to //p' <<< "$output" | tail -1
}

self_test() {
    local scratch expected actual
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' RETURN
    swiftc -emit-module -module-name public_signatures_fixture -parse-as-library \
        -emit-module-path "$scratch/public_signatures_fixture.swiftmodule" scripts/public-signatures-fixture/Planted.swift
    mkdir "$scratch/graphs"
    swift-symbolgraph-extract -module-name public_signatures_fixture -I "$scratch" -output-dir "$scratch/graphs" \
        -minimum-access-level public -target "$(swiftc -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')"
    # Each PLANTED declaration reported, no CLEAN one.
    expected=$(grep -c '/// PLANTED' scripts/public-signatures-fixture/Planted.swift)
    actual=$(MODE=check read_graphs "$scratch/graphs" public-signatures-fixture)
    local reported
    reported=$(cut -f1 <<< "$actual" | sort -u | wc -l)
    if [[ "$reported" != "$expected" ]] || grep -q -e 'kind(' -e 'KeyPath' -e 'systemErrorNumber' -e 'internalSave' -e 'UInt8' -e 'renamed' <<< "$actual"; then
        echo "$actual" >&2
        echo "self-test FAILED: expected the $expected PLANTED declarations and no CLEAN one, got $reported above" >&2
        return 1
    fi
    local listed
    listed=$(MODE=list read_graphs "$scratch/graphs" public-signatures-fixture)
    grep -q 'Planted.kind(ofDocumentNamed:)' <<< "$listed" || {
        echo "self-test FAILED: the list lacks a public function" >&2
        return 1
    }
    echo "self-test passed: $expected planted violations found, no clean declaration reported"
}

case "${1:-}" in
--self-test) self_test ;;
--check)
    graphs=$(dump_graphs)
    found=$(MODE=check read_graphs "$graphs" $(in_scope_modules))
    allowed=$(grep -v '^#' "$ALLOWLIST" | grep . | cut -f1 | sort -u || true)
    failed=0
    unexpected=$(cut -f1 <<< "$found" | sort -u | comm -23 - <(echo "$allowed") | grep . || true)
    if [[ -n "$unexpected" ]]; then
        echo "public-signatures: String paths or Int32 descriptors in public signatures (take FilePath or FileDescriptor):" >&2
        while IFS= read -r key; do grep -F "$key"$'\t' <<< "$found" >&2; done <<< "$unexpected"
        failed=1
    fi
    stale=$(comm -13 <(cut -f1 <<< "$found" | sort -u) <(echo "$allowed") | grep . || true)
    if [[ -n "$stale" ]]; then
        echo "public-signatures: allowlisted but no longer a violation (remove from $ALLOWLIST):" >&2
        echo "$stale" >&2
        failed=1
    fi
    echo "public-signatures: $(cut -f1 <<< "$found" | sort -u | grep -c . || true) public signatures take or return a String path or an Int32 descriptor, $(echo "$allowed" | grep -c . || true) of them allowlisted" >&2
    exit $failed
    ;;
"")
    graphs=$(dump_graphs)
    MODE=list read_graphs "$graphs" $(in_scope_modules)
    ;;
*) echo "usage: $0 [--check | --self-test]" >&2; exit 64 ;;
esac
