/*
 * glTF round trip on the corpus (docs/GLTF.md): for Sekiro and Elden Ring
 * clips whose folder holds the skeleton, sampled by a fixed rule (every k-th
 * clip in sorted path order so that about HKS_GLTF_CLIPS_DEFAULT per game run;
 * HKS_GLTF_CLIPS=N in the environment: N per game, 0: every clip):
 *   1. export to .glb (hks_gltf_write) and, when node + gltf-validator are
 *      installed, validate every file (zero errors required);
 *   2. import (hks_gltf_read, the original's track order and frame rate): the
 *      frames equal the original's decoded frames, rotations up to sign and
 *      normalization; the same file split into .gltf + external .bin ("glTF
 *      Separate") and read through source_path gives the same frames bit for bit;
 *   3. encode with Havok's defaults, decode, and compare with the original's
 *      decoded frames: per component within 0.001 + one quantization step
 *      (+ the original quaternion's distance from unit length, which the glTF
 *      export removes); the same is counted for the decoded-frames path
 *      (encoding the original's decoded frames directly) as the baseline;
 *   4. replace the spline and the root motion in the original, write, read
 *      back: referenceFrameSamples has one sample per frame and equals the
 *      original's (w within 1e-6).
 * Every count is printed.
 */
#define _POSIX_C_SOURCE 200809L
#include "hks_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

/* Clips per game (every k-th in sorted order); HKS_GLTF_CLIPS=0 in the environment runs every clip
 * (about 2.5 minutes on one core). */
#define HKS_GLTF_CLIPS_DEFAULT 400

typedef struct counts {
	unsigned clips, exported, imported_exact, encoded, within, baseline_within, root_motion_clips, root_motion_ok,
	    written, failures, separate_exact;
	unsigned long long samples, over, baseline_over;
	double worst, baseline_worst;
} counts;

static double rotation_step(unsigned selector)
{
	switch (selector) {
	case HKS_ROT_THREECOMP40:
		return sqrt(2.0) / 4095;
	case HKS_ROT_THREECOMP48:
		return sqrt(2.0) / 32767;
	case HKS_ROT_THREECOMP24:
		return sqrt(2.0) / 255;
	case HKS_ROT_UNCOMPRESSED:
		return 0;
	default:
		return 2e-3; /* Polar32, Straight16: coarser; not written by the encoder's defaults */
	}
}

/* Largest quantization step of track t, part p (0 T, 1 R, 2 S) over the blocks. */
static double part_step(const hks_stored_animation *s, uint32_t t, int p)
{
	double step = 0;
	for (uint32_t b = 0; b < s->num_blocks; b++) {
		const hks_stored_part *x = &s->blocks[b].tracks[t].part[p];
		if (p == 1) {
			if (x->flags)
				step = fmax(step, rotation_step(x->quantization));
			continue;
		}
		if (!x->is_spline)
			continue;
		double levels = x->quantization ? 65535.0 : 255.0;
		for (int k = 0; k < 3; k++)
			if (isfinite(x->max[k] - x->min[k]))
				step = fmax(step, ((double)x->max[k] - x->min[k]) / levels);
	}
	return step;
}

/* Samples over the bound per part (translation, rotation, scale), printed per game. */
static unsigned long long over_part[3];

/* Compare decoded frames `b` against the original `a`; returns samples over the bound. */
static unsigned long long compare(const hks_stored_animation *sa, const hks_stored_animation *sb, const float *a,
                                  const float *b, uint32_t n, uint32_t T, double *worst, unsigned long long *samples)
{
	unsigned long long over = 0;
	for (uint32_t t = 0; t < T; t++) {
		double step[3];
		for (int p = 0; p < 3; p++)
			step[p] = fmax(part_step(sa, t, p), part_step(sb, t, p));
		for (uint32_t f = 0; f < n; f++) {
			const float *x = a + ((size_t)f * T + t) * HKS_TRACK_SAMPLE_FLOATS;
			const float *y = b + ((size_t)f * T + t) * HKS_TRACK_SAMPLE_FLOATS;
			double dot = 0, norm = 0;
			for (int k = 3; k < 7; k++) {
				dot += (double)x[k] * y[k];
				norm += (double)x[k] * x[k];
			}
			double sign = dot < 0 ? -1 : 1, unit = fabs(1 - sqrt(norm));
			/* ThreeComp packers drop the largest component and rebuild it from the other three
			 * (FORMAT.md §3, ENCODER.md §9.5): its error is up to three steps of the others' */
			int largest_x = 3, largest_y = 3;
			for (int k = 4; k < 7; k++) {
				if (fabs((double)x[k]) > fabs((double)x[largest_x]))
					largest_x = k;
				if (fabs((double)y[k]) > fabs((double)y[largest_y]))
					largest_y = k;
			}
			for (int k = 0; k < HKS_TRACK_SAMPLE_FLOATS; k++) {
				int p = k < 3 ? 0 : k < 7 ? 1 : 2;
				double d = fabs((double)x[k] - (p == 1 ? sign : 1) * y[k]);
				if (!isfinite(d))
					continue;
				double steps = p == 1 && (k == largest_x || k == largest_y) ? 3.0 : 1.0;
				double bound = 0.001 + steps * step[p] + (p == 1 ? unit : 0) + 1e-6;
				*samples += 1;
				if (d > bound) {
					over++;
					if (over_part[p]++ < 3)
						printf("over: track %u frame %u component %d: %.9g vs %.9g (bound %.6g, |q| - 1 = %.3g)\n", t,
						       f, k, (double)x[k], (double)y[k], bound, sqrt(norm) - 1);
				}
				*worst = fmax(*worst, d - bound + 0.001);
			}
		}
	}
	return over;
}

