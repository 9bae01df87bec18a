/*
 * Corpus test of the reciprocal models (ENCODER.md §9.2, §11.4, §16).
 *
 * Over every 16-bit spline lane of every spline animation in the corpus:
 * the share of lanes whose stored top integer equals pack16(lo, hi, hi)
 * under the Intel and under the AMD Zen model, per group of files (game
 * folder, with Elden Ring's mod folders apart) and per SDK; the per-file
 * detection of §11.4; and the rotation re-pack test of §16 (ThreeComp40
 * control points decoded at the lower bin edge, re-normalized with normU and
 * re-packed under each model).
 *
 * Asserts: Sekiro lanes 100 % Intel, Elden Ring lanes (mod folders
 * `elden_ring/c0000_a7x/` and `elden_ring/c5051/` reported apart, as the
 * corpus README asks) >= 99.9 % Zen, and the retail quantizer signature (lowest point 0,
 * highest 65534 or 65535) in those two groups.
 */
#include "hks_test.h"
#include "encode_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_GROUPS = 32 };

typedef struct group_stats {
	char name[64];
	char sdk[32];
	uint32_t files, files_failed, animations, walks_failed;
	uint64_t lanes, intel, zen, both, discriminating, disc_intel, disc_zen;
	uint64_t lowest_not_zero, top_not_retail;
	uint32_t detect[3][2]; /* [status][model intel=0 / zen=1] files */
	uint64_t rot_points, rot_intel, rot_zen;
} group_stats;

static group_stats groups[MAX_GROUPS];
static int num_groups;

/*
 * Which 12-bit reciprocal table entries the stored data pin (ENCODER.md §11.4,
 * §15 Q5): for table index i (the top 12 fraction bits of hi − lo), the set of
 * mantissas m for which pack16 with r0 = (253 − e) << 23 | m << 11 gives the
 * stored top integer, intersected over all lanes with that index.
 */
typedef struct pin_table {
	uint64_t ok[4096][64];   /* candidate bitsets */
	uint32_t lanes[4096];    /* lanes seen per index */
} pin_table;

static pin_table *pins_sekiro, *pins_elden;

/* §9.2 with a given raw estimate r0 (the test's own statement of the formula). */
static uint16_t pack16_with_r0(float v, float lo, float hi, float r0)
{
	float d = hi - lo;
	float r = (2.0f - d * r0) * r0;
	float x = (r * (v - lo)) * 65535.0f;
	x = x > 0.0f ? x : 0.0f;
	x = x < 65535.0f ? x : 65535.0f;
	return (uint16_t)hks_cvtt(x);
}

static void pin_lane(pin_table *t, const hks_quant_lane *l)
{
	uint32_t u = hks_f32_bits(l->hi - l->lo);
	uint32_t e = (u >> 23) & 0xFF;
	if (e == 0 || e >= 253 || (u >> 31))
		return;
	uint32_t idx = (u >> 11) & 0xFFF;
	t->lanes[idx]++;
	for (uint32_t m = 0; m < 4096; m++) {
		uint64_t bit = UINT64_C(1) << (m & 63);
		if (!(t->ok[idx][m >> 6] & bit))
			continue;
		float r0 = hks_f32_from_bits((253u - e) << 23 | m << 11);
		if (pack16_with_r0(l->hi, l->lo, l->hi, r0) != l->top)
			t->ok[idx][m >> 6] &= ~bit;
	}
}

static pin_table *pin_table_new(void)
{
	pin_table *t = calloc(1, sizeof(*t));
	assert_non_null(t);
	memset(t->ok, 0xFF, sizeof(t->ok));
	return t;
}

static int has_bit(const uint64_t *set, uint32_t m) { return (int)((set[m >> 6] >> (m & 63)) & 1); }

