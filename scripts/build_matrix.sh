#!/bin/sh
# Build the whole project (library, CLI, tools, tests) with every compiler and
# build type asked for, each in its own build directory, and report the time
# and the number of compiler warnings of each build, and checks each shared
# library's exported symbols (scripts/check_exports.sh). Only builds: the test
# suite itself runs once, in scripts/test.sh.
#
# usage: scripts/build_matrix.sh [BUILD_ROOT]   (default: build-matrix beside the sources)
# Environment:
#   COMPILERS    C compilers to use (default "gcc clang")
#   BUILD_TYPES  CMake build types (default "Release Debug"; all four:
#                "Debug Release RelWithDebInfo MinSizeRel")
#   HKS_WERROR   ON (default) makes every warning an error; OFF builds through
#                and counts the warnings instead
#   JOBS         parallel jobs (default 2)
# Exits non-zero when any configuration fails to configure or build, or (with
# HKS_WERROR=OFF) prints any warning.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
root=${1:-$src/build-matrix}
compilers=${COMPILERS:-gcc clang}
types=${BUILD_TYPES:-Release Debug}
werror=${HKS_WERROR:-ON}
jobs=${JOBS:-2}
mkdir -p "$root"
status=0
total_start=$(date +%s)
printf '%-8s %-15s %8s %9s %s\n' compiler build_type seconds warnings result
for cc in $compilers; do
	for type in $types; do
		dir="$root/$cc-$type"
		log="$dir.log"
		t0=$(date +%s)
		result=ok
		if ! cmake -S "$src" -B "$dir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE="$type" \
			-DHKS_WERROR="$werror" >"$log" 2>&1; then
			result="configure failed"
		elif ! cmake --build "$dir" --clean-first -j "$jobs" >>"$log" 2>&1; then
			result="build failed"
		fi
		# The shared library of this compiler exports exactly hkspline.h's functions.
		if [ "$result" = ok ] && [ -e "$dir/libhkspline.so" ] &&
			! CC="$cc" "$src/scripts/check_exports.sh" "$dir/libhkspline.so" >>"$log" 2>&1; then
			result="exports differ from hkspline.h"
		fi
		warnings=$(grep -c 'warning:' "$log" || true)
		if [ "$result" = ok ] && [ "$warnings" -ne 0 ]; then result="warnings"; fi
		[ "$result" = ok ] || status=1
		printf '%-8s %-15s %8d %9d %s\n' "$cc" "$type" $(( $(date +%s) - t0 )) "$warnings" "$result"
		if [ "$result" != ok ]; then grep -E 'warning:|error:|check_exports' "$log" | sort -u | head -50; fi
	done
done
echo "build_matrix.sh: exit $status after $(( $(date +%s) - total_start )) s (logs: $root/*.log)"
exit $status
