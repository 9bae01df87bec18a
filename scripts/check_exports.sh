#!/bin/sh
# Check the exported symbols of the shared library against the public header:
# every symbol the library exports must be declared in the header, and every
# function (and extern variable) the header declares must be exported.
#
# usage: scripts/check_exports.sh LIBHKSPLINE.so [HKSPLINE.h]
#   (default header: include/hkspline.h of the source tree)
# Environment: CC (default cc), NM (default nm). Exits 1 on any difference.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
lib=${1:?usage: check_exports.sh LIB [HEADER]}
header=${2:-$src/include/hkspline.h}
CC=${CC:-cc}
NM=${NM:-nm}
work=$(mktemp -d "${TMPDIR:-/tmp}/hks-exports.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Exported: the dynamic symbols the library defines.
"$NM" -D --defined-only --format=posix "$lib" | awk '{ sub(/@.*/, "", $1); print $1 }' | sort -u >"$work/exported"

# Declared: the header preprocessed (comments and conditionals resolved); only
# the lines that come from the header itself are parsed (not stddef.h ...).
# Top-level statements are split at ';' outside braces; typedefs and static
# functions are skipped; a statement with a parenthesis declares the function
# named before the first one, an extern statement without one a variable.
base=$(basename "$header")
"$CC" -E "$header" | awk -v base="$base" '
	/^# [0-9]+ "/ { f = $3; gsub(/"/, "", f); n = split(f, p, "/"); own = (p[n] == base); next }
	/^#/ { next }
	own { text = text " " $0 }
	function process(s,    name) {
		sub(/^[ \t]+/, "", s)
		if (s == "" || s ~ /^typedef[ \t]/ || s ~ /^static[ \t]/) return
		if (match(s, /\([ \t]*\*[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*\)/) && s ~ /^extern[ \t]/) {
			name = substr(s, RSTART, RLENGTH); gsub(/[()* \t]/, "", name); print name; return
		}
		if (match(s, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
			name = substr(s, RSTART, RLENGTH); gsub(/[( \t]/, "", name); print name; return
		}
		if (s ~ /^extern[ \t]/) {
			gsub(/\[[^]]*\]/, "", s); sub(/[ \t]*=.*/, "", s)
			if (match(s, /[A-Za-z_][A-Za-z0-9_]*[ \t]*$/)) { name = substr(s, RSTART, RLENGTH); gsub(/[ \t]/, "", name); print name }
		}
	}
	END {
		depth = 0; stmt = ""; body = 0
		for (i = 1; i <= length(text); i++) {
			c = substr(text, i, 1)
			if (c == "{") {
				if (depth == 0) { t = stmt; sub(/[ \t]+$/, "", t); body = (t ~ /\)$/) }
				depth++; continue
			}
			if (c == "}") { depth--; if (depth == 0 && body) { process(stmt); stmt = ""; body = 0 } continue }
			if (depth > 0) continue
			if (c == ";") { process(stmt); stmt = ""; continue }
			stmt = stmt c
		}
	}' | sort -u >"$work/declared"

status=0
missing=$(comm -13 "$work/exported" "$work/declared")
extra=$(comm -23 "$work/exported" "$work/declared")
if [ -n "$extra" ]; then
	echo "check_exports: exported by $lib but not declared in $header:"; echo "$extra" | sed 's/^/  /'; status=1
fi
if [ -n "$missing" ]; then
	echo "check_exports: declared in $header but not exported by $lib:"; echo "$missing" | sed 's/^/  /'; status=1
fi
if [ "$(wc -l <"$work/declared")" -eq 0 ]; then echo "check_exports: no declaration found in $header"; status=1; fi
echo "check_exports: $(wc -l <"$work/exported") exported, $(wc -l <"$work/declared") declared: $([ $status = 0 ] && echo ok || echo FAILED)"
exit $status
