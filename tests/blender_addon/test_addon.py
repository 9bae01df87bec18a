"""Headless Blender test of the hkspline add-on (run by tests/blender_addon/run.sh; see docs/BLENDER.md).

blender -b --factory-startup --python-exit-code 1 --python test_addon.py -- ZIP CLI CORPUS WORKDIR

Installs and enables the add-on from the packaged zip, imports a Sekiro and an Elden Ring clip, loose and
from a binder, and checks against the CLI (`hkspline info --json`, `hkspline decode --hex`): bone count,
frame range, scene fps; bones' model-space positions against the decoded frames composed through the
skeleton (1e-5 m); the unedited export with the record gives the original bytes; an edit of one bone's keys
changes that track only (every other track bit for bit); an export into a copy of a binder reads back.
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import time

import bpy
import numpy as np

T0 = time.time()
argv = sys.argv[sys.argv.index("--") + 1:]
ZIP, CLI, CORPUS, WORK, MAKE_SAMPLE = argv[:5]
FAILS = []
FIG = {"clips": 0, "max_pos_err": 0.0, "identical_exports": 0, "exports": 0}


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILS.append(what)


def cli_json(*args):
    out = subprocess.run([CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if out.returncode != 0:
        raise RuntimeError(f"hkspline {' '.join(args)}: {out.stderr.decode()}")
    return json.loads(out.stdout)


def hexf(h):
    return struct.unpack("<f", struct.pack("<I", int(h, 16)))[0]


# --- install and enable from the project's package -------------------------------------------------------------
bpy.ops.preferences.addon_install(filepath=ZIP, overwrite=True)
bpy.ops.preferences.addon_enable(module="hkspline_blender")
import hkspline_blender  # noqa: E402
from hkspline_blender import convert, core  # noqa: E402

check(hasattr(bpy.ops.import_anim, "hkspline") and hasattr(bpy.ops.export_anim, "hkspline"),
      "add-on installed and enabled, operators import_anim.hkspline / export_anim.hkspline registered")
check(os.path.dirname(hkspline_blender.__file__).startswith(os.environ.get("BLENDER_USER_SCRIPTS", "/")),
      "the add-on was installed into the test's user scripts folder")
hk = core.binding()
_funcs = [f.__name__ for m in (bpy.types.TOPBAR_MT_file_import, bpy.types.TOPBAR_MT_file_export)
          for f in getattr(m.draw, "_draw_funcs", [])]
check("_menu_import" in _funcs and "_menu_export" in _funcs, "menu entries in File > Import and File > Export")


def check_convert():
    """convert.py alone: channels <-> Havok locals round-trip to float32 round-off; the untouched-track rule."""
    rng = np.random.default_rng(15)
    nb, nf = 7, 5
    qr = rng.normal(size=(nb, 4))
    qr /= np.linalg.norm(qr, axis=1, keepdims=True)
    tr = rng.normal(size=(nb, 3))
    f = np.zeros((nf, nb, 10), dtype=np.float32)
    f[..., 0:3] = rng.normal(size=(nf, nb, 3))
    q = rng.normal(size=(nf, nb, 4))
    f[..., 3:7] = q / np.linalg.norm(q, axis=-1, keepdims=True) * 1.001  # raw, not unit length
    f[..., 7:10] = rng.uniform(0.5, 2, size=(nf, nb, 3))
    loc, rot, scl = convert.havok_to_channels(f, tr, qr)
    back = convert.channels_to_havok(loc.astype(np.float32), rot.astype(np.float32), scl.astype(np.float32), tr, qr)
    dev = float(np.abs(back.astype(np.float64) - f).max())
    check(dev < 1e-5 and (back[..., 7:10] == f[..., 7:10]).all(),
          f"convert: Havok -> channels -> Havok within round-off ({dev:.1e}), scale bit for bit")
    m_rest = convert.trs_matrix(tr, qr, np.ones((nb, 3)))
    m_basis = convert.trs_matrix(loc[2], np.concatenate([rot[2][:, 1:], rot[2][:, :1]], -1), scl[2])
    m_havok = convert.trs_matrix(f[2, :, 0:3], f[2, :, 3:7], f[2, :, 7:10])
    check(np.abs(m_rest @ m_basis - m_havok).max() < 1e-5, "convert: rest @ basis == the Havok local matrix")
    orig = f.copy()
    orig[0, 1, 4] = np.nan
    d = orig.copy()
    d[:, 0, 0] += 2e-6        # round-off sized: untouched
    d[:, 2, 1] += 1e-3        # an edit
    d[0, 3, 5] = np.nan       # NaN where the original is not: changed
    mask = convert.snap_untouched(d, orig, 1e-5)
    check(list(mask) == [True, True, False, False, True, True, True] and
          (d[:, mask].view(np.uint32) == orig[:, mask].view(np.uint32)).all(),
          "convert: tracks within the tolerance take the original bits (NaN kept); edited tracks stay")


def fresh_active():
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    bpy.context.view_layer.objects.active = None


def pick_clip(folder, compendium="", root_motion=False):
    """The first clip of the folder (with root motion, when asked and one of the first 80 has it)."""
    names = sorted(n for n in os.listdir(folder) if n.lower().startswith("a") and n.lower().endswith(".hkx"))
    if root_motion:
        for n in names[:80]:
            try:
                f = hk.load(os.path.join(folder, n), compendium=[compendium] if compendium else None)
            except hk.Error:
                continue
            if f.animations and f.animations[0].reference_frame is not None:
                return os.path.join(folder, n)
    return os.path.join(folder, names[0])


def gltf_root_motion(source, compendium):
    """The root motion as `hkspline decode -o X.gltf` writes it: node hks_root_motion's (translation (n, 3),
    rotation xyzw (n, 4)) keys (docs/GLTF.md), read from the file's embedded buffer."""
    import base64
    out = os.path.join(WORK, "rm.gltf")
    subprocess.run([CLI, "decode", *(["--compendium", compendium] if compendium else []), source, "-o", out],
                   check=True, stdout=subprocess.DEVNULL)
    g = json.load(open(out))
    buf = base64.b64decode(g["buffers"][0]["uri"].split(",", 1)[1])
    node = next(i for i, n in enumerate(g["nodes"]) if n.get("name") == "hks_root_motion")
    anim = g["animations"][0]
    got = {}
    for c in anim["channels"]:
        if c["target"]["node"] == node:
            acc = g["accessors"][anim["samplers"][c["sampler"]]["output"]]
            bv = g["bufferViews"][acc["bufferView"]]
            width = {"VEC3": 3, "VEC4": 4}[acc["type"]]
            start = bv.get("byteOffset", 0) + acc.get("byteOffset", 0)
            got[c["target"]["path"]] = np.frombuffer(buf, dtype="<f4", count=acc["count"] * width,
                                                     offset=start).reshape(-1, width)
    return got.get("translation"), got.get("rotation")


