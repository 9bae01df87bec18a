#!/usr/bin/python3
"""Corpus tests through the real client: headless Blender (docs/GLTF.md "Blender").

For a sample of Sekiro and Elden Ring clips (folders holding a skeleton, every k-th
clip in sorted path order):
  * `hkspline decode CLIP -o clip.glb`, `hkspline recompress CLIP --record R`;
  * per bone_heuristic (TEMPERANCE, BLENDER, FORTUNE) at the clip's frame rate:
    Blender imports, exports with its defaults (tests/blender/roundtrip.py);
    `encode --like CLIP` keeps the frame count, every track is found untouched,
    the result is within the bound (translation and scale 0.001 + one 16-bit step of
    the clip's range, rotation 0.25 deg) and root motion survives;
    `encode --like CLIP --record R` equals CLIP byte for byte;
  * at Blender's default 24 fps: encode succeeds, warns about the frame rate and
    keeps the frame count; every track and the root motion are recognized as untouched
    on Blender's key grid, and `encode --like CLIP --record R` equals CLIP byte for byte;
  * one-bone edit (a script moves one bone's location keys), at the clip's rate and at
    24 fps: with the record, that bone's track differs and every other track decodes bit
    for bit as CLIP's.

Environment: HKSPLINE_CLI (the hkspline binary), HKSPLINE_CORPUS (default
../shared/corpus beside the sources), HKS_BLENDER_CLIPS (clips per game, default 3),
HKS_BLENDER (the blender binary, default `blender` on PATH), HKS_BLENDER_SKIP=1 (skip).
Besides the sample, per game the first clip whose skeleton has a bone with a non-uniform
reference scale (the scale Blender cannot carry in other bone axes) is always run.
Exit 0: all passed; 1: a failure; 77: skipped (no Blender, no corpus, or asked to).
Prints 'N passed, N failed' at the end.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
HEURISTICS = ("TEMPERANCE", "BLENDER", "FORTUNE")
ROT_BOUND_DEG = 0.25
passed = 0
failed = 0


def skip(why):
    print("SKIPPED blender tests: " + why)
    sys.exit(77)


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)
    return ok


def run(cmd, timeout=600, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout, env=env)
    return p.returncode, p.stdout, p.stderr


def clips_of(corpus, game, per_game):
    """Every k-th spline clip of the game's folders that hold a skeleton (sorted paths)."""
    root = os.path.join(corpus, game)
    found = []
    if not os.path.isdir(root):
        return found
    for d in sorted(os.listdir(root)):
        folder = os.path.join(root, d)
        if not os.path.isdir(folder):
            continue
        names = os.listdir(folder)
        if not any(n.lower() == "skeleton.hkx" for n in names):
            continue
        found += [os.path.join(folder, n) for n in sorted(names)
                  if n.lower().endswith(".hkx") and n.lower() != "skeleton.hkx"]
    if not found or per_game <= 0:
        return []
    step = max(1, len(found) // per_game)
    return found[step // 2::step][:per_game]


def nonuniform_scale_clip(cli, corpus, game, comps):
    """The first clip (sorted paths) of the first folder whose skeleton has a bone with a
    non-uniform reference scale: the case Blender cannot carry in other bone axes (its
    scale comes from --like, docs/GLTF.md "Blender"). None when there is no such folder."""
    root = os.path.join(corpus, game)
    if not os.path.isdir(root):
        return None
    for d in sorted(os.listdir(root)):
        folder = os.path.join(root, d)
        if not os.path.isdir(folder):
            continue
        names = sorted(os.listdir(folder))
        skel = [n for n in names if n.lower() == "skeleton.hkx"]
        clips = [n for n in names if n.lower().endswith(".hkx") and n.lower() != "skeleton.hkx"]
        if not skel or not clips:
            continue
        rc, out, _ = run([cli, "info", "--skeleton", "--json", os.path.join(folder, skel[0])] + comps)
        if rc != 0:
            continue
        for f in json.loads(out).get("files", []):
            for sk in f.get("skeletons", []):
                for b in sk.get("bone_list", []):
                    sc = b.get("scale", [1, 1, 1])[:3]
                    if max(sc) - min(sc) > 1e-4:
                        return os.path.join(folder, clips[0])
    return None


def compendiums(corpus, game):
    out = []
    for dirpath, _, files in os.walk(os.path.join(corpus, game)):
        out += ["--compendium", dirpath] if any(f.endswith(".compendium") for f in files) else []
    return out


def glb_json(path):
    with open(path, "rb") as f:
        b = f.read()
    n = int.from_bytes(b[12:16], "little")
    return json.loads(b[20:20 + n])


def decoded_tracks(cli, path, comps, work):
    out = os.path.join(work, "dec.json")
    rc, _, err = run([cli, "decode", path, "--hex", "-o", out] + comps)
    if rc != 0:
        print(err)
        return None
    with open(out) as f:
        j = json.load(f)
    # bone names depend on a skeleton beside the file: compare the values only
    return [[t["translation"], t["rotation"], t["scale"]] for t in j["animations"][0]["tracks"]]


def blender(script_args, work, log):
    exe = os.environ.get("HKS_BLENDER", "blender")
    cmd = [exe, "-b", "--factory-startup", "--python", os.path.join(HERE, "roundtrip.py"), "--"] + script_args
    # roundtrip.py leaves through os._exit, which skips Blender's removal of its session folder
    # (blender_XXXXXX under TMPDIR): give Blender the test's own folder, removed at the end
    env = dict(os.environ, TMPDIR=work, TEMP=work, TMP=work)
    rc, out, err = run(cmd, env=env)
    ok = rc == 0 and "ROUNDTRIP ok" in out
    if not ok:
        print(out[-2000:], err[-2000:])
    log.append(" ".join(script_args[2:]) or "Blender's defaults (24 fps)")
    return ok


def one_clip(cli, clip, comps, work, stats):
    name = os.path.basename(clip)
    glb = os.path.join(work, "clip.glb")
    rec = os.path.join(work, "clip.rec")
    rc, out, err = run([cli, "decode", clip, "-o", glb] + comps)
    if rc != 0:
        print("note: %s not exported (%s); skipped" % (clip, err.strip()[:200]))
        return
    rc, _, err = run([cli, "recompress", clip, "--record", rec, "-o", os.devnull] + comps)
    if not check(rc == 0, "%s: recompress --record: %s" % (clip, err.strip()[-300:])):
        return
    # the baseline: the clip's decoded frames encoded directly (decoded-frames JSON path)
    base_json, base_hkx = os.path.join(work, "base.json"), os.path.join(work, "base.hkx")
    rc, _, err = run([cli, "decode", clip, "--hex", "-o", base_json] + comps)
    rc2, _, err2 = run([cli, "encode", base_json, "--like", clip, "-o", base_hkx] + comps) if rc == 0 else (1, "", "")
    rc3, bo, err3 = run([cli, "error", clip, base_hkx, "--json"] + comps) if rc2 == 0 else (1, "", "")
    if not check(rc3 == 0, "%s: baseline encode: %s" % (clip, (err + err2 + err3).strip()[-300:])):
        return
    base = json.loads(bo)
    extras = glb_json(glb)["animations"][0]["extras"]["hkspline"]
    frames, fd = extras["frames"], extras["frame_duration"]
    rate = 1.0 / fd
    fps = round(rate) if abs(rate - round(rate)) < 1e-3 * rate else rate
    has_rm = extras.get("root_motion") is not None
    tracks = extras["tracks"]
    with open(clip, "rb") as f:
        original = f.read()
    log = []
    for h in HEURISTICS:
        bl = os.path.join(work, "bl_%s.glb" % h)
        if not check(blender([glb, bl, "--heuristic", h, "--fps", "%.9g" % fps], work, log),
                     "%s: Blender round trip %s at %g fps" % (clip, h, fps)):
            continue
        out_hkx = os.path.join(work, "out.hkx")
        rc, out, err = run([cli, "encode", bl, "--like", clip, "-o", out_hkx] + comps)
        if not check(rc == 0, "%s %s: encode --like: %s" % (clip, h, err.strip()[-400:])):
            continue
        st = stats.setdefault(h, {"clips": 0, "within": 0, "identical": 0, "warnings": 0})
        st["clips"] += 1
        st["warnings"] += sum(1 for line in err.splitlines() if "warning" in line)
        check((" %d frames at" % frames) in out, "%s %s: frame count %d not kept: %s" % (clip, h, frames, out[-400:]))
        # Blender's bones have no rest scale: with other local axes, a non-uniform animated scale
        # is approximated by Blender itself; the encode says so (docs/GLTF.md "Blender")
        approx = "may be approximated" in err and h != "BLENDER"
        if approx:
            st["scale_approximated"] = st.get("scale_approximated", 0) + 1
            print("note: %s %s: Blender may approximate a non-uniform scale in other axes (warned; "
                  "those scales are taken from --like)" % (clip, h))
        # Blender's importer takes the scene's whole fps (not fps_base): a clip of another rate
        # (a 2-frame clip of 0.25 fps) is resampled and warned about at any setting
        whole_rate = fps == round(fps) and fps >= 1
        check("warning" not in err or approx or not whole_rate, "%s %s: a warning at the clip's own rate: %s" % (clip, h, err[-600:]))
        check("untouched: %d of %d tracks" % (len(tracks), len(tracks)) in err,
              "%s %s: not every track untouched: %s" % (clip, h, err[-600:]))
        if has_rm:
            check("root motion untouched" in err, "%s %s: root motion lost: %s" % (clip, h, err[-400:]))
        rc, eo, ee = run([cli, "error", clip, out_hkx, "--json"] + comps)
        within = False
        if check(rc == 0, "%s %s: error: %s" % (clip, h, ee[-300:])):
            e = json.loads(eo)
            # the encoder's bound (0.001 + one quantization step, docs/ENCODE.md "Tolerance
            # guarantee"): at most what the same encoder gives on the clip's own decoded frames
            # (that is within the bound: corpus_gltf) or 0.001 + a 16-bit step of 4 m
            tb = max(0.001 + 4.0 / 65535, base["max_translation"])
            sb = max(0.001 + 4.0 / 65535, base["max_scale"])
            within = (e["frames"] == frames and e["max_translation"] <= tb and e["max_scale"] <= sb and
                      e["max_rotation_deg"] <= max(ROT_BOUND_DEG, base["max_rotation_deg"]))
            check(within, "%s %s: beyond the bound: translation %g, rotation %g deg, scale %g, frames %d" %
                  (clip, h, e["max_translation"], e["max_rotation_deg"], e["max_scale"], e["frames"]))
        st["within"] += within
        rec_hkx = os.path.join(work, "rec.hkx")
        rc, out, err = run([cli, "encode", bl, "--like", clip, "--record", rec, "-o", rec_hkx] + comps)
        ident = False
        if check(rc == 0, "%s %s: encode --record: %s" % (clip, h, err[-400:])):
            with open(rec_hkx, "rb") as f:
                ident = f.read() == original
            check(ident, "%s %s: unedited export with the record is not the original's bytes" % (clip, h))
        st["identical"] += ident
    # Blender's default 24 fps
    bl = os.path.join(work, "bl_24.glb")
    if check(blender([glb, bl], work, log), "%s: Blender round trip at 24 fps" % clip):
        rc, out, err = run([cli, "encode", bl, "--like", clip, "-o", os.path.join(work, "o24.hkx")] + comps)
        st = stats.setdefault("24 fps", {"clips": 0, "encoded": 0, "rate_warned": 0, "frames_kept": 0, "warnings": 0})
        st["clips"] += 1
        st["warnings"] += sum(1 for line in err.splitlines() if "warning" in line)
        st["encoded"] += check(rc == 0, "%s 24 fps: encode failed: %s" % (clip, err[-400:]))
        if fps != 24:
            st["rate_warned"] += check("set Blender's scene frame rate to %.4g" % fps in err,
                                       "%s 24 fps: no frame-rate warning" % clip)
        st["frames_kept"] += check((" %d frames at" % frames) in out,
                                   "%s 24 fps: frame count %d not kept: %s" % (clip, frames, out[-300:]))
        # an unedited export on Blender's grid is recognized (docs/GLTF.md "Frame grid"): every
        # track and the root motion keep the clip's frames, and the record gives its bytes back
        st.setdefault("untouched", 0)
        st.setdefault("identical", 0)
        if fps != 24:
            untouched = check("untouched: %d of %d tracks" % (len(tracks), len(tracks)) in err and
                              (not has_rm or "root motion untouched" in err),
                              "%s 24 fps: not every track untouched: %s" % (clip, err[-600:]))
            st["untouched"] += untouched
            rec24 = os.path.join(work, "rec24.hkx")
            rc, out, err = run([cli, "encode", bl, "--like", clip, "--record", rec, "-o", rec24] + comps)
            ident = False
            if check(rc == 0, "%s 24 fps: encode --record: %s" % (clip, err[-400:])):
                with open(rec24, "rb") as f:
                    ident = f.read() == original
                check(ident, "%s 24 fps: unedited export with the record is not the original's bytes" % clip)
            st["identical"] += ident
    # one-bone edit, at the clip's rate and at Blender's default 24 fps
    edit_track = len(tracks) // 2
    bone = tracks[edit_track]
    for rate_args, label in ((["--fps", "%.9g" % fps], "edit"), ([], "edit at 24 fps")):
        if label != "edit" and fps == 24:
            continue
        bl = os.path.join(work, "bl_edit.glb")
        if not check(blender([glb, bl] + rate_args + ["--edit-bone", bone], work, log), "%s: Blender %s" % (clip, label)):
            continue
        ed = os.path.join(work, "edit.hkx")
        rc, out, err = run([cli, "encode", bl, "--like", clip, "--record", rec, "-o", ed] + comps)
        if check(rc == 0, "%s %s: encode --record: %s" % (clip, label, err[-400:])):
            a = decoded_tracks(cli, clip, comps, work)
            b = decoded_tracks(cli, ed, comps, work)
            if check(a is not None and b is not None and len(a) == len(b), "%s %s: decode" % (clip, label)):
                differ = [t for t in range(len(a)) if a[t] != b[t]]
                check(differ == [edit_track], "%s %s of %s (track %d): tracks that differ: %s" %
                      (clip, label, bone, edit_track, differ[:10]))
                stats.setdefault(label, {"clips": 0, "only_edited": 0})
                stats[label]["clips"] += 1
                stats[label]["only_edited"] += differ == [edit_track]
    print("%s: %d frames at %g fps, %d tracks, root motion %s; Blender runs: %s" %
          (name, frames, fps, len(tracks), "yes" if has_rm else "no", "; ".join(log)))


def main():
    if os.environ.get("HKS_BLENDER_SKIP") == "1":
        skip("HKS_BLENDER_SKIP=1")
    exe = os.environ.get("HKS_BLENDER", "blender")
    if not shutil.which(exe):
        skip("blender not found (apt-get install blender python3-numpy)")
    cli = os.environ.get("HKSPLINE_CLI") or os.path.join(SRC, "build", "hkspline")
    if not os.path.exists(cli):
        skip("no hkspline binary (HKSPLINE_CLI)")
    corpus = os.environ.get("HKSPLINE_CORPUS") or os.environ.get("HKSPLINE_CORPUS_DEFAULT") or \
        os.path.join(SRC, "..", "shared", "corpus")
    if not os.path.isdir(corpus):
        skip("no corpus at %s (HKSPLINE_CORPUS)" % corpus)
    per_game = int(os.environ.get("HKS_BLENDER_CLIPS", "3"))
    start = time.time()
    stats = {}
    with tempfile.TemporaryDirectory(prefix="hks_blender_") as work:
        for game in ("sekiro", "elden_ring"):
            comps = compendiums(corpus, game)
            clips = clips_of(corpus, game, per_game)
            extra = nonuniform_scale_clip(cli, corpus, game, comps) if per_game > 0 else None
            if extra and extra not in clips:
                clips.append(extra)
            for clip in clips:
                one_clip(cli, clip, comps, work, stats)
    for k, v in stats.items():
        print("blender %s: %s" % (k, ", ".join("%s %d" % kv for kv in v.items())))
    print("blender tests: %.0f s" % (time.time() - start))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