/* Print and return the number of constrained indices inconsistent with `model`. */
static uint32_t pin_report(const char *name, const pin_table *t, int expect_zen)
{
	uint32_t constrained = 0, pinned = 0, zen_ok = 0, intel_ok = 0, empty = 0;
	for (uint32_t i = 0; i < 4096; i++) {
		if (!t->lanes[i])
			continue;
		uint32_t count = 0;
		for (uint32_t w = 0; w < 64; w++)
			for (uint64_t x = t->ok[i][w]; x; x &= x - 1)
				count++;
		if (count == 4096)
			continue; /* every mantissa fits: the lanes say nothing */
		constrained++;
		pinned += count == 1;
		empty += count == 0;
		zen_ok += has_bit(t->ok[i], hks_zen_rcp_table[i]);
		intel_ok += has_bit(t->ok[i], hks_intel_rcp_entry(i >> 1));
	}
	printf("%-12s constrained %4u of 4096 indices, pinned to one value %4u, no value fits %u; "
	       "consistent with Zen 5 %4u, with Intel %4u\n",
	       name, constrained, pinned, empty, zen_ok, intel_ok);
	return constrained - (expect_zen ? zen_ok : intel_ok);
}

static group_stats *group_for(const char *name, const char *sdk)
{
	for (int i = 0; i < num_groups; i++)
		if (strcmp(groups[i].name, name) == 0 && strcmp(groups[i].sdk, sdk) == 0)
			return &groups[i];
	if (num_groups == MAX_GROUPS)
		return &groups[MAX_GROUPS - 1];
	group_stats *g = &groups[num_groups++];
	memset(g, 0, sizeof(*g));
	snprintf(g->name, sizeof(g->name), "%s", name);
	snprintf(g->sdk, sizeof(g->sdk), "%s", sdk);
	return g;
}

/* The group of a file: its top folder below the corpus; Elden Ring's mod
 * folders (corpus README) form their own group. */
static void group_name(const char *corpus, const char *path, char *out, size_t size)
{
	const char *rel = path + strlen(corpus);
	while (*rel == '/')
		rel++;
	const char *slash = strchr(rel, '/');
	size_t n = slash ? (size_t)(slash - rel) : strlen(rel);
	snprintf(out, size, "%.*s", (int)n, rel);
	if (strcmp(out, "elden_ring") == 0 && slash && strncmp(slash + 1, "c0000_a7x/", 10) == 0)
		snprintf(out, size, "elden_ring/c0000_a7x (mod)");
	else if (strcmp(out, "elden_ring") == 0 && slash && strncmp(slash + 1, "c5051/", 6) == 0)
		snprintf(out, size, "elden_ring/c5051 (mod)");
}

/* ---- lanes ---------------------------------------------------------------- */

typedef struct lane_list {
	hks_quant_lane *v;
	size_t n, cap;
} lane_list;

static void lane_push(lane_list *l, hks_quant_lane lane)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		assert_non_null(l->v);
	}
	l->v[l->n++] = lane;
}

/* Collect the 16-bit spline lanes of one part; count the retail signature. */
static void collect_part(const hks_stored_part *p, unsigned lanes, lane_list *out, group_stats *g)
{
	if (!p->is_spline || p->quantization != 1 || p->spline_lanes == 0 || !p->control_points)
		return;
	unsigned s = 0;
	for (unsigned lane = 0; lane < lanes; lane++) {
		if (!(p->flags & (0x10u << lane)))
			continue;
		uint16_t lowest = 0xFFFF, top = 0;
		for (uint32_t j = 0; j < p->num_control_points; j++) {
			uint16_t v = p->control_points[j * p->spline_lanes + s];
			if (v < lowest)
				lowest = v;
			if (v > top)
				top = v;
		}
		s++;
		hks_quant_lane l = {p->min[lane], p->max[lane], top};
		/* FORMAT.md §3.1: lanes with equal or non-finite bounds are left out */
		if (!(l.lo < l.hi) || !isfinite(l.lo) || !isfinite(l.hi))
			continue;
		lane_push(out, l);
		g->lowest_not_zero += lowest != 0;
		g->top_not_retail += top != 65535 && top != 65534;
	}
}

