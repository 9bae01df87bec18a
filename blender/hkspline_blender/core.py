"""Import and export with bpy: the armature from the Havok skeleton, one action per clip, and back.

See docs/BLENDER.md for the conventions (convert.py for the arithmetic).
"""

from __future__ import annotations

import base64
import json
import os
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import bpy
import numpy as np
from mathutils import Euler, Matrix, Quaternion, Vector

from . import convert

# Havok's model space is Y-up, Blender's world Z-up: the armature object turns +90 degrees about X.
AXIS = np.array([[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]], dtype=np.float64)

P = "hkspline_"  # custom property prefix


def binding():
    """The ``hkspline`` package: the copy bundled in the add-on, else the one on sys.path / PYTHONPATH."""
    bundled = os.path.isdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "hkspline"))
    try:
        if bundled:
            from . import hkspline as hk  # type: ignore[attr-defined]
        else:
            import hkspline as hk  # type: ignore[no-redef]
        return hk
    except ImportError as e:
        if "shared library" in str(e) or isinstance(e.__cause__, OSError):
            raise RuntimeError(f"{e}") from e
        raise RuntimeError("the hkspline Python package was not found: package the add-on with "
                           "scripts/package_blender_addon.sh, or put python/ on PYTHONPATH "
                           f"({e})") from e
    except OSError as e:  # the library itself
        raise RuntimeError(f"libhkspline.so could not be loaded (set HKSPLINE_LIBRARY): {e}") from e


def is_binder(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            magic = fh.read(4)
    except OSError:
        return False
    return magic in (b"BND4", b"DCX\0")


_MEMBER_CACHE: Dict[Tuple[str, float], List[str]] = {}


def binder_clips(path: str) -> List[str]:
    """Member names of a binder that look like clips (.hkx, not the skeleton), cached by path and mtime."""
    try:
        key = (os.path.abspath(path), os.path.getmtime(path))
    except OSError:
        return []
    if key not in _MEMBER_CACHE:
        names: List[str] = []
        try:
            for n in binding().Binder.read(path).names:
                base = n.replace("\\", "/").rsplit("/", 1)[-1]
                if base.lower().endswith(".hkx") and "skeleton" not in base.lower():
                    names.append(base)
        except Exception:
            names = []
        _MEMBER_CACHE.clear()
        _MEMBER_CACHE[key] = names
    return _MEMBER_CACHE[key]


# ---------------------------------------------------------------------------------------------------------------
# armature


def _rest_model_matrices(sk) -> np.ndarray:
    """The reference pose composed in model space, translation and rotation only (rest matrices hold no scale)."""
    pose = sk.reference_pose.astype(np.float64)
    n = len(sk.names)
    local = np.tile(np.eye(4), (n, 1, 1))
    if len(pose) >= n:
        local = convert.trs_matrix(pose[:n, 0:3], pose[:n, 3:7], np.ones((n, 3)))
    return convert.model_space(local, sk.parents)


REST_MODES = ("REFERENCE", "ORIGIN")


def find_armature(context, sk, rest_mode: str = "REFERENCE") -> Optional[bpy.types.Object]:
    """The active object when it is an armature built from the same skeleton (and rest mode)."""
    obj = context.active_object
    if obj is not None and obj.type == "ARMATURE":
        if obj.data.get(P + "havok_names") == json.dumps(list(sk.names)) and \
                obj.data.get(P + "rest", "REFERENCE") == rest_mode:
            return obj
    return None


def build_armature(context, sk, name: str, rest_mode: str = "REFERENCE") -> bpy.types.Object:
    """The armature of a Havok skeleton. rest_mode "REFERENCE": rest matrices = the reference pose in model
    space; "ORIGIN": every rest matrix the identity (bones stacked at the origin in Edit Mode; the pose-bone
    channels are then the Havok local values themselves)."""
    n = len(sk.names)
    rest = _rest_model_matrices(sk)
    if rest_mode == "ORIGIN":
        rest_lengths = rest
        rest = np.tile(np.eye(4), (n, 1, 1))
    parents = [int(sk.parents[i]) if i < len(sk.parents) else -1 for i in range(n)]
    heads = (rest_lengths if rest_mode == "ORIGIN" else rest)[:, :3, 3]
    children: Dict[int, List[int]] = {}
    for i, p in enumerate(parents):
        if 0 <= p < n:
            children.setdefault(p, []).append(i)
    extent = float(np.ptp(heads, axis=0).max()) if n else 1.0
    default_len = max(extent * 0.02, 0.01)

    arm = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, arm)
    context.scene.collection.objects.link(obj)
    obj.rotation_mode = "QUATERNION"
    obj.rotation_quaternion = Matrix(AXIS.tolist()).to_quaternion()
    obj.show_in_front = True
    for o in context.view_layer.objects:
        o.select_set(False)
    context.view_layer.objects.active = obj
    obj.select_set(True)
    bpy.ops.object.mode_set(mode="EDIT")
    ebs = []
    for i in range(n):
        raw = sk.names[i] or f"bone_{i}"
        eb = arm.edit_bones.new(raw[:63])
        length = default_len
        for c in children.get(i, []):
            d = float(np.linalg.norm(heads[c] - heads[i]))
            if d > 1e-3:
                length = d
                break
        if rest_mode == "ORIGIN":  # a power of two: Blender's normalized bone axis is then exactly +Y
            length = float(2.0 ** round(np.log2(length)))
        eb.head = (0.0, 0.0, 0.0)
        eb.tail = (0.0, length, 0.0)
        if rest_mode != "ORIGIN":
            eb.matrix = Matrix(rest[i].tolist())
        ebs.append(eb)
    for i, p in enumerate(parents):
        if 0 <= p < n and p != i:
            ebs[i].parent = ebs[p]
    names = [eb.name for eb in ebs]  # Blender may have renamed duplicates
    bpy.ops.object.mode_set(mode="OBJECT")
    arm[P + "havok_names"] = json.dumps(list(sk.names))
    arm[P + "bones"] = json.dumps(names)
    arm[P + "rest"] = rest_mode
    for pb in obj.pose.bones:
        pb.rotation_mode = "QUATERNION"
    return obj


