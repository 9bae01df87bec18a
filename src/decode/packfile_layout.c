/*
 * Member offsets of the animation classes in a packfile, computed from the
 * file's layout rules (CONTAINERS.md §3.1, §5.1, §5.7) instead of one table per
 * game. The rules are the C struct rules of the target platform:
 *   - hkReferencedObject is {vtable, u16 memSizeAndFlags, u16 refCount}: 8 bytes
 *     with 4-byte pointers, 16 bytes (12 used) with 8-byte pointers;
 *   - with reusePaddingOptimization (Bloodborne, rules 8,1,1,1) a derived
 *     class's first members of alignment <= 4 go into those 4 unused bytes;
 *   - hkArray is {pointer, i32 size, i32 capacityAndFlags};
 *   - hkVector4 / hkQsTransform are 16-aligned.
 * Version differences, all checked on the corpus (docs/PACKFILE.md):
 *   - hkaAnimationBinding::partitionIndices exists from 2012 (file version 11);
 *   - hkaAnimatedReferenceFrame::frameType (i8) exists in 2014 (version 11) but
 *     not in 2010: Skyrim SE (2010, 64-bit) has referenceFrameSamples at 56,
 *     DS3 (2014) at 72, Bloodborne (2014 with padding reuse) at 56.
 */
#include "packfile.h"

static uint32_t align_up(uint32_t v, uint32_t a) { return (v + a - 1) & ~(a - 1); }

bool hks_pf_layout_compute(uint32_t pointer_size, uint32_t file_version, bool reuse_padding, hks_pf_layout *l)
{
	if (pointer_size != 4 && pointer_size != 8)
		return false;
	const uint32_t P = pointer_size;
	const uint32_t A = P + 8;                      /* hkArray */
	const uint32_t base = P == 4 ? 8 : 16;         /* sizeof(hkReferencedObject) */
	const uint32_t used = P + 4;                   /* bytes of it actually used */
	/* where a derived class's first member of alignment <= 4 goes */
	const uint32_t small_first = reuse_padding ? used : base;
	const bool v2012 = file_version >= 11;

	memset(l, 0, sizeof(*l));
	l->pointer = P;
	l->array = A;

	l->root_named_variants = 0;
	l->variant_name = 0;
	l->variant_class_name = P;
	l->variant_variant = 2 * P;
	l->variant_size = 3 * P;

	l->container_skeletons = base;
	l->container_animations = base + A;
	l->container_bindings = base + 2 * A;

	l->anim_type = small_first;
	l->anim_duration = small_first + 4;
	l->anim_num_transform_tracks = small_first + 8;
	l->anim_num_float_tracks = small_first + 12;
	l->anim_extracted_motion = align_up(small_first + 16, P);
	l->anim_annotation_tracks = l->anim_extracted_motion + P;
	l->anim_size = align_up(l->anim_annotation_tracks + A, P);

	l->annotation_track_name = 0;
	l->annotation_track_size = P + A;

	uint32_t s = l->anim_size;
	l->spline_num_frames = s;
	l->spline_num_blocks = s + 4;
	l->spline_max_frames_per_block = s + 8;
	l->spline_mask_and_quantization_size = s + 12;
	l->spline_block_duration = s + 16;
	l->spline_block_inverse_duration = s + 20;
	l->spline_frame_duration = s + 24;
	l->spline_block_offsets = align_up(s + 28, P);
	l->spline_float_block_offsets = l->spline_block_offsets + A;
	l->spline_transform_offsets = l->spline_float_block_offsets + A;
	l->spline_float_offsets = l->spline_transform_offsets + A;
	l->spline_data = l->spline_float_offsets + A;
	l->spline_endian = l->spline_data + A;
	l->spline_size = align_up(l->spline_endian + 4, P);

	l->interleaved_transforms = l->anim_size;
	l->interleaved_floats = l->anim_size + A;

	/* the binding starts with a pointer: no padding reuse possible */
	l->binding_skeleton_name = base;
	l->binding_animation = base + P;
	l->binding_transform_track_to_bone = base + 2 * P;
	l->binding_float_track_to_slot = l->binding_transform_track_to_bone + A;
	if (v2012) {
		l->binding_partition_indices = l->binding_float_track_to_slot + A;
		l->binding_blend_hint = l->binding_partition_indices + A;
	} else {
		l->binding_partition_indices = UINT32_MAX;
		l->binding_blend_hint = l->binding_float_track_to_slot + A;
	}

	l->skeleton_name = base;
	l->skeleton_parent_indices = base + P;
	l->skeleton_bones = l->skeleton_parent_indices + A;
	l->skeleton_reference_pose = l->skeleton_bones + A;
	l->skeleton_reference_floats = l->skeleton_reference_pose + A;
	l->skeleton_float_slots = l->skeleton_reference_floats + A;
	l->bone_name = 0;
	l->bone_lock_translation = P;
	l->bone_size = 2 * P;

	/* hkaAnimatedReferenceFrame: frameType (i8) only from 2012 on */
	uint32_t after_base = v2012 ? small_first + 1 : base;
	l->frame_up = align_up(after_base, 16);
	l->frame_forward = l->frame_up + 16;
	l->frame_duration = l->frame_forward + 16;
	l->frame_samples = align_up(l->frame_duration + 4, P);
	return true;
}
