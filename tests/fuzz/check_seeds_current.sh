#!/bin/sh
# The seeds that project programs write must be the ones in tests/fuzz/seeds (tests/fuzz/seeds/README.md):
# session 15 found 18 make_seeds files that had drifted from the encoder's output unnoticed.
# usage: check_seeds_current.sh WORK MAKE_SAMPLE MAKE_SEEDS MAKE_GLTF_REST_SEEDS MAKE_OODLE_SEEDS.py SEEDS HKSPLINE
set -eu
work=$1 make_sample=$2 make_seeds=$3 make_gltf_rest=$4 make_oodle=$5 seeds=$6 hkspline=$7
rm -rf "$work"
mkdir -p "$work/seeds"
"$make_sample" "$work/sample.hkx" >/dev/null
"$make_sample" --skeleton "$work/skeleton.hkx" >/dev/null
"$make_seeds" "$work/seeds" "$work/sample.hkx" "$work/skeleton.hkx" >/dev/null
"$make_gltf_rest" "$work/seeds/gltf_rest" >/dev/null
/usr/bin/python3 "$make_oodle" "$work/seeds/oodle" >/dev/null
# frames_json: the CLI's decode of the sample packfile as s.hkx beside Skeleton.HKX (the path the seeds name)
mkdir -p "$work/fj" "$work/seeds/frames_json"
"$make_sample" "$work/fj/s.hkx" >/dev/null
"$make_sample" --skeleton "$work/fj/Skeleton.HKX" >/dev/null
(cd "$work/fj" && "$hkspline" decode s.hkx -o ../seeds/frames_json/sample.json &&
	"$hkspline" decode s.hkx --hex -o ../seeds/frames_json/sample_hex.json &&
	"$hkspline" decode s.hkx --time-step 0.1 -o ../seeds/frames_json/sample_time.json) >/dev/null
status=0
# a generator that writes nothing (or a folder less) must not pass: each writes at least this many
count() { n=0; for f in "$@"; do [ -f "$f" ] && n=$((n + 1)); done; echo $n; }
for want in "record 5" "spline 3" "file 5" "bnd4 3" "gltf_rest 10" "oodle 10" "frames_json 3"; do
	set -- $want
	n=$(count "$work/seeds/$1"/*)
	if [ "$n" -lt "$2" ]; then
		echo "the generators wrote $n seeds into $1, fewer than $2"
		status=1
	fi
done
# every file written must be in the source tree with the same bytes
for f in "$work"/seeds/*/*; do
	[ -f "$f" ] || continue
	rel=${f#"$work/seeds/"}
	if ! cmp -s "$f" "$seeds/$rel"; then
		echo "tests/fuzz/seeds/$rel differs from what the generators write now (regenerate: tests/fuzz/seeds/README.md)"
		status=1
	fi
done
# and every file of a folder the generators write must be written by them, except the records of older
# versions kept on purpose (record/*_v9.hksr to record/*_v20.hksr)
for d in "$work"/seeds/*/; do
	name=$(basename "$d")
	for f in "$seeds/$name"/*; do
		[ -f "$f" ] || continue
		base=$(basename "$f")
		case "$name/$base" in record/*_v9.hksr | record/*_v10.hksr | record/*_v11.hksr | record/*_v12.hksr | record/*_v13.hksr | record/*_v14.hksr | record/*_v15.hksr | record/*_v16.hksr | record/*_v17.hksr | record/*_v18.hksr | record/*_v19.hksr | record/*_v20.hksr) continue ;; esac
		if [ ! -f "$work/seeds/$name/$base" ]; then
			echo "tests/fuzz/seeds/$name/$base is no longer written by the generators"
			status=1
		fi
	done
done
exit $status