def rest_relative(obj, bone_names: Sequence[str]):
    """(tr, qr) of the named bones' Blender rest matrices relative to their parents (float64, from the float32
    matrices Blender really uses)."""
    mats = []
    for name in bone_names:
        b = obj.data.bones[name]
        m = np.array(b.matrix_local, dtype=np.float64)
        if b.parent is not None:
            m = np.linalg.inv(np.array(b.parent.matrix_local, dtype=np.float64)) @ m
        mats.append(m)
    return convert.rest_relative(np.array(mats).reshape(-1, 4, 4))


# ---------------------------------------------------------------------------------------------------------------
# keys


def _set_keys(fc, frames: np.ndarray, values: np.ndarray) -> None:
    """Linear keys; a channel constant (bit for bit) over the clip gets one key."""
    values = np.asarray(values, dtype=np.float32)
    if len(values) > 1 and (values.view(np.uint32) == values.view(np.uint32)[0]).all():
        frames, values = frames[:1], values[:1]
    n = len(values)
    fc.keyframe_points.add(n)
    co = np.empty(2 * n, dtype=np.float32)
    co[0::2] = frames
    co[1::2] = values
    fc.keyframe_points.foreach_set("co", co)
    try:
        fc.keyframe_points.foreach_set("interpolation", [1] * n)  # LINEAR
    except (TypeError, AttributeError):
        for k in fc.keyframe_points:
            k.interpolation = "LINEAR"
    fc.update()


def _fcurve(action, path: str, index: int, group: str):
    fc = action.fcurves.find(path, index=index)
    if fc is not None:
        action.fcurves.remove(fc)
    return action.fcurves.new(path, index=index, action_group=group)


def _pb_path(name: str, channel: str) -> str:
    return f'pose.bones["{bpy.utils.escape_identifier(name)}"].{channel}'


# ---------------------------------------------------------------------------------------------------------------
# import


def _clip_name(path: str, member: str, index: int, count: int) -> str:
    base = member or os.path.basename(path)
    base = base.replace("\\", "/").rsplit("/", 1)[-1]
    for ext in (".dcx", ".hkx", ".anibnd"):
        if base.lower().endswith(ext):
            base = base[: -len(ext)]
    return base if count == 1 else f"{base}#{index}"


