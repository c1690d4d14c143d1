#!/usr/bin/env bash
# Scripts/reliability.sh — the reliability pass of issue #9: race detection, leak detection and
# fuzzing, with one summary table at the end.
#
#   Scripts/reliability.sh [seconds]     every fuzz target for `seconds` (default 60) each
#   Scripts/reliability.sh --long        every fuzz target for 10 minutes or 10 M executions each
#   Options (before or after): --skip-tsan, --skip-leaks, --skip-fuzz
#
# Steps (their logs in .build-reliability/):
#   1. TSan:  swift test --sanitize=thread --scratch-path .build-tsan --no-parallel
#             (whole suite; "TSan reports" counts `WARNING: ThreadSanitizer` blocks). One test at a
#             time: each test still runs its own transfers, servers and callbacks concurrently, but
#             tests running side by side under TSan's slowdown starve the cooperative pool for
#             seconds, and the tests that wait 0.3–5 s for a cancel or a deadline then fail.
#   2. Leaks: swift test --sanitize=address --scratch-path .build-asan --disable-xctest --filter <LEAK_FILTER>
#             LeakSanitizer runs at exit of the test process; "leaks" counts `Direct leak`
#             records (definite leaks); the last column adds the `Indirect leak` records left
#             over (objects only reachable from leaked ones, such as a retain cycle, which LSan
#             reports as indirect leaks only), and any fails the step. Scripts/lsan.supp suppresses leaks of the Swift runtime,
#             Foundation and libcurl, and LSan false positives proven by the reproducers in
#             Scripts/lsan-repro/ — never a frame of Jewzruxin. The workload is the end-to-end
#             suites that run real requests on both transports (LEAK_FILTER overrides it); they
#             are swift-testing suites (the package has no XCTest tests, and XCTest's runner
#             alone leaves an indirect leak).
#   3. Fuzz:  Fuzz/fuzz.sh all <seconds> [<execs>]  (libFuzzer + ASan, see Fuzz/fuzz.sh).
#
# Exits non-zero when a test fails, TSan reports anything, a leak is found or a fuzz target
# crashes. Needs Swift 6 with the sanitizers (Linux: TSan, ASan/LSan, libFuzzer).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="${PATH}:/opt/swift/usr/bin"
LOGS="$ROOT/.build-reliability"
mkdir -p "$LOGS"

seconds=60 execs=-1 tsan=1 leaks=1 fuzz=1
for arg in "$@"; do
    case "$arg" in
    --long) seconds=600 execs=10000000 ;;
    --skip-tsan) tsan=0 ;;
    --skip-leaks) leaks=0 ;;
    --skip-fuzz) fuzz=0 ;;
    ''|*[!0-9]*) echo "usage: $0 [seconds|--long] [--skip-tsan] [--skip-leaks] [--skip-fuzz]" >&2; exit 2 ;;
    *) seconds="$arg" ;;
    esac
done
LEAK_FILTER="${LEAK_FILTER:-JewzruxinTests\.(SeedExampleTests|FaultMatrixTests|TransferTests|AuthenticationTests|RetryTests|HTTPServiceRequestTests|SessionFeatureTests|EventStreamTests|StreamedUploadTests)|JewzruxinFluentTests\.(SeedExampleTests|EventStreamHandlerTests)}"

rows=()
status=0
row() { rows+=("$(printf '%-22s %8s %12s %8s %6s %6s %s' "$@")"); }

# Test cases executed according to a `swift test` log (XCTest and swift-testing).
cases_in() {
    local xc st
    xc=$(grep -E "^Test Suite 'All tests' (passed|failed)" -A1 "$1" | grep -oE 'Executed [0-9]+ test' | grep -oE '[0-9]+' | awk '{s+=$1} END {print s+0}')
    st=$(grep -oE 'Test run with [0-9]+ test' "$1" | grep -oE '[0-9]+' | awk '{s+=$1} END {print s+0}')
    echo $((xc + st))
}
failed_in() { grep -qE "^Test Suite 'All tests' failed|with [1-9][0-9]* (failures|issues?)|error: fatalError|Fatal error" "$1"; }

if [[ $tsan == 1 ]]; then
    echo "== TSan: swift test --sanitize=thread --scratch-path .build-tsan --no-parallel" >&2
    begin=$(date +%s)
    TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 ${TSAN_OPTIONS:-}" \
        timeout -k 10 2400 swift test --sanitize=thread --scratch-path .build-tsan --no-parallel >"$LOGS/tsan.log" 2>&1
    rc=$?
    reports=$(grep -c '^WARNING: ThreadSanitizer' "$LOGS/tsan.log")
    cases=$(cases_in "$LOGS/tsan.log")
    row "tsan (full suite)" "$cases" "-" "-" "$reports" "-" "$(( $(date +%s) - begin ))s rc=$rc"
    if [[ $rc -ne 0 || $reports -gt 0 ]]; then status=1; fi
fi

if [[ $leaks == 1 ]]; then
    echo "== Leaks: swift test --sanitize=address --scratch-path .build-asan --disable-xctest --filter ..." >&2
    begin=$(date +%s)
    ASAN_OPTIONS="detect_leaks=1 ${ASAN_OPTIONS:-}" \
    LSAN_OPTIONS="suppressions=$ROOT/Scripts/lsan.supp print_suppressions=1 ${LSAN_OPTIONS:-}" \
        timeout -k 10 1800 swift test --sanitize=address --scratch-path .build-asan --disable-xctest \
            --filter "$LEAK_FILTER" >"$LOGS/leaks.log" 2>&1
    rc=$?
    direct=$(grep -c '^Direct leak of' "$LOGS/leaks.log")
    indirect=$(grep -c '^Indirect leak of' "$LOGS/leaks.log")
    asan=$(grep -c '^==[0-9]*==ERROR: AddressSanitizer' "$LOGS/leaks.log")
    cases=$(cases_in "$LOGS/leaks.log")
    row "leaks (asan+lsan)" "$cases" "-" "$asan" "-" "$direct" "$(( $(date +%s) - begin ))s rc=$rc indirect=$indirect"
    if [[ $rc -ne 0 || $direct -gt 0 || $indirect -gt 0 || $asan -gt 0 ]]; then status=1; fi
fi

if [[ $fuzz == 1 ]]; then
    echo "== Fuzz: Fuzz/fuzz.sh all $seconds $execs" >&2
    "$ROOT/Fuzz/fuzz.sh" all "$seconds" "$execs" | tee "$LOGS/fuzz.log" >&2
    [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
    while read -r _ target _ executions _ crashes _ time; do
        row "fuzz ${target%:}" "-" "${executions%,}" "${crashes%,}" "-" "-" "$time"
    done < <(grep '^fuzz ' "$LOGS/fuzz.log")
fi

echo
printf '%-22s %8s %12s %8s %6s %6s %s\n' "step" "cases" "executions" "crashes" "tsan" "leaks" "time"
printf '%s\n' "${rows[@]}"
exit $status
