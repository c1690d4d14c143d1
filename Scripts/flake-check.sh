#!/usr/bin/env bash
# Scripts/flake-check.sh — does the suite pass every time, on a fresh clone?
#
#   Scripts/flake-check.sh [N] [--load] [--integrations] [--ref REF] [--keep]
#
# Clones the repository (its committed REF, HEAD by default) afresh into a temporary folder, builds
# it once with its tests, then runs the README's test command, `swift test`, N times (default 10)
# as CI does: CI=true and a temporary directory of each run's own, which must be empty of our files
# when the run ends. For each run it prints the count of unexpected issues and the tests that failed,
# and it ends with one line: `N passed, M failed`.
#
#   --load          two busy loops run beside the tests (both cores of a 2-core machine saturated),
#                   started before the first run and stopped after the last.
#   --integrations  the same for the bridges' package: `swift test --package-path Integrations`.
#   --ref REF       clone REF rather than HEAD (a branch, a tag or a commit).
#   --keep          keep the clone and the runs' logs (their folder is printed); by default only a
#                   failed run's log is kept, copied to .build-flake/ in this repository.
#
# A run that hangs is stopped after RUN_LIMIT seconds (default 1200) and counts as failed.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="${PATH}:/opt/swift/usr/bin"

runs=10 load=0 integrations=0 ref=HEAD keep=0
while [[ $# -gt 0 ]]; do
    case "$1" in
    --load) load=1 ;;
    --integrations) integrations=1 ;;
    --keep) keep=1 ;;
    --ref) shift; ref="${1:?--ref needs a value}" ;;
    ''|*[!0-9]*) echo "usage: $0 [N] [--load] [--integrations] [--ref REF] [--keep]" >&2; exit 2 ;;
    *) runs="$1" ;;
    esac
    shift
done
RUN_LIMIT="${RUN_LIMIT:-1200}"

work="$(mktemp -d "${TMPDIR:-/tmp}/flake-check.XXXXXX")"
loops=()
cleanup() {
    for pid in "${loops[@]}"; do kill "$pid" 2>/dev/null; done
    if [[ $keep == 1 ]]; then echo "kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

commit="$(git -C "$ROOT" rev-parse --short "$ref")" || exit 2
echo "flake check: $runs runs of $([[ $integrations == 1 ]] && echo 'swift test --package-path Integrations' || echo 'swift test') on a fresh clone of $commit$([[ $load == 1 ]] && echo ', two busy loops beside')"
git clone --quiet --no-local "$ROOT" "$work/clone" && git -C "$work/clone" checkout --quiet --detach "$commit" || exit 2
cd "$work/clone"
package=()
[[ $integrations == 1 ]] && package=(--package-path Integrations)

started=$SECONDS
if ! swift build "${package[@]}" --build-tests >"$work/build.log" 2>&1; then
    tail -30 "$work/build.log"
    echo "the build failed"
    echo "0 passed, $runs failed"
    exit 1
fi
echo "built in $((SECONDS - started)) s"

if [[ $load == 1 ]]; then
    for _ in 1 2; do sh -c 'while :; do :; done' & loops+=($!); done
fi

# Our files a run may not leave in its temporary directory; the package manager's and the compiler's
# own (locks, `TemporaryDirectory.*`, generated sources) are theirs, as in .ci/run.
leftovers_in() {
    ls -A "$1" | grep -v -E '^(TemporaryDirectory\.[A-Za-z0-9]+|.+\.lock|swift-generated-sources)$' || true
}

passed=0 failed=0
for ((i = 1; i <= runs; i++)); do
    log="$work/run-$i.log"
    scratch="$(mktemp -d "$work/tmp.XXXXXX")"
    started=$SECONDS
    CI=true TMPDIR="$scratch" timeout --kill-after=30 "$RUN_LIMIT" swift test "${package[@]}" --skip-build >"$log" 2>&1
    status=$?
    seconds=$((SECONDS - started))
    # Unexpected issues: swift-testing's "recorded an issue" lines (a known issue says "recorded a
    # known issue") and XCTest's "error:" lines.
    issues=$(grep -cE '^. Test .* recorded an issue|: error: -\[' "$log")
    failures=$(grep -E '^. Test .* failed after|: error: -\[' "$log" | grep -v -E '^. Test run with' \
        | sed -E 's/^. Test (.*) (with [0-9]+ test cases? )?failed after.*/\1/; s/^.*: error: -\[([^]]*)\].*/\1/' | sort -u)
    # A crash ends the run without a summary: the runtime's message says why.
    crash=$(grep -m1 -E 'Fatal error|Program crashed|Assertion failed|Precondition failed' "$log")
    leftovers="$(leftovers_in "$scratch")"
    rm -rf "$scratch"
    verdict=passed
    if [[ $status -ne 0 || $issues -ne 0 || -n "$leftovers" ]]; then verdict=failed; fi
    summary=$(grep -E '^. Test run with|Executed [0-9]+ tests' "$log" | tail -1 | sed -E 's/^. //')
    printf 'run %d: %s in %d s, exit %d, %d unexpected issues — %s\n' "$i" "$verdict" "$seconds" "$status" "$issues" "${summary:-no summary line}"
    [[ $status -eq 124 || $status -eq 137 ]] && echo "    stopped after $RUN_LIMIT s"
    if [[ -n "$failures" ]]; then echo "$failures" | sed 's/^/    failed: /'; fi
    if [[ -n "$crash" ]]; then echo "    crashed: $crash"; fi
    if [[ -n "$leftovers" ]]; then
        echo "$leftovers" | head -5 | sed 's/^/    left in the temporary directory: /'
        count=$(echo "$leftovers" | wc -l)
        [[ $count -gt 5 ]] && echo "    … and $((count - 5)) more"
    fi
    if [[ $verdict == failed ]]; then
        failed=$((failed + 1))
        if [[ $keep == 0 ]]; then
            mkdir -p "$ROOT/.build-flake"
            cp "$log" "$ROOT/.build-flake/$commit-run-$i.log"
            echo "    log: .build-flake/$commit-run-$i.log"
        fi
    else
        passed=$((passed + 1))
    fi
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
