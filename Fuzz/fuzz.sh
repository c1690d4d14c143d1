#!/usr/bin/env bash
# Fuzz/fuzz.sh — builds and runs the libFuzzer targets of Fuzz/targets/.
#
#   Fuzz/fuzz.sh [target|all] [seconds] [max-execs]
#
#   target     response, curlhead, uritemplate, mediatype, form, authenticate, profile, ntlm, or all (default)
#   seconds    time limit per target (default 60)
#   max-execs  execution limit per target (default: none); a target stops at whichever
#              limit comes first. The long run: Fuzz/fuzz.sh all 600 10000000
#
# The library is compiled straight from Sources/ (the C shims CJewzruxinCurl and CJewzruxinPublicSuffix with clang, then
# JewzruxinPrimitives, JewzruxinAuth and Jewzruxin with
# -enable-testing so the targets reach `internal` API through `@testable import`), with
# -sanitize=fuzzer,address, into Fuzz/.build/ (ignored by git; rebuilt when a source changes).
# Each target's corpus grows in Fuzz/.build/corpus/<target>, seeded from Fuzz/corpus/<target>;
# crashes, leaks and timeouts land in Fuzz/.build/artifacts/<target>/ (crash-*, leak-*,
# timeout-*, oom-*), logs in Fuzz/.build/logs/<target>.log. Reproduce one with
# `Fuzz/.build/bin/fuzz-<target> <file>`, minimise it with `... -minimize_crash=1 -runs=10000 <file>`.
#
# Prints one line per target: `fuzz <target>: executions N, crashes N, time Ns`, and exits
# non-zero when a target crashed (or failed to build).
# Environment: SWIFTC (default: swiftc on PATH, else /opt/swift/usr/bin/swiftc),
# FUZZ_FLAGS (extra libFuzzer flags, e.g. "-dict=..." or "-max_len=65536"),
# FUZZ_SANITIZERS (default fuzzer,address; `fuzzer` alone runs many times faster, for the
# execution-count runs, and builds into Fuzz/.build-fuzzer/ so the two builds don't mix).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FUZZ="$ROOT/Fuzz"
SANITIZERS="${FUZZ_SANITIZERS:-fuzzer,address}"
if [[ "$SANITIZERS" == fuzzer,address ]]; then OUT="$FUZZ/.build"; else OUT="$FUZZ/.build-${SANITIZERS//,/-}"; fi
ALL_TARGETS=(response curlhead uritemplate mediatype form authenticate profile ntlm)

which="${1:-all}"
seconds="${2:-60}"
execs="${3:--1}"
if [[ "$which" == all ]]; then targets=("${ALL_TARGETS[@]}"); else targets=("$which"); fi
for t in "${targets[@]}"; do
    [[ -f "$FUZZ/targets/$t.swift" ]] || { echo "fuzz.sh: unknown target '$t' (known: ${ALL_TARGETS[*]})" >&2; exit 2; }
done

SWIFTC="${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}"
FLAGS=(-sanitize="$SANITIZERS" -parse-as-library -O -g -package-name jewzruxin)
mkdir -p "$OUT/lib" "$OUT/bin" "$OUT/logs"

# build_module NAME SOURCE_DIR: one object file and module for the library module NAME.
build_module() {
    local name="$1" dir="$2" obj="$OUT/lib/$1.o"
    local newest
    newest="$(find "$dir" -name '*.swift' -newer "$obj" 2>/dev/null | head -1)"
    if [[ -f "$obj" && -z "$newest" ]]; then return 0; fi
    echo "fuzz.sh: compiling $name" >&2
    local sources=()
    while IFS= read -r -d '' f; do sources+=("$f"); done < <(find "$dir" -name '*.swift' -print0 | sort -z)
    "$SWIFTC" "${FLAGS[@]}" -enable-testing -wmo -module-name "$name" -I "$OUT/lib" -I "$OUT/lib/CJewzruxinCurl" -I "$OUT/lib/CJewzruxinPublicSuffix" \
        -emit-module -emit-module-path "$OUT/lib/$name.swiftmodule" -c "${sources[@]}" -o "$obj.tmp" \
        && mv "$obj.tmp" "$obj"
}

