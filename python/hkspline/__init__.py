"""hkspline: Havok spline-compressed animations from Python.

A thin ``ctypes`` binding of the C library (``libhkspline.so``, ``include/hkspline.h``):
everything is done by the library, the binding converts arguments and results.
numpy is the only dependency. See ``docs/PYTHON.md``.

>>> import hkspline
>>> f = hkspline.load("c1050/a000_000200.hkx", compendium=["c1050/"])
>>> anim = f.animations[0]
>>> frames = anim.frames()            # (frames, tracks, 10): t xyz, r xyzw, s xyz
>>> data = hkspline.encode(anim, like="c1050/a000_000200.hkx", tolerance=0.002)
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import stat
import tempfile
from ctypes import byref, c_char_p, c_float, c_int, c_size_t, c_uint32, c_void_p, POINTER
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _ffi
from ._ffi import lib

__all__ = ["Error", "File", "Animation", "Skeleton", "Binding", "Binder", "load", "encode", "recompress",
           "error", "library_path", "RESULT_CODES"]
__version__ = "0.1.0"

library_path = _ffi.library_path

#: hks_result codes by name (``Error.code`` is the number, ``Error.name`` the name).
RESULT_CODES = {"ok": 0, "argument": 1, "nomem": 2, "truncated": 3, "malformed": 4, "unsupported": 5, "limit": 6,
                "compendium": 7, "io": 8, "not_found": 9, "mismatch": 10, "internal": 11}

_CODE_NAMES = {v: k for k, v in RESULT_CODES.items()}

PathLike = Union[str, "os.PathLike[str]"]


class Error(Exception):
    """A failure of the C library, with its error record (``hks_error``).

    Attributes: ``code`` (the ``hks_result`` number, see ``RESULT_CODES``), ``name`` (its key there:
    "truncated", "compendium", ...), ``description`` (the library's text for the code),
    ``message``, ``file``, ``object``, ``member``, ``offset`` (byte offset, -1 when unknown),
    ``animation``, ``block``, ``track`` (-1 when not applicable), ``part`` ("T", "R", "S", "F" or "").
    """

    def __init__(self, record: _ffi.ErrorRecord, code: Optional[int] = None):
        self.code = int(code if code is not None and record.code == 0 else record.code)
        self.name = _CODE_NAMES.get(self.code, "unknown")
        self.description = (lib.hks_result_name(self.code) or b"?").decode()
        self.message = record.message.decode("utf-8", "replace")
        self.file = record.file.decode("utf-8", "replace")
        self.object = record.object.decode("utf-8", "replace")
        self.member = record.member.decode("utf-8", "replace")
        self.offset = int(record.offset)
        self.animation = int(record.animation)
        self.block = int(record.block)
        self.track = int(record.track)
        self.part = chr(record.part) if record.part else ""
        buf = ctypes.create_string_buffer(2048)
        lib.hks_error_format(byref(record), buf, len(buf))
        text = buf.value.decode("utf-8", "replace") or self.message or self.name
        if self.name == "compendium":
            # the library names the CLI's option; here it is the compendium= argument
            text = text.replace("--compendium", "compendium=")
            self.message = self.message.replace("--compendium", "compendium=")
        super().__init__(f"{self.name}: {text}")


def _check(result: int, err: _ffi.ErrorRecord) -> None:
    if result != 0:
        raise Error(err, result)


def _b(s: Optional[PathLike]) -> Optional[bytes]:
    return None if s is None else _path(s)


def _path(p: PathLike) -> bytes:
    """A path for the C library: a NUL would end it there (and name another file), so it is refused as
    Python's own open() does."""
    b = os.fsencode(p)
    if b"\0" in b:
        raise ValueError(f"embedded null byte in path {p!r}")
    return b


def _name(n: str) -> bytes:
    """A member name or pattern for the C library (UTF-8, no NUL: it would cut the name there)."""
    if not isinstance(n, str):
        raise TypeError(f"a name must be a str, not {type(n).__name__}")
    b = n.encode("utf-8", "surrogateescape")
    if b"\0" in b:
        raise ValueError(f"embedded null byte in name {n!r}")
    return b


def _int(what: str, v: Any, lo: int, hi: int) -> int:
    """An integer argument checked against its C type's range (ctypes would wrap it silently)."""
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{what} must be an int, not {type(v).__name__}")
    i = int(v)
    if not lo <= i <= hi:
        raise ValueError(f"{what} {i} is outside {lo} .. {hi}")
    return i


#: Files read whole by the binding (binders, compendiums, records) are refused above this size, as by the CLI.
MAX_INPUT_BYTES = 4 << 30


def _read_file(path: PathLike) -> bytes:
    """A regular file's bytes. A FIFO would block the read and /dev/zero never end, so anything but a regular
    file is refused, as is a file over MAX_INPUT_BYTES (checked before reading)."""
    fd = os.open(_path(path), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
        if st.st_size > MAX_INPUT_BYTES:
            raise OSError(errno.EFBIG, f"{st.st_size} bytes, over the input limit of {MAX_INPUT_BYTES} bytes",
                          os.fspath(path))
        chunks, n = [], 0
        while True:
            c = os.read(fd, 1 << 20)
            if not c:
                break
            n += len(c)
            if n > MAX_INPUT_BYTES:
                raise OSError(errno.EFBIG, f"over the input limit of {MAX_INPUT_BYTES} bytes", os.fspath(path))
            chunks.append(c)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _take(ptr: c_void_p, size: c_size_t) -> bytes:
    """Copy a buffer the library returned and free it."""
    if not ptr.value:
        return b""
    data = ctypes.string_at(ptr.value, size.value)
    lib.hks_buffer_free(None, ptr, size)
    return data


def _str(p: Optional[bytes]) -> Optional[str]:
    return None if p is None else p.decode("utf-8", "surrogateescape")


class _Paths:
    """A NULL-free char* array kept alive with its strings."""

    def __init__(self, paths: Optional[Iterable[PathLike]]):
        self.items = [_path(p) for p in (paths or [])]
        self.array = (c_char_p * (len(self.items) + 1))(*self.items)

    def fill(self, lo: _ffi.LoadOptions) -> None:
        lo.compendium_paths = ctypes.cast(self.array, POINTER(c_char_p))
        lo.num_compendium_paths = len(self.items)


# ---------------------------------------------------------------------------------------------------------------
# objects of a file


class Skeleton:
    """An ``hkaSkeleton``: ``name``, ``names`` (bone names), ``parents`` (int16, -1 for roots),
    ``reference_pose`` (bones x 10 float32: t xyz, r xyzw, s xyz), ``float_slots``, ``reference_floats``."""

    def __init__(self, rec: _ffi.SkeletonRecord, owner: "File"):
        self._owner = owner
        self.name: Optional[str] = _str(rec.name)
        n = rec.num_bones
        self.names: List[Optional[str]] = [_str(rec.bone_names[i]) if rec.bone_names else None for i in range(n)]
        self.parents = np.array([rec.parent_indices[i] for i in range(rec.num_parent_indices)], dtype=np.int16)
        pose = np.zeros((rec.num_reference_pose, 10), dtype=np.float32)
        if rec.num_reference_pose:
            raw = np.ctypeslib.as_array(ctypes.cast(rec.reference_pose, POINTER(ctypes.c_float)),
                                        shape=(rec.num_reference_pose, 12))
            pose[:, 0:3] = raw[:, 0:3]
            pose[:, 3:7] = raw[:, 4:8]
            pose[:, 7:10] = raw[:, 8:11]
        self.reference_pose = pose
        self.float_slots: List[Optional[str]] = [_str(rec.float_slots[i]) for i in range(rec.num_float_slots)]
        self.reference_floats = np.array([rec.reference_floats[i] for i in range(rec.num_reference_floats)],
                                         dtype=np.float32)

    def __repr__(self) -> str:
        return f"<hkspline.Skeleton {self.name!r}: {len(self.names)} bones>"


class Binding:
    """An ``hkaAnimationBinding``: ``skeleton_name``, ``animation`` (index, -1 when none), ``track_to_bone`` and
    ``float_track_to_slot`` (int16 arrays; empty means the identity), ``blend_hint``."""

    def __init__(self, rec: _ffi.BindingRecord):
        self.skeleton_name: Optional[str] = _str(rec.original_skeleton_name)
        self.animation = int(rec.animation)
        self.track_to_bone = np.array([rec.transform_track_to_bone_indices[i]
                                       for i in range(rec.num_transform_track_to_bone_indices)], dtype=np.int16)
        self.float_track_to_slot = np.array([rec.float_track_to_float_slot_indices[i]
                                             for i in range(rec.num_float_track_to_float_slot_indices)],
                                            dtype=np.int16)
        self.blend_hint = int(rec.blend_hint)

    def __repr__(self) -> str:
        return f"<hkspline.Binding animation {self.animation} -> {self.skeleton_name!r}>"


_KINDS = {0: "other", 1: "spline", 2: "interleaved"}


class Animation:
    """One animation of a file. ``kind`` ("spline", "interleaved", "other"), ``class_name``, ``duration``,
    ``num_transform_tracks``, ``num_float_tracks``, ``binding`` (or None).

    ``frames()`` decodes it (spline: every stored frame, raw values as ``hkspline decode`` writes them;
    interleaved: as stored) to a float32 array (frames, tracks, 10); ``floats()`` the float tracks
    (frames, float tracks); ``bone_names`` the bone of each transform track (through the binding and the
    file's skeleton, else the ``skeleton=`` file given to ``load``)."""

    def __init__(self, file: "File", index: int):
        self.file = file
        self.index = index
        rec = file._rec.animations[index]
        self.kind = _KINDS.get(rec.kind, "other")
        self.class_name = _str(rec.class_name)
        self.duration = float(rec.duration)
        self.num_transform_tracks = int(rec.number_of_transform_tracks)
        self.num_float_tracks = int(rec.number_of_float_tracks)
        self.num_frames = int(rec.spline.num_frames) if rec.kind == 1 else None
        b = lib.hks_file_binding_for(file._rec_ptr, index)
        self.binding: Optional[Binding] = Binding(b.contents) if b else None
        self._decoded: Optional[Tuple[np.ndarray, np.ndarray, List[Optional[str]], float, float]] = None

    def _decode(self):
        if self._decoded is None:
            opts = _ffi.DecodeOptions()
            name = _path(self.file.path) if self.file.path else None
            opts.base.name = name  # messages name the file
            if self.file._skeleton_file is not None:
                opts.skeleton_file = self.file._skeleton_file._live_ptr()
            out = POINTER(_ffi.Decoded)()
            err = _ffi.ErrorRecord()
            _check(lib.hks_decode_animation(self.file._live_ptr(), self.index, byref(opts), byref(out), byref(err)),
                   err)
            try:
                d = out.contents
                N, T, F = d.num_frames, d.num_transform_tracks, d.num_float_tracks
                t = np.ctypeslib.as_array(d.transforms, shape=(N * T * 10 + 1,))[: N * T * 10].copy()
                fl = np.ctypeslib.as_array(d.floats, shape=(N * F + 1,))[: N * F].copy()
                names = [_str(d.bone_names[i]) for i in range(T)]
                self._decoded = (t.reshape(N, T, 10), fl.reshape(N, F), names, float(d.duration),
                                 float(d.frame_duration))
            finally:
                lib.hks_decoded_free(out)
        return self._decoded

    def frames(self) -> np.ndarray:
        """(frames, transform tracks, 10) float32: translation xyz, rotation xyzw, scale xyz (a copy)."""
        return self._decode()[0].copy()

    def floats(self) -> np.ndarray:
        """(frames, float tracks) float32 (a copy)."""
        return self._decode()[1].copy()

    @property
    def bone_names(self) -> List[Optional[str]]:
        return list(self._decode()[2])

    @property
    def frame_duration(self) -> float:
        return self._decode()[4]

    def __repr__(self) -> str:
        return (f"<hkspline.Animation {self.index} {self.kind}: {self.num_transform_tracks} + "
                f"{self.num_float_tracks} tracks, {self.duration:g} s>")


class File:
    """A parsed Havok file (tagfile, packfile, XML). ``path``, ``container``, ``sdk``, ``animations``,
    ``skeletons``, ``bindings``; ``to_bytes()`` writes it back (an unmodified file gives its input bytes)."""

    def __init__(self):
        self._loader = c_void_p()
        self._loaded: Optional[Any] = None
        self._owned_file = None
        self._rec_ptr = None
        self._skeleton_file: Optional["File"] = None
        self.path: Optional[str] = None

    def _init_objects(self) -> None:
        self._rec = self._rec_ptr.contents
        self.container = (lib.hks_container_name(self._rec.container) or b"").decode()
        self.sdk = self._rec.sdk.decode("utf-8", "replace")
        self.skeletons = [Skeleton(self._rec.skeletons[i], self) for i in range(self._rec.num_skeletons)]
        self.bindings = [Binding(self._rec.bindings[i]) for i in range(self._rec.num_bindings)]
        self.animations = [Animation(self, i) for i in range(self._rec.num_animations)]

    def to_bytes(self) -> bytes:
        out, size, err = c_void_p(), c_size_t(), _ffi.ErrorRecord()
        _check(lib.hks_file_write(self._live_ptr(), None, byref(out), byref(size), byref(err)), err)
        return _take(out, size)

    def _live_ptr(self):
        """The C record; ValueError once the file is closed (its memory is gone)."""
        if self._rec_ptr is None:
            raise ValueError("the file is closed")
        return self._rec_ptr

    def close(self) -> None:
        """Release the C objects (also done when the object is collected). Objects of the file that need
        them afterwards (``to_bytes``, an animation's first ``frames()``, ``encode(like=file)``) raise
        ValueError."""
        self._rec_ptr = None
        sk = self._skeleton_file
        if sk is not None and getattr(sk, "_parent", None) is self:
            sk.close()  # its loaded object came from this file's loader: freed before the loader
        if self._loaded:
            lib.hks_loaded_free(self._loaded)
            self._loaded = None
        if self._owned_file:
            lib.hks_file_free(self._owned_file)
            self._owned_file = None
        if self._loader:
            lib.hks_loader_free(self._loader)
            self._loader = c_void_p()

    def __del__(self):
        try:
            self.close()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

    def __repr__(self) -> str:
        return (f"<hkspline.File {self.path!r} {self.container} {self.sdk}: {len(self.animations)} animations, "
                f"{len(self.skeletons)} skeletons>")


def load(source: Union[PathLike, bytes, bytearray, memoryview], compendium: Optional[Sequence[Any]] = None,
         skeleton: Optional[PathLike] = None) -> File:
    """Parse a Havok file.

    ``source``: a path (``.hkx``, a binder or DCX holding one Havok file, or ``BINDER:MEMBER``), or the bytes of
    a Havok file. ``compendium``: compendium files, binders or folders (for paths; for bytes: ``.compendium``
    file paths or bytes). ``skeleton``: a skeleton file (or binder / folder) for bone names when the file has
    none. Raises ``hkspline.Error`` (e.g. ``name == "compendium"`` when a referenced compendium is missing).
    """
    f = File()
    err = _ffi.ErrorRecord()
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        cset = c_void_p()
        _check(lib.hks_compendium_set_create(None, byref(cset), byref(err)), err)
        try:
            for c in compendium or []:
                blob = bytes(c) if isinstance(c, (bytes, bytearray, memoryview)) else _read_file(c)
                name = b"compendium" if isinstance(c, (bytes, bytearray, memoryview)) else _path(c)
                _check(lib.hks_compendium_set_add(cset, blob, len(blob), name, None, byref(err)), err)
            ro = _ffi.ReadOptions()
            ro.compendiums = cset
            out = POINTER(_ffi.FileRecord)()
            _check(lib.hks_file_read(data, len(data), byref(ro), byref(out), byref(err)), err)
        finally:
            lib.hks_compendium_set_free(cset)
        f._owned_file = out
        f._rec_ptr = out
        f.path = None
    else:
        paths = _Paths(compendium)
        lo = _ffi.LoadOptions()
        paths.fill(lo)
        _check(lib.hks_loader_create(byref(lo), byref(f._loader), byref(err)), err)
        unit = c_size_t()
        _check(lib.hks_loader_open_unit(f._loader, _path(source), byref(unit), byref(err)), err)
        ld = POINTER(_ffi.Loaded)()
        r = lib.hks_loader_load(f._loader, unit, byref(ld))
        if r != 0 or not ld:
            raise Error(_ffi.ErrorRecord(), r or RESULT_CODES["nomem"])
        f._loaded = ld
        if ld.contents.status != 0:
            raise Error(ld.contents.error, ld.contents.status)
        f._rec_ptr = ld.contents.file
        f.path = _str(ld.contents.path)
        if skeleton is None and ld.contents.file.contents.num_skeletons == 0:
            # as `hkspline decode`: the skeleton the loader finds beside the file (same binder, then folder)
            sk = POINTER(_ffi.Loaded)()
            if lib.hks_loader_find_skeleton(f._loader, unit, byref(sk)) == 0 and sk:
                if sk.contents.status == 0:
                    s = File()
                    s._loaded = sk
                    s._rec_ptr = sk.contents.file
                    s.path = _str(sk.contents.path)
                    s._init_objects()
                    s._parent = f  # the loader that made it stays alive
                    f._skeleton_file = s
                else:
                    lib.hks_loaded_free(sk)
    if skeleton is not None:
        f._skeleton_file = _load_skeleton(skeleton, compendium)
    f._init_objects()
    return f


def _load_skeleton(path: PathLike, compendium: Optional[Sequence[Any]]) -> File:
    f = File()
    err = _ffi.ErrorRecord()
    paths = _Paths([c for c in (compendium or []) if not isinstance(c, (bytes, bytearray, memoryview))])
    lo = _ffi.LoadOptions()
    paths.fill(lo)
    ld = POINTER(_ffi.Loaded)()
    _check(lib.hks_skeleton_load(byref(lo), _path(path), byref(f._loader), byref(ld), byref(err)), err)
    f._loaded = ld
    f._rec_ptr = ld.contents.file
    f.path = _str(ld.contents.path)
    f._init_objects()
    return f


# ---------------------------------------------------------------------------------------------------------------
# encode, recompress, error

_ROT_QUANT = {"40": 1, "48": 2, "24": 3, "16": 4, "32": 0, "uncompressed": 5}
_GAMES = {"sekiro": "20160200", "eldenring": "20180100", "elden-ring": "20180100"}
_ENCODE_OPTIONS = {"tolerance", "translation_tolerance", "rotation_tolerance", "scale_tolerance", "float_tolerance",
                   "degree", "rotation_quantization", "max_frames_per_block", "cpu", "solver", "continuity",
                   "no_guard", "game"}


def _positive(name: str, v: Any) -> float:
    x = float(v)
    if not (x > 0) or x == float("inf"):
        raise ValueError(f"{name} wants a positive number")
    return x


def _encode_options(o: _ffi.EncodeLikeOptions, options: Dict[str, Any]) -> None:
    unknown = set(options) - _ENCODE_OPTIONS
    if unknown:
        raise TypeError(f"unknown encode options: {', '.join(sorted(unknown))}")
    if "tolerance" in options:
        t = _positive("tolerance", options["tolerance"])
        o.translation_tolerance = o.rotation_tolerance = o.scale_tolerance = o.float_tolerance = t
    for k in ("translation_tolerance", "rotation_tolerance", "scale_tolerance", "float_tolerance"):
        if k in options:
            setattr(o, k, _positive(k, options[k]))
    if "degree" in options:
        d = int(options["degree"])
        if d not in (1, 2, 3):
            raise ValueError("degree takes 1, 2 or 3")
        o.degree = d
    if "rotation_quantization" in options:
        q = str(options["rotation_quantization"])
        if q not in _ROT_QUANT:
            raise ValueError("rotation_quantization takes 40, 48, 24, 16, 32 or 'uncompressed'")
        o.rotation_quantization = _ROT_QUANT[q] + 1
    if "max_frames_per_block" in options:
        m = int(options["max_frames_per_block"])
        if not 2 <= m <= 256:
            raise ValueError("max_frames_per_block takes 2 .. 256")
        o.max_frames_per_block = m
    if "cpu" in options:
        cpu = c_int()
        if lib.hks_cpu_model_parse(str(options["cpu"]).encode(), byref(cpu)) != 0:
            raise ValueError("cpu takes auto, intel, amd-zen, native or exact")
        o.cpu = cpu.value
    if "solver" in options:
        s = str(options["solver"])
        if s not in ("havok", "quality"):
            raise ValueError("solver takes havok or quality")
        o.solver = 1 if s == "quality" else 0
    o.rotation_continuity = 1 if options.get("continuity") else 0
    o.havok_unguarded = 1 if options.get("no_guard") else 0
    if "game" in options:
        g = str(options["game"])
        if g not in _GAMES:
            raise ValueError("game takes sekiro or eldenring")
        o.sdk = _GAMES[g].encode()


def encode(frames: Union[Animation, np.ndarray], like: Union[PathLike, File], *, floats: Optional[np.ndarray] = None,
           duration: Optional[float] = None, animation: Optional[int] = None,
           record: Optional[Union[PathLike, bytes]] = None, compendium: Optional[Sequence[Any]] = None,
           **options: Any) -> bytes:
    """Encode frames into the file ``like`` (a path, ``BINDER:MEMBER`` or a ``File``), replacing its animation
    ``animation`` (default: the animation the frames came from, else the first spline animation): the bytes of
    ``hkspline encode FRAMES.json --like LIKE [options]``.

    ``frames``: an ``Animation`` (its frames, floats and duration), or a float32 array (frames, tracks, 10) with
    ``floats`` (frames, float tracks) and ``duration`` (default: the replaced animation's). ``record``: a record
    file (path or bytes, from ``recompress``): unchanged parts get their original bytes. Options and defaults
    as the CLI: ``tolerance``, ``translation_tolerance``, ``rotation_tolerance``, ``scale_tolerance``,
    ``float_tolerance`` (0.001), ``degree`` (3), ``rotation_quantization`` ("40", "48", "24", "16", "32",
    "uncompressed"; default the original's), ``max_frames_per_block`` (the original's), ``cpu`` ("auto"),
    ``solver`` ("havok"), ``continuity`` (False), ``no_guard`` (False), ``game`` ("sekiro", "eldenring")."""
    if isinstance(frames, Animation):
        src = frames
        if animation is None:
            animation = src.index
        if floats is None:
            floats = src.floats()
        if duration is None:
            duration = src._decode()[3]
        frames = src.frames()
    target = like if isinstance(like, File) else load(like, compendium=compendium)
    if animation is None:
        animation = next((a.index for a in target.animations if a.kind == "spline"), 0)
    if not 0 <= animation < len(target.animations):
        raise ValueError(f"the file has no animation {animation}")
    t = np.ascontiguousarray(frames, dtype=np.float32)
    if t.ndim != 3 or t.shape[2] != 10:
        raise ValueError("frames must have the shape (frames, tracks, 10)")
    n, T = t.shape[0], t.shape[1]
    fl = np.ascontiguousarray(floats if floats is not None else np.zeros((n, 0)), dtype=np.float32)
    if fl.ndim != 2 or fl.shape[0] != n:
        raise ValueError("floats must have the shape (frames, float tracks)")
    if duration is None:
        duration = target.animations[animation].duration
    fin = _ffi.FramesIn(n, T, fl.shape[1], c_float(duration), None, None)
    if T:
        fin.transforms = t.ctypes.data_as(POINTER(c_float))
    if fl.shape[1]:
        fin.floats = fl.ctypes.data_as(POINTER(c_float))
    o = _ffi.EncodeLikeOptions()
    _encode_options(o, options)
    rec_bytes = None
    if record is not None:
        rec_bytes = bytes(record) if isinstance(record, (bytes, bytearray, memoryview)) else _read_file(record)
        o.record = ctypes.cast(ctypes.c_char_p(rec_bytes), c_void_p)
        o.record_size = len(rec_bytes)
    out, size, err = c_void_p(), c_size_t(), _ffi.ErrorRecord()
    _check(lib.hks_encode_like(target._live_ptr(), animation, byref(fin), byref(o), byref(out), byref(size), None,
                               byref(err)), err)
    result = _take(out, size)
    if not isinstance(like, File):
        target.close()
    else:
        like._init_objects()  # the file now holds the new animation
    return result


def recompress(path: PathLike, compendium: Optional[Sequence[Any]] = None, cpu: str = "auto",
               ladder: int = 0) -> Tuple[bytes, bytes]:
    """Re-compress every spline animation of a Havok file: (the file with each animation replaced by the
    predictor's re-encode, the record file), as ``hkspline recompress IN -o OUT --record R``.
    ``encode(anim, like=path, record=record)`` then gives the original bytes back."""
    f = load(path, compendium=compendium)
    try:
        o = _ffi.RecompressOptions()
        c = c_int()
        if lib.hks_cpu_model_parse(cpu.encode(), byref(c)) != 0:
            raise ValueError("cpu takes auto, intel, amd-zen or exact")
        o.cpu = c.value
        o.ladder = _int("ladder", ladder, 0, 2 ** 32 - 1)
        out, size, rec, rsize, err = c_void_p(), c_size_t(), c_void_p(), c_size_t(), _ffi.ErrorRecord()
        _check(lib.hks_recompress_file(f._rec_ptr, byref(o), byref(out), byref(size), byref(rec), byref(rsize),
                                       byref(err)), err)
        return _take(out, size), _take(rec, rsize)
    finally:
        f.close()


_REPORTS = {"summary": 0, "detailed": 1, "exhaustive": 2}


def error(a: PathLike, b: PathLike, skeleton: Optional[PathLike] = None, compendium: Optional[Sequence[Any]] = None,
          animation: int = 0, shell: Optional[float] = None, threshold: Optional[float] = None,
          shell_overrides: Optional[Dict[str, float]] = None, report: str = "summary") -> Dict[str, Any]:
    """The compression error of B against A (Havok files, ``BINDER:MEMBER`` or decoded-frames JSON), as the dict
    of ``hkspline error A B --json`` (the same keys; ``report`` "detailed" / "exhaustive" as ``--report``)."""
    if report not in _REPORTS:
        raise ValueError("report is summary, detailed or exhaustive")
    paths = _Paths(compendium)
    o = _ffi.ComparisonOptions()
    paths.fill(o.load)
    o.skeleton = _b(skeleton)
    o.animation = _int("animation", animation, 0, 2 ** 32 - 1)
    o.shell_distance = _positive("shell", shell) if shell is not None else 0.0
    o.threshold = _positive("threshold", threshold) if threshold is not None else 0.0
    items = list((shell_overrides or {}).items())
    ovr = (_ffi.ShellOverride * (len(items) + 1))(*[_ffi.ShellOverride(_name(k), _positive(k, v))
                                                     for k, v in items])
    o.shell_overrides = ctypes.cast(ovr, POINTER(_ffi.ShellOverride))
    o.num_shell_overrides = len(items)
    cmp, err = c_void_p(), _ffi.ErrorRecord()
    _check(lib.hks_compare_paths(_path(a), _path(b), byref(o), byref(cmp), byref(err)), err)
    try:
        out, size = c_void_p(), c_size_t()
        _check(lib.hks_comparison_json(cmp, _REPORTS[report], 0, byref(out), byref(size), byref(err)), err)
        return json.loads(_take(out, size))
    finally:
        lib.hks_comparison_free(cmp)


# ---------------------------------------------------------------------------------------------------------------
# binders


def _umask() -> int:
    """The process's umask, read without changing it where /proc tells it (os.umask only sets it)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    m = os.umask(0o022)
    os.umask(m)
    return m


def _new_file_mode(target: str) -> int:
    """The permission bits a file written over ``target`` should get: the existing file's, else those of a
    newly created file (0666 & ~umask)."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        return 0o666 & ~_umask()



class Binder:
    """A BND4 binder (``.anibnd``), plain or inside a DCX (``.anibnd.dcx``).

    ``Binder.read(path_or_bytes)``; ``names``; ``get(name)`` (full name or base name, case-insensitive);
    ``replace(name, data)`` (replaces the member, else adds it like the binder's other members); ``entries``
    (name, id, flags, size of each member); ``to_bytes()`` (recompressed into the same DCX header when it came
    in one); ``write(path)``."""

    def __init__(self):
        self._bnd = POINTER(_ffi.Bnd4)()
        self._dcx: Optional[_ffi.DcxInfo] = None
        self._plain = b""
        self._packed = b""  # the DCX as read, until the deflate level that reproduces it is known

    @classmethod
    def read(cls, source: Union[PathLike, bytes]) -> "Binder":
        data = bytes(source) if isinstance(source, (bytes, bytearray, memoryview)) else _read_file(source)
        self = cls()
        err = _ffi.ErrorRecord()
        if data[:4] == b"DCX\0":
            info = _ffi.DcxInfo()
            out, size = c_void_p(), c_size_t()
            _check(lib.hks_dcx_decompress(data, len(data), None, byref(out), byref(size), byref(info), byref(err)),
                   err)
            self._packed = data
            data = _take(out, size)
            self._dcx = info
        self._plain = data
        _check(lib.hks_bnd4_read(data, len(data), None, byref(self._bnd), byref(err)), err)
        return self

    @property
    def names(self) -> List[str]:
        b = self._bnd.contents
        return [_str(b.entries[i].name) or "" for i in range(b.num_entries)]

    def _find(self, name: str) -> Optional[int]:
        idx, err = c_uint32(), _ffi.ErrorRecord()
        r = lib.hks_bnd4_find(self._bnd, _name(name), byref(idx), byref(err))
        if r == RESULT_CODES["not_found"]:
            return None
        _check(r, err)
        return idx.value

    def get(self, name: str) -> bytes:
        """The stored bytes of a member (a DCX when the member is stored compressed)."""
        i = self._find(name)
        if i is None:
            raise KeyError(name)
        e = self._bnd.contents.entries[i]
        return ctypes.string_at(e.data, e.size)

    def replace(self, name: str, data: bytes, id: Optional[int] = None, flags: Optional[int] = None) -> None:
        """Replace the member ``name`` (full or base name; its name, ID and flags are kept), else add it.
        A new member is added like the binder's other ``.hkx`` members (``hks_bnd4_add_like``: their folder
        prefix, flags and ID rule, as ``hkspline encode --into``), unless ``id`` or ``flags`` is given: then it
        is added as ``name`` with that ID (default -1) and flags (default 0) (``hks_bnd4_add``)."""
        err = _ffi.ErrorRecord()
        explicit = id is not None or flags is not None
        id = _int("id", -1 if id is None else id, -2 ** 31, 2 ** 31 - 1)
        flags = _int("flags", 0 if flags is None else flags, 0, 255)
        key = _name(name)
        data = bytes(data)
        i = self._find(name)
        if i is None and explicit:
            _check(lib.hks_bnd4_add(self._bnd, key, id, flags, data, len(data), byref(err)), err)
        elif i is None:
            _check(lib.hks_bnd4_add_like(self._bnd, key, data, len(data), byref(err)), err)
        else:
            _check(lib.hks_bnd4_replace(self._bnd, i, data, len(data), byref(err)), err)

    @property
    def entries(self) -> List[Dict[str, Any]]:
        """Every member as a dict: ``name`` (full name), ``id``, ``flags``, ``size`` (stored bytes)."""
        b = self._bnd.contents
        return [{"name": _str(e.name) or "", "id": int(e.id), "flags": int(e.flags), "size": int(e.size)}
                for e in (b.entries[i] for i in range(b.num_entries))]

    def to_bytes(self) -> bytes:
        out, size, err = c_void_p(), c_size_t(), _ffi.ErrorRecord()
        _check(lib.hks_bnd4_write(self._bnd, None, byref(out), byref(size), byref(err)), err)
        data = _take(out, size)
        if self._dcx is not None:
            if self._packed:
                # the zlib level that gives the binder's own compressed bytes back (docs/BINDERS.md; the
                # header's level byte does not for Sekiro's), found once, on the content as read
                level = lib.hks_dcx_match_level(self._plain, len(self._plain), self._packed, len(self._packed))
                if level > 0:
                    self._dcx.deflate_level = level
                self._packed = b""
            out2, size2 = c_void_p(), c_size_t()
            _check(lib.hks_dcx_compress(data, len(data), byref(self._dcx), None, byref(out2), byref(size2),
                                        byref(err)), err)
            data = _take(out2, size2)
        return data

    def write(self, path: PathLike) -> None:
        """Write to a temporary file beside `path`, then rename it over `path`. The file keeps the mode of
        the file it replaces; a new file gets 0666 & ~umask (what open() gives, and the CLI)."""
        data = self.to_bytes()
        target = os.fspath(path)
        mode = _new_file_mode(target)
        fd, tmp = tempfile.mkstemp(prefix=".hkspline-", suffix=".tmp", dir=os.path.dirname(target) or ".")
        try:
            # mkstemp creates 0600: give the file the target's mode, else a new file's (0666 & ~umask)
            os.fchmod(fd, mode)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
        except BaseException:
            try:
                os.unlink(tmp)  # a failed write leaves the target as it was and no temporary behind
            except OSError:
                pass
            raise

    def __del__(self):
        try:
            if self._bnd:
                lib.hks_bnd4_free(self._bnd)
                self._bnd = POINTER(_ffi.Bnd4)()
        except Exception:  # pragma: no cover
            pass


# ---------------------------------------------------------------------------------------------------------------
# root motion (added for the Blender add-on)


def _animation_reference_frame(self: Animation) -> Optional[Dict[str, Any]]:
    """The animation's ``hkaDefaultAnimatedReferenceFrame`` (root motion), or None: a dict with ``class_name``,
    ``up`` and ``forward`` (4 floats), ``duration`` and ``samples`` (float32 (n, 4): translation xyz and the
    angle about ``up`` in w, one per frame)."""
    self.file._live_ptr()
    rec = self.file._rec
    i = int(rec.animations[self.index].reference_frame)
    if i < 0 or i >= rec.num_reference_frames or not rec.reference_frames:
        return None
    rf = ctypes.cast(rec.reference_frames, POINTER(_ffi.ReferenceFrameRecord))[i]
    samples = np.zeros((rf.num_samples, 4), dtype=np.float32)
    if rf.num_samples:
        samples[:] = np.ctypeslib.as_array(ctypes.cast(rf.samples, POINTER(c_float)), shape=(rf.num_samples, 4))
    return {"class_name": _str(rf.class_name), "up": list(rf.up), "forward": list(rf.forward),
            "duration": float(rf.duration), "samples": samples}


Animation.reference_frame = property(_animation_reference_frame)  # type: ignore[attr-defined]