def import_file(context, path: str, member: str = "", skeleton_path: str = "", compendium_path: str = "",
                use_record: bool = True, progress: Optional[Callable[[float], None]] = None,
                rest_mode: str = "REFERENCE"):
    """Import every animation of ``path`` (or ``path:member``); returns (armature object, [actions])."""
    hk = binding()
    source = f"{path}:{member}" if member else path
    comp = [compendium_path] if compendium_path else None
    f = hk.load(source, compendium=comp, skeleton=skeleton_path or None)
    skf = f if f.skeletons else getattr(f, "_skeleton_file", None)
    if skf is None or not skf.skeletons:
        raise RuntimeError(f"{source}: no skeleton found beside the file; give skeleton_path")
    sk = skf.skeletons[0]
    anims = [a for a in f.animations if a.kind in ("spline", "interleaved")]
    if not anims:
        raise RuntimeError(f"{source}: no animation")
    if context.object is not None and context.object.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    if rest_mode not in REST_MODES:
        raise RuntimeError(f"bone_rest takes {' or '.join(REST_MODES)}")
    obj = find_armature(context, sk, rest_mode)
    if obj is None:
        obj = build_armature(context, sk, sk.name or "hkspline_skeleton", rest_mode)
    bone_names = json.loads(obj.data[P + "bones"])
    record = None
    if use_record and any(a.kind == "spline" for a in anims):
        record = hk.recompress(source, compendium=comp)[1]
    actions = []
    for k, anim in enumerate(anims):
        actions.append(_import_animation(context, obj, sk, bone_names, anim, source, path, member, comp,
                                         record, _clip_name(path, member, k, len(anims))))
        if progress:
            progress((k + 1) / len(anims))
    return obj, actions


def _import_animation(context, obj, sk, bone_names, anim, source, path, member, comp, record, name):
    frames = anim.frames()
    floats = anim.floats()
    n_frames, n_tracks = frames.shape[0], frames.shape[1]
    fd = anim.frame_duration if anim.frame_duration > 0 else (anim.duration / max(n_frames - 1, 1) or 1 / 30)
    ttb = list(anim.binding.track_to_bone) if anim.binding is not None else []
    track_bone = [int(ttb[t]) if t < len(ttb) else (t if not ttb else -1) for t in range(n_tracks)]
    track_bone = [b if 0 <= b < len(bone_names) else -1 for b in track_bone]
    track_names = [bone_names[b] if b >= 0 else "" for b in track_bone]

    action = bpy.data.actions.new(name)
    action.use_fake_user = True
    keyed = np.arange(n_frames, dtype=np.float32)
    used = [t for t in range(n_tracks) if track_names[t]]
    if used:
        tr, qr = rest_relative(obj, [track_names[t] for t in used])
        loc, rot, scl = convert.havok_to_channels(frames[:, used, :], tr, qr)
        for j, t in enumerate(used):
            bn = track_names[t]
            for ch, arr, cnt in (("location", loc, 3), ("rotation_quaternion", rot, 4), ("scale", scl, 3)):
                for i in range(cnt):
                    _set_keys(_fcurve(action, _pb_path(bn, ch), i, bn), keyed, arr[:, j, i])

    slots = sk.float_slots
    fts = list(anim.binding.float_track_to_slot) if anim.binding is not None else []
    float_props = []
    for k in range(floats.shape[1]):
        s = int(fts[k]) if k < len(fts) else k
        prop = (slots[s] if 0 <= s < len(slots) and slots[s] else f"float_{k}")
        float_props.append(prop)
        obj[prop] = float(floats[0, k])
        _set_keys(_fcurve(action, f'["{bpy.utils.escape_identifier(prop)}"]', 0, "Float tracks"), keyed,
                  floats[:, k])

    rf = anim.reference_frame
    obj.rotation_mode = "QUATERNION"
    obj.location = (0.0, 0.0, 0.0)  # stays when the clip has no root motion
    obj.rotation_quaternion = Matrix(AXIS.tolist()).to_quaternion()
    if rf is not None and len(rf["samples"]):
        ms = convert.root_motion(rf["samples"], rf["up"])
        ns = len(ms)
        step = (rf["duration"] / (ns - 1) / fd) if ns > 1 and rf["duration"] > 0 else 1.0
        sf = np.arange(ns, dtype=np.float32) * np.float32(step)
        world = AXIS[None] @ ms
        locs = world[:, :3, 3]
        quats = np.array([Matrix(m.tolist()).to_quaternion()[:] for m in world])  # wxyz
        for i in range(1, len(quats)):  # keep the quaternion path continuous
            if np.dot(quats[i], quats[i - 1]) < 0:
                quats[i] = -quats[i]
        for i in range(3):
            _set_keys(_fcurve(action, "location", i, "Root motion"), sf, locs[:, i])
        for i in range(4):
            _set_keys(_fcurve(action, "rotation_quaternion", i, "Root motion"), sf, quats[:, i])

    action[P + "source"] = source
    action[P + "path"] = path
    action[P + "member"] = member
    action[P + "compendium"] = json.dumps(comp or [])
    action[P + "animation"] = anim.index
    action[P + "frames"] = n_frames
    action[P + "frame_start"] = 0
    action[P + "frame_duration"] = fd
    action[P + "duration"] = anim.duration
    action[P + "track_bones"] = json.dumps(track_names)
    action[P + "float_props"] = json.dumps(float_props)
    action[P + "root_motion"] = rf is not None
    if record is not None:
        action[P + "record"] = base64.b64encode(record).decode("ascii")

    if obj.animation_data is None:
        obj.animation_data_create()
    obj.animation_data.action = action
    scene = context.scene
    rate = 1.0 / fd
    fps = max(1, int(round(rate)))
    scene.render.fps = fps
    base = fps / rate
    scene.render.fps_base = 1.0 if abs(base - 1.0) < 1e-4 else base
    scene.frame_start = 0
    scene.frame_end = max(n_frames - 1, 0)
    return action


