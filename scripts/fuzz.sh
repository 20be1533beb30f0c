#!/usr/bin/env bash
# Coverage-guided fuzzing of every reader (Fuzz/README.md).
#
#   scripts/fuzz.sh build            build Fuzz/ with libFuzzer and the address sanitizer
#   scripts/fuzz.sh run [TARGET…]    fuzz each target FUZZ_SECONDS (default 60), in turn,
#                                    growing a scratch corpus and merging new inputs,
#                                    minimised, back into Fuzz/Corpus/TARGET
#   scripts/fuzz.sh check [TARGET…]  run each target over its committed corpus once (CI)
#   scripts/fuzz.sh seed [TARGET…]   (re)make Fuzz/Corpus from scripts/fuzz-seeds.py, minimised
#   scripts/fuzz.sh minimize [TARGET…]  shrink Fuzz/Corpus/TARGET, with the scratch corpus's inputs
#   scripts/fuzz.sh list             the target names
#
# Findings (crash-*, leak-*, timeout-*, oom-*) are written to $FUZZ_WORK/findings/TARGET/;
# each run's summary line is appended to $FUZZ_WORK/runs.log.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_WORK=${FUZZ_WORK:-$ROOT/.build-fuzz}
# FUZZ_BUILD: the harness's build folder (another lets a new harness build while one runs).
FUZZ_BUILD=${FUZZ_BUILD:-$ROOT/Fuzz/.build}
FUZZER=$FUZZ_BUILD/release/ICTFuzz
# Every input is cut off at 2 GB of memory and 10 s; the targets set the
# libraries' own limits small too (Fuzz/Sources/ICTFuzz).
LIMITS=(-rss_limit_mb=2048 -timeout=10 -malloc_limit_mb=2048)
ALL_TARGETS=(binary-plist xml-plist openstep-plist json-plist partial-binary-plist key-path
             keyed-archive keyed-unarchiver archive-validator ict-summary ict-document png zip
             info-plist mime-xml keyed-coder ict-json-form mime-cache text-note ptk-document typedstream
             coredata-model-xml coredata-mom coredata-store nib-archive embedded-archive protocol-buffer data-layers)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$ROOT/Fuzz/lsan.supp}

dictionary() {
    case $1 in
        binary-plist|partial-binary-plist|key-path) echo bplist ;;
        xml-plist) echo xmlplist ;;
        openstep-plist) echo openstep ;;
        json-plist) echo json ;;
        keyed-archive|keyed-unarchiver|archive-validator|ict-summary|ict-document|keyed-coder|ptk-document|embedded-archive) echo archive ;;
        ict-json-form) echo json ;;
        text-note) echo json ;;
        png) echo png ;;
        zip) echo zip ;;
        info-plist) echo infoplist ;;
        mime-xml) echo mime ;;
        mime-cache) echo mimecache ;;
        typedstream) echo typedstream ;;
        coredata-model-xml) echo coredatamodel ;;
        coredata-mom) echo archive ;;
        coredata-store) echo sqlite ;;
        nib-archive) echo nib ;;
        protocol-buffer|data-layers) echo layers ;;
        *) echo "unknown target $1 (scripts/fuzz.sh list)" >&2; exit 64 ;;
    esac
}

build() {
    # The libraries get the sanitizer and coverage only; Fuzz/Package.swift adds
    # -sanitize=fuzzer to the harness alone, so the build plugin's tool still runs.
    # The build plugin's tools are compiled with the sanitizer too; leak
    # checking is for the fuzzed code, not for them.
    (cd Fuzz && ASAN_OPTIONS=detect_leaks=0 swift build -c release --product ICTFuzz --scratch-path "$FUZZ_BUILD" \
        -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table \
        -Xcc -fsanitize=fuzzer-no-link,address)
}

fuzzer() { # TARGET ARGS…
    local target=$1
    shift
    ICT_FUZZ_TARGET=$target "$FUZZER" "${LIMITS[@]}" -dict="$ROOT/Fuzz/Dictionaries/$(dictionary "$target").dict" "$@"
}