/* An imported track-sample against the decoded one: translation and scale bit for bit, the
 * rotation equal to the normalized decoded one up to sign (the export normalizes). */
static unsigned long long nonfinite_samples;

static int frame_equal(const float *x, const float *y)
{
	for (int k = 0; k < HKS_TRACK_SAMPLE_FLOATS; k++)
		if (!isfinite(x[k])) { /* stored NaN (a few retail clips): the export replaces it (docs/GLTF.md) */
			nonfinite_samples++;
			return 1;
		}
	for (int k = 0; k < HKS_TRACK_SAMPLE_FLOATS; k++)
		if ((k < 3 || k >= 7) && memcmp(&x[k], &y[k], sizeof(float)) != 0)
			return 0;
	double n = sqrt((double)x[3] * x[3] + (double)x[4] * x[4] + (double)x[5] * x[5] + (double)x[6] * x[6]);
	if (!(n > 0)) {
		nonfinite_samples++;
		return 1;
	}
	double dot = (double)x[3] * y[3] + (double)x[4] * y[4] + (double)x[5] * y[5] + (double)x[6] * y[6];
	for (int k = 3; k < 7; k++)
		if (!(fabs(x[k] / n - (dot < 0 ? -1 : 1) * y[k]) <= 1e-6))
			return 0;
	return 1;
}

static int sample_all(const hks_stored_animation *s, float **tr, float **fl)
{
	size_t T = (size_t)s->num_transform_tracks, F = (size_t)s->num_float_tracks, n = (size_t)s->num_frames;
	*tr = calloc(n * T * HKS_TRACK_SAMPLE_FLOATS + 1, sizeof(float));
	*fl = calloc(n * F + 1, sizeof(float));
	hks_error err;
	return *tr && *fl && hks_sample_frames(s, NULL, 0, (uint32_t)n, *tr, *fl, &err) == HKS_OK;
}

/* Encode frames with Havok's defaults and walk the result. */
static hks_stored_animation *encode_walk(const float *tr, const float *fl, uint32_t n, uint32_t T, uint32_t F,
                                         float duration, const char *sdk, int32_t mfpb, hks_packed_spline **packed_out,
                                         hks_animation *an)
{
	hks_frames_in in;
	memset(&in, 0, sizeof(in));
	in.num_frames = n;
	in.num_transform_tracks = T;
	in.num_float_tracks = F;
	in.duration = duration;
	in.transforms = T ? tr : NULL;
	in.floats = F ? fl : NULL;
	hks_encode_options eo;
	memset(&eo, 0, sizeof(eo));
	eo.sdk = sdk;
	eo.max_frames_per_block = mfpb >= 2 && mfpb <= 256 ? (uint32_t)mfpb : 0;
	hks_error err;
	hks_packed_spline *p = NULL;
	if (hks_encode_spline(&in, &eo, &p, &err) != HKS_OK) {
		printf("  encode failed: %s\n", err.message);
		return NULL;
	}
	memset(an, 0, sizeof(*an));
	an->kind = HKS_ANIMATION_SPLINE;
	an->duration = p->duration;
	an->number_of_transform_tracks = (int32_t)T;
	an->number_of_float_tracks = (int32_t)F;
	an->spline = p->header;
	an->reference_frame = -1;
	an->object_offset = an->data_offset = -1;
	hks_stored_animation *s = NULL;
	if (hks_stored_read(an, NULL, &s, &err) != HKS_OK) {
		printf("  walk of the encoded data failed: %s\n", err.message);
		hks_packed_spline_free(p);
		return NULL;
	}
	*packed_out = p;
	return s;
}

