/*
 * The raw packfile model (CONTAINERS.md §5): what the reader found, kept in
 * file->internal->packfile so that the writer (src/encode/packfile_write.c)
 * can serialize the file again. Everything lives in the file's arena; byte
 * pointers point into file->internal->source.
 */
#ifndef HKS_PACKFILE_H
#define HKS_PACKFILE_H

#include "readers.h"

/* A section header (CONTAINERS.md §5.2). Offsets are relative to `start`. */
typedef struct hks_pf_section {
	uint8_t tag[20];          /* as stored (ASCII, NUL padded, byte 19 = 0xFF) */
	uint32_t start;           /* absoluteDataStart */
	uint32_t local_fixups;    /* = size of the data part */
	uint32_t global_fixups;
	uint32_t virtual_fixups;
	uint32_t exports;
	uint32_t imports;
	uint32_t end;
	const uint8_t *extra;     /* the bytes after the seven offsets (v > 9: 16 x 0xFF), NULL when none */
} hks_pf_section;

typedef struct hks_pf_local {
	uint32_t src, dst;        /* data-section offsets: the pointer at src points to dst */
} hks_pf_local;

typedef struct hks_pf_global {
	uint32_t src, section, dst;
} hks_pf_global;

typedef struct hks_pf_object {
	uint32_t offset;          /* in the data section */
	uint32_t class_section;   /* virtual fixup: section of the class name */
	uint32_t class_offset;    /* virtual fixup: offset of the name in that section */
	const char *class_name;
} hks_pf_object;

/*
 * Member offsets of one packfile flavour (CONTAINERS.md §3.1, §5.7), computed
 * from the layout rules in packfile_layout.c. UINT32_MAX = member absent.
 */
typedef struct hks_pf_layout {
	uint32_t pointer;             /* bytes in a pointer */
	uint32_t array;               /* hkArray: {ptr, i32 size, i32 capacityAndFlags} */
	/* hkRootLevelContainer and its NamedVariant */
	uint32_t root_named_variants;
	uint32_t variant_name, variant_class_name, variant_variant, variant_size;
	/* hkaAnimationContainer */
	uint32_t container_skeletons, container_animations, container_bindings;
	/* hkaAnimation */
	uint32_t anim_type, anim_duration, anim_num_transform_tracks, anim_num_float_tracks;
	uint32_t anim_extracted_motion, anim_annotation_tracks, anim_size;
	/* hkaAnnotationTrack (array element) */
	uint32_t annotation_track_name, annotation_track_size;
	/* hkaSplineCompressedAnimation */
	uint32_t spline_num_frames, spline_num_blocks, spline_max_frames_per_block;
	uint32_t spline_mask_and_quantization_size, spline_block_duration, spline_block_inverse_duration;
	uint32_t spline_frame_duration, spline_block_offsets, spline_float_block_offsets;
	uint32_t spline_transform_offsets, spline_float_offsets, spline_data, spline_endian, spline_size;
	/* hkaInterleavedUncompressedAnimation */
	uint32_t interleaved_transforms, interleaved_floats;
	/* hkaAnimationBinding */
	uint32_t binding_skeleton_name, binding_animation, binding_transform_track_to_bone;
	uint32_t binding_float_track_to_slot, binding_partition_indices, binding_blend_hint;
	/* hkaSkeleton and hkaBone */
	uint32_t skeleton_name, skeleton_parent_indices, skeleton_bones, skeleton_reference_pose;
	uint32_t skeleton_reference_floats, skeleton_float_slots;
	uint32_t bone_name, bone_lock_translation, bone_size;
	/* hkaDefaultAnimatedReferenceFrame */
	uint32_t frame_up, frame_forward, frame_duration, frame_samples;
} hks_pf_layout;

/* Fill `layout` for a flavour. Returns false for a flavour we cannot lay out
 * (pointer size other than 4/8). */
bool hks_pf_layout_compute(uint32_t pointer_size, uint32_t file_version, bool reuse_padding,
                           hks_pf_layout *layout);

/* One spline animation of the file model and where its object is. */
typedef struct hks_pf_spline_ref {
	uint32_t animation;       /* index in hks_file.animations */
	uint32_t object;          /* data-section offset of its hkaSplineCompressedAnimation */
} hks_pf_spline_ref;

struct hks_packfile {
	const uint8_t *bytes;     /* the whole input (file->internal->source) */
	size_t size;
	uint32_t file_version;
	uint8_t rules[4];         /* bytesInPointer, littleEndian, reusePadding, emptyBaseClass */
	uint32_t header_size;     /* 0x40 plus the v11 predicate extension */
	uint32_t section_header_size;
	uint32_t contents_section, contents_offset;
	uint32_t num_sections;
	hks_pf_section *sections;
	uint32_t data_section;    /* index of "__data__" */
	uint32_t classnames_section;
	/* data-section fixups, in file order, padding entries dropped */
	hks_pf_local *locals;
	uint32_t num_locals;
	hks_pf_global *globals;
	uint32_t num_globals;
	hks_pf_object *objects;   /* virtual fixups in file order */
	uint32_t num_objects;
	hks_pf_layout layout;
	hks_pf_spline_ref *splines;
	uint32_t num_splines;
};

#endif
