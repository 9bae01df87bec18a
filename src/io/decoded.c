/*
 * Decoded frames of one animation (hks_decode_animation), the binding and
 * skeleton of an animation, and the hkaAnimation view of a packed spline:
 * the pieces `decode`, `error`, `encode` and the Python binding share.
 */
#include "internal.h"

#include <stdio.h>

hks_animation hks_animation_of_packed(const hks_packed_spline *p)
{
	hks_animation a;
	memset(&a, 0, sizeof(a));
	a.kind = HKS_ANIMATION_SPLINE;
	a.type = 3;
	a.reference_frame = -1;
	a.object_offset = -1;
	a.data_offset = -1;
	if (!p)
		return a;
	a.duration = p->duration;
	a.number_of_transform_tracks = p->num_transform_tracks;
	a.number_of_float_tracks = p->num_float_tracks;
	a.spline = p->header;
	return a;
}

const hks_binding *hks_file_binding_for(const hks_file *f, uint32_t anim)
{
	if (!f)
		return NULL;
	for (uint32_t i = 0; i < f->num_bindings; i++)
		if (f->bindings[i].animation == (int32_t)anim)
			return &f->bindings[i];
	return f->num_bindings == 1 && f->num_animations == 1 ? &f->bindings[0] : NULL;
}

const hks_skeleton *hks_file_pick_skeleton(const hks_file *own, const hks_file *ext, const hks_binding *bind)
{
	const hks_file *files[2] = {own, ext};
	for (int k = 0; k < 2; k++)
		if (files[k] && bind && bind->original_skeleton_name)
			for (uint32_t i = 0; i < files[k]->num_skeletons; i++)
				if (files[k]->skeletons[i].name && !strcmp(files[k]->skeletons[i].name, bind->original_skeleton_name))
					return &files[k]->skeletons[i];
	for (int k = 0; k < 2; k++)
		if (files[k] && files[k]->num_skeletons)
			return &files[k]->skeletons[0];
	return NULL;
}

void hks_decoded_free(hks_decoded *d)
{
	if (!d)
		return;
	hks_stored_free(d->stored);
	hks_arena_free(d->arena);
}

static hks_result fail_decode(hks_arena *arena, hks_stored_animation *s, hks_result r)
{
	hks_stored_free(s);
	hks_arena_free(arena);
	return r;
}