static const hks_binding *binding_for(const hks_file *f, uint32_t anim)
{
	for (uint32_t i = 0; i < f->num_bindings; i++)
		if (f->bindings[i].animation == (int32_t)anim)
			return &f->bindings[i];
	return f->num_bindings == 1 && f->num_animations == 1 ? &f->bindings[0] : NULL;
}

/* Unit `path` of the game's loader (compendiums: anywhere under the game's folder). */
static hks_loaded *load_one(hks_loader *loader, const char *path)
{
	hks_loaded *ld = NULL;
	for (size_t i = 0; i < hks_loader_count(loader); i++) {
		if (strcmp(hks_loader_path(loader, i), path) != 0)
			continue;
		if (hks_loader_load(loader, i, &ld) != HKS_OK || !ld || ld->status != HKS_OK) {
			if (ld)
				printf("  %s: %s\n", path, ld->error.message);
			hks_loaded_free(ld);
			return NULL;
		}
		return ld;
	}
	return NULL;
}

/* The game's compendiums (for reading a written TCRF tagfile back). */
static hks_compendium_set *game_compendiums(const char *dir)
{
	hks_compendium_set *set = NULL;
	hks_error err;
	if (hks_compendium_set_create(NULL, &set, &err) != HKS_OK)
		return NULL;
	size_t n = 0;
	char **files = hks_test_list_files(dir, ".compendium", &n);
	for (size_t i = 0; i < n; i++) {
		size_t size = 0;
		uint8_t *b = hks_test_read_file(files[i], &size);
		if (b)
			hks_compendium_set_add(set, b, size, files[i], NULL, &err);
		free(b);
	}
	hks_test_free_list(files, n);
	return set;
}

/* The export as "glTF Separate" (x.gltf + x.bin, what Blender's separate
 * export writes): the GLB's JSON chunk with a uri on buffer 0 and its BIN
 * chunk as a file, read back through source_path (the library's stdio
 * loader). Returns 1 when the frames equal the GLB import's bit for bit. */
static int separate_same(const uint8_t *glb, size_t glb_size, const hks_skeleton *sk, const hks_gltf_read_options *ro,
                         const hks_gltf_animation *ga, const char *dir)
{
	if (glb_size < 28)
		return 0;
	uint32_t jlen = (uint32_t)glb[12] | (uint32_t)glb[13] << 8 | (uint32_t)glb[14] << 16 | (uint32_t)glb[15] << 24;
	if (20 + (uint64_t)jlen + 8 > glb_size)
		return 0;
	const uint8_t *bin_hdr = glb + 20 + jlen;
	uint32_t blen = (uint32_t)bin_hdr[0] | (uint32_t)bin_hdr[1] << 8 | (uint32_t)bin_hdr[2] << 16 | (uint32_t)bin_hdr[3] << 24;
	if (28 + (uint64_t)jlen + blen > glb_size)
		return 0;
	char *json = malloc((size_t)jlen + 64);
	if (!json)
		return 0;
	memcpy(json, glb + 20, jlen);
	json[jlen] = 0;
	static const char key[] = "\"buffers\":[{";
	char *at = strstr(json, key);
	int same = 0;
	char gltf_path[4096], bin_path[4096];
	snprintf(gltf_path, sizeof(gltf_path), "%s/clip.gltf", dir);
	snprintf(bin_path, sizeof(bin_path), "%s/clip data.bin", dir);
	FILE *fj = at ? fopen(gltf_path, "wb") : NULL, *fb = at ? fopen(bin_path, "wb") : NULL;
	if (fj && fb) {
		at += strlen(key);
		fwrite(json, 1, (size_t)(at - json), fj);
		fputs("\"uri\":\"clip%20data.bin\",", fj);
		fputs(at, fj);
		fwrite(bin_hdr + 8, 1, blen, fb);
	}
	if (fj)
		fclose(fj);
	if (fb)
		fclose(fb);
	size_t text_size = 0;
	uint8_t *text = fj && fb ? hks_test_read_file(gltf_path, &text_size) : NULL;
	hks_gltf_read_options o = *ro;
	o.source_path = gltf_path;
	hks_gltf_animation *sa = NULL;
	hks_error err;
	if (text && hks_gltf_read(text, text_size, sk, &o, &sa, &err) == HKS_OK) {
		size_t nt = (size_t)ga->num_frames * ga->num_transform_tracks * HKS_TRACK_SAMPLE_FLOATS;
		size_t nf = (size_t)ga->num_frames * ga->num_float_tracks;
		same = sa->num_frames == ga->num_frames && !memcmp(sa->transforms, ga->transforms, nt * sizeof(float)) &&
		       !memcmp(sa->floats, ga->floats, nf * sizeof(float)) &&
		       !memcmp(sa->root_motion, ga->root_motion, (size_t)ga->num_frames * sizeof(float[4]));
	} else if (text) {
		printf("  separate .gltf + .bin: %s\n", err.message);
	}
	hks_gltf_animation_free(sa);
	free(text);
	free(json);
	remove(gltf_path);
	remove(bin_path);
	return same;
}

