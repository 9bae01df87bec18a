#!/bin/sh
# ctest blender_addon (label "blender"): package the add-on, then run test_addon.py in headless Blender with a
# private user scripts/config folder (the user's own Blender setup is not touched).
#   tests/blender_addon/run.sh SOURCE_DIR BUILD_DIR CLI MAKE_SAMPLE [LIBRARY]
# Exit 77 (skipped, visibly) without blender. Without the corpus (HKSPLINE_CORPUS, else
# HKSPLINE_CORPUS_DEFAULT) only the generated sample is tested, and the skipped part is printed.
set -u
src=$1 build=$2 cli=$3 make_sample=$4 lib=${5:-}
blender=${BLENDER:-blender}
if ! command -v "$blender" >/dev/null 2>&1; then
  echo "SKIP: blender not found (apt-get install blender)"; exit 77
fi
corpus=${HKSPLINE_CORPUS:-${HKSPLINE_CORPUS_DEFAULT:-$src/../shared/corpus}}
if [ ! -d "$corpus/binders" ]; then
  echo "note: no corpus at $corpus (set HKSPLINE_CORPUS): the Sekiro / Elden Ring part is skipped"; corpus=""
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/hkspline-blender.XXXXXX")
trap 'rm -rf "$work"' EXIT
zip=$("$src/scripts/package_blender_addon.sh" "$build" "$work/hkspline_blender.zip" $lib) || exit 1
unset HKSPLINE_LIBRARY  # the add-on must use the library bundled in its zip
mkdir -p "$work/scripts" "$work/config" "$work/out"
BLENDER_USER_SCRIPTS=$work/scripts BLENDER_USER_CONFIG=$work/config \
  "$blender" -b --factory-startup --python-exit-code 1 --python "$src/tests/blender_addon/test_addon.py" -- \
  "$zip" "$cli" "$corpus" "$work/out" "$make_sample"
rc=$?
if [ $rc -ne 0 ] || [ ! -f "$work/out/result.json" ]; then
  echo "FAIL: blender add-on test (blender exit $rc)"; exit 1
fi
exit 0
