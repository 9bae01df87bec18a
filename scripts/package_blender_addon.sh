#!/bin/sh
# Package the Blender add-on: blender/hkspline_blender + a copy of the Python binding (python/hkspline)
# + the shared library, as one zip for Edit > Preferences > Add-ons > Install.
#   scripts/package_blender_addon.sh [BUILD_DIR] [OUT_ZIP] [LIBRARY]
# LIBRARY: the shared library to bundle; default: the first of BUILD_DIR/libhkspline.so (the installable
# hkspline_shared target), BUILD_DIR/pylib/libhkspline.so (hkspline_py), BUILD_DIR/libhkspline.so.*
# (BUILD_DIR default build). OUT_ZIP defaults to BUILD_DIR/hkspline_blender.zip.
# Without the library the zip is still made (the add-on then finds it through HKSPLINE_LIBRARY or the
# system's library path) and a warning is printed.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=${2:-$build/hkspline_blender.zip}
case $out in /*) ;; *) out=$PWD/$out ;; esac
lib=${3:-}
if [ -n "$lib" ] && [ ! -f "$lib" ]; then echo "error: no library $lib" >&2; exit 1; fi
if [ -z "$lib" ]; then
  for c in "$build/libhkspline.so" "$build/pylib/libhkspline.so" "$build"/libhkspline.so.*; do
    if [ -f "$c" ]; then lib=$c; break; fi
  done
fi
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/hkspline_blender/hkspline"
cp "$root"/blender/hkspline_blender/*.py "$stage/hkspline_blender/"
cp "$root"/python/hkspline/*.py "$root/python/hkspline/py.typed" "$stage/hkspline_blender/hkspline/"
if [ -n "$lib" ]; then
  cp "$lib" "$stage/hkspline_blender/hkspline/libhkspline.so"
else
  echo "warning: no libhkspline.so under $build (build it first); the add-on will need HKSPLINE_LIBRARY" >&2
fi
mkdir -p "$(dirname "$out")"
rm -f "$out"
(cd "$stage" && /usr/bin/python3 -c '
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for d, _, fs in os.walk("hkspline_blender"):
        for f in sorted(fs):
            if not f.endswith(".pyc"):
                z.write(os.path.join(d, f))
' "$out")
echo "$out"