static void one_clip(hks_loader *loader, const hks_compendium_set *comps, const char *clip, const char *skel_path,
                     const char *tmpdir, const char *sepdir, unsigned index, counts *c)
{
	hks_loaded *ld = load_one(loader, clip), *sl = load_one(loader, skel_path);
	hks_stored_animation *orig = NULL, *enc = NULL, *base = NULL;
	hks_packed_spline *pk = NULL, *pk_base = NULL;
	hks_gltf_animation *ga = NULL;
	float *otr = NULL, *ofl = NULL, *etr = NULL, *efl = NULL, *btr = NULL, *bfl = NULL;
	uint8_t *glb = NULL, *written = NULL;
	size_t glb_size = 0, written_size = 0;
	hks_file *back = NULL;
	hks_error err;
	c->clips++;
	if (!ld || !sl || !sl->file->num_skeletons) {
		printf("  %s: cannot load the clip or its skeleton\n", clip);
		c->failures++;
		goto out;
	}
	hks_file *file = ld->file;
	uint32_t ai = 0;
	while (ai < file->num_animations && file->animations[ai].kind != HKS_ANIMATION_SPLINE)
		ai++;
	if (ai == file->num_animations) {
		c->clips--; /* not a spline clip after all */
		goto out;
	}
	hks_animation *oa = &file->animations[ai];
	const hks_binding *bind = binding_for(file, ai);
	const hks_skeleton *sk = &sl->file->skeletons[0];
	if (hks_stored_read(oa, NULL, &orig, &err) != HKS_OK || !sample_all(orig, &otr, &ofl)) {
		printf("  %s: decode failed\n", clip);
		c->failures++;
		goto out;
	}
	uint32_t n = (uint32_t)orig->num_frames, T = (uint32_t)orig->num_transform_tracks, F = (uint32_t)orig->num_float_tracks;
	const hks_reference_frame *rf = oa->reference_frame >= 0 ? &file->reference_frames[oa->reference_frame] : NULL;
	if (rf && rf->num_samples != n)
		rf = NULL; /* hkaDirectionalReferenceFrame or an unusual count: no root motion to carry */

	/* 1. export */
	hks_gltf_clip gc;
	memset(&gc, 0, sizeof(gc));
	gc.name = "clip";
	gc.num_frames = n;
	gc.frame_duration = orig->frame_duration;
	gc.duration = orig->duration;
	gc.num_transform_tracks = T;
	gc.num_float_tracks = F;
	gc.transforms = otr;
	gc.floats = ofl;
	gc.track_to_bone = bind && bind->num_transform_track_to_bone_indices >= T && T ? bind->transform_track_to_bone_indices : NULL;
	gc.float_track_to_slot =
	    bind && bind->num_float_track_to_float_slot_indices >= F && F ? bind->float_track_to_float_slot_indices : NULL;
	gc.root_motion = rf;
	hks_gltf_write_options wo;
	memset(&wo, 0, sizeof(wo));
	wo.binary = 1;
	if (hks_gltf_write(sk, &gc, 1, &wo, &glb, &glb_size, NULL, &err) != HKS_OK) {
		printf("  %s: export failed: %s\n", clip, err.message);
		c->failures++;
		goto out;
	}
	c->exported++;
	if (tmpdir) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%05u.glb", tmpdir, index);
		FILE *fp = fopen(path, "wb");
		if (fp) {
			fwrite(glb, 1, glb_size, fp);
			fclose(fp);
		}
	}

	/* 2. import in the original's track order and rate */
	const char **slot_names = calloc((size_t)F + 1, sizeof(char *));
	for (uint32_t i = 0; i < F && slot_names; i++) {
		int32_t slot = gc.float_track_to_slot ? gc.float_track_to_slot[i] : (int32_t)i;
		slot_names[i] = slot >= 0 && (uint32_t)slot < sk->num_float_slots && sk->float_slots ? sk->float_slots[slot] : "";
		if (!slot_names[i])
			slot_names[i] = "";
	}
	int16_t *identity = calloc((size_t)T + 1, sizeof(int16_t));
	for (uint32_t t = 0; t < T && identity; t++)
		identity[t] = (int16_t)t;
	hks_gltf_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.animation = 0;
	ro.frame_duration = orig->frame_duration;
	ro.duration = orig->duration;
	ro.track_to_bone = gc.track_to_bone ? gc.track_to_bone : identity;
	ro.num_tracks = T;
	ro.float_slot_names = slot_names;
	ro.num_float_tracks = F;
	hks_result r = slot_names && identity ? hks_gltf_read(glb, glb_size, sk, &ro, &ga, &err) : HKS_E_NOMEM;
	if (r == HKS_OK) {
		/* 2b. the same file split into .gltf + external .bin */
		if (separate_same(glb, glb_size, sk, &ro, ga, sepdir))
			c->separate_exact++;
		else
			printf("  %s: the separate .gltf + .bin import differs from the GLB import\n", clip);
	}
	free(slot_names);
	free(identity);
	if (r != HKS_OK) {
		printf("  %s: import failed: %s\n", clip, err.message);
		c->failures++;
		goto out;
	}
	int exact = ga->num_frames == n && ga->duration == orig->duration;
	for (size_t i = 0; exact && i < (size_t)n * T; i++) {
		const float *x = otr + i * HKS_TRACK_SAMPLE_FLOATS, *y = ga->transforms + i * HKS_TRACK_SAMPLE_FLOATS;
		if (!frame_equal(x, y))
			exact = 0;
	}
	for (size_t i = 0; exact && i < (size_t)n * F; i++)
		exact = ga->floats[i] == ofl[i] || (isnan(ga->floats[i]) && isnan(ofl[i]));
	if (exact)
		c->imported_exact++;
	else
		printf("  %s: imported frames differ from the decoded ones\n", clip);

	/* 3. encode + decode, against the original; baseline: the decoded frames encoded directly */
	hks_animation ea, eb;
	enc = encode_walk(ga->transforms, ga->floats, ga->num_frames, T, F, ga->duration, file->sdk,
	                  orig->max_frames_per_block, &pk, &ea);
	base = encode_walk(otr, ofl, n, T, F, orig->duration, file->sdk, orig->max_frames_per_block, &pk_base, &eb);
	if (!enc || !base || !sample_all(enc, &etr, &efl) || !sample_all(base, &btr, &bfl)) {
		c->failures++;
		goto out;
	}
	c->encoded++;
	unsigned long long s1 = 0, s2 = 0;
	unsigned long long o1 = compare(orig, enc, otr, etr, n, T, &c->worst, &s1);
	unsigned long long o2 = compare(orig, base, otr, btr, n, T, &c->baseline_worst, &s2);
	c->samples += s1;
	c->over += o1;
	c->baseline_over += o2;
	c->within += o1 == 0;
	c->baseline_within += o2 == 0;

	/* 4. root motion survives the container round trip */
	if (rf) {
		c->root_motion_clips++;
		hks_reference_frame *wrf = &file->reference_frames[oa->reference_frame];
		float(*samples)[4] = calloc((size_t)ga->num_frames + 1, sizeof(float[4]));
		const float(*old)[4] = wrf->samples;
		if (!samples)
			goto out;
		memcpy(samples, ga->root_motion, (size_t)ga->num_frames * sizeof(float[4]));
		wrf->samples = (const float(*)[4])samples;
		wrf->num_samples = ga->num_frames;
		/* the original's stored structure points into its data: release it before replacing */
		hks_write_options wopt;
		memset(&wopt, 0, sizeof(wopt));
		hks_stored_free(orig);
		orig = NULL;
		r = hks_file_replace_spline(file, ai, pk->duration, &pk->header, &err);
		if (r == HKS_OK)
			r = hks_file_write(file, &wopt, &written, &written_size, &err);
		wrf->samples = old;
		wrf->num_samples = n;
		free(samples);
		if (r != HKS_OK) {
			printf("  %s: write failed: %s\n", clip, err.message);
			c->failures++;
			goto out;
		}
		c->written++;
		hks_read_options rdo;
		memset(&rdo, 0, sizeof(rdo));
		rdo.compendiums = comps;
		if (hks_file_read(written, written_size, &rdo, &back, &err) != HKS_OK) {
			printf("  %s: reading the written file failed: %s\n", clip, err.message);
			c->failures++;
			goto out;
		}
		const hks_animation *ba = &back->animations[ai];
		const hks_reference_frame *brf = ba->reference_frame >= 0 ? &back->reference_frames[ba->reference_frame] : NULL;
		int ok = brf && brf->num_samples == (uint32_t)ba->spline.num_frames && brf->num_samples == n;
		for (uint32_t f = 0; ok && f < n; f++) {
			for (int k = 0; k < 3; k++)
				ok &= brf->samples[f][k] == old[f][k];
			ok &= fabs((double)brf->samples[f][3] - old[f][3]) <= 1e-6;
		}
		if (ok)
			c->root_motion_ok++;
		else
			printf("  %s: root motion differs after the round trip\n", clip);
	}