# ---------------------------------------------------------------------------------------------------------------
# export


def _eval(action, path: str, index: int, frames: np.ndarray, default: float) -> np.ndarray:
    fc = action.fcurves.find(path, index=index)
    if fc is None:
        return np.full(len(frames), default, dtype=np.float64)
    return np.array([fc.evaluate(float(x)) for x in frames], dtype=np.float64)


EULER_MODES = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")
_ROTATION_PATHS = {"QUATERNION": "rotation_quaternion", "AXIS_ANGLE": "rotation_axis_angle"}


def _rotation(action, pb, bn: str, fr: np.ndarray) -> np.ndarray:
    """(frames, 4) wxyz: the bone's rotation channel of its rotation mode, as Blender evaluates it. Quaternion
    keys as they are (sign and length kept); Euler (any order) and axis-angle keys converted per frame with
    mathutils (from the float32 values Blender holds), the rotation Blender's pose matrix uses."""
    mode = pb.rotation_mode
    if mode == "QUATERNION":
        return np.stack([_eval(action, _pb_path(bn, "rotation_quaternion"), i, fr, 1.0 if i == 0 else 0.0)
                         for i in range(4)], axis=-1)
    if mode == "AXIS_ANGLE":  # (angle, x, y, z); Blender's default (0, 0, 1, 0)
        aa = np.stack([_eval(action, _pb_path(bn, "rotation_axis_angle"), i, fr, (0.0, 0.0, 1.0, 0.0)[i])
                       for i in range(4)], axis=-1).astype(np.float32)
        return np.array([Quaternion(Vector(v[1:4].tolist()), float(v[0]))[:] for v in aa], dtype=np.float64)
    eul = np.stack([_eval(action, _pb_path(bn, "rotation_euler"), i, fr, 0.0) for i in range(3)],
                   axis=-1).astype(np.float32)
    return np.array([Euler(v.tolist(), mode).to_quaternion()[:] for v in eul], dtype=np.float64)


def _match_original(out: np.ndarray, orig: np.ndarray, tracks: Sequence[int]) -> None:
    """Quaternions converted from Euler / axis-angle keys are unit length and carry no sign of their own, while
    Havok stores raw quaternions (a decoded length may be 1 +- 1e-3; Blender normalizes a quaternion before
    use, so neither sign nor length is part of what it shows). Each frame takes the sign and the length of
    the original track's quaternion at that frame (beyond the original's end: the previous frame's sign, unit
    length), so that an unedited track is recognized as untouched and the spline sees no flips."""
    for t in tracks:
        q = out[:, t, 3:7].astype(np.float64)
        for i in range(len(q)):
            ref = orig[i, t, 3:7].astype(np.float64) if i < len(orig) else q[i - 1]
            if not np.isfinite(ref).all():
                continue
            if float(np.dot(q[i], ref)) < 0:
                q[i] = -q[i]
            if i < len(orig):
                n, nr = float(np.linalg.norm(q[i])), float(np.linalg.norm(ref))
                if n > 0 and nr > 0:
                    q[i] *= nr / n
        out[:, t, 3:7] = q.astype(np.float32)