run() { # TARGET
    local target=$1 scratch=$FUZZ_WORK/corpus/$1 findings=$FUZZ_WORK/findings/$1 log=$FUZZ_WORK/logs/$1-$(date -u +%Y%m%dT%H%M%SZ).log
    mkdir -p "$scratch" "$findings" "$FUZZ_WORK/logs" "Fuzz/Corpus/$target"
    cp -n "Fuzz/Corpus/$target"/* "$scratch"/ 2>/dev/null || true
    local command="ICT_FUZZ_TARGET=$target ICTFuzz ${LIMITS[*]} -dict=Fuzz/Dictionaries/$(dictionary "$target").dict -max_total_time=$FUZZ_SECONDS -print_final_stats=1 CORPUS"
    echo "== $target: $command"
    local status=0
    # Each line is stamped with the second it was printed, to tell how long ago coverage last grew.
    fuzzer "$target" -max_total_time="$FUZZ_SECONDS" -print_final_stats=1 -artifact_prefix="$findings/" "$scratch" 2>&1 \
        | while IFS= read -r line; do printf '%s %s\n' "$EPOCHSECONDS" "$line"; done > "$log" || status=$?
    local end last runs cov ft
    end=$(tail -n 1 "$log" | cut -d' ' -f1)
    # The last second at which cov: (edges reached) grew.
    last=$(awk '$2 ~ /^#[0-9]+$/ && $4 == "cov:" && $5 + 0 > best { best = $5 + 0; when = $1 } END { print when }' "$log")
    runs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)
    local summary
    summary="$(date -u +%Y-%m-%dT%H:%MZ) $target seconds=$FUZZ_SECONDS runs=$runs ${cov:-cov: ?} since-new-coverage=$(( ${end:-0} - ${last:-0} ))s exit=$status"
    echo "$summary" | tee -a "$FUZZ_WORK/runs.log"
    if ls "$findings"/* >/dev/null 2>&1; then
        echo "   findings in $findings:" && ls "$findings"
        grep -E 'ERROR|property failed|SUMMARY' "$log" | cut -d' ' -f2- | head -n 5 || true
    fi
    minimize "$target"
}

minimize() { # TARGET
    # Fuzz/Corpus/TARGET becomes the smallest set of its inputs and the scratch
    # corpus's that reaches every edge either reaches. Hit counts are ignored
    # (-use_counters=0): the same edges with a tenth of the files, so the
    # committed corpus stays small; the scratch corpus keeps everything.
    local merged=$FUZZ_WORK/merged/$1
    rm -rf "$merged"
    mkdir -p "$merged" "$FUZZ_WORK/corpus/$1"
    if fuzzer "$1" -set_cover_merge=1 -use_counters=0 "$merged" "Fuzz/Corpus/$1" "$FUZZ_WORK/corpus/$1" \
        > "$FUZZ_WORK/logs/$1-merge.log" 2>&1; then
        rm -rf "Fuzz/Corpus/$1"
        mv "$merged" "Fuzz/Corpus/$1"
        echo "   Fuzz/Corpus/$1: $(ls "Fuzz/Corpus/$1" | wc -l) inputs, $(du -sb "Fuzz/Corpus/$1" | cut -f1) bytes"
    else
        echo "   merge failed, see $FUZZ_WORK/logs/$1-merge.log"
        return 1
    fi
}

check() { # TARGET
    echo "== $1 over Fuzz/Corpus/$1"
    mkdir -p "$FUZZ_WORK/findings/$1"
    fuzzer "$1" -runs=0 -artifact_prefix="$FUZZ_WORK/findings/$1/" "Fuzz/Corpus/$1" 2>&1 | grep -E '^(#|Done|INFO: seed|==[0-9]+==ERROR|ICTFuzz)' | tail -n 3
    return "${PIPESTATUS[0]}"
}

seed() { # TARGET
    local seeds=$FUZZ_WORK/seeds
    [ -d "$seeds" ] || python3 scripts/fuzz-seeds.py "$seeds"
    rm -rf "Fuzz/Corpus/$1"
    mkdir -p "Fuzz/Corpus/$1" "$FUZZ_WORK/corpus/$1"
    cp "$seeds/$1"/* "$FUZZ_WORK/corpus/$1"/
    minimize "$1"
}

command=${1:-run}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${ALL_TARGETS[@]}")
mkdir -p "$FUZZ_WORK/logs"
case $command in
    build) build ;;
    list) printf '%s\n' "${ALL_TARGETS[@]}" ;;
    run|check|seed|minimize)
        [ -x "$FUZZER" ] || build
        failed=()
        for target in "${targets[@]}"; do
            dictionary "$target" > /dev/null
            "$command" "$target" || failed+=("$target")
        done
        if [ ${#failed[@]} -gt 0 ]; then echo "failed: ${failed[*]}" >&2; exit 1; fi
        ;;
    *) echo "usage: scripts/fuzz.sh build|run|check|seed|minimize|list [TARGET…]" >&2; exit 64 ;;
esac
