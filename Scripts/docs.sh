#!/usr/bin/env bash
# Scripts/docs.sh — builds the four DocC catalogs (Jewzruxin, JewzruxinFluent, JewzruxinSandbox,
# JewzruxinTesting) with the toolchain's `docc` and fails on any warning: an unresolved symbol
# link, a Topics entry naming no symbol, a documented parameter the signature doesn't have…
#
#   Scripts/docs.sh        from the package root (or anywhere: it finds the root); no swift-docc-plugin,
#                          only the toolchain's swift and docc. The first run builds for a few minutes.
#
# Steps:
#   1. swift build --build-path .build-docs, with the compiler writing each module's public symbol
#      graph to .build-docs/symbol-graphs (a build of its own: the flags differ from .build's).
#   2. docc convert --analyze for each catalog, given only its module's own graphs
#      (<Module>.symbols.json and the <Module>@<Other>.symbols.json extension graphs): links to
#      another module's symbols don't resolve, so docs name those in code voice (`HTTPCycle`).
#      The rendered archives go to a temporary directory, removed at exit.
#
# Prints every diagnostic and a count per module. Exits 0 with no warning or error (notes, from
# --analyze, are shown but don't fail), 1 with any, 2 when the build fails.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="${PATH}:/opt/swift/usr/bin"
MODULES=(Jewzruxin JewzruxinFluent JewzruxinSandbox JewzruxinTesting)
BUILD="$ROOT/.build-docs"
GRAPHS="$BUILD/symbol-graphs"

DOCC="$(command -v docc || true)"
if [ -z "$DOCC" ] && command -v swift >/dev/null; then
    DOCC="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
fi
if [ ! -x "$DOCC" ]; then
    echo "docs.sh: docc not found (it comes with the Swift toolchain)" >&2
    exit 2
fi

TMP="$(mktemp -d "${TMPDIR:-/tmp}/jewzruxin-docs.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

echo "== symbol graphs (.build-docs)"
mkdir -p "$GRAPHS"
for product in "${MODULES[@]}"; do
    if ! swift build --build-path "$BUILD" --product "$product" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$GRAPHS" \
        >"$BUILD/build.log" 2>&1; then
        cat "$BUILD/build.log"
        echo "docs.sh: the build of $product failed" >&2
        exit 2
    fi
done

total=0
summary=()
for module in "${MODULES[@]}"; do
    echo "== docc convert $module"
    graphs="$TMP/graphs-$module"
    mkdir -p "$graphs"
    if [ ! -f "$GRAPHS/$module.symbols.json" ]; then
        echo "docs.sh: no symbol graph for $module in $GRAPHS" >&2
        exit 2
    fi
    cp "$GRAPHS/$module.symbols.json" "$graphs/"
    for extension in "$GRAPHS/$module"@*.symbols.json; do
        [ -e "$extension" ] && cp "$extension" "$graphs/"
    done
    log="$TMP/$module.log"
    "$DOCC" convert "Sources/$module/$module.docc" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "$module" \
        --additional-symbol-graph-dir "$graphs" \
        --output-path "$TMP/$module.doccarchive" \
        --analyze >"$log" 2>&1
    status=$?
    sed '/./,$!d' "$log"
    warnings=$(grep -cE '^(warning|error): ' "$log")
    notes=$(grep -cE '^note: ' "$log")
    if [ "$status" -ne 0 ] && [ "$warnings" -eq 0 ]; then
        warnings=1
        echo "docs.sh: docc exited with $status" >&2
    fi
    total=$((total + warnings))
    summary+=("$(printf '%-18s warnings: %d  notes: %d' "$module" "$warnings" "$notes")")
done

echo "== summary"
printf '%s\n' "${summary[@]}"
if [ "$total" -ne 0 ]; then
    echo "docs.sh: $total warning(s)" >&2
    exit 1
fi
echo "docs.sh: no warning"