/* ---- §16 rotation re-pack test ------------------------------------------- */

/* FORMAT.md §3.4 + §3.3, the runtime's lower-edge decode (written here). */
static void decode_threecomp40(const uint8_t *b, float q[4])
{
	uint64_t x = 0;
	for (int i = 4; i >= 0; i--)
		x = x << 8 | b[i];
	float v[3];
	for (int i = 0; i < 3; i++)
		v[i] = (float)((int32_t)((x >> (12 * i)) & 0xFFF) - 2047) * hks_f32_from_bits(0x39B51B97u);
	unsigned k = (unsigned)(x >> 36) & 3, sign = (unsigned)(x >> 38) & 1;
	float s = ((v[0] * v[0]) + (v[1] * v[1])) + (v[2] * v[2]);
	float t = 1.0f - s;
	float mag = t > 0.0f ? sqrtf(t) : 0.0f;
	unsigned j = 0;
	for (unsigned i = 0; i < 4; i++)
		q[i] = i == k ? (sign ? -mag : mag) : v[j++];
}

static void repack_rotation(const hks_stored_part *p, group_stats *g)
{
	if (!p->is_spline || p->quantization != HKS_ROT_THREECOMP40 || !p->packed)
		return;
	static const uint8_t packed_nan[5] = {0x00, 0x80, 0x00, 0x00, 0x80};
	const hks_rcp_model *mi = hks_rcp_model_get(HKS_CPU_INTEL), *mz = hks_rcp_model_get(HKS_CPU_AMD_ZEN);
	for (uint32_t j = 0; j < p->num_control_points; j++) {
		const uint8_t *b = p->packed + 5u * j;
		if (memcmp(b, packed_nan, 5) == 0)
			continue;
		float q[4];
		decode_threecomp40(b, q);
		uint8_t a[5], z[5];
		hks_pack_rotation(mi, HKS_ROT_THREECOMP40, q, a);
		hks_pack_rotation(mz, HKS_ROT_THREECOMP40, q, z);
		g->rot_points++;
		g->rot_intel += memcmp(a, b, 5) == 0;
		g->rot_zen += memcmp(z, b, 5) == 0;
	}
}

/* ---- one file -------------------------------------------------------------- */

