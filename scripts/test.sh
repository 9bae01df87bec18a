#!/usr/bin/env bash
# Configure, build and run the whole test suite: unit tests (ctest label
# "unit") and corpus tests (label "corpus"; they skip, visibly, when the
# corpus is absent: set HKSPLINE_CORPUS or place it at ../shared/corpus).
# ctest's own output is printed ("N% tests passed, ... out of M"); the script
# exits non-zero when configuring, building or any test fails.
#
# Environment: BUILD_DIR (default: build), JOBS (default: the number of cores),
# CTEST_ARGS (extra ctest arguments, e.g. "-L unit").
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHKS_WERROR=ON
cmake --build "$BUILD_DIR" -j "$JOBS"
cd "$BUILD_DIR"
# shellcheck disable=SC2086
ctest --output-on-failure -j "$JOBS" ${CTEST_ARGS:-}