def _names(names: Sequence[str], limit: int = 6) -> str:
    names = list(dict.fromkeys(names))
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


BAKE_HINT = "bake the action first (Pose > Animation > Bake Action, with Visual Keying)"


def export_warnings(obj, action, names: Sequence[str]) -> List[str]:
    """What the export (the action's F-curves of the tracked bones' channels) cannot see and what Blender
    nevertheless shows: constraints, drivers, NLA strips, rotation keys of a mode the bone does not use, keys
    of bones without a track. One sentence each, naming the bones."""
    out: List[str] = []
    tracked = [n for n in names if n and n in obj.pose.bones]
    tracked_set = set(tracked)
    constrained = [pb.name for pb in obj.pose.bones
                   if any(not c.mute and c.influence > 0 for c in pb.constraints)]
    if constrained:
        out.append(f"constraints on {_names(constrained)} are not exported: {BAKE_HINT}")
    if obj.constraints and any(not c.mute and c.influence > 0 for c in obj.constraints):
        out.append(f"constraints on the armature object {obj.name} are not exported (nor is its motion)")
    ad = obj.animation_data
    if ad is not None:
        driven, other = [], []
        for d in ad.drivers:
            if d.mute:
                continue
            path = d.data_path
            if path.startswith('pose.bones["'):
                driven.append(path[len('pose.bones["'):].split('"]', 1)[0])
            else:
                other.append(path)
        if driven:
            out.append(f"drivers on {_names(driven)} are not exported: {BAKE_HINT}")
        if other:
            out.append(f"drivers of {_names(other)} are not exported: {BAKE_HINT}")
        strips = [f"{t.name}/{st.name}" for t in ad.nla_tracks if not t.mute for st in t.strips
                  if not st.mute and st.action is not None]
        if strips:
            out.append(f"NLA strips ({_names(strips)}) are not exported, only the action {action.name}: "
                       f"{BAKE_HINT}")
    ignored, untracked = [], []
    keyed: Dict[str, set] = {}
    for fc in action.fcurves:
        path = fc.data_path
        if not path.startswith('pose.bones["') or fc.mute:
            continue
        bone, _, channel = path[len('pose.bones["'):].partition('"].')
        keyed.setdefault(bone, set()).add(channel)
    for bone, channels in keyed.items():
        if bone not in obj.pose.bones:
            continue
        if bone not in tracked_set:
            untracked.append(bone)
            continue
        mode = obj.pose.bones[bone].rotation_mode
        used = _ROTATION_PATHS.get(mode, "rotation_euler")
        for ch in sorted(channels & {"rotation_quaternion", "rotation_euler", "rotation_axis_angle"} - {used}):
            ignored.append(f"{bone} ({ch}; its rotation mode is {mode})")
    if ignored:
        out.append(f"rotation keys of a channel the bone's rotation mode does not use are ignored, as Blender "
                   f"ignores them (the mode's own channel is exported; unkeyed, it is no rotation): "
                   f"{_names(ignored)}")
    if untracked:
        out.append(f"keys on {_names(untracked)} are not exported: the clip has no track for these bones")
    return out


def export_report(s: dict) -> str:
    """The operator's status line for an export summary."""
    where = ", ".join(x for x in (s.get("path"), s.get("binder") and f"{s['binder']}:{s['member']}") if x)
    if s.get("unchanged") is None:
        tracks = f"frame count {s['original_frames']} -> {s['frames']}: every track re-encoded"
    else:
        tracks = f"{s['unchanged']} of {s['tracks']} tracks unchanged from the original"
        restored = s.get("restored", 0)
        if restored:
            tracks += f", {restored} of them within the untouched tolerance"
    rec = "with the record" if s.get("record") else "without a record"
    warn = f"; {len(s['warnings'])} warning(s)" if s.get("warnings") else ""
    return f"hkspline: wrote {s['bytes']} bytes to {where} ({tracks}; {rec}{warn})"