static void scan_file(const char *corpus, const char *path, const hks_compendium_set *set)
{
	size_t size = 0;
	uint8_t *bytes = hks_test_read_file(path, &size);
	if (!bytes)
		return;
	char gname[64];
	group_name(corpus, path, gname, sizeof(gname));
	hks_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.base.name = path;
	ro.compendiums = set;
	hks_file *file = NULL;
	hks_error err;
	hks_result r = hks_file_read(bytes, size, &ro, &file, &err);
	free(bytes);
	if (r != HKS_OK) {
		char msg[1024];
		hks_error_format(&err, msg, sizeof(msg));
		printf("  unreadable: %s\n", msg);
		group_for(gname, "(unreadable)")->files_failed++;
		return;
	}
	int has_spline = 0;
	for (uint32_t a = 0; a < file->num_animations; a++)
		has_spline |= file->animations[a].kind == HKS_ANIMATION_SPLINE;
	if (!has_spline) {
		hks_file_free(file);
		return;
	}
	group_stats *g = group_for(gname, file->sdk);
	g->files++;
	lane_list lanes = {0};
	for (uint32_t a = 0; a < file->num_animations; a++) {
		const hks_animation *anim = &file->animations[a];
		if (anim->kind != HKS_ANIMATION_SPLINE)
			continue;
		g->animations++;
		hks_walk_options wo;
		memset(&wo, 0, sizeof(wo));
		wo.base.name = path;
		wo.animation_index = (int32_t)a;
		hks_stored_animation *st = NULL;
		if (hks_stored_read(anim, &wo, &st, &err) != HKS_OK) {
			char msg[1024];
			hks_error_format(&err, msg, sizeof(msg));
			printf("  walk failed: %s\n", msg);
			g->walks_failed++;
			continue;
		}
		for (uint32_t b = 0; b < st->num_blocks; b++) {
			const hks_stored_block *blk = &st->blocks[b];
			for (int32_t t = 0; t < st->num_transform_tracks; t++) {
				collect_part(&blk->tracks[t].part[0], 3, &lanes, g);
				repack_rotation(&blk->tracks[t].part[1], g);
				collect_part(&blk->tracks[t].part[2], 3, &lanes, g);
			}
			for (int32_t f = 0; f < st->num_float_tracks; f++)
				collect_part(&blk->floats[f], 1, &lanes, g);
		}
		hks_stored_free(st);
	}
	const hks_rcp_model *mi = hks_rcp_model_get(HKS_CPU_INTEL), *mz = hks_rcp_model_get(HKS_CPU_AMD_ZEN);
	pin_table *pins = strcmp(gname, "sekiro") == 0 ? pins_sekiro : strcmp(gname, "elden_ring") == 0 ? pins_elden : NULL;
	for (size_t i = 0; i < lanes.n; i++) {
		const hks_quant_lane *l = &lanes.v[i];
		if (pins)
			pin_lane(pins, l);
		uint16_t pi = hks_pack16(mi, l->hi, l->lo, l->hi), pz = hks_pack16(mz, l->hi, l->lo, l->hi);
		g->lanes++;
		g->intel += pi == l->top;
		g->zen += pz == l->top;
		g->both += pi == l->top && pz == l->top;
		if (pi != pz) {
			g->discriminating++;
			g->disc_intel += pi == l->top;
			g->disc_zen += pz == l->top;
		}
	}
	hks_detect_result det;
	hks_detect_cpu_model(lanes.v, lanes.n, hks_cpu_model_for_sdk(file->sdk), &det);
	g->detect[det.status][det.model == HKS_CPU_AMD_ZEN]++;
	if (det.status == HKS_DETECT_MIXED)
		printf("  mixed or unknown producer: %s (discriminating lanes %u: intel %u, zen %u)\n",
		       path + strlen(corpus), det.discriminating, det.intel_matches, det.zen_matches);
	free(lanes.v);
	hks_file_free(file);
}

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

static int cmp_group(const void *a, const void *b)
{
	const group_stats *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->sdk, y->sdk);
}

