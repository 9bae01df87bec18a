#!/bin/sh
# The seeds that project programs write must be the ones in tests/fuzz/seeds (tests/fuzz/seeds/README.md):
# session 15 found 18 make_seeds files that had drifted from the encoder's output unnoticed.
# usage: check_seeds_current.sh WORK MAKE_SAMPLE MAKE_SEEDS MAKE_GLTF_REST_SEEDS MAKE_OODLE_SEEDS.py SEEDS
set -eu
work=$1 make_sample=$2 make_seeds=$3 make_gltf_rest=$4 make_oodle=$5 seeds=$6
rm -rf "$work"
mkdir -p "$work/seeds"
"$make_sample" "$work/sample.hkx" >/dev/null
"$make_sample" --skeleton "$work/skeleton.hkx" >/dev/null
"$make_seeds" "$work/seeds" "$work/sample.hkx" "$work/skeleton.hkx" >/dev/null
"$make_gltf_rest" "$work/seeds/gltf_rest" >/dev/null
/usr/bin/python3 "$make_oodle" "$work/seeds/oodle" >/dev/null
# every file written must be in the source tree with the same bytes (the source folders may hold more:
# hand-made inputs and seeds of older record versions)
status=0
for f in "$work"/seeds/*/*; do
	rel=${f#"$work/seeds/"}
	if ! cmp -s "$f" "$seeds/$rel"; then
		echo "tests/fuzz/seeds/$rel differs from what the generators write now (regenerate: tests/fuzz/seeds/README.md)"
		status=1
	fi
done
# the generated gltf_rest and oodle folders are the whole folders
diff -r "$work/seeds/gltf_rest" "$seeds/gltf_rest" >/dev/null || { echo "tests/fuzz/seeds/gltf_rest: other files"; status=1; }
diff -r "$work/seeds/oodle" "$seeds/oodle" >/dev/null || { echo "tests/fuzz/seeds/oodle: other files"; status=1; }
exit $status
