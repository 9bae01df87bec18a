#!/bin/sh
# That scripts/check_abi.sh fails where it must (ctest test `abi_selftest`, label unit): on a copy of the
# header, the pinned figures and the script, (1) the unchanged copy passes; (2) a struct grown by a field
# fails; (3) --update at the same SOVERSION is refused and leaves the pinned file as it was; (4) --update at
# the next number passes and the check passes after it; (5) a changed enum value fails; (6) a struct written in
# a form the script does not read fails.
# usage: scripts/check_abi_selftest.sh SOVERSION. Exit 77 (skipped) where check_abi.sh skips.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
v=${1:?usage: check_abi_selftest.sh SOVERSION}
work=$(mktemp -d "${TMPDIR:-/tmp}/hks-abi-self.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/scripts" "$work/include" "$work/tests/abi"
cp "$src/scripts/check_abi.sh" "$work/scripts/"
cp "$src/include/hkspline.h" "$work/include/"
cp "$src/tests/abi/lp64.txt" "$work/tests/abi/"
fail() { echo "check_abi_selftest: $*"; exit 1; }
run() { sh "$work/scripts/check_abi.sh" "$@" >"$work/log" 2>&1; }
set +e
run "$v"; rc=$?
set -e
[ $rc = 77 ] && { echo "check_abi_selftest: skipped"; exit 77; }
[ $rc = 0 ] || fail "the unchanged header fails: $(cat "$work/log")"
# (2) a field added to a struct (the kind of change session 23 made without raising the number)
sed -i 's/^typedef struct hks_recompress_report {/&\n\tuint64_t selftest_added;/' "$work/include/hkspline.h"
grep -q selftest_added "$work/include/hkspline.h" || fail "could not edit the copy"
if run "$v"; then fail "a grown hks_recompress_report passed"; fi
grep -q "raise it" "$work/log" || fail "no instruction to raise HKS_SOVERSION: $(cat "$work/log")"
# (3) no update without a new number
cp "$work/tests/abi/lp64.txt" "$work/pinned"
if run "$v" --update; then fail "--update at the pinned number passed"; fi
cmp -s "$work/pinned" "$work/tests/abi/lp64.txt" || fail "a refused --update changed the pinned file"
# (4) the next number
next=$((v + 1))
run "$next" --update || fail "--update at $next failed: $(cat "$work/log")"
run "$next" || fail "the check after --update failed: $(cat "$work/log")"
if run "$v"; then fail "the old number passed against figures pinned for $next"; fi
# (5) an enum value
sed -i 's/HKS_SAMPLE_PATH_AVX2 = 3/HKS_SAMPLE_PATH_AVX2 = 4/' "$work/include/hkspline.h"
if run "$next"; then fail "a changed enum value passed"; fi
# (6) a struct definition in a form the script does not read
sed -i 's/^typedef struct hks_error {/typedef struct hks_error\n{/' "$work/include/hkspline.h"
if run "$next"; then fail "a struct with its brace on the next line passed"; fi
grep -q "another form" "$work/log" || fail "no message on the unread struct form: $(cat "$work/log")"
echo "check_abi_selftest: the check fails on a grown struct, a changed enum value and an unread struct form, and --update needs a new number"