def export_action(context, obj, action, filepath: str = "", like_path: str = "", into_binder: str = "",
                  member: str = "", use_record: bool = True, snap_tolerance: float = 1e-5,
                  options: Optional[dict] = None, progress: Optional[Callable[[float], None]] = None,
                  frames: int = 0, compendium_path: str = "") -> dict:
    """Sample ``action`` and encode it like its original clip; write ``filepath`` and/or the binder member.
    ``compendium_path``: the compendium of the like clip (default: the one given at import).
    Returns a summary dict (bytes, path, tracks unchanged, warnings, ...)."""
    if not filepath and not into_binder:
        raise RuntimeError("nothing to write: give filepath or into_binder")
    hk = binding()
    like = like_path or action.get(P + "source", "")
    if not like:
        raise RuntimeError("no like_path and the action does not come from an imported clip")
    comp = [compendium_path] if compendium_path else (json.loads(action.get(P + "compendium", "[]")) or None)
    lf = hk.load(like, compendium=comp)
    idx = int(action.get(P + "animation", -1))
    if not 0 <= idx < len(lf.animations):
        idx = next((a.index for a in lf.animations if a.kind == "spline"), 0)
    la = lf.animations[idx]
    orig = la.frames()
    orig_floats = la.floats()
    n_tracks = orig.shape[1]

    names = json.loads(action.get(P + "track_bones", "[]"))
    if len(names) != n_tracks:
        names = [n if n and n in obj.pose.bones else "" for n in la.bone_names]
    lo, hi = action.frame_range
    if P + "frames" in action:  # the clip's frames, or more when keys were added past its end
        start = float(action.get(P + "frame_start", 0))
        n_frames = max(int(action[P + "frames"]), int(round(hi - start)) + 1)
    else:
        start, n_frames = float(lo), int(round(hi - lo)) + 1
    if frames >= 2:
        n_frames = frames
    n_frames = max(n_frames, 2)
    fr = start + np.arange(n_frames, dtype=np.float64)

    out = np.empty((n_frames, n_tracks, 10), dtype=np.float32)
    clamp = np.minimum(np.arange(n_frames), orig.shape[0] - 1)
    out[:] = orig[clamp]
    used = [t for t in range(n_tracks) if names[t] and names[t] in obj.pose.bones]
    converted = [t for t in used if obj.pose.bones[names[t]].rotation_mode != "QUATERNION"]
    warnings = export_warnings(obj, action, names)
    if used:
        tr, qr = rest_relative(obj, [names[t] for t in used])
        loc = np.zeros((n_frames, len(used), 3))
        rot = np.zeros((n_frames, len(used), 4))
        scl = np.zeros((n_frames, len(used), 3))
        for j, t in enumerate(used):
            bn = names[t]
            for i in range(3):
                loc[:, j, i] = _eval(action, _pb_path(bn, "location"), i, fr, 0.0)
                scl[:, j, i] = _eval(action, _pb_path(bn, "scale"), i, fr, 1.0)
            rot[:, j, :] = _rotation(action, obj.pose.bones[bn], bn, fr)
            if progress:
                progress(0.8 * (j + 1) / len(used))
        out[:, used, :] = convert.channels_to_havok(loc, rot, scl, tr, qr)
        _match_original(out, orig, converted)
    deviation = None
    if out.shape == orig.shape and used:  # the round-off of the rest-relative conversion, for the report
        d = np.abs(out[:, used].astype(np.float64) - orig[:, used])
        d = d[~np.isnan(d)]
        deviation = float(d.max()) if d.size else 0.0
    same_shape = out.shape == orig.shape
    exact = _same_bits(out, orig) if same_shape else None
    snapped = convert.snap_untouched(out, orig, snap_tolerance) if same_shape else None
    unchanged = _same_bits(out, orig) if same_shape else None  # after snapping: what the file gets

    fl = np.empty((n_frames, orig_floats.shape[1]), dtype=np.float32)
    fl[:] = orig_floats[clamp] if orig_floats.size else 0
    for k, prop in enumerate(json.loads(action.get(P + "float_props", "[]"))[: fl.shape[1]]):
        fl[:, k] = _eval(action, f'["{bpy.utils.escape_identifier(prop)}"]', 0, fr, float(fl[0, k]))

    record = None
    if use_record and action.get(P + "record"):
        record = base64.b64decode(action[P + "record"])
    fd = float(action.get(P + "frame_duration", la.frame_duration or 1 / 30))
    duration = None if n_frames == orig.shape[0] else (n_frames - 1) * fd
    data = hk.encode(out, like=like, floats=fl, duration=duration, animation=idx, record=record,
                     compendium=comp, **(options or {}))
    if progress:
        progress(0.9)
    summary = {"bytes": len(data), "tracks": n_tracks, "frames": n_frames, "original_frames": orig.shape[0],
               "record": record is not None,
               # tracks within snap_tolerance of the original (given its values), tracks whose output is the
               # original's bit for bit (None when the frame count changed), and those that only the
               # tolerance made so
               "snapped": int(snapped.sum()) if snapped is not None else 0,
               "unchanged": int(unchanged.sum()) if unchanged is not None else None,
               "restored": int((unchanged & ~exact).sum()) if unchanged is not None else 0,
               "max_deviation": deviation, "warnings": warnings}
    b = name = existing = None
    if into_binder:  # checked before anything is written
        name = member or action.get(P + "member", "") or os.path.basename(filepath or like.rsplit(":", 1)[-1])
        if not name:
            raise RuntimeError("give the binder member name (member)")
        b = hk.Binder.read(into_binder)
        existing = _binder_member(b, name)
        if existing is not None:
            _check_replaceable(hk, b, into_binder, existing)
    if filepath:
        _write_atomic(filepath, data)
        summary["path"] = filepath
    if b is not None:
        bak = into_binder + ".bak"
        if not os.path.exists(bak):
            with open(into_binder, "rb") as src, open(bak + ".tmp-hkspline", "wb") as dst:
                dst.write(src.read())
            os.replace(bak + ".tmp-hkspline", bak)
        summary["added"] = existing is None
        if existing is not None:
            b.replace(existing, data)
        else:  # added like the binder's members: their folder prefix, flags and ID rule (hks_bnd4_add_like)
            b.replace(name, data)
            existing = b.entries[-1]["name"]
        b.write(into_binder)
        summary["binder"] = into_binder
        summary["member"] = existing
    action[P + "last_export"] = json.dumps(summary)
    return summary