# A C module (the libcurl shim, the libpsl shim): its object, and a module map for swiftc to import it by.
build_c_module() {
    local name="$1" dir="$2" obj="$OUT/lib/$1.o"
    mkdir -p "$OUT/lib/$name"
    printf 'module %s {\n    header "%s"\n    export *\n}\n' "$name" "$dir/include/$name.h" > "$OUT/lib/$name/module.modulemap"
    local newest
    newest="$(find "$dir" -name '*.[ch]' -newer "$obj" 2>/dev/null | head -1)"
    if [[ -f "$obj" && -z "$newest" ]]; then return 0; fi
    echo "fuzz.sh: compiling $name" >&2
    local clang="${CLANG:-$(dirname "$SWIFTC")/clang}" objects=() source part
    for source in "$dir"/*.c; do
        part="$OUT/lib/$name-$(basename "$source" .c).o"
        "$clang" -fsanitize="${SANITIZERS/fuzzer/fuzzer-no-link}" -O1 -g -I "$dir/include" -c "$source" -o "$part" || return 1
        objects+=("$part")
    done
    # One object for the module (libcurl's functions and the decoders'), whatever its C files.
    "$clang" -r "${objects[@]}" -o "$obj"
}

build_c_module CJewzruxinCurl "$ROOT/Sources/CJewzruxinCurl" || { echo "fuzz.sh: building CJewzruxinCurl failed" >&2; exit 1; }
build_c_module CJewzruxinPublicSuffix "$ROOT/Sources/CJewzruxinPublicSuffix" || { echo "fuzz.sh: building CJewzruxinPublicSuffix failed" >&2; exit 1; }
build_module JewzruxinPrimitives "$ROOT/Sources/JewzruxinPrimitives" || { echo "fuzz.sh: building JewzruxinPrimitives failed" >&2; exit 1; }
build_module JewzruxinAuth "$ROOT/Sources/JewzruxinAuth" || { echo "fuzz.sh: building JewzruxinAuth failed" >&2; exit 1; }
build_module Jewzruxin "$ROOT/Sources/Jewzruxin" || { echo "fuzz.sh: building Jewzruxin failed" >&2; exit 1; }

status=0
for t in "${targets[@]}"; do
    bin="$OUT/bin/fuzz-$t"
    if [[ ! -x "$bin" || "$FUZZ/targets/$t.swift" -nt "$bin" || "$OUT/lib/Jewzruxin.o" -nt "$bin" ]]; then
        echo "fuzz.sh: linking fuzz-$t" >&2
        if ! "$SWIFTC" "${FLAGS[@]}" -module-name "fuzz_$t" -I "$OUT/lib" -I "$OUT/lib/CJewzruxinCurl" -I "$OUT/lib/CJewzruxinPublicSuffix" "$FUZZ/targets/$t.swift" \
            "$OUT/lib/Jewzruxin.o" "$OUT/lib/JewzruxinAuth.o" "$OUT/lib/JewzruxinPrimitives.o" "$OUT/lib/CJewzruxinCurl.o" \
            "$OUT/lib/CJewzruxinPublicSuffix.o" -ldl -lpthread -o "$bin" >"$OUT/logs/link-$t.log" 2>&1; then
            # (gold's "Cannot export local symbol '__asan_…'" warnings are harmless; they stay in the log.)
            grep -v "Cannot export local symbol" "$OUT/logs/link-$t.log" >&2
            echo "fuzz $t: build failed"; status=1; continue
        fi
    fi
    corpus="$OUT/corpus/$t" artifacts="$OUT/artifacts/$t" log="$OUT/logs/$t.log"
    mkdir -p "$corpus" "$artifacts" "$FUZZ/corpus/$t"
    begin=$(date +%s)
    # Only what this run finds counts: artifacts of earlier runs stay for reproduction.
    stamp="$OUT/logs/$t.start"
    touch "$stamp"
    # The Swift runtime's backtracer fights ASan over crashing threads: leave crashes to ASan.
    export SWIFT_BACKTRACE=enable=no
    # Leaks outside Jewzruxin (documented in Scripts/lsan.supp) are not the library's.
    export LSAN_OPTIONS="suppressions=$ROOT/Scripts/lsan.supp${LSAN_OPTIONS:+ $LSAN_OPTIONS}"
    # libFuzzer checks each input for leaks too (LeakSanitizer), so leak-* files count as crashes.
    "$bin" "$corpus" "$FUZZ/corpus/$t" -artifact_prefix="$artifacts/" -max_total_time="$seconds" -runs="$execs" \
        -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        ${FUZZ_FLAGS:-} >"$log" 2>&1
    rc=$?
    elapsed=$(( $(date +%s) - begin ))
    runs=$(grep -h 'stat::number_of_executed_units' "$log" 2>/dev/null | awk '{s+=$2} END {print s+0}')
    crashes=$(find "$artifacts" -maxdepth 1 -type f -newer "$stamp" \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
    echo "fuzz $t: executions $runs, crashes $crashes, time ${elapsed}s"
    if [[ $rc -ne 0 || $crashes -gt 0 ]]; then status=1; fi
done
exit $status