out:
	free(otr);
	free(ofl);
	free(etr);
	free(efl);
	free(btr);
	free(bfl);
	hks_file_free(back);
	hks_buffer_free(NULL, written, written_size);
	hks_buffer_free(NULL, glb, glb_size);
	hks_gltf_animation_free(ga);
	hks_stored_free(enc);
	hks_stored_free(base);
	hks_packed_spline_free(pk);
	hks_packed_spline_free(pk_base);
	hks_stored_free(orig);
	hks_loaded_free(ld);
	hks_loaded_free(sl);
}

/* The repository root from this file's path (CMake compiles by absolute path). */
static void repo_root(char *buf, size_t size)
{
	snprintf(buf, size, "%s", __FILE__);
	for (int i = 0; i < 2; i++) {
		char *slash = strrchr(buf, '/');
		if (slash)
			*slash = 0;
	}
}

static void test_gltf_corpus(void **state)
{
	(void)state;
	const char *corpus = hks_test_corpus();
	char tmpl[] = "/tmp/hks_gltf_corpus_XXXXXX";
	int have_node = system("node --version >/dev/null 2>&1") == 0;
	const char *tmpdir = have_node ? mkdtemp(tmpl) : NULL;
	char septmpl[] = "/tmp/hks_gltf_separate_XXXXXX";
	const char *sepdir = mkdtemp(septmpl);
	assert_non_null(sepdir);
	counts total;
	memset(&total, 0, sizeof(total));
	static const char *const games[] = {"sekiro", "elden_ring"};
	unsigned index = 0;
	for (int g = 0; g < 2; g++) {
		char dir[2048];
		snprintf(dir, sizeof(dir), "%s/%s", corpus, games[g]);
		size_t nfiles = 0;
		char **files = hks_test_list_files(dir, ".hkx", &nfiles);
		/* candidates: clips whose folder holds skeleton.hkx (any case) */
		char **cand = calloc(nfiles + 1, sizeof(char *)), **skel = calloc(nfiles + 1, sizeof(char *));
		size_t nc = 0;
		assert_non_null(cand);
		assert_non_null(skel);
		for (size_t i = 0; i < nfiles; i++) {
			const char *base = strrchr(files[i], '/') ? strrchr(files[i], '/') + 1 : files[i];
			if (!strcasecmp(base, "skeleton.hkx"))
				continue;
			for (size_t j = 0; j < nfiles; j++) {
				const char *bj = strrchr(files[j], '/') ? strrchr(files[j], '/') + 1 : files[j];
				if (strcasecmp(bj, "skeleton.hkx") || bj - files[j] != base - files[i] ||
				    strncmp(files[i], files[j], (size_t)(base - files[i])))
					continue;
				cand[nc] = files[i];
				skel[nc++] = files[j];
				break;
			}
		}
		const char *env = getenv("HKS_GLTF_CLIPS");
		long per_game = env ? strtol(env, NULL, 10) : HKS_GLTF_CLIPS_DEFAULT;
		size_t step = per_game > 0 ? nc / (size_t)per_game + 1 : 1;
		counts c;
		memset(&c, 0, sizeof(c));
		hks_load_options lo;
		memset(&lo, 0, sizeof(lo));
		const char *cpaths[1] = {dir};
		lo.compendium_paths = cpaths;
		lo.num_compendium_paths = 1;
		hks_loader *loader = NULL;
		hks_error err;
		assert_int_equal(hks_loader_create(&lo, &loader, &err), HKS_OK);
		assert_int_equal(hks_loader_add_path(loader, dir, &err), HKS_OK);
		hks_compendium_set *comps = game_compendiums(dir);
		assert_non_null(comps);
		for (size_t i = 0; i < nc; i += step)
			one_clip(loader, comps, cand[i], skel[i], tmpdir, sepdir, index++, &c);
		hks_compendium_set_free(comps);
		hks_loader_free(loader);
		printf("%s: %llu track-samples with a stored NaN (replaced by the export, not compared)\n", games[g],
		       nonfinite_samples);
		nonfinite_samples = 0;
		printf("%s: samples over the bound (glTF path and baseline together) by part: translation %llu, rotation "
		       "%llu, scale %llu\n",
		       games[g], over_part[0], over_part[1], over_part[2]);
		memset(over_part, 0, sizeof(over_part));
		printf("%s: %zu candidate clips, every %zu-th: %u clips; exported %u; imported frames exact %u; encoded %u;\n"
		       "  within 0.001 + one step: %u clips (%llu of %llu samples over, worst excess %.6g)\n"
		       "  baseline (decoded frames encoded directly): %u clips within (%llu samples over, worst %.6g)\n"
		       "  root motion: %u clips, written %u, survived %u; failures %u\n"
		       "  separate .gltf + .bin (source_path): %u clips import the same frames as the GLB\n",
		       games[g], nc, step, c.clips, c.exported, c.imported_exact, c.encoded, c.within, c.over, c.samples,
		       c.worst - 0.001, c.baseline_within, c.baseline_over, c.baseline_worst - 0.001, c.root_motion_clips,
		       c.written, c.root_motion_ok, c.failures, c.separate_exact);
		assert_int_equal(c.failures, 0);
		assert_int_equal(c.exported, c.clips);
		assert_int_equal(c.imported_exact, c.clips);
		assert_int_equal(c.separate_exact, c.imported_exact);
		assert_int_equal(c.root_motion_ok, c.root_motion_clips);
		/* issue 7: every imported clip's encode is within 0.001 + one quantization step of the
		 * original's decoded frames (the guard bounds rotations as stored, docs/FIT.md) */
		assert_int_equal(c.over, 0);
		assert_int_equal(c.within, c.clips);
		assert_int_equal(c.baseline_over, 0);
		total.clips += c.clips;
		free(cand);
		free(skel);
		hks_test_free_list(files, nfiles);
	}
	assert_true(total.clips > 0);
	rmdir(sepdir);
	if (!tmpdir) {
		printf("SKIPPED glTF validation: node not found (apt-get install nodejs npm; scripts/gltf_validator_setup.sh)\n");
		return;
	}
	char root[1024], cmd[4096];
	repo_root(root, sizeof(root));
	snprintf(cmd, sizeof(cmd), "node '%s/tools/gltf_validate.mjs' %s/*.glb > %s/report.txt; echo $? > %s/status", root,
	         tmpdir, tmpdir, tmpdir);
	int rc = system(cmd);
	(void)rc;
	char path[2048];
	snprintf(path, sizeof(path), "%s/status", tmpdir);
	size_t size = 0;
	uint8_t *st = hks_test_read_file(path, &size);
	int code = st ? atoi((const char *)st) : -1;
	free(st);
	snprintf(cmd, sizeof(cmd), "grep -c 'errors 0,' %s/report.txt; grep -v 'errors 0,' %s/report.txt | head -20; rm -rf '%s'",
	         tmpdir, tmpdir, tmpdir);
	printf("glTF validator: files with zero errors:\n");
	fflush(stdout);
	rc = system(cmd);
	if (code == 77) {
		printf("SKIPPED glTF validation: npm package gltf-validator not installed (scripts/gltf_validator_setup.sh)\n");
		return;
	}
	assert_int_equal(code, 0);
}

