#!/bin/sh
# Run every libFuzzer target (tests/fuzz/fuzz_*.c) for SECONDS each on a
# working copy of its seed corpus, with its dictionary, under ASan + UBSan.
#
# usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (default 60 s, all targets)
# Environment: BUILD (default build-fuzz beside the sources), JOBS (2),
#   KEEP_CORPUS=1 to keep the grown working corpora (printed at the end),
#   FUZZ_SEED=N to fix libFuzzer's random seed, FUZZ_RUNS_FILE=F to run each
#   target for the number of executions F lists ("target runs" per line;
#   SECONDS stays the upper bound). With both, a run is reproducible: CI uses
#   tests/fuzz/ci_runs so that what passed on a developer machine passes in
#   CI, while developers fuzz open-endedly by time. FUZZ_RUNS=N runs every
#   target for N executions (a measured campaign: SECONDS as the bound),
#   NICE=N runs the fuzzers under `nice -n N` (shared machines),
#   FUZZ_TIMEOUT=S sets libFuzzer's per-input timeout (25 s): its clock is
#   the wall clock, so a fuzzer paused for longer (SIGSTOP while another
#   process times something) reports a fast input as a timeout.
#   FUZZ_MAX_LEN=N sets libFuzzer's -max_len (65536): the campaign's bnd4 and
#   frames_json runs use 8192, where their inputs stop growing into the
#   tens-of-KB documents that cut their rate twentyfold (docs/RELIABILITY.md).
#   FUZZ_FORK=N runs libFuzzer's fork mode with N worker processes sharing one
#   corpus (-fork=N); FUZZ_RUNS then bounds the executions of all workers
#   together. The campaign's slowest target (gltf_rest) ran this way.
# Prints per target: seconds, executions, exec/s, coverage (cov: edges, ft:
# features, from libFuzzer's last status line), corpus size and the result.
# Prints executions per second and crashes per target; exits 1 when any
# target crashed (the reproducer is copied to tests/fuzz/crashers/<target>/
# of the source tree: fix the bug, keep the file, commit both).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
[ $# -gt 0 ] && shift
build=${BUILD:-$src/build-fuzz}
jobs=${JOBS:-2}
CC=${CC:-clang}
export CC
cmake -S "$src" -B "$build" -DHKS_FUZZ=ON -DHKS_TESTS=OFF -DHKS_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=${*:-$(cd "$src/tests/fuzz" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')}
cmake --build "$build" -j"$jobs" --target $(for t in $targets; do printf 'fuzz_%s ' "$t"; done)
work=$(mktemp -d "${TMPDIR:-/tmp}/hks-fuzz.XXXXXX")
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=0
printf '%-12s %8s %10s %10s %11s %8s %s\n' target seconds execs exec/s cov/ft corpus result
total_start=$(date +%s)
for t in $targets; do
	corpus="$work/$t"
	mkdir -p "$corpus" "$work/artifacts-$t"
	if [ -d "$src/tests/fuzz/seeds/$t" ]; then cp "$src/tests/fuzz/seeds/$t"/* "$corpus"/ 2>/dev/null || true; fi
	if [ -d "$src/tests/fuzz/crashers/$t" ]; then cp "$src/tests/fuzz/crashers/$t"/* "$corpus"/ 2>/dev/null || true; fi
	dict=
	[ -f "$src/tests/fuzz/$t.dict" ] && dict="-dict=$src/tests/fuzz/$t.dict"
	log="$work/$t.log"
	rc=0
	t0=$(date +%s)
	extra=
	[ -n "${FUZZ_SEED:-}" ] && extra="-seed=$FUZZ_SEED"
	[ -n "${FUZZ_RUNS:-}" ] && extra="$extra -runs=$FUZZ_RUNS"
	[ -n "${FUZZ_FORK:-}" ] && extra="$extra -fork=$FUZZ_FORK"
	if [ -n "${FUZZ_RUNS_FILE:-}" ]; then
		runs=$(awk -v t="$t" '$1 == t { print $2 }' "$FUZZ_RUNS_FILE")
		[ -n "$runs" ] && extra="$extra -runs=$runs"
	fi
	${NICE:+nice -n "$NICE"} "$build/fuzz_$t" $dict $extra -max_total_time="$seconds" -rss_limit_mb=2048 -timeout="${FUZZ_TIMEOUT:-25}" -max_len="${FUZZ_MAX_LEN:-65536}" \
		-print_final_stats=1 -artifact_prefix="$work/artifacts-$t/" "$corpus" >"$log" 2>&1 || rc=$?
	ran=$(( $(date +%s) - t0 ))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	if [ -z "$execs" ]; then
		# fork mode prints no final stats: its last "#N: ... time: Ts" line has them
		execs=$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' "$log" | tail -1)
		[ -n "$execs" ] && [ "$ran" -gt 0 ] && rate=$(( execs / ran ))
	fi
	size=$(ls "$corpus" | wc -l)
	cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1 | awk '{ print $2 "/" $4 }')
	result=ok
	if [ "$rc" -ne 0 ]; then
		result="CRASH (exit $rc)"
		failed=1
		mkdir -p "$src/tests/fuzz/crashers/$t"
		for a in "$work/artifacts-$t"/*; do
			[ -f "$a" ] && cp "$a" "$src/tests/fuzz/crashers/$t/" && result="$result -> tests/fuzz/crashers/$t/$(basename "$a")"
		done
		grep -m 12 -E "ERROR|SUMMARY|#[0-9]+ 0x" "$log" | sed 's/^/    /' || true
	fi
	printf '%-12s %8s %10s %10s %11s %8s %s\n' "$t" "$ran" "${execs:-?}" "${rate:-?}" "${cov:-?}" "$size" "$result"
done
echo "fuzz.sh: $(echo $targets | wc -w) targets, $(( $(date +%s) - total_start )) s of fuzzing"
if [ "${KEEP_CORPUS:-0}" = 1 ]; then echo "working corpora and logs: $work"; else rm -rf "$work"; fi
exit $failed
