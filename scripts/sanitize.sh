#!/bin/sh
# Build the whole project with AddressSanitizer + UndefinedBehaviorSanitizer in
# a separate build directory and run the complete ctest suite (unit, fuzz
# regressions and, when the corpus is present, corpus tests).
#
# usage: scripts/sanitize.sh [BUILD_DIR]   (default: build-sanitize beside the sources)
# Environment: JOBS (default 2), CC (default: the system compiler).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build-sanitize}
jobs=${JOBS:-2}
# Leaks are errors; a UBSan report aborts the test (the build also uses
# -fno-sanitize-recover=all).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# corpus_recompress's edits of units with hash-free entries (test_edit_units) re-run the whole prediction
# per edit: under the sanitizers every 64th animation (the plain suite takes every 32nd).
export HKSPLINE_EDIT_STRIDE=${HKSPLINE_EDIT_STRIDE:-64}
start=$(date +%s)
cmake -S "$src" -B "$build" -DHKS_SANITIZE=ON -DHKS_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$jobs"
cd "$build"
status=0
ctest -j"$jobs" --output-on-failure --timeout 3000 || status=$?
echo "sanitize.sh: ctest exit $status after $(( $(date +%s) - start )) s"
exit $status
