"""Pure numpy conversions between Havok local transforms and Blender pose-bone channels.

No ``bpy`` here, so the arithmetic can be checked outside Blender.

Convention (docs/BLENDER.md): the armature's space is Havok's model space (the armature object carries the
Y-up to Z-up turn). Every bone's rest matrix is the Havok reference pose composed in model space (translation
and rotation; Blender rest matrices hold no scale). With R the bone's rest matrix relative to its parent's
(rotation qr, translation tr) and a Havok local transform (t, q, s), the pose-bone channels are

    location = qr^-1 (t - tr),   rotation_quaternion = qr^-1 * q,   scale = s

so that Blender's pose matrix R @ T(location) R(rotation) S(scale) is the Havok local matrix T(t) R(q) S(s).
Scale is copied unchanged; the quaternion keeps its sign and its (raw, not renormalized) length. With the
"origin" rest (every rest matrix the identity) the channels are the Havok values themselves. Quaternions
here are (x, y, z, w) as in Havok; Blender's channel order is (w, x, y, z).
"""

from __future__ import annotations

import numpy as np


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product of (..., 4) xyzw quaternions (float64)."""
    ax, ay, az, aw = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    bx, by, bz, bw = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack([aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw,
                     aw * bw - ax * bx - ay * by - az * bz], axis=-1)


def quat_conj(q: np.ndarray) -> np.ndarray:
    return np.concatenate([-q[..., :3], q[..., 3:4]], axis=-1)


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """(..., 4) xyzw -> (..., 3, 3) rotation matrices (the quaternion is normalized first)."""
    q = np.asarray(q, dtype=np.float64)
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    n[n == 0] = 1.0
    x, y, z, w = np.moveaxis(q / n, -1, 0)
    return np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
                     np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
                     np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1)], -2)


def matrix_to_quat(m: np.ndarray) -> np.ndarray:
    """3x3 rotation matrix -> unit xyzw quaternion (w >= 0)."""
    m = np.asarray(m, dtype=np.float64)
    tr = m[0, 0] + m[1, 1] + m[2, 2]
    if tr > 0:
        s = np.sqrt(tr + 1.0) * 2
        q = [(m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, 0.25 * s]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = np.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        q = [0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s, (m[2, 1] - m[1, 2]) / s]
    elif m[1, 1] > m[2, 2]:
        s = np.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        q = [(m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s, (m[0, 2] - m[2, 0]) / s]
    else:
        s = np.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
        q = [(m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s, (m[1, 0] - m[0, 1]) / s]
    q = np.array(q)
    q /= np.linalg.norm(q)
    return -q if q[3] < 0 else q


def trs_matrix(t: np.ndarray, q: np.ndarray, s: np.ndarray) -> np.ndarray:
    """(..., 4, 4) matrices T(t) R(q) S(s) in float64."""
    t = np.asarray(t, dtype=np.float64)
    r = quat_to_matrix(q) * np.asarray(s, dtype=np.float64)[..., None, :]
    m = np.zeros(t.shape[:-1] + (4, 4))
    m[..., :3, :3] = r
    m[..., :3, 3] = t
    m[..., 3, 3] = 1.0
    return m


def model_space(local: np.ndarray, parents) -> np.ndarray:
    """Compose (bones, 4, 4) local matrices through the hierarchy (parents before children not required)."""
    n = len(local)
    out = np.zeros_like(local)
    done = np.zeros(n, dtype=bool)

    def solve(i: int, depth: int = 0) -> np.ndarray:
        if done[i]:
            return out[i]
        p = int(parents[i]) if i < len(parents) else -1
        if 0 <= p < n and p != i and depth < n:
            out[i] = solve(p, depth + 1) @ local[i]
        else:
            out[i] = local[i]
        done[i] = True
        return out[i]

    for i in range(n):
        solve(i)
    return out


def rest_relative(rest_local_matrices: np.ndarray):
    """Blender rest matrices relative to the parent (bones, 4, 4) -> (tr (bones, 3), qr (bones, 4) xyzw)."""
    tr = rest_local_matrices[:, :3, 3].astype(np.float64)
    qr = np.array([matrix_to_quat(m[:3, :3]) for m in rest_local_matrices]) if len(rest_local_matrices) else \
        np.zeros((0, 4))
    return tr, qr


def _identity(tr: np.ndarray, qr: np.ndarray) -> np.ndarray:
    """Per bone: the rest matrix relative to the parent is exactly the identity."""
    return (tr == 0).all(axis=-1) & (qr[..., 0:3] == 0).all(axis=-1) & (qr[..., 3] == 1)


def havok_to_channels(frames: np.ndarray, tr: np.ndarray, qr: np.ndarray):
    """Havok local samples (frames, bones, 10) -> (location (f, b, 3), quaternion wxyz (f, b, 4), scale (f, b, 3))
    float64 (rounded to float32 by Blender's keyframes). Bones whose relative rest is exactly the identity get
    the values themselves (bit for bit, signed zeros and NaN included)."""
    f = frames.astype(np.float64)
    t, q, s = f[..., 0:3], f[..., 3:7], f[..., 7:10]
    qi = quat_conj(qr)[None]
    loc = np.einsum("bji,fbj->fbi", quat_to_matrix(qr), t - tr[None])  # R^T (t - tr)
    rot = quat_mul(np.broadcast_to(qi, q.shape), q)
    ident = _identity(tr, qr)
    loc[:, ident] = t[:, ident]
    rot[:, ident] = q[:, ident]
    return loc, np.concatenate([rot[..., 3:4], rot[..., 0:3]], axis=-1), s


def channels_to_havok(loc: np.ndarray, quat_wxyz: np.ndarray, scale: np.ndarray, tr: np.ndarray,
                      qr: np.ndarray) -> np.ndarray:
    """The inverse of havok_to_channels -> float32 (frames, bones, 10)."""
    q = np.concatenate([quat_wxyz[..., 1:4], quat_wxyz[..., 0:1]], axis=-1).astype(np.float64)
    t = tr[None] + np.einsum("bij,fbj->fbi", quat_to_matrix(qr), loc.astype(np.float64))
    r = quat_mul(np.broadcast_to(qr[None], q.shape), q)
    ident = _identity(tr, qr)
    t[:, ident] = loc[:, ident]
    r[:, ident] = q[:, ident]
    out = np.concatenate([t, r, scale.astype(np.float64)], axis=-1)
    return out.astype(np.float32)


def snap_untouched(derived: np.ndarray, original: np.ndarray, tolerance: float) -> np.ndarray:
    """Tracks of ``derived`` (frames, tracks, 10) that differ from ``original`` by at most ``tolerance`` in every
    value (NaN where both are NaN) take the original's values bit for bit: Blender's float32 rest matrices make
    the channel conversion exact only to round-off, and an untouched track must give its original bytes.
    Returns the per-track mask of snapped tracks; ``derived`` is modified in place."""
    if derived.shape != original.shape or tolerance <= 0:
        return np.zeros(derived.shape[1] if derived.ndim == 3 else 0, dtype=bool)
    a, b = derived.astype(np.float64), original.astype(np.float64)
    both_nan = np.isnan(a) & np.isnan(b)
    diff = np.where(both_nan, 0.0, np.abs(a - b))
    diff = np.where(np.isnan(diff), np.inf, diff)
    mask = (diff <= tolerance).all(axis=(0, 2))
    derived[:, mask, :] = original[:, mask, :]
    return mask


def root_motion(samples: np.ndarray, up) -> np.ndarray:
    """hkaDefaultAnimatedReferenceFrame samples (n, 4: translation, angle about up) -> (n, 4, 4) matrices."""
    u = np.asarray(up[:3], dtype=np.float64)
    nu = np.linalg.norm(u)
    u = u / nu if nu > 0 else np.array([0.0, 1.0, 0.0])
    ang = samples[:, 3].astype(np.float64)
    q = np.concatenate([u[None] * np.sin(ang / 2)[:, None], np.cos(ang / 2)[:, None]], axis=-1)
    return trs_matrix(samples[:, :3], q, np.ones((len(samples), 3)))
