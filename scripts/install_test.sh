#!/bin/sh
# Install test: `cmake --install` of a build into a temporary prefix, then two
# consumers of the installed tree, both reading Havok files that the project
# generates itself (build/make_sample) and printing their animation count:
#   (a) tests/install/count_animations.c compiled with
#       `pkg-config --cflags --libs hkspline` (shared library, run with
#       LD_LIBRARY_PATH), and once more linked statically through
#       `pkg-config --static --libs hkspline`;
#   (b) the CMake project tests/install/ (find_package(hkspline)), one program
#       on hkspline::hkspline (shared), one on hkspline::hkspline_static.
# Every count must equal the one the installed CLI prints (`hkspline info`),
# for a file with one animation and one (a skeleton) with none; a truncated
# file must make every consumer fail. Last, scripts/check_exports.sh: the
# installed libhkspline.so exports exactly the functions of the installed
# hkspline.h.
#
# usage: scripts/install_test.sh [BUILD_DIR]   (default: build; already built)
# Environment: CC (default cc), KEEP=1 keeps the temporary folder.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
CC=${CC:-cc}
export CC
work=$(mktemp -d "${TMPDIR:-/tmp}/hks-install.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then echo "install_test: keeping $work"; else trap 'rm -rf "$work"' EXIT; fi
prefix=$work/prefix
start=$(date +%s)
fail() { echo "install_test: FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }

# What was installed, where GNUInstallDirs put it.
pc=$(find "$prefix" -name hkspline.pc -path '*/pkgconfig/*')
[ -n "$pc" ] || fail "no hkspline.pc installed"
libdir=$(dirname "$(dirname "$pc")")
for f in "$prefix/include/hkspline.h" "$libdir/libhkspline.a" "$libdir/libhkspline.so" \
	"$libdir/cmake/hkspline/hksplineConfig.cmake" "$libdir/cmake/hkspline/hksplineConfigVersion.cmake" \
	"$prefix/bin/hkspline"; do
	[ -e "$f" ] || fail "not installed: ${f#"$prefix"/}"
done
soname=$(readelf -d "$libdir/libhkspline.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ -n "$soname" ] && [ -e "$libdir/$soname" ] || fail "libhkspline.so has no SONAME or no $soname"
echo "install_test: installed into $prefix (libdir ${libdir#"$prefix"/}, $soname)"

# Inputs and the expected counts, from the installed CLI.
"$build/make_sample" "$work/sample.hkx"
"$build/make_sample" --skeleton "$work/skeleton.hkx"
head -c 100 "$work/sample.hkx" >"$work/truncated.hkx"
expected() { "$prefix/bin/hkspline" info "$1" | grep -c '^  animation [0-9]*:' || true; }
n_sample=$(expected "$work/sample.hkx")
n_skeleton=$(expected "$work/skeleton.hkx")
[ "$n_sample" -ge 1 ] || fail "hkspline info finds no animation in the sample"
[ "$n_sample" != "$n_skeleton" ] || fail "sample and skeleton have the same count ($n_sample): the test could not tell them apart"

version=$(sed -n 's/^#define HKS_VERSION_STRING "\(.*\)"/\1/p' "$prefix/include/hkspline.h")
check_consumer() { # NAME PROGRAM
	for input in sample:"$n_sample" skeleton:"$n_skeleton"; do
		file=${input%%:*}; want=${input#*:}
		got=$(LD_LIBRARY_PATH="$libdir" "$2" "$work/$file.hkx") || fail "$1 on $file.hkx exited $?"
		[ "$got" = "$version $want" ] || fail "$1 on $file.hkx printed '$got', expected '$version $want'"
	done
	if LD_LIBRARY_PATH="$libdir" "$2" "$work/truncated.hkx" >/dev/null 2>"$work/err.txt"; then
		fail "$1 accepted a truncated file"
	fi
	echo "install_test: $1: $n_sample and $n_skeleton animations as hkspline info; truncated file refused: $(cat "$work/err.txt")"
}
links_shared() { # PROGRAM: it must load libhkspline.so, not contain the library
	readelf -d "$1" | grep -q "NEEDED.*\[$soname\]" || fail "$1 does not link $soname"
}

# (a) pkg-config.
export PKG_CONFIG_PATH="$(dirname "$pc")"
cflags=$(pkg-config --cflags hkspline)
libs=$(pkg-config --libs hkspline)
static_libs=$(pkg-config --static --libs hkspline | sed 's/-lhkspline\b/-l:libhkspline.a/')
# shellcheck disable=SC2086
"$CC" -std=c11 -Wall -Wextra -pedantic -Werror $cflags "$src/tests/install/count_animations.c" \
	-o "$work/count_pc" $libs || fail "compiling with pkg-config ($cflags $libs)"
links_shared "$work/count_pc"
check_consumer "pkg-config (shared)" "$work/count_pc"
# shellcheck disable=SC2086
"$CC" -std=c11 $cflags "$src/tests/install/count_animations.c" -o "$work/count_pc_static" $static_libs ||
	fail "linking statically with pkg-config --static ($static_libs)"
if readelf -d "$work/count_pc_static" | grep -q "NEEDED.*libhkspline"; then fail "static consumer needs libhkspline.so"; fi
check_consumer "pkg-config --static" "$work/count_pc_static"

# (b) CMake find_package.
cmake -S "$src/tests/install" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
	>"$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; fail "configuring the find_package project"; }
cmake --build "$work/consumer" >>"$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; fail "building the find_package project"; }
links_shared "$work/consumer/count_shared"
if readelf -d "$work/consumer/count_static" | grep -q "NEEDED.*libhkspline"; then fail "hkspline::hkspline_static needs libhkspline.so"; fi
check_consumer "find_package hkspline::hkspline" "$work/consumer/count_shared"
check_consumer "find_package hkspline::hkspline_static" "$work/consumer/count_static"

# Exported symbols of the installed library = functions of the installed header.
"$src/scripts/check_exports.sh" "$libdir/libhkspline.so" "$prefix/include/hkspline.h" || fail "exported symbols"

echo "install_test: ok after $(( $(date +%s) - start )) s"