static int run(const char *cmd)
{
	printf("$ %s\n", cmd);
	fflush(stdout);
	int status = system(cmd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The CLI end to end on a binder: export a member, import it back into a copy of the
 * binder (--like, replacing the member) and as a new member through a donor (no --like). */
static void test_cli_binder(void **state)
{
	(void)state;
	const char *cli = getenv("HKSPLINE_CLI");
	char binder[2048];
	snprintf(binder, sizeof(binder), "%s/binders/sekiro-c1060.anibnd.dcx", hks_test_corpus());
	if (!cli || access(binder, R_OK) != 0) {
		printf("SKIPPED CLI binder round trip: %s\n", cli ? "no Sekiro binder in the corpus" : "HKSPLINE_CLI not set");
		return;
	}
	/* the first member with a spline animation */
	hks_loader *loader = NULL;
	hks_error err;
	assert_int_equal(hks_loader_create(NULL, &loader, &err), HKS_OK);
	assert_int_equal(hks_loader_add_path(loader, binder, &err), HKS_OK);
	char member[512] = "", full_member[1024] = "";
	int32_t frames = 0, bones = 0;
	for (size_t i = 0; i < hks_loader_count(loader) && !member[0]; i++) {
		hks_loaded *ld = NULL;
		if (hks_loader_load(loader, i, &ld) == HKS_OK && ld && ld->status == HKS_OK && ld->member &&
		    ld->file->num_animations && ld->file->animations[0].kind == HKS_ANIMATION_SPLINE &&
		    ld->file->animations[0].reference_frame >= 0) {
			const char *base = strrchr(ld->member, '\\') ? strrchr(ld->member, '\\') + 1 : ld->member;
			snprintf(member, sizeof(member), "%s", base);
			snprintf(full_member, sizeof(full_member), "%s", ld->member);
			frames = ld->file->animations[0].spline.num_frames;
		}
		if (ld && ld->status == HKS_OK && ld->file->num_skeletons)
			bones = (int32_t)ld->file->skeletons[0].num_bones;
		hks_loaded_free(ld);
	}
	for (size_t i = 0; i < hks_loader_count(loader) && !bones; i++) {
		hks_loaded *ld = NULL;
		if (hks_loader_load(loader, i, &ld) == HKS_OK && ld && ld->status == HKS_OK && ld->file->num_skeletons)
			bones = (int32_t)ld->file->skeletons[0].num_bones;
		hks_loaded_free(ld);
	}
	hks_loader_free(loader);
	assert_true(member[0] != 0);
	assert_true(bones > 0);
	char dir[] = "/tmp/hks_gltf_cli_XXXXXX", cmd[8192];
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/b.anibnd.dcx' && chmod u+w '%s/b.anibnd.dcx'", binder, dir, dir);
	assert_int_equal(run(cmd), 0);
	snprintf(cmd, sizeof(cmd), "'%s' decode '%s:%s' -o '%s/x.glb'", cli, binder, member, dir);
	assert_int_equal(run(cmd), 0);
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s/x.glb' --like '%s:%s' -o '%s/y.hkx' --into '%s/b.anibnd.dcx' --name '%s'",
	         cli, dir, binder, member, dir, dir, member);
	assert_int_equal(run(cmd), 0);
	/* --into replacing an existing member without --like: that member is the original (it asked
	 * for --skeleton, and with --skeleton took another file as donor) */
	snprintf(cmd, sizeof(cmd),
	         "'%s' encode '%s/x.glb' -o '%s/w.hkx' --into '%s/b.anibnd.dcx' --name '%s' > '%s/w.err' 2>&1 && "
	         "grep -q 'the member --into replaces' '%s/w.err' && ! grep -q donor '%s/w.err'",
	         cli, dir, dir, dir, member, dir, dir, dir);
	assert_int_equal(run(cmd), 0);
	/* the same by the member's full name, whose "N:\\..." holds a ':' (BINDER:NAME split there) */
	assert_non_null(strchr(full_member, ':'));
	snprintf(cmd, sizeof(cmd),
	         "'%s' encode '%s/x.glb' -o '%s/w.hkx' --into '%s/b.anibnd.dcx' --name '%s' > '%s/w.err' 2>&1 && "
	         "grep -q 'the member --into replaces' '%s/w.err'",
	         cli, dir, dir, dir, full_member, dir, dir);
	assert_int_equal(run(cmd), 0);
	snprintf(cmd, sizeof(cmd), "'%s' encode '%s/x.glb' --skeleton '%s' --game sekiro -o '%s/z.hkx' --into '%s/b.anibnd.dcx' "
	         "--name a999_000001.hkx", cli, dir, binder, dir, dir);
	assert_int_equal(run(cmd), 0);
	/* read the modified binder back */
	char copy[2048];
	snprintf(copy, sizeof(copy), "%s/b.anibnd.dcx", dir);
	assert_int_equal(hks_loader_create(NULL, &loader, &err), HKS_OK);
	assert_int_equal(hks_loader_add_path(loader, copy, &err), HKS_OK);
	int seen_replaced = 0, seen_added = 0;
	for (size_t i = 0; i < hks_loader_count(loader); i++) {
		const char *p = hks_loader_path(loader, i);
		int replaced = strstr(p, member) != NULL, added = strstr(p, "a999_000001.hkx") != NULL;
		if (!replaced && !added)
			continue;
		hks_loaded *ld = NULL;
		assert_int_equal(hks_loader_load(loader, i, &ld), HKS_OK);
		assert_int_equal(ld->status, HKS_OK);
		const hks_file *f = ld->file;
		const hks_animation *a = &f->animations[0];
		assert_true(a->reference_frame >= 0);
		const hks_reference_frame *rf = &f->reference_frames[a->reference_frame];
		assert_int_equal(rf->num_samples, (uint32_t)a->spline.num_frames); /* one sample per frame */
		if (replaced) {
			assert_int_equal(a->spline.num_frames, frames);
			seen_replaced = 1;
		} else {
			assert_int_equal(a->number_of_transform_tracks, bones); /* every skeleton bone */
			assert_int_equal(f->bindings[0].num_transform_track_to_bone_indices, (uint32_t)bones);
			printf("donor path: %d frames at 30 fps, %d tracks, %u root-motion samples\n", a->spline.num_frames,
			       a->number_of_transform_tracks, rf->num_samples);
			seen_added = 1;
		}
		hks_loaded_free(ld);
	}
	hks_loader_free(loader);
	assert_true(seen_replaced);
	assert_true(seen_added);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(run(cmd), 0);
}

int main(void)
{
	hks_test_require_corpus("corpus_gltf");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gltf_corpus),
		cmocka_unit_test(test_cli_binder),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
