/*
 * `encode --like ORIGINAL` as one library call (hks_encode_like): parameters
 * from the command line, else the original (per-track quantizations from mask
 * byte 0 of its first block, maxFramesPerBlock, SDK), else Havok's defaults;
 * encode (or apply a record); replace the animation; write the file.
 */
#include "internal.h"

#include <stdio.h>

void hks_track_params_like(const hks_stored_animation *orig, uint8_t rotation_quantization,
                           hks_track_params *per_track, uint32_t num_per_track, hks_track_params *per_float_track,
                           uint32_t num_per_float_track)
{
	/* mask byte 0 (docs/FORMAT.md §2.3): bits 0-1 translation, 2-5 rotation selector, 6-7 scale;
	 * a float mask's bits 1-2 its quantization (§2.7); values past the known ones leave the
	 * encoder's default */
	bool have = orig && orig->num_blocks > 0 && orig->blocks;
	uint32_t T = have && orig->num_transform_tracks > 0 ? (uint32_t)orig->num_transform_tracks : 0;
	uint32_t F = have && orig->num_float_tracks > 0 ? (uint32_t)orig->num_float_tracks : 0;
	for (uint32_t t = 0; t < num_per_track && per_track; t++) {
		if (t < T) {
			uint8_t m0 = orig->blocks[0].tracks[t].mask[0];
			unsigned tq = m0 & 3, sel = (m0 >> 2) & 15, sq = m0 >> 6;
			if (tq <= 1)
				per_track[t].translation_quantization = (uint8_t)(tq + 1);
			if (sq <= 1)
				per_track[t].scale_quantization = (uint8_t)(sq + 1);
			if (sel <= HKS_ROT_UNCOMPRESSED)
				per_track[t].rotation_quantization = HKS_ENC_ROT_QUANT(sel);
		}
		if (rotation_quantization)
			per_track[t].rotation_quantization = rotation_quantization;
	}
	for (uint32_t i = 0; i < num_per_float_track && i < F && per_float_track; i++) {
		unsigned q = (orig->blocks[0].float_masks[i] >> 1) & 3;
		if (q <= 1)
			per_float_track[i].float_quantization = (uint8_t)(q + 1);
	}
}