def _same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per track: every value of ``a`` has the bits of ``b``'s."""
    return (a.view(np.uint32) == b.view(np.uint32)).all(axis=(0, 2))


def _binder_member(b, name: str) -> Optional[str]:
    """The full name of the member ``name`` (full or base name, case-insensitive), else None."""
    want = name.replace("\\", "/").lower()
    base = want.rsplit("/", 1)[-1]
    full = [n for n in b.names if n.replace("\\", "/").lower() == want]
    if full:
        return full[0]
    return next((n for n in b.names if n.replace("\\", "/").rsplit("/", 1)[-1].lower() == base), None)


def _check_replaceable(hk, b, binder: str, full: str) -> None:
    """An export replaces animations only, as `hkspline encode --into`: a member that holds no animation (a
    skeleton) or no Havok file at all (a .tae) is refused, whatever its name. A damaged animation (truncated,
    malformed) or one whose compendium is elsewhere may be replaced."""
    base = full.replace("\\", "/").rsplit("/", 1)[-1]
    unique = sum(n.replace("\\", "/").rsplit("/", 1)[-1].lower() == base.lower() for n in b.names) == 1
    shown = f"'{base}' of {os.path.basename(binder)}"
    advice = "the export replaces or adds animations only: choose another member name (Member)"
    try:
        f = hk.load(f"{binder}:{base}") if unique else hk.load(b.get(full))
    except hk.Error as e:
        if e.name in ("truncated", "malformed", "compendium"):
            return
        if e.name == "not_found":
            raise RuntimeError(f"member {shown} is not a Havok file; {advice}; the binder is unchanged") from e
        raise RuntimeError(f"member {shown} cannot be read, so what it holds is unknown ({e}); {advice}; the "
                           "binder is unchanged") from e
    try:
        if not f.animations:
            raise RuntimeError(f"member {shown} holds no animation ({len(f.skeletons)} skeleton(s)); {advice}; "
                               "the binder is unchanged")
    finally:
        f.close()


def _write_atomic(path: str, data: bytes) -> None:
    """A temporary beside ``path`` renamed over it; an existing file's mode is kept (a new one gets open()'s
    0666 & ~umask)."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise RuntimeError(f"cannot write {path}: its folder {folder} does not exist")
    tmp = path + ".tmp-hkspline"
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
        try:
            os.fchmod(fh.fileno(), os.stat(path).st_mode & 0o7777)
        except OSError:
            pass
    os.replace(tmp, path)
