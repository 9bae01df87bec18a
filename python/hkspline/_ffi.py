"""ctypes declarations of the parts of ``hkspline.h`` the binding uses.

Every structure mirrors its C definition field by field (``include/hkspline.h``);
``tests/test_layout.py`` compiles a C program that prints the C sizes and offsets
and compares them with these. The library is looked up, in order, at
``$HKSPLINE_LIBRARY``, next to this package (``libhkspline.so``), then on the
system's library path.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_float, c_int, c_int8, c_int16, c_int32,
                    c_int64, c_size_t, c_uint8, c_uint32, c_uint64, c_void_p)

TRACK_SAMPLE_FLOATS = 10


class Allocator(Structure):
    _fields_ = [("alloc", c_void_p), ("realloc", c_void_p), ("free", c_void_p), ("user", c_void_p)]


class Limits(Structure):
    _fields_ = [("max_memory", c_uint64), ("max_frames", c_uint32), ("max_tracks", c_uint32),
                ("max_blocks", c_uint32), ("max_output_bytes", c_uint64), ("max_objects", c_uint32),
                ("max_depth", c_uint32)]


class Options(Structure):
    _fields_ = [("allocator", Allocator), ("limits", Limits), ("name", c_char_p), ("dcx_codec", c_void_p)]


class ErrorRecord(Structure):
    _fields_ = [("code", c_int), ("message", c_char * 512), ("file", c_char * 512), ("object", c_char * 128),
                ("member", c_char * 96), ("offset", c_int64), ("animation", c_int32), ("block", c_int32),
                ("track", c_int32), ("part", c_int)]


class QsTransform(Structure):
    _fields_ = [("translation", c_float * 4), ("rotation", c_float * 4), ("scale", c_float * 4)]


class SplineHeader(Structure):
    _fields_ = [("num_frames", c_int32), ("num_blocks", c_int32), ("max_frames_per_block", c_int32),
                ("mask_and_quantization_size", c_int32), ("block_duration", c_float),
                ("block_inverse_duration", c_float), ("frame_duration", c_float), ("endian", c_int32),
                ("block_offsets", POINTER(c_uint32)), ("num_block_offsets", c_uint32),
                ("float_block_offsets", POINTER(c_uint32)), ("num_float_block_offsets", c_uint32),
                ("transform_offsets", POINTER(c_uint32)), ("num_transform_offsets", c_uint32),
                ("float_offsets", POINTER(c_uint32)), ("num_float_offsets", c_uint32),
                ("data", POINTER(c_uint8)), ("data_size", c_uint32)]


class AnimationRecord(Structure):
    _fields_ = [("kind", c_int), ("class_name", c_char_p), ("type", c_int32), ("duration", c_float),
                ("number_of_transform_tracks", c_int32), ("number_of_float_tracks", c_int32),
                ("reference_frame", c_int32), ("annotation_track_names", POINTER(c_char_p)),
                ("num_annotation_tracks", c_uint32), ("spline", SplineHeader),
                ("transforms", POINTER(QsTransform)), ("num_transforms", c_uint32),
                ("floats", POINTER(c_float)), ("num_floats", c_uint32),
                ("object_offset", c_int64), ("data_offset", c_int64)]


class BindingRecord(Structure):
    _fields_ = [("original_skeleton_name", c_char_p), ("animation", c_int32),
                ("transform_track_to_bone_indices", POINTER(c_int16)),
                ("num_transform_track_to_bone_indices", c_uint32),
                ("float_track_to_float_slot_indices", POINTER(c_int16)),
                ("num_float_track_to_float_slot_indices", c_uint32),
                ("partition_indices", POINTER(c_int16)), ("num_partition_indices", c_uint32),
                ("blend_hint", c_int8)]


class SkeletonRecord(Structure):
    _fields_ = [("name", c_char_p), ("num_bones", c_uint32), ("bone_names", POINTER(c_char_p)),
                ("lock_translation", POINTER(c_uint8)), ("parent_indices", POINTER(c_int16)),
                ("num_parent_indices", c_uint32), ("reference_pose", POINTER(QsTransform)),
                ("num_reference_pose", c_uint32), ("float_slots", POINTER(c_char_p)),
                ("num_float_slots", c_uint32), ("reference_floats", POINTER(c_float)),
                ("num_reference_floats", c_uint32)]


class FileRecord(Structure):
    _fields_ = [("container", c_int), ("sdk", c_char * 32), ("pointer_size", c_uint32),
                ("file_version", c_uint32), ("has_compendium_reference", c_int), ("compendium_id", c_uint8 * 8),
                ("num_compendium_ids", c_uint32), ("compendium_ids", c_void_p),
                ("animations", POINTER(AnimationRecord)), ("num_animations", c_uint32),
                ("bindings", POINTER(BindingRecord)), ("num_bindings", c_uint32),
                ("skeletons", POINTER(SkeletonRecord)), ("num_skeletons", c_uint32),
                ("reference_frames", c_void_p), ("num_reference_frames", c_uint32), ("internal", c_void_p)]


class ReadOptions(Structure):
    _fields_ = [("base", Options), ("compendiums", c_void_p)]


class LoadOptions(Structure):
    _fields_ = [("base", Options), ("compendium_paths", POINTER(c_char_p)), ("num_compendium_paths", c_size_t)]


class Loaded(Structure):
    _fields_ = [("path", c_char_p), ("container_path", c_char_p), ("member", c_char_p),
                ("bytes", POINTER(c_uint8)), ("size", c_size_t), ("file", POINTER(FileRecord)),
                ("status", c_int), ("error", ErrorRecord), ("container", c_int), ("sdk", c_char * 32)]


class FramesIn(Structure):
    _fields_ = [("num_frames", c_uint32), ("num_transform_tracks", c_uint32), ("num_float_tracks", c_uint32),
                ("duration", c_float), ("transforms", POINTER(c_float)), ("floats", POINTER(c_float))]


class Decoded(Structure):
    _fields_ = [("index", c_uint32), ("num_frames", c_uint32), ("num_transform_tracks", c_uint32),
                ("num_float_tracks", c_uint32), ("duration", c_float), ("frame_duration", c_float),
                ("transforms", POINTER(c_float)), ("floats", POINTER(c_float)), ("times", POINTER(c_float)),
                ("bone_names", POINTER(c_char_p)), ("stored", c_void_p), ("frames", FramesIn),
                ("arena", c_void_p)]


class DecodeOptions(Structure):
    _fields_ = [("base", Options), ("skeleton_file", POINTER(FileRecord)), ("keep_stored", c_int)]


class EncodeLikeOptions(Structure):
    _fields_ = [("base", Options), ("translation_tolerance", c_float), ("rotation_tolerance", c_float),
                ("scale_tolerance", c_float), ("float_tolerance", c_float), ("degree", c_uint8),
                ("rotation_quantization", c_uint8), ("max_frames_per_block", c_uint32), ("cpu", c_int),
                ("solver", c_int), ("sdk", c_char_p), ("rotation_continuity", c_int), ("havok_unguarded", c_int),
                ("record", c_void_p), ("record_size", c_size_t)]


class RecompressOptions(Structure):
    _fields_ = [("base", Options), ("cpu", c_int), ("sdk", c_char_p), ("ladder", c_uint32), ("no_zlib", c_int),
                ("animation_index", c_int32)]


class ShellOverride(Structure):
    _fields_ = [("pattern", c_char_p), ("distance", c_double)]


class ComparisonOptions(Structure):
    _fields_ = [("load", LoadOptions), ("skeleton", c_char_p), ("animation", c_uint32),
                ("shell_distance", c_double), ("shell_overrides", POINTER(ShellOverride)),
                ("num_shell_overrides", c_uint32), ("threshold", c_double), ("no_seams", c_int)]


class Bnd4Entry(Structure):
    _fields_ = [("name", c_char_p), ("id", c_int32), ("flags", c_uint8), ("data", POINTER(c_uint8)),
                ("size", c_uint64), ("uncompressed_size", c_uint64), ("data_offset", c_uint64),
                ("header", POINTER(c_uint8))]


class Bnd4(Structure):
    _fields_ = [("entries", POINTER(Bnd4Entry)), ("num_entries", c_uint32)]  # leading fields only


class DcxInfo(Structure):
    _fields_ = [("compression", c_char * 5), ("version", c_uint32), ("uncompressed_size", c_uint32),
                ("compressed_size", c_uint32), ("level", c_uint8), ("header_size", c_uint32),
                ("header", c_uint8 * 0x4C), ("deflate_level", c_uint8)]


STRUCTS = {
    "hks_options": Options, "hks_error": ErrorRecord, "hks_qs_transform": QsTransform,
    "hks_spline_header": SplineHeader, "hks_animation": AnimationRecord, "hks_binding": BindingRecord,
    "hks_skeleton": SkeletonRecord, "hks_file": FileRecord, "hks_read_options": ReadOptions,
    "hks_load_options": LoadOptions, "hks_loaded": Loaded, "hks_frames_in": FramesIn, "hks_decoded": Decoded,
    "hks_decode_options": DecodeOptions, "hks_encode_like_options": EncodeLikeOptions,
    "hks_recompress_options": RecompressOptions, "hks_shell_override": ShellOverride,
    "hks_comparison_options": ComparisonOptions, "hks_bnd4_entry": Bnd4Entry, "hks_dcx_info": DcxInfo,
}


def _find_library() -> str:
    env = os.environ.get("HKSPLINE_LIBRARY")
    if env:
        return env
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libhkspline.so")
    if os.path.exists(here):
        return here
    found = ctypes.util.find_library("hkspline")
    if found:
        return found
    return "libhkspline.so"  # the dynamic loader's own search (LD_LIBRARY_PATH ...)


def _load() -> ctypes.CDLL:
    path = _find_library()
    try:
        return ctypes.CDLL(path)
    except OSError as e:  # pragma: no cover - depends on the installation
        raise ImportError(
            f"hkspline: cannot load the shared library {path!r} ({e}); build it (cmake --build build) and set "
            "HKSPLINE_LIBRARY, or place libhkspline.so next to the hkspline package") from e


lib = _load()
library_path = _find_library()

_P = POINTER
_sigs = {
    "hks_result_name": (c_char_p, [c_int]),
    "hks_error_format": (c_size_t, [_P(ErrorRecord), c_char_p, c_size_t]),
    "hks_buffer_free": (None, [c_void_p, c_void_p, c_size_t]),
    "hks_container_name": (c_char_p, [c_int]),
    "hks_detect_container": (c_int, [c_void_p, c_size_t]),
    "hks_file_read": (c_int, [c_void_p, c_size_t, _P(ReadOptions), _P(_P(FileRecord)), _P(ErrorRecord)]),
    "hks_file_free": (None, [_P(FileRecord)]),
    "hks_file_write": (c_int, [_P(FileRecord), c_void_p, _P(c_void_p), _P(c_size_t), _P(ErrorRecord)]),
    "hks_compendium_set_create": (c_int, [c_void_p, _P(c_void_p), _P(ErrorRecord)]),
    "hks_compendium_set_add": (c_int, [c_void_p, c_void_p, c_size_t, c_char_p, _P(c_int), _P(ErrorRecord)]),
    "hks_compendium_set_free": (None, [c_void_p]),
    "hks_loader_create": (c_int, [_P(LoadOptions), _P(c_void_p), _P(ErrorRecord)]),
    "hks_loader_free": (None, [c_void_p]),
    "hks_loader_open_unit": (c_int, [c_void_p, c_char_p, _P(c_size_t), _P(ErrorRecord)]),
    "hks_loader_load": (c_int, [c_void_p, c_size_t, _P(_P(Loaded))]),
    "hks_loader_find_skeleton": (c_int, [c_void_p, c_size_t, _P(_P(Loaded))]),
    "hks_loaded_free": (None, [_P(Loaded)]),
    "hks_skeleton_load": (c_int, [_P(LoadOptions), c_char_p, _P(c_void_p), _P(_P(Loaded)), _P(ErrorRecord)]),
    "hks_file_binding_for": (_P(BindingRecord), [_P(FileRecord), c_uint32]),
    "hks_decode_animation": (c_int, [_P(FileRecord), c_uint32, _P(DecodeOptions), _P(_P(Decoded)),
                                     _P(ErrorRecord)]),
    "hks_decoded_free": (None, [_P(Decoded)]),
    "hks_encode_like": (c_int, [_P(FileRecord), c_uint32, _P(FramesIn), _P(EncodeLikeOptions), _P(c_void_p),
                                _P(c_size_t), c_void_p, _P(ErrorRecord)]),
    "hks_recompress_file": (c_int, [_P(FileRecord), _P(RecompressOptions), _P(c_void_p), _P(c_size_t),
                                    _P(c_void_p), _P(c_size_t), _P(ErrorRecord)]),
    "hks_compare_paths": (c_int, [c_char_p, c_char_p, _P(ComparisonOptions), _P(c_void_p), _P(ErrorRecord)]),
    "hks_comparison_json": (c_int, [c_void_p, c_int, c_int, _P(c_void_p), _P(c_size_t), _P(ErrorRecord)]),
    "hks_comparison_free": (None, [c_void_p]),
    "hks_cpu_model_parse": (c_int, [c_char_p, _P(c_int)]),
    "hks_dcx_decompress": (c_int, [c_void_p, c_size_t, c_void_p, _P(c_void_p), _P(c_size_t), _P(DcxInfo),
                                   _P(ErrorRecord)]),
    "hks_dcx_compress": (c_int, [c_void_p, c_size_t, _P(DcxInfo), c_void_p, _P(c_void_p), _P(c_size_t),
                                 _P(ErrorRecord)]),
    "hks_dcx_match_level": (c_int, [c_void_p, c_size_t, c_void_p, c_size_t]),
    "hks_bnd4_read": (c_int, [c_void_p, c_size_t, c_void_p, _P(_P(Bnd4)), _P(ErrorRecord)]),
    "hks_bnd4_find": (c_int, [_P(Bnd4), c_char_p, _P(c_uint32), _P(ErrorRecord)]),
    "hks_bnd4_replace": (c_int, [_P(Bnd4), c_uint32, c_void_p, c_size_t, _P(ErrorRecord)]),
    "hks_bnd4_add": (c_int, [_P(Bnd4), c_char_p, c_int32, c_uint8, c_void_p, c_size_t, _P(ErrorRecord)]),
    "hks_bnd4_add_like": (c_int, [_P(Bnd4), c_char_p, c_void_p, c_size_t, _P(ErrorRecord)]),
    "hks_bnd4_write": (c_int, [_P(Bnd4), c_void_p, _P(c_void_p), _P(c_size_t), _P(ErrorRecord)]),
    "hks_bnd4_free": (None, [_P(Bnd4)]),
}
for _name, (_res, _args) in _sigs.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args

del _name, _res, _args, _f
_ = sys  # keep the import for type checkers


# --- added for the Blender add-on (root motion): hks_reference_frame ---------------------------------------
class ReferenceFrameRecord(Structure):
    _fields_ = [("class_name", c_char_p), ("up", c_float * 4), ("forward", c_float * 4), ("duration", c_float),
                ("samples", POINTER(c_float * 4)), ("num_samples", c_uint32)]
STRUCTS["hks_reference_frame"] = ReferenceFrameRecord
