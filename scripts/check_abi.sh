#!/bin/sh
# Guard the shared library's ABI rule (docs/BUILDING.md "What the build makes"): HKS_SOVERSION must be
# raised by every incompatible change of the header. This pins, for 64-bit Linux (LP64), the size and
# alignment of every struct the header defines and the value of every enum constant, together with the
# SONAME number they belong to, in tests/abi/lp64.txt. A build whose header gives other figures fails
# until the number is raised and the file regenerated:
#
#   scripts/check_abi.sh SOVERSION            check (ctest test `abi`, label unit)
#   scripts/check_abi.sh SOVERSION --update   rewrite tests/abi/lp64.txt; refused when the figures
#                                             changed but SOVERSION is still the pinned one
#
# What it cannot see: a member moved or retyped within the same size, a changed function signature.
# Environment: CC (default cc). Exit 77 (skipped) off LP64 Linux, where the sizes differ.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
soversion=${1:?usage: check_abi.sh SOVERSION [--update]}
mode=${2:-check}
header=$src/include/hkspline.h
pinned=$src/tests/abi/lp64.txt
CC=${CC:-cc}
if [ "$(uname -s)" != Linux ] || [ "$(getconf LONG_BIT)" != 64 ]; then
	echo "check_abi: skipped (the pinned figures are for 64-bit Linux)"
	exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/hks-abi.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The structs the header defines (not the opaque ones it only declares) and the enum constants. Only the form
# "typedef struct NAME {" is read: any other struct definition (brace on the next line, anonymous, bare
# "struct NAME {") fails here, so that no struct drops out of the pinned list unseen.
other=$(grep -nE '^(typedef[ 	]+)?struct[ 	]+[A-Za-z_0-9]*[ 	]*$|^struct[ 	]+[A-Za-z_0-9]+[ 	]*\{|^typedef[ 	]+struct[ 	]*\{|^typedef[ 	]+struct[ 	]+[A-Za-z_0-9]+[ 	]*$' "$header" || true)
if [ -n "$other" ]; then
	echo "check_abi: struct definitions of another form than 'typedef struct NAME {' in $header:"
	echo "$other"
	exit 1
fi
sed -n 's/^typedef struct \([A-Za-z_][A-Za-z0-9_]*\) {.*/\1/p' "$header" | sort -u >"$work/structs"
# enum constants: from the preprocessed header (comments gone), only the lines that come from it
base=$(basename "$header")
"$CC" -E "$header" | awk -v base="$base" '
	/^# [0-9]+ "/ { f = $3; gsub(/"/, "", f); n = split(f, p, "/"); own = (p[n] == base); next }
	/^#/ { next }
	own { text = text " " $0 }
	END {
		while (match(text, /enum[ \t]*[A-Za-z0-9_]*[ \t]*\{[^}]*\}/)) {
			body = substr(text, RSTART, RLENGTH); text = substr(text, RSTART + RLENGTH)
			sub(/^[^{]*\{/, "", body); sub(/\}$/, "", body)
			n = split(body, items, ",")
			for (i = 1; i <= n; i++) {
				name = items[i]; sub(/=.*/, "", name); gsub(/[ \t]/, "", name)
				if (name != "") print name
			}
		}
	}' | sort -u >"$work/enums"
[ -s "$work/structs" ] && [ -s "$work/enums" ] || { echo "check_abi: no structs or enums found in $header"; exit 1; }
{
	printf '#include "hkspline.h"\n#include <stdio.h>\n#include <stdalign.h>\nint main(void)\n{\n'
	while read -r s; do
		printf '\tprintf("struct %%s %%zu %%zu\\n", "%s", sizeof(%s), alignof(%s));\n' "$s" "$s" "$s"
	done <"$work/structs"
	while read -r e; do
		printf '\tprintf("enum %%s %%lld\\n", "%s", (long long)%s);\n' "$e" "$e"
	done <"$work/enums"
	printf '\treturn 0;\n}\n'
} >"$work/abi.c"
"$CC" -std=c11 -I"$src/include" -o "$work/abi" "$work/abi.c"
{
	echo "# hkspline ABI figures on 64-bit Linux: written by scripts/check_abi.sh --update (docs/BUILDING.md)"
	echo "soversion $soversion"
	"$work/abi"
} >"$work/now"

old_soversion=$(sed -n 's/^soversion //p' "$pinned" 2>/dev/null || true)
grep -v '^soversion\|^#' "$pinned" 2>/dev/null >"$work/old_figures" || true
grep -v '^soversion\|^#' "$work/now" >"$work/new_figures"
if [ "$mode" = --update ]; then
	if [ -n "$old_soversion" ] && [ "$old_soversion" = "$soversion" ] && ! cmp -s "$work/old_figures" "$work/new_figures"; then
		diff "$work/old_figures" "$work/new_figures" || true
		echo "check_abi: the header's figures changed: raise HKS_SOVERSION in CMakeLists.txt (now $soversion) first"
		exit 1
	fi
	mkdir -p "$(dirname "$pinned")"
	cp "$work/now" "$pinned"
	echo "check_abi: wrote $pinned (soversion $soversion)"
	exit 0
fi
if ! cmp -s "$work/old_figures" "$work/new_figures"; then
	diff "$work/old_figures" "$work/new_figures" || true
	if [ "$old_soversion" = "$soversion" ]; then
		echo "check_abi: the header changed the ABI above but HKS_SOVERSION is still $soversion: raise it in"
		echo "CMakeLists.txt, then run scripts/check_abi.sh <new number> --update (docs/BUILDING.md)"
	else
		echo "check_abi: the figures are pinned for soversion $old_soversion; run scripts/check_abi.sh $soversion --update"
	fi
	exit 1
fi
if [ "$old_soversion" != "$soversion" ]; then
	echo "check_abi: HKS_SOVERSION is $soversion, the figures are pinned for $old_soversion: run scripts/check_abi.sh $soversion --update"
	exit 1
fi
echo "check_abi: $(grep -c '^struct' "$work/new_figures") structs and $(grep -c '^enum' "$work/new_figures") enum constants as pinned for soversion $soversion"
