#!/usr/bin/env bash
# Runs the property-list benchmarks (`make bench`): release builds of `ict`
# and of the Benchmarks package, then one run that prints one table of
# ICTKit against its peers, ratios and targets, and "N of M targets met".
#
# Installs what the peers need when it is missing (Debian: plistutil from
# libplist-utils, libxml2's headers, pkg-config, python3 for the inputs (and
# python3-venv for rows Y),
# Info-ZIP's zip and unzip for the package-zip rows, librust-plist-dev and cargo
# for the Rust plist crate of rows r1-r2, built offline from Debian's registry,
# syncthing and curl for the sync rows P and G, as `scripts/install-deps.sh test`
# installs them for the tests: the devices are the tests' SyncthingDevices).
# Arguments are passed to the harness, e.g. `scripts/bench.sh --repetitions 11`.
#
# Rows Y (issue 42: ictkit.plistlib against plistlib) are measured by
# python/bench/bench_plistlib.py in the virtual environment `make python-test`
# makes (.build-python/venv), with ./python installed there when it is missing
# or older than its sources; they join the harness's table. `--only Y` runs
# them alone, without building the harness.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if command -v dpkg >/dev/null 2>&1; then
    missing=()
    for package in libplist-utils libxml2-dev pkg-config python3 python3-venv zip unzip librust-plist-dev syncthing curl; do
        dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
    done
    if ((${#missing[@]} > 0)); then
        sudo=""
        [[ "$(id -u)" -eq 0 ]] || sudo="sudo"
        echo "bench: installing ${missing[*]}" >&2
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
    fi
fi
# `--only` and `--data` are read here too: rows Y are run by this script, the others by the harness.
only=""
data_directory="$root/Benchmarks/.data"
previous=""
for argument in "$@"; do
    [[ "$previous" == "--only" ]] && only="$argument"
    [[ "$previous" == "--data" ]] && data_directory="$argument"
    previous="$argument"
done
python_rows=0
[[ -z "$only" || "$only" == *Y* ]] && python_rows=1
harness_rows=1
[[ -n "$only" && -z "${only//Y/}" ]] && harness_rows=0

table="$(mktemp)"
trap 'rm -f "$table"' EXIT
status=0
if ((harness_rows)); then
    command -v plistutil >/dev/null 2>&1 || { echo "bench: plistutil (libplist) is needed" >&2; exit 1; }
    for tool in zip unzip; do
        command -v "$tool" >/dev/null 2>&1 || { echo "bench: $tool (Info-ZIP) is needed" >&2; exit 1; }
    done

    # The ict that make install installs: statically linked (Makefile, STATIC_FLAGS),
    # which is what start-up rows s1-s4 measure.
    echo "bench: building ict (release, static: make static)" >&2
    make static >&2
    ict="$root/.build-static/release/ict"
    plutil_option=()
    if plutil="$(command -v plutil)"; then plutil_option=(--plutil "$plutil"); fi

    echo "bench: building the benchmarks (release)" >&2
    # SwiftPM caches the plan of a path dependency: a source file added to the
    # package since the last build would be missing from it ("cannot find … in scope").
    touch Benchmarks/Package.swift
    swift build -c release --package-path Benchmarks >&2
    harness="$(swift build -c release --package-path Benchmarks --show-bin-path)/PropertyListBenchmarks"

    # Row w's stress program, only when row w is run (`--only` without a w skips a long release build).
    stress_option=()
    if [[ -z "$only" || "$only" == *w* ]]; then
        echo "bench: building CoordinationStress (release) for row w" >&2
        swift build -c release --product CoordinationStress >&2
        stress_option=(--coordination-stress "$(swift build -c release --show-bin-path)/CoordinationStress")
    fi

    # The Rust plist crate (rows r1-r2): Debian's librust-plist-dev puts it and its
    # dependencies in /usr/share/cargo/registry; Benchmarks/Peers/rust-plist/.cargo
    # builds against that, offline. cargo comes with rustup or Debian's cargo package.
    rust_option=()
    if command -v cargo >/dev/null 2>&1 && [[ -d /usr/share/cargo/registry ]]; then
        echo "bench: building the Rust plist peer (release, offline)" >&2
        (cd Benchmarks/Peers/rust-plist && CARGO_TARGET_DIR="$root/Benchmarks/.build-peers" cargo build --release --offline -q >&2)
        rust_option=(--rust-plist "$root/Benchmarks/.build-peers/release/rust-plist-read")
    else
        echo "bench: no cargo or no Debian crate registry: rows r1-r2 are not measured" >&2
    fi

    "$harness" --ict "$ict" "${rust_option[@]}" --plistutil "$(command -v plistutil)" "${plutil_option[@]}" \
        "${stress_option[@]}" "$@" >"$table" || status=$?
fi

if ((python_rows)); then
    venv="$root/.build-python/venv"
    installed="$venv/.ictkit-installed"
    if [[ ! -f "$installed" ]] || [[ -n "$(find python/src python/build_backend python/pyproject.toml Sources Package.swift \
        -newer "$installed" -print -quit)" ]]; then
        echo "bench: installing ./python into $venv for rows Y (a release build of libICTKitC)" >&2
        python3 -m venv "$venv"
        "$venv/bin/python" -m pip install --quiet --force-reinstall ./python >&2
        touch "$installed"
    fi
    if [[ ! -f "$data_directory/large.binary.plist" || ! -f "$data_directory/large.xml.plist" ]]; then
        echo "bench: writing the inputs into $data_directory" >&2
        python3 Benchmarks/generate_inputs.py "$data_directory" >&2
    fi
    echo "bench: rows Y (ictkit.plistlib against plistlib)" >&2
    # From /tmp, so the installed package is imported, not python/src.
    (cd /tmp && "$venv/bin/python" "$root/python/bench/bench_plistlib.py" "$data_directory" 5 --merge "$table") || status=$?
else
    cat "$table"
fi
exit "$status"