hks_result hks_decode_animation(const hks_file *file, uint32_t anim, const hks_decode_options *opts,
                                hks_decoded **out, hks_error *err)
{
	hks_error local;
	if (!err)
		err = &local;
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts ? &opts->base : NULL, 0, err);
	if (!out || !file)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "no file or no output pointer");
	*out = NULL;
	if (anim >= file->num_animations)
		return hks_fail(&ctx, HKS_E_NOT_FOUND, -1, "the file has %u animations (asked for %u)", file->num_animations,
		                anim);
	const hks_animation *an = &file->animations[anim];
	hks_stored_animation *s = NULL;
	uint32_t N, T, F;
	float duration, frame_duration;
	if (an->kind == HKS_ANIMATION_SPLINE) {
		hks_walk_options wo;
		memset(&wo, 0, sizeof(wo));
		if (opts)
			wo.base = opts->base;
		wo.animation_index = (int32_t)anim;
		hks_result r = hks_stored_read(an, &wo, &s, err);
		if (r != HKS_OK)
			return r;
		N = (uint32_t)s->num_frames;
		T = (uint32_t)s->num_transform_tracks;
		F = (uint32_t)s->num_float_tracks;
		duration = s->duration;
		frame_duration = s->frame_duration;
	} else if (an->kind == HKS_ANIMATION_INTERLEAVED) {
		T = an->number_of_transform_tracks > 0 ? (uint32_t)an->number_of_transform_tracks : 0;
		F = an->number_of_float_tracks > 0 ? (uint32_t)an->number_of_float_tracks : 0;
		N = T ? an->num_transforms / T : (F ? an->num_floats / F : 0);
		duration = an->duration;
		frame_duration = N > 1 ? an->duration / (float)(N - 1) : 0.0f;
	} else {
		hks_err_location(&ctx, (int32_t)anim, -1, -1, HKS_PART_NONE);
		return hks_fail(&ctx, HKS_E_UNSUPPORTED, an->object_offset, "animation %u (%s) cannot be decoded", anim,
		                an->class_name ? an->class_name : "?");
	}
	uint64_t bytes = ((uint64_t)N * T * HKS_TRACK_SAMPLE_FLOATS + (uint64_t)N * F) * sizeof(float);
	if (bytes > ctx.limits.max_output_bytes) {
		hks_stored_free(s);
		return hks_fail(&ctx, HKS_E_LIMIT, -1, "%u frames x %u + %u tracks need %llu bytes (limit %llu)", N, T, F,
		                (unsigned long long)bytes, (unsigned long long)ctx.limits.max_output_bytes);
	}
	hks_ctx_init(&ctx, opts ? &opts->base : NULL, bytes, err);
	hks_arena *arena = hks_arena_create(&ctx);
	hks_decoded *d = arena ? (hks_decoded *)hks_arena_alloc(arena, sizeof(*d)) : NULL;
	if (!d)
		return fail_decode(arena, s, hks_fail_nomem(&ctx, sizeof(*d)));
	d->arena = arena;
	d->index = anim;
	d->num_frames = N;
	d->num_transform_tracks = T;
	d->num_float_tracks = F;
	d->duration = duration;
	d->frame_duration = frame_duration;
	d->transforms = (float *)hks_arena_array(arena, (size_t)N * T * HKS_TRACK_SAMPLE_FLOATS + 1, sizeof(float));
	d->floats = (float *)hks_arena_array(arena, (size_t)N * F + 1, sizeof(float));
	d->bone_names = (const char **)hks_arena_array(arena, (size_t)T + 1, sizeof(char *));
	if (!d->transforms || !d->floats || !d->bone_names)
		return fail_decode(arena, s, err->code ? err->code : hks_fail_nomem(&ctx, (size_t)bytes));
	if (s) {
		hks_result r = hks_sample_frames(s, NULL, 0, N, d->transforms, d->floats, err);
		if (r != HKS_OK)
			return fail_decode(arena, s, r);
	} else {
		for (size_t i = 0; i < (size_t)N * T; i++) {
			const hks_qs_transform *q = &an->transforms[i];
			float *o = d->transforms + i * HKS_TRACK_SAMPLE_FLOATS;
			memcpy(o, q->translation, 3 * sizeof(float));
			memcpy(o + 3, q->rotation, 4 * sizeof(float));
			memcpy(o + 7, q->scale, 3 * sizeof(float));
		}
		for (size_t i = 0; i < (size_t)N * F && i < an->num_floats; i++)
			d->floats[i] = an->floats[i];
	}
	/* bone names: binding -> skeleton (the identity when the binding has no array) */
	const hks_binding *bind = hks_file_binding_for(file, anim);
	const hks_skeleton *sk = hks_file_pick_skeleton(file, opts ? opts->skeleton_file : NULL, bind);
	for (uint32_t t = 0; t < T; t++) {
		int32_t bone = (int32_t)t;
		if (bind && bind->num_transform_track_to_bone_indices)
			bone = t < bind->num_transform_track_to_bone_indices ? bind->transform_track_to_bone_indices[t] : -1;
		const char *name = (sk && bone >= 0 && (uint32_t)bone < sk->num_bones && sk->bone_names)
		                       ? sk->bone_names[bone] : NULL;
		if (name && !(d->bone_names[t] = hks_arena_strdup(arena, name)))
			return fail_decode(arena, s, err->code ? err->code : hks_fail_nomem(&ctx, strlen(name)));
	}
	d->frames.num_frames = N;
	d->frames.num_transform_tracks = T;
	d->frames.num_float_tracks = F;
	d->frames.duration = duration;
	d->frames.transforms = T ? d->transforms : NULL;
	d->frames.floats = F ? d->floats : NULL;
	if (opts && opts->keep_stored)
		d->stored = s;
	else
		hks_stored_free(s);
	hks_arena_set_ctx(arena, NULL);
	*out = d;
	return HKS_OK;
}
