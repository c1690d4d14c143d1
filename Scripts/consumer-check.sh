#!/usr/bin/env bash
# Scripts/consumer-check.sh — the promise of the package traits, checked as a project would see it.
#
#   Scripts/consumer-check.sh     from anywhere; builds in a temporary folder, removed at exit
#
# 1. .ci/consumers/no-traits depends on this checkout by path and enables no trait. Its build
#    must resolve, fetch and build no other package: no line of its log fetches, clones or
#    computes a version, its Package.resolved (if SwiftPM writes one) lists no pin, and no module
#    of the bridges' packages is built. Its program then makes one request to the sandbox.
#    Its target `forgot-trait`, which names the JewzruxinLogging product without the trait, must
#    fail to build with the message that names the trait.
# 2. .ci/consumers/one-trait enables `Logging`: it builds with swift-log as its one pinned package,
#    and its program logs a request through the bridge (it exits non-zero if nothing was logged).
#
# About 2 minutes per consumer on 2 cores (each builds the library in its own scratch folder).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CONSUMERS="$ROOT/.ci/consumers"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/jewzruxin-consumers.XXXXXX")"
cleanup() {
    rm -rf "$TMP"
    rm -f "$CONSUMERS/no-traits/Package.resolved" "$CONSUMERS/one-trait/Package.resolved"
}
trap cleanup EXIT
fail() { echo "consumer check: $*" >&2; exit 1; }
# The pins of a consumer's Package.resolved, one identity per line; nothing if there is no file.
pins() { [[ -f "$1/Package.resolved" ]] && sed -n 's/.*"identity" : "\(.*\)".*/\1/p' "$1/Package.resolved" || true; }
FETCHES='Fetching|Fetched|Cloning|Cloned|Computing version|Computed|Updating|Resolving'

echo "== no traits: $CONSUMERS/no-traits"
rm -f "$CONSUMERS/no-traits/Package.resolved"
swift build --package-path "$CONSUMERS/no-traits" --scratch-path "$TMP/no-traits" --product app 2>&1 | tee "$TMP/no-traits.log"
if grep -E "$FETCHES" "$TMP/no-traits.log"; then fail "a project with no trait fetched or resolved a package (lines above)"; fi
[[ -z "$(pins "$CONSUMERS/no-traits")" ]] || fail "a project with no trait has pins: $(pins "$CONSUMERS/no-traits" | tr '\n' ' ')"
if [[ -n "$(ls -A "$TMP/no-traits/checkouts" 2>/dev/null)" ]]; then fail "a project with no trait checked out: $(ls "$TMP/no-traits/checkouts")"; fi
built="$(find "$TMP/no-traits" -name '*.swiftmodule' -printf '%f\n' | grep -E '^(Logging|CoreMetrics|Tracing|Instrumentation|ServiceContextModule|HTTPTypes|OpenAPIRuntime)\.' || true)"
[[ -z "$built" ]] || fail "a project with no trait built modules of other packages: $built"
"$TMP/no-traits/debug/app"

echo "== no traits, a bridge named anyway: it must not build, and say which trait"
if swift build --package-path "$CONSUMERS/no-traits" --scratch-path "$TMP/no-traits" --product forgot-trait >"$TMP/forgot.log" 2>&1; then
    fail "JewzruxinLogging built and was usable without its trait"
fi
grep -F 'JewzruxinLogging needs the package trait "Logging"' "$TMP/forgot.log" || { cat "$TMP/forgot.log"; fail "the error doesn't name the trait"; }

echo "== one trait (Logging): $CONSUMERS/one-trait"
rm -f "$CONSUMERS/one-trait/Package.resolved"
swift build --package-path "$CONSUMERS/one-trait" --scratch-path "$TMP/one-trait" 2>&1 | tee "$TMP/one-trait.log" | grep -v Compiling
[[ "$(pins "$CONSUMERS/one-trait")" == "swift-log" ]] || fail "a project with the Logging trait pins: $(pins "$CONSUMERS/one-trait" | tr '\n' ' ') (want swift-log only)"
"$TMP/one-trait/debug/app"
echo "consumer check: passed"