def check_root_motion(label, obj, source, compendium):
    anim = hk.load(source, compendium=[compendium] if compendium else None).animations[0]
    rf = anim.reference_frame
    if rf is None:
        print(f"note {label}: no root motion in this clip")
        return
    g_t, g_r = gltf_root_motion(source, compendium)
    check(g_t is not None and len(g_t) == len(rf["samples"]) and
          np.abs(g_t - rf["samples"][:, :3]).max() <= 1e-6,
          f"{label}: the binding's reference frame equals decode's glTF root motion ({len(rf['samples'])} samples)")
    n = len(rf["samples"])
    scene = bpy.context.scene
    step = rf["duration"] / (n - 1) / anim.frame_duration if n > 1 else 1.0
    worst = 0.0
    axis = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], dtype=np.float64)  # Y-up -> Z-up
    for i in sorted({0, n // 2, n - 1}):
        scene.frame_set(int(round(i * step)))
        x, y, z, ang = (float(v) for v in rf["samples"][i])
        want_t = axis @ np.array([x, y, z])
        u = np.array(rf["up"][:3], dtype=np.float64)
        want_fwd = axis @ (np.cos(ang) * np.array([0.0, 0.0, 1.0]) + np.sin(ang) * np.cross(u, [0.0, 0.0, 1.0]))
        m = np.array(obj.matrix_world, dtype=np.float64)
        got_fwd = m[:3, :3] @ np.array([0.0, 0.0, 1.0])  # the object is AXIS @ root motion
        worst = max(worst, float(np.abs(m[:3, 3] - want_t).max()), float(np.abs(got_fwd - want_fwd).max()))
    check(worst <= 1e-5, f"{label}: root motion on the armature object ({n} samples; max error {worst:.1e})")


def pick_member(binder, avoid):
    clips = core.binder_clips(binder)
    clips = [c for c in clips if c.lower() != avoid.lower()] or clips
    return clips[len(clips) // 2]


def import_and_check(label, path, member="", compendium="", bone_rest="REFERENCE", skeleton=""):
    source = f"{path}:{member}" if member else path
    fresh_active()
    t = time.time()
    r = bpy.ops.import_anim.hkspline(filepath=path, member=member, compendium_path=compendium, bone_rest=bone_rest,
                                     skeleton_path=skeleton)
    check(r == {"FINISHED"}, f"{label}: import {source} ({time.time() - t:.1f} s)")
    obj = bpy.context.view_layer.objects.active
    action = obj.animation_data.action
    FIG["clips"] += 1
    cargs = ["--compendium", compendium] if compendium else []
    info = cli_json("info", "--json", *cargs, source)["files"][0]
    a = info["animations"][0]
    sargs = ["--skeleton", skeleton] if skeleton else []
    dec = cli_json("decode", "--hex", *cargs, *sargs, source, "-o", "-")
    skel_src = skeleton or dec["source"]["skeleton"]
    sk_info = cli_json("info", "--json", *cargs, skel_src)["files"][0]["skeletons"][0]
    scene = bpy.context.scene
    check(len(obj.data.bones) == sk_info["bones"], f"{label}: {len(obj.data.bones)} bones == info's "
          f"{sk_info['bones']}")
    check(scene.frame_end - scene.frame_start + 1 == a["frames"], f"{label}: frame range {scene.frame_start}.."
          f"{scene.frame_end} == info's {a['frames']} frames")
    interp = {k.interpolation for fc in action.fcurves for k in fc.keyframe_points}
    check(interp == {"LINEAR"}, f"{label}: linear keys ({sum(len(fc.keyframe_points) for fc in action.fcurves)} "
          f"keys in {len(action.fcurves)} curves)")
    fps = scene.render.fps / scene.render.fps_base
    check(abs(fps * a["frame_duration"] - 1) < 1e-5, f"{label}: scene fps {fps:.4f} == 1 / info's frame_duration "
          f"{a['frame_duration']}")

    # model-space positions: decoded frames composed through the skeleton (reference pose for untracked bones)
    sk = hk.load(skel_src, compendium=[compendium] if compendium else None).skeletons[0]
    tracks = dec["animations"][0]["tracks"]
    index = {name: i for i, name in reversed(list(enumerate(sk.names)))}
    bone_of = [index.get(tr["bone"], -1) for tr in tracks]
    nf = a["frames"]
    worst = 0.0
    for f in sorted({0, nf // 2, nf - 1}):
        local = convert.trs_matrix(sk.reference_pose[:, 0:3], sk.reference_pose[:, 3:7], sk.reference_pose[:, 7:10])
        for tr, b in zip(tracks, bone_of):
            if b >= 0:
                local[b] = convert.trs_matrix(np.array([hexf(x) for x in tr["translation"][f]]),
                                              np.array([hexf(x) for x in tr["rotation"][f]]),
                                              np.array([hexf(x) for x in tr["scale"][f]]))
        model = convert.model_space(local, sk.parents)
        scene.frame_set(scene.frame_start + f)
        bones = sorted({b for b in bone_of if b >= 0})
        sample = bones[:: max(1, len(bones) // 12)] + bones[-3:]
        for b in sample:
            pb = obj.pose.bones[json.loads(obj.data["hkspline_bones"])[b]]
            got = np.array(pb.matrix.translation, dtype=np.float64)
            worst = max(worst, float(np.abs(got - model[b][:3, 3]).max()))
    FIG["max_pos_err"] = max(FIG["max_pos_err"], worst)
    check(worst <= 1e-5, f"{label}: bones' model-space positions match the composed decoded frames "
          f"(max error {worst:.2e} m at 3 frames)")
    return obj, action, source


def original_bytes(path, member, compendium=""):
    if not member:
        return open(path, "rb").read()
    # an unmodified file writes its input bytes
    return hk.load(f"{path}:{member}", compendium=[compendium] if compendium else None).to_bytes()


def export_unedited(label, obj, action, path, member, compendium="", snap=1e-5):
    bpy.context.view_layer.objects.active = obj
    out = os.path.join(WORK, f"{label}.hkx")
    t = time.time()
    r = bpy.ops.export_anim.hkspline(filepath=out, snap_tolerance=snap)
    same = r == {"FINISHED"} and open(out, "rb").read() == original_bytes(path, member, compendium)
    s = json.loads(action["hkspline_last_export"])
    if snap == 0:
        check(s["max_deviation"] == 0, f"{label}: channels give the Havok values exactly (no tolerance)")
    else:
        FIG["max_untouched_deviation"] = max(FIG.get("max_untouched_deviation", 0.0), s["max_deviation"] or 0.0)
        check(s["snapped"] == s["tracks"], f"{label}: all {s['tracks']} tracks recognized untouched (max "
              f"round-off {s['max_deviation']:.2e})")
    # the status line says what is true: every track unchanged (it counted the tracks the tolerance snapped,
    # "0 of 91 tracks untouched" for a byte-identical export with no tolerance)
    msg = core.export_report(s)
    check(s["unchanged"] == s["tracks"] and f"{s['tracks']} of {s['tracks']} tracks unchanged" in msg,
          f"{label}: the report counts the tracks unchanged from the original: {msg!r}")
    FIG["exports"] += 1
    FIG["identical_exports"] += int(same)
    check(same, f"{label}: unedited export with the record == the original bytes ({time.time() - t:.1f} s)")
    return out


def edit_one_bone(label, obj, action, source, compendium="", snap=1e-5):
    """Move one animated bone's location keys; only its track may change."""
    names = json.loads(action["hkspline_track_bones"])
    comp = [compendium] if compendium else None
    frames = hk.load(source, compendium=comp).animations[int(action["hkspline_animation"])].frames()
    # a tracked bone whose translation moves during the clip (not the first track, often the root)
    moving = [t for t in range(1, len(names)) if names[t] and np.ptp(frames[:, t, 0:3], axis=0).max() > 1e-3]
    t_edit = moving[len(moving) // 2] if moving else 1
    bone = names[t_edit]
    n_keys = 0
    for i in range(3):
        fc = action.fcurves.find(core._pb_path(bone, "location"), index=i)
        for k in fc.keyframe_points:
            k.co[1] += 0.01
            k.handle_left[1] += 0.01
            k.handle_right[1] += 0.01
            n_keys += 1
        fc.update()
    out = os.path.join(WORK, f"{label}_edit.hkx")
    bpy.context.view_layer.objects.active = obj
    r = bpy.ops.export_anim.hkspline(filepath=out, snap_tolerance=snap)
    check(r == {"FINISHED"}, f"{label}: export after editing {n_keys} location keys of {bone!r} (track {t_edit})")
    a = frames
    src_path = source.rsplit(":", 1)[0] if ":" in os.path.basename(source) else os.path.dirname(source)
    b = hk.load(out, compendium=[src_path] + (comp or [])).animations[0].frames()
    same = [bool((a[:, t].view(np.uint32) == b[:, t].view(np.uint32)).all()) for t in range(a.shape[1])]
    others = [t for t in range(a.shape[1]) if t != t_edit and not same[t]]
    check(not others, f"{label}: every other track ({a.shape[1] - 1}) decodes bit for bit as the original"
          + (f" (differ: {others[:10]})" if others else ""))
    moved = float(np.abs(b[:, t_edit, 0:3].astype(np.float64) - a[:, t_edit, 0:3]).max()) if not same[t_edit] \
        else 0.0
    check(not same[t_edit], f"{label}: the edited track changed (max |delta t| {moved:.4f})")
    if snap == 0:  # channels are Havok values: the file's translation moved by the edit (within the tolerance)
        delta = b[:, t_edit, 0:3].astype(np.float64) - a[:, t_edit, 0:3]
        check(np.abs(delta - 0.01).max() <= 2e-3, f"{label}: the edited translation moved by 0.01 "
              f"(max deviation {np.abs(delta - 0.01).max():.1e}, encoder tolerance 1e-3)")
    return out, t_edit


def export_into_binder(label, obj, action, binder, member, loose_export):
    copy = os.path.join(WORK, os.path.basename(binder))
    shutil.copyfile(binder, copy)
    os.chmod(copy, 0o644)
    mode0 = 0o644
    before = hk.Binder.read(copy)
    bpy.context.view_layer.objects.active = obj
    r = bpy.ops.export_anim.hkspline(filepath="", into_binder=copy, member=member)
    check(r == {"FINISHED"}, f"{label}: export into a copy of {os.path.basename(binder)}:{member}")
    after = hk.Binder.read(copy)
    new = hk.load(f"{copy}:{member}").to_bytes()
    check(new == open(loose_export, "rb").read(), f"{label}: the binder reads back with the new member")
    check(after.names == before.names, f"{label}: the binder keeps its {len(after.names)} members")
    untouched = [n for n in after.names if not n.lower().endswith(member.lower())]
    check(all(after.get(n) == before.get(n) for n in untouched), f"{label}: the other members are unchanged")
    check(open(copy + ".bak", "rb").read() == open(binder, "rb").read(), f"{label}: the .bak holds the original")
    check(os.stat(copy).st_mode & 0o777 == mode0, f"{label}: the binder keeps its mode "
          f"{oct(os.stat(copy).st_mode & 0o777)} (Binder.write made it 0600)")
    refuse_non_animation(label, obj, binder)
    add_new_member(label, obj, action, binder, member)


def export_op(**kw):
    """The export operator's error report (a RuntimeError for a script), or what it returned."""
    try:
        return f"returned {bpy.ops.export_anim.hkspline(**kw)}"
    except RuntimeError as e:
        return str(e)


def refuse_non_animation(label, obj, binder):
    """New-user trial: an export into the binder with member Skeleton.HKX replaced the skeleton with the
    animation. Refused, as `hkspline encode --into`, and the binder untouched (no .bak either)."""
    copy = os.path.join(WORK, "refuse_" + os.path.basename(binder))
    shutil.copyfile(binder, copy)
    b = hk.Binder.read(copy)
    skeleton = next(n for n in b.names if n.lower().endswith("skeleton.hkx")).replace("\\", "/").rsplit("/", 1)[-1]
    tae = next(n for n in b.names if n.lower().endswith(".tae")).replace("\\", "/").rsplit("/", 1)[-1]
    bpy.context.view_layer.objects.active = obj
    for name, want in ((skeleton, "holds no animation"), (tae, "not a Havok file")):
        msg = export_op(filepath="", into_binder=copy, member=name)
        check(want in msg and "animations only" in msg, f"{label}: export into member {name} refused: "
              f"{msg.strip()[:160]}")
    check(open(copy, "rb").read() == open(binder, "rb").read() and not os.path.exists(copy + ".bak"),
          f"{label}: the refused binder is untouched (and no .bak made)")


def add_new_member(label, obj, action, binder, member):
    """New-user trial: a member the binder lacks was added with a bare name and ID -1. It is added as
    `hkspline encode --into` adds it (hks_bnd4_add_like): the binder's folder prefix, flags and ID rule."""
    name = "a000_999999.hkx"
    copy = os.path.join(WORK, "add_" + os.path.basename(binder))
    shutil.copyfile(binder, copy)
    bpy.context.view_layer.objects.active = obj
    r = bpy.ops.export_anim.hkspline(filepath="", into_binder=copy, member=name)
    check(r == {"FINISHED"}, f"{label}: export adding {name} to a copy of {os.path.basename(binder)}")
    got = hk.Binder.read(copy).entries[-1]
    cli_copy = os.path.join(WORK, "addcli_" + os.path.basename(binder))
    shutil.copyfile(binder, cli_copy)
    frames_json = os.path.join(WORK, "add.json")
    subprocess.run([CLI, "decode", f"{binder}:{member}", "-o", frames_json], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([CLI, "encode", frames_json, "--like", f"{binder}:{member}", "-o",
                    os.path.join(WORK, "add_cli.hkx"), "--into", cli_copy, "--name", name, "--no-backup"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    want = hk.Binder.read(cli_copy).entries[-1]
    check((got["name"], got["id"], got["flags"]) == (want["name"], want["id"], want["flags"]) and
          got["name"] != name and got["id"] != -1,
          f"{label}: the new member is named, numbered and flagged as encode --into's: {got['name']} ID "
          f"{got['id']} flags {got['flags']} (CLI: {want['name']} {want['id']} {want['flags']})")
    s = json.loads(action["hkspline_last_export"])
    check(hk.load(f"{copy}:{name}").animations[0].num_transform_tracks == s["tracks"],
          f"{label}: the added member reads back")


def _set_curve(action, path, index, group, frames, values):
    fc = action.fcurves.find(path, index=index)
    if fc is not None:
        action.fcurves.remove(fc)
    fc = action.fcurves.new(path, index=index, action_group=group)
    fc.keyframe_points.add(len(frames))
    for k, (f, v) in zip(fc.keyframe_points, zip(frames, values)):
        k.co = (float(f), float(v))
        k.interpolation = "LINEAR"
    fc.update()


def rotation_modes(label, path, modes, compendium="", skeleton="", bone_rest="REFERENCE", snap=1e-5):
    """New-user trial: the export read rotation_quaternion only, so a bone in an Euler or axis-angle rotation
    mode kept its original rotation (or the identity). Per mode: one bone's quaternion keys replaced by keys
    of that mode (the same rotations, mathutils), the export with the record gives the original bytes; the
    keys then rotated 0.3 rad: only that track changes, to the rotation Blender shows."""
    from mathutils import Euler, Quaternion
    comp = [compendium] if compendium else None
    for mode in modes:
        fresh_active()
        r = bpy.ops.import_anim.hkspline(filepath=path, compendium_path=compendium, skeleton_path=skeleton,
                                         bone_rest=bone_rest)
        obj = bpy.context.view_layer.objects.active
        action = obj.animation_data.action
        names = json.loads(action["hkspline_track_bones"])
        orig = hk.load(path, compendium=comp).animations[0].frames()
        cand = [t for t in range(len(names)) if names[t]]
        t_edit = max(cand[1:] or cand, key=lambda t: float(np.nanmax(np.ptp(orig[:, t, 3:7], axis=0))))
        bone = names[t_edit]
        pb = obj.pose.bones[bone]
        n = orig.shape[0]
        fr = np.arange(n)
        quats = []
        for f in fr:
            quats.append(Quaternion([action.fcurves.find(core._pb_path(bone, "rotation_quaternion"), index=i)
                                     .evaluate(float(f)) for i in range(4)]))
        for i in range(4):
            action.fcurves.remove(action.fcurves.find(core._pb_path(bone, "rotation_quaternion"), index=i))
        pb.rotation_mode = mode

        def key(delta):
            if mode == "AXIS_ANGLE":
                vals = []
                for q in quats:
                    axis, angle = q.to_axis_angle()
                    if delta:  # then 0.3 rad more about X (in the bone's channel space)
                        axis, angle = (Quaternion((1, 0, 0), delta) @ q.normalized()).to_axis_angle()
                    vals.append((angle, *axis))
                vals = np.array(vals)
                for i in range(4):
                    _set_curve(action, core._pb_path(bone, "rotation_axis_angle"), i, bone, fr, vals[:, i])
            else:
                vals, prev = [], None
                for q in quats:
                    e = q.to_euler(mode, prev) if prev is not None else q.to_euler(mode)
                    prev = e
                    vals.append((e[0] + delta, e[1], e[2]))
                vals = np.array(vals)
                for i in range(3):
                    _set_curve(action, core._pb_path(bone, "rotation_euler"), i, bone, fr, vals[:, i])
            return vals

        key(0.0)
        tag = f"{label} {mode}"
        out = os.path.join(WORK, f"rot_{mode}.hkx")
        bpy.context.view_layer.objects.active = obj
        r = bpy.ops.export_anim.hkspline(filepath=out, snap_tolerance=snap)
        s = json.loads(action["hkspline_last_export"])
        same = r == {"FINISHED"} and open(out, "rb").read() == open(path, "rb").read()
        check(same and s["unchanged"] == s["tracks"], f"{tag}: bone {bone!r} keyed in {mode} (quaternion keys "
              f"removed): the unedited export == the original bytes ({s['unchanged']} of {s['tracks']} tracks "
              "unchanged)")
        vals = key(0.3)
        r = bpy.ops.export_anim.hkspline(filepath=out, snap_tolerance=snap)
        b = hk.load(out, compendium=[os.path.dirname(path)] + (comp or [])).animations[0].frames()
        others = [t for t in range(orig.shape[1]) if t != t_edit and
                  not (orig[:, t].view(np.uint32) == b[:, t].view(np.uint32)).all()]
        # the rotation Blender shows for those keys (mathutils), through the bone's rest
        if mode == "AXIS_ANGLE":
            want_ch = [Quaternion(v[1:4], v[0]) for v in vals.astype(np.float32)]
        else:
            want_ch = [Euler(v, mode).to_quaternion() for v in vals.astype(np.float32)]
        want_ch = np.array([q[:] for q in want_ch])[:, None, :]
        tr, qr = core.rest_relative(obj, [bone])
        want = convert.channels_to_havok(np.zeros((n, 1, 3)), want_ch, np.ones((n, 1, 3)), tr, qr)[:, 0, 3:7]
        got = b[:, t_edit, 3:7].astype(np.float64)
        cosang = np.abs((got / np.linalg.norm(got, axis=1, keepdims=True) * want).sum(axis=1))
        err = float(np.degrees(2 * np.arccos(np.clip(cosang, -1, 1))).max())
        pose_ok = True
        scene = bpy.context.scene
        scene.frame_set(n // 2)  # the pose Blender shows is the one exported
        m_basis = np.array(pb.matrix_basis.to_quaternion()[:])
        pose_ok = abs(abs(float(np.dot(m_basis, want_ch[n // 2, 0]))) - 1) < 1e-5
        check(r == {"FINISHED"} and not others and err < 0.2 and pose_ok,
              f"{tag}: keys rotated 0.3 rad: that track becomes the rotation Blender shows (max "
              f"{err:.3f} deg off after encoding), every other track bit for bit"
              + (f" (differ: {others[:8]})" if others else ""))
    return obj, action


def export_warnings_reported(label, obj, action):
    """New-user trial: constraints, drivers and NLA strips (which the F-curve reading cannot see) were dropped
    silently. The export names them, with the bones, in warnings (the operator reports each)."""
    names = [n for n in json.loads(action["hkspline_track_bones"]) if n]
    a, b = names[0], names[-1]
    c = obj.pose.bones[a].constraints.new("COPY_ROTATION")
    d = obj.pose.bones[b].driver_add("location", 0)
    d.driver.expression = "0.5"
    other = bpy.data.actions.new("hkspline_test_nla")
    trk = obj.animation_data.nla_tracks.new()
    trk.name = "Layer"
    trk.strips.new("strip", 0, other)
    # a bone keyed in quaternions switched to Euler: Blender shows its (unkeyed) rotation_euler
    q_bone = [n for n in names if obj.pose.bones[n].rotation_mode == "QUATERNION"][-1]
    obj.pose.bones[q_bone].rotation_mode = "XYZ"
    extra = [n for n in obj.pose.bones.keys() if n not in names]
    if extra:  # keys on a bone without a track
        obj.pose.bones[extra[0]].keyframe_insert("location", frame=0)
    bpy.context.view_layer.objects.active = obj
    s = core.export_action(bpy.context, obj, action, filepath=os.path.join(WORK, "warn.hkx"))
    w = s["warnings"]
    ok = any("constraints on " + a in x and "Bake Action" in x for x in w) and \
        any("drivers on " + b in x for x in w) and any("NLA strips (Layer/" in x for x in w) and \
        (not extra or any("keys on " + extra[0] in x and "no track" in x for x in w)) and \
        any(f"{q_bone} (rotation_quaternion; its rotation mode is XYZ)" in x for x in w)
    check(ok and "warning(s)" in core.export_report(s), f"{label}: constraints, drivers, NLA strips, keys "
          f"without a track and keys of an unused rotation mode are named in the export's warnings: {w}")
    r = bpy.ops.export_anim.hkspline(filepath=os.path.join(WORK, "warn.hkx"))
    check(r == {"FINISHED"}, f"{label}: the operator exports with warnings")
    obj.pose.bones[q_bone].rotation_mode = "QUATERNION"
    obj.pose.bones[a].constraints.remove(c)
    obj.pose.bones[b].driver_remove("location", 0)
    obj.animation_data.nla_tracks.remove(trk)
    bpy.data.actions.remove(other)
    if extra:
        for i in range(3):
            fc = action.fcurves.find(core._pb_path(extra[0], "location"), index=i)
            if fc:
                action.fcurves.remove(fc)
    s = core.export_action(bpy.context, obj, action, filepath=os.path.join(WORK, "warn.hkx"))
    check(not s["warnings"], f"{label}: no warnings once they are gone ({s['warnings']})")


def compendium_advice(label, loose, er_binder):
    """New-user trial: in Blender a missing compendium's error told the user to pass compendium= (the
    Python argument): the add-on names its own property."""
    fresh_active()
    msg = reported("compendium", filepath=loose)
    check("compendium_path" in msg and "Compendium" in msg and "compendium=" not in msg,
          f"{label}: a missing compendium at import names the Compendium field: {msg.strip()[-160:]}")
    r = bpy.ops.import_anim.hkspline(filepath=loose, compendium_path=er_binder)
    obj = bpy.context.view_layer.objects.active
    action = obj.animation_data.action
    action["hkspline_compendium"] = "[]"
    msg = export_op(filepath=os.path.join(WORK, "comp.hkx"))
    check("compendium_path" in msg and "compendium=" not in msg,
          f"{label}: a missing compendium at export names the Compendium field: {msg.strip()[-120:]}")
    r = bpy.ops.export_anim.hkspline(filepath=os.path.join(WORK, "comp.hkx"), compendium_path=er_binder)
    check(r == {"FINISHED"} and open(os.path.join(WORK, "comp.hkx"), "rb").read() == open(loose, "rb").read(),
          f"{label}: the export's compendium_path finds it (the original bytes)")


def run_game(label, folder, binder, compendium=""):
    loose = pick_clip(folder, compendium, root_motion=True)
    obj, action, source = import_and_check(f"{label} loose", loose, compendium=compendium)
    check_root_motion(f"{label} loose", obj, source, compendium)
    export_unedited(f"{label}_loose", obj, action, loose, "", compendium)
    edit_one_bone(f"{label}_loose", obj, action, source, compendium)
    # the "Havok values" rest: channels are the Havok values, the export needs no tolerance
    obj, action, source = import_and_check(f"{label} loose, origin rest", loose, compendium=compendium,
                                           bone_rest="ORIGIN")
    export_unedited(f"{label}_origin", obj, action, loose, "", compendium, snap=0.0)
    edit_one_bone(f"{label}_origin", obj, action, source, compendium, snap=0.0)
    obj, action = rotation_modes(f"{label} loose", loose, ("XYZ", "AXIS_ANGLE"), compendium=compendium)
    export_warnings_reported(f"{label} loose", obj, action)
    member = pick_member(binder, os.path.basename(loose))
    obj, action, source = import_and_check(f"{label} binder", binder, member)
    export_unedited(f"{label}_binder", obj, action, binder, member)
    out, _ = edit_one_bone(f"{label}_binder", obj, action, source)
    export_into_binder(label, obj, action, binder, member, out)


def batch(binder):
    """Every clip of a binder imported at once (one action each, onto one armature), each exported unedited
    with its record: the original member's bytes."""
    clips = core.binder_clips(binder)
    fresh_active()
    before = set(bpy.data.actions.keys())
    arms_before = {o.name for o in bpy.data.objects if o.type == "ARMATURE"}
    t = time.time()
    r = bpy.ops.import_anim.hkspline(filepath=binder, member="*")
    new = [a for a in bpy.data.actions if a.name not in before]
    arms = {o.name for o in bpy.data.objects if o.type == "ARMATURE"}
    FIG["batch_clips"] = FIG.get("batch_clips", 0) + len(new)
    seconds = round(time.time() - t, 1)
    FIG["batch_seconds"] = FIG.get("batch_seconds", 0) + seconds
    check(r == {"FINISHED"} and len(new) == len(clips) and all("hkspline_record" in a for a in new),
          f"batch import of {os.path.basename(binder)}: {len(new)} actions with records for {len(clips)} clips "
          f"({seconds} s)")
    check(len(arms - arms_before) == 1, f"batch import built one armature for all ({len(arms - arms_before)})")
    # every clip of the batch exported unedited with its record: the original member's bytes
    obj = bpy.context.view_layer.objects.active
    t = time.time()
    same = 0
    for a in new:
        obj.animation_data.action = a
        out = os.path.join(WORK, "batch.hkx")
        core.export_action(bpy.context, obj, a, filepath=out)
        same += open(out, "rb").read() == original_bytes(binder, a["hkspline_member"])
    FIG["batch_identical_exports"] = FIG.get("batch_identical_exports", 0) + same
    check(same == len(new), f"batch: {same} of {len(new)} unedited exports == the original members' bytes "
          f"({time.time() - t:.1f} s)")


def reported(what, **kw):
    """The operator's error report (a RuntimeError for a script), or what it returned."""
    try:
        r = bpy.ops.import_anim.hkspline(**kw)
        return f"returned {r}"
    except RuntimeError as e:
        return str(e)


def run_synthetic():
    """The project's own generated sample (tools/make_sample: 2 tracks, 31 frames, and its skeleton)."""
    clip, skel = os.path.join(WORK, "sample.hkx"), os.path.join(WORK, "sample_skeleton.hkx")
    subprocess.run([MAKE_SAMPLE, clip], check=True)
    subprocess.run([MAKE_SAMPLE, "--skeleton", skel], check=True)
    for rest, snap in (("REFERENCE", 1e-5), ("ORIGIN", 0.0)):
        label = f"sample ({rest.lower()} rest)"
        obj, action, source = import_and_check(label, clip, bone_rest=rest, skeleton=skel)
        export_unedited(f"sample_{rest.lower()}", obj, action, clip, "", snap=snap)
        edit_one_bone(f"sample_{rest.lower()}", obj, action, source, snap=snap)
        obj, action = rotation_modes(f"sample ({rest.lower()} rest)", clip, ("XYZ", "ZXY", "AXIS_ANGLE"),
                                     skeleton=skel, bone_rest=rest, snap=snap)
    export_warnings_reported("sample", obj, action)
    # errors are reported through the operator (self.report ERROR: a RuntimeError for a script), never a crash
    msg = reported("missing", filepath=os.path.join(WORK, "missing.hkx"))
    check("no such file" in msg, f"import of a missing file reports an error: {msg.strip()[:100]}")
    bad = os.path.join(WORK, "truncated.hkx")
    with open(bad, "wb") as fh:
        fh.write(open(clip, "rb").read()[:200])
    msg = reported("truncated", filepath=bad)
    check("truncated" in msg, f"import of a truncated file reports the library's error: {msg.strip()[:140]}")
    msg = reported("folder", filepath=WORK)
    check("is a folder" in msg, f"import of a folder says so: {msg.strip()[:100]}")
    msg = export_op(filepath=os.path.join(WORK, "nodir", "x.hkx"), like_path=clip)
    check("does not exist" in msg and "tmp-hkspline" not in msg and not os.path.exists(os.path.join(WORK, "nodir")),
          f"export into a missing folder names the folder, not the temporary file: {msg.strip()[:140]}")


try:
    check_convert()
    run_synthetic()
    if not CORPUS:
        print("SKIP the corpus part (Sekiro, Elden Ring, binders): no corpus (set HKSPLINE_CORPUS)", flush=True)
        raise SystemExit(0 if not FAILS else 1)
    run_game("sekiro", os.path.join(CORPUS, "sekiro", "c1060"), os.path.join(CORPUS, "binders",
                                                                               "sekiro-c1060.anibnd.dcx"))
    er_binder = os.path.join(CORPUS, "binders", "eldenring-c3160.anibnd.dcx")
    # the loose Elden Ring clips' compendium is in their binder (compendium_path takes a binder)
    run_game("eldenring", os.path.join(CORPUS, "elden_ring", "c3160"), er_binder, compendium=er_binder)
    er_loose = pick_clip(os.path.join(CORPUS, "elden_ring", "c3160"))
    compendium_advice("eldenring", er_loose, er_binder)
    # the clip picker of the import operator lists the binder's clips
    from hkspline_blender import operators
    sek = os.path.join(CORPUS, "binders", "sekiro-c1060.anibnd.dcx")
    items = [i[0] for i in operators._clip_items(type("Op", (), {"filepath": sek})(), bpy.context)]
    check("__all__" in items and len(items) == 2 + len(core.binder_clips(sek)) and
          all(i.lower().endswith(".hkx") for i in items[2:]), f"clip picker lists {len(items) - 2} clips")

    # batch: every clip of a binder (both binders with HKSPLINE_BLENDER_FULL=1)
    batch(os.path.join(CORPUS, "binders", "eldenring-c3160.anibnd.dcx"))
    if os.environ.get("HKSPLINE_BLENDER_FULL"):
        batch(os.path.join(CORPUS, "binders", "sekiro-c1060.anibnd.dcx"))

    msg = reported("binder", filepath=os.path.join(CORPUS, "binders", "sekiro-c1060.anibnd.dcx"))
    check("pick one" in msg, f"import of a binder without a member asks for a clip: {msg.strip()[:100]}")
except SystemExit:
    pass
except Exception:
    import traceback
    traceback.print_exc()
    FAILS.append("exception")

FIG["seconds"] = round(time.time() - T0, 1)
print("figures: " + json.dumps(FIG), flush=True)
print(f"{len(FAILS)} failure(s)" if FAILS else "all blender add-on checks passed", flush=True)
with open(os.path.join(WORK, "result.json"), "w") as fh:
    json.dump({"failures": FAILS, "figures": FIG}, fh)
sys.exit(1 if FAILS else 0)