static void test_rcp_models_on_corpus(void **state)
{
	(void)state;
	const char *corpus = hks_test_corpus();
	hks_compendium_set *set = NULL;
	hks_error err;
	assert_int_equal(hks_compendium_set_create(NULL, &set, &err), HKS_OK);
	size_t nc = 0;
	char **comps = hks_test_list_files(corpus, ".compendium", &nc);
	for (size_t i = 0; i < nc; i++) {
		size_t size = 0;
		uint8_t *bytes = hks_test_read_file(comps[i], &size);
		if (bytes) {
			int conflict = 0;
			hks_compendium_set_add(set, bytes, size, comps[i], &conflict, &err);
			free(bytes);
		}
	}
	hks_test_free_list(comps, nc);
	pins_sekiro = pin_table_new();
	pins_elden = pin_table_new();
	size_t nf = 0;
	char **files = hks_test_list_files(corpus, ".hkx", &nf);
	assert_true(nf > 0);
	for (size_t i = 0; i < nf; i++)
		scan_file(corpus, files[i], set);
	hks_test_free_list(files, nf);
	hks_compendium_set_free(set);

	qsort(groups, (size_t)num_groups, sizeof(groups[0]), cmp_group);
	printf("\n16-bit spline lanes whose stored top integer equals pack16(lo, hi, hi) (ENCODER.md §11.4)\n");
	printf("%-26s %-16s %6s %6s %9s %8s %8s %7s %14s %14s\n", "group", "sdk", "files", "anims", "lanes",
	       "intel%", "zen%", "disc", "disc intel/zen", "low!=0 top!=");
	for (int i = 0; i < num_groups; i++) {
		group_stats *g = &groups[i];
		printf("%-26s %-16s %6u %6u %9llu %8.2f %8.2f %7llu %6llu/%-7llu %6llu %6llu\n", g->name, g->sdk, g->files,
		       g->animations, (unsigned long long)g->lanes, pct(g->intel, g->lanes), pct(g->zen, g->lanes),
		       (unsigned long long)g->discriminating, (unsigned long long)g->disc_intel,
		       (unsigned long long)g->disc_zen, (unsigned long long)g->lowest_not_zero,
		       (unsigned long long)g->top_not_retail);
		if (g->files_failed || g->walks_failed)
			printf("%-26s   unreadable files %u, failed walks %u\n", "", g->files_failed, g->walks_failed);
	}
	printf("\nper-file detection (§11.4): consistent intel/zen, mixed intel/zen, undetermined intel/zen\n");
	for (int i = 0; i < num_groups; i++) {
		group_stats *g = &groups[i];
		if (!g->files)
			continue;
		printf("%-26s %-16s %5u/%-5u %5u/%-5u %5u/%-5u\n", g->name, g->sdk, g->detect[0][0], g->detect[0][1],
		       g->detect[1][0], g->detect[1][1], g->detect[2][0], g->detect[2][1]);
	}
	printf("\nThreeComp40 control points re-packed after a lower-edge decode + normU (§16)\n");
	for (int i = 0; i < num_groups; i++) {
		group_stats *g = &groups[i];
		if (!g->rot_points)
			continue;
		printf("%-26s %-16s %9llu points: intel %6.2f %%, zen %6.2f %%\n", g->name, g->sdk,
		       (unsigned long long)g->rot_points, pct(g->rot_intel, g->rot_points), pct(g->rot_zen, g->rot_points));
	}

	printf("\nreciprocal table entries pinned by the stored top integers (§11.4, §15 Q5)\n");
	uint32_t sek_bad_entries = pin_report("sekiro", pins_sekiro, 0);
	uint32_t er_bad_entries = pin_report("elden_ring", pins_elden, 1);
	free(pins_sekiro);
	free(pins_elden);

	/* The assertions: per group over all SDKs of the group. */
	uint64_t sek_lanes = 0, sek_intel = 0, er_lanes = 0, er_zen = 0, sig_bad = 0;
	for (int i = 0; i < num_groups; i++) {
		group_stats *g = &groups[i];
		if (strcmp(g->name, "sekiro") == 0) {
			sek_lanes += g->lanes;
			sek_intel += g->intel;
			sig_bad += g->lowest_not_zero + g->top_not_retail;
		} else if (strcmp(g->name, "elden_ring") == 0) {
			er_lanes += g->lanes;
			er_zen += g->zen;
			sig_bad += g->lowest_not_zero + g->top_not_retail;
		}
	}
	printf("\nSekiro: %llu lanes, Intel %.4f %%; Elden Ring (mod folders apart): %llu lanes, Zen %.4f %%\n",
	       (unsigned long long)sek_lanes, pct(sek_intel, sek_lanes), (unsigned long long)er_lanes,
	       pct(er_zen, er_lanes));
	assert_true(sek_lanes > 0);
	assert_true(er_lanes > 0);
	assert_int_equal(sek_intel, sek_lanes);
	assert_true((double)er_zen >= 0.999 * (double)er_lanes);
	assert_int_equal(sig_bad, 0);
	/* every table entry the data constrain agrees with the game's model */
	assert_int_equal(sek_bad_entries, 0);
	assert_int_equal(er_bad_entries, 0);
}

int main(void)
{
	hks_test_require_corpus("corpus_rcp");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rcp_models_on_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