hks_result hks_encode_like(hks_file *file, uint32_t ai, const hks_frames_in *frames,
                           const hks_encode_like_options *opts, uint8_t **out, size_t *out_size,
                           hks_encode_like_report *report, hks_error *err)
{
	hks_error local;
	if (!err)
		err = &local;
	hks_encode_like_options zero;
	memset(&zero, 0, sizeof(zero));
	const hks_encode_like_options *o = opts ? opts : &zero;
	hks_ctx ctx;
	hks_ctx_init(&ctx, &o->base, 0, err);
	if (!file || !frames || !out || !out_size)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "no file, frames or output pointer");
	*out = NULL;
	*out_size = 0;
	if (ai >= file->num_animations || file->animations[ai].kind != HKS_ANIMATION_SPLINE)
		return hks_fail(&ctx, HKS_E_NOT_FOUND, -1, "the file has no spline animation %u to replace", ai);
	const hks_animation *oa = &file->animations[ai];
	uint32_t T = frames->num_transform_tracks, F = frames->num_float_tracks;
	if ((uint32_t)oa->number_of_transform_tracks != T || (uint32_t)oa->number_of_float_tracks != F)
		return hks_fail(&ctx, HKS_E_MISMATCH, -1,
		                "animation %u has %d transform and %d float tracks; the frames have %u and %u", ai,
		                (int)oa->number_of_transform_tracks, (int)oa->number_of_float_tracks, T, F);
	if (o->degree > 3)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "degree %u (1, 2 or 3)", o->degree);
	if (o->max_frames_per_block == 1 || o->max_frames_per_block > 256)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "max_frames_per_block %u (2 .. 256)", o->max_frames_per_block);
	hks_stored_animation *orig = NULL;
	HKS_TRY(hks_stored_read(oa, NULL, &orig, err));
	hks_track_params *pal = (hks_track_params *)hks_calloc(&ctx, (size_t)T + 1, sizeof(hks_track_params));
	hks_track_params *fpal = (hks_track_params *)hks_calloc(&ctx, (size_t)F + 1, sizeof(hks_track_params));
	hks_packed_spline *packed = NULL;
	hks_result r = HKS_OK;
	if (!pal || !fpal) {
		r = err->code ? err->code : hks_fail_nomem(&ctx, (size_t)T * sizeof(hks_track_params));
		goto done;
	}
	hks_track_params_like(orig, o->rotation_quantization, pal, T, fpal, F);
	hks_encode_options eo;
	memset(&eo, 0, sizeof(eo));
	eo.base = o->base;
	eo.defaults.translation_tolerance = o->translation_tolerance;
	eo.defaults.rotation_tolerance = o->rotation_tolerance;
	eo.defaults.scale_tolerance = o->scale_tolerance;
	eo.defaults.float_tolerance = o->float_tolerance;
	eo.defaults.translation_degree = eo.defaults.rotation_degree = eo.defaults.scale_degree =
	    eo.defaults.float_degree = o->degree;
	eo.per_track = pal;
	eo.num_per_track = T;
	eo.per_float_track = fpal;
	eo.num_per_float_track = F;
	int32_t orig_mfpb = orig->max_frames_per_block;
	eo.max_frames_per_block = o->max_frames_per_block ? o->max_frames_per_block
	                          : (orig_mfpb >= 2 && orig_mfpb <= 256 ? (uint32_t)orig_mfpb : 0);
	eo.cpu = o->cpu;
	eo.sdk = o->sdk ? o->sdk : file->sdk;
	eo.solver = o->solver;
	eo.rotation_continuity = o->rotation_continuity;
	eo.havok_unguarded = o->havok_unguarded;
	hks_encode_like_report rep;
	memset(&rep, 0, sizeof(rep));
	eo.stats = &rep.stats;
	snprintf(rep.sdk, sizeof(rep.sdk), "%s", eo.sdk);
	if (o->record) {
		hks_record_file_entry *entries = NULL;
		uint32_t count = 0;
		if ((r = hks_record_file_read(o->record, o->record_size, &o->base, &entries, &count, err)) != HKS_OK)
			goto done;
		const hks_record_file_entry *e = NULL;
		for (uint32_t k = 0; k < count; k++)
			if (entries[k].animation == ai)
				e = &entries[k];
		if (!e)
			r = hks_fail(&ctx, HKS_E_NOT_FOUND, -1, "the record file holds no record of animation %u", ai);
		else {
			hks_recompress_options ro;
			memset(&ro, 0, sizeof(ro));
			ro.base = o->base;
			r = hks_recompress_apply(frames, e->record, e->size, &ro, &packed, &rep.record, err);
		}
		hks_buffer_free(&o->base, entries, count * sizeof(*entries));
		if (r != HKS_OK)
			goto done;
	} else if ((r = hks_encode_spline(frames, &eo, &packed, err)) != HKS_OK)
		goto done;
	/* the stored structure of the original points into its data: release it before replacing */
	hks_stored_free(orig);
	orig = NULL;
	if ((r = hks_file_replace_spline(file, ai, packed->duration, &packed->header, err)) != HKS_OK)
		goto done;
	rep.num_blocks = (uint32_t)packed->header.num_blocks;
	rep.data_size = packed->header.data_size;
	hks_write_options wo;
	memset(&wo, 0, sizeof(wo));
	wo.base = o->base;
	if ((r = hks_file_write(file, &wo, out, out_size, err)) != HKS_OK)
		goto done;
	if (report)
		*report = rep;
done:
	hks_packed_spline_free(packed);
	hks_stored_free(orig);
	hks_free(&ctx, pal, ((size_t)T + 1) * sizeof(hks_track_params));
	hks_free(&ctx, fpal, ((size_t)F + 1) * sizeof(hks_track_params));
	return r;
}
