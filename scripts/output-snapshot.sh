#!/usr/bin/env bash
# Runs a built `ict` over the sample documents and the interop corpus and
# writes each command's standard output, standard error and exit status to
# files in an output folder, so that a change meant to keep behaviour (issue
# 43: the command's work moved into ICTKitTooling) can be checked with
# `diff -r BEFORE AFTER`: the two folders must be identical to the byte.
#
#   scripts/output-snapshot.sh ICT OUTPUT_FOLDER
#   scripts/output-snapshot.sh .build/debug/ict /tmp/snapshot-before
#
# The inputs are copied first to one fixed folder ($ICT_SNAPSHOT_INPUTS,
# /tmp/ict-output-snapshot-inputs unless set), so that the paths in the
# outputs are the same on every run and nothing the commands might write
# lands in the repository or the shared corpus. The interop corpus is
# ../shared/interop beside the clone ($ICT_INTEROP to name another; skipped
# with a note when it is missing). Every command runs with a 60 s bound and
# ICT_ARGUMENT_PARSER_ONLY unset (the quick paths are what scripts run); the
# `--argument-parser-only` flag runs them all through argument-parser
# instead. Not run by CI: a tool for the person making such a change.
set -euo pipefail

if [[ "${1:-}" == "--argument-parser-only" ]]; then
    export ICT_ARGUMENT_PARSER_ONLY=1
    shift
fi
if (($# != 2)); then
    echo "usage: scripts/output-snapshot.sh [--argument-parser-only] ICT OUTPUT_FOLDER" >&2
    exit 64
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ict="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
output="$2"
inputs="${ICT_SNAPSHOT_INPUTS:-/tmp/ict-output-snapshot-inputs}"
interop="${ICT_INTEROP:-$root/../shared/interop}"
[[ -x "$ict" ]] || { echo "output-snapshot: $1 is not an executable" >&2; exit 1; }
[[ ! -e "$output" ]] || { echo "output-snapshot: $output exists; name a new folder" >&2; exit 1; }

rm -rf "$inputs"
mkdir -p "$inputs" "$output"
output="$(cd "$output" && pwd)"
cp -a "$root/SampleDocs" "$inputs/SampleDocs"
if [[ -d "$interop" ]]; then
    cp -a "$interop" "$inputs/interop"
else
    echo "output-snapshot: no interop corpus at $interop; the sample documents only" >&2
fi

# run NAME ARGUMENTS...: runs ict with ARGUMENTS in the current folder, its
# output in $case_folder/NAME.{stdout,stderr,status}.
run() {
    local name="$1"
    shift
    local status=0
    timeout 60 "$ict" "$@" >"$case_folder/$name.stdout" 2>"$case_folder/$name.stderr" </dev/null || status=$?
    echo "$status" >"$case_folder/$name.status"
}

# One folder per input, named by its path under $inputs; commands that write
# files write them in a scratch folder of the case's own (their names appear
# in the outputs, so they are relative).
snapshot_file() {
    local file="$1"
    local relative="${file#"$inputs"/}"
    case_folder="$output/files/$relative"
    mkdir -p "$case_folder"
    local scratch="$output/scratch/${relative//\//%}"
    mkdir -p "$scratch"
    cd "$scratch"
    run inspect inspect "$file"
    run inspect-json inspect --json "$file"
    run validate-json validate --json "$file"
    run convert-json convert "$file" --format json -o -
    run convert-xml1 convert "$file" --format xml1 -o -
    run types-identify-json types identify --json "$file"
    run plutil-p plutil -p "$file"
    # The rest on the sample documents only: the interop corpus's 700-odd inputs take long enough.
    if [[ "$relative" == SampleDocs/* ]]; then
        run inspect-expand-json inspect --json --expand "$file"
        run validate validate "$file"
        run convert-report-json convert --json "$file" --format xml1 -o converted.plist
        run convert-binary1 convert "$file" --format binary1 -o converted.bplist
        [[ -f converted.bplist ]] && cksum <converted.bplist >"$case_folder/convert-binary1.cksum"
        run get-root-json get "$file" "" --format json
        run type-root-json type --json "$file" ""
        run types-identify types identify "$file"
        run plutil-lint plutil -lint "$file"
        run plutil-convert-json plutil -convert json -o - "$file"
    fi
    cd "$root"
    rm -rf "$scratch"
}

# Every folder: list (plain, --json; recursive, --jsonl and status for the
# sample documents), and the diff of each neighbouring pair of its files.
snapshot_folder() {
    local folder="$1"
    local relative="${folder#"$inputs"}"
    case_folder="$output/folders/${relative#/}"
    mkdir -p "$case_folder"
    cd "$folder"
    run list list "$folder"
    run list-json list --json "$folder"
    local full=false
    [[ "$relative" == /SampleDocs* || -z "$relative" ]] && full=true
    if $full; then
        run list-recursive-json list -r --json "$folder"
        run list-jsonl list --jsonl "$folder"
        run status-json status --json "$folder"
    fi
    local previous=""
    local index=0
    while IFS= read -r -d '' file; do
        if [[ -n "$previous" ]]; then
            index=$((index + 1))
            $full && run "diff-$index" diff "$previous" "$file"
            run "diff-$index-json" diff --json "$previous" "$file"
        fi
        previous="$file"
    done < <(find "$folder" -mindepth 1 -maxdepth 1 -type f -print0 | LC_ALL=C sort -z)
    cd "$root"
}

# Standard input, for each of the sample documents' plain files.
snapshot_stdin() {
    case_folder="$output/stdin"
    mkdir -p "$case_folder"
    local index=0
    while IFS= read -r -d '' file; do
        index=$((index + 1))
        local status=0
        timeout 60 "$ict" inspect --json - <"$file" >"$case_folder/$index.stdout" 2>"$case_folder/$index.stderr" || status=$?
        echo "$status ${file#"$inputs"/}" >"$case_folder/$index.status"
        status=0
        timeout 60 "$ict" convert - --format json -o - <"$file" >"$case_folder/$index-convert.stdout" \
            2>"$case_folder/$index-convert.stderr" || status=$?
        echo "$status" >"$case_folder/$index-convert.status"
    done < <(find "$inputs/SampleDocs" -type f -print0 | LC_ALL=C sort -z)
}

# The usage errors and help texts (UsageCheck, Ict.main's error handling).
snapshot_usage() {
    case_folder="$output/usage"
    mkdir -p "$case_folder"
    cd "$inputs"
    run none
    run help --help
    run version --version
    run unknown inpsect SampleDocs/Info.plist
    run unknown-nested types shw
    run help-unknown help nonexistent
    run dash-file inspect -dash.plist
    run bad-format convert SampleDocs/Info.plist --format yaml
    run bad-format-json convert --json SampleDocs/Info.plist --format yaml
    run bad-format-jsonl validate --jsonl --bogus SampleDocs/Info.plist
    run missing-argument get SampleDocs/Info.plist
    run missing-argument-json get --json SampleDocs/Info.plist
    run convert-zip-stdout convert SampleDocs/Rocket.ict --format zip -o -
    local command
    for command in inspect convert validate types list thumbnail create set get type insert remove create-plist versions \
        resolve diff status containers move kvstore "types lookup" "types show" "types conforms" "types identify" \
        "kvstore get" "kvstore set" "kvstore remove" "kvstore list" "kvstore validate"; do
        # shellcheck disable=SC2086
        run "help-${command// /-}" $command --help
    done
    run types-conforms types conforms public.xml public.data
    run types-conforms-not types conforms public.data public.xml
    run types-lookup-json types lookup --json public.json
    run plutil-help plutil -help
    run plutil-bad plutil -bogus
    cd "$root"
}

snapshot_usage
snapshot_stdin
# Every file, and every folder whose name has an extension (packages, .ict and .ptk documents, nib folders,
# models), $ICT_SNAPSHOT_JOBS (3) at a time: each writes only its own case folder.
export ict output inputs root
export -f run snapshot_file
find "$inputs" -mindepth 1 \( -type f -o -type d -name '*.?*' \) -print0 | LC_ALL=C sort -z |
    xargs -0 -n 1 -P "${ICT_SNAPSHOT_JOBS:-3}" bash -c 'snapshot_file "$1"' snapshot_file
while IFS= read -r -d '' folder; do
    snapshot_folder "$folder"
done < <(find "$inputs" -type d -print0 | LC_ALL=C sort -z)
rm -rf "$output/scratch"
echo "output-snapshot: $(find "$output" -name '*.status' | wc -l) runs in $output"
