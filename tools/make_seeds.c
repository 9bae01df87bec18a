/*
 * make_seeds: write the seed corpora of the fuzz targets (tests/fuzz/seeds/)
 * from synthetic inputs built by project code only (no game data):
 *   - frames -> spline bytes with the encoder (tests/fuzz/synth.h);
 *   - those splines in TAG0 tagfiles (inline TYPE and TCRF), a TCM0
 *     compendium and Havok XML, written by the builders of synth.h;
 *   - the packfiles written by tools/make_sample (given on the command line);
 *   - BND4 binders of those files (hks_bnd4_create/add/write) and DCX
 *     archives of them (hks_dcx_compress);
 *   - spline-target inputs (tests/fuzz/spline_input.h) and encode-target inputs.
 *
 * usage: make_seeds SEEDS_DIR SAMPLE.hkx SKELETON.hkx
 *   (SAMPLE.hkx from `make_sample`, SKELETON.hkx from `make_sample --skeleton`)
 * The output is deterministic: the same program writes the same bytes.
 */
#include "../tests/fuzz/spline_input.h"
#include "../tests/fuzz/synth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "record.h" /* hks_recompress_version */

static const char *g_dir;
/* ---- fuzz_gltf: a hand-built .gltf with the importer's optional features ---- */

static void le_f32(uint8_t *p, float v)
{
	uint32_t b;
	memcpy(&b, &v, 4);
	for (int k = 0; k < 4; k++)
		p[k] = (uint8_t)(b >> (8 * k));
}

static void le_i16(uint8_t *p, int v)
{
	p[0] = (uint8_t)(v & 0xFF);
	p[1] = (uint8_t)((v >> 8) & 0xFF);
}

/* Nodes of synth_skeleton(): "root" given as a matrix (translation (1, 2, 3),
 * 90 degrees about y, scale 2), "spine" as TRS, "head" animated: times 0,
 * 0.5, 1; translations (float); rotations as a sparse normalized i16
 * accessor over zeros (u8 indices 0, 2). Buffer 0 is a data: URI of media
 * type application/gltf-buffer. Returns the text length (0 on overflow). */
static size_t gltf_features_seed(char *out, size_t cap)
{
	/* 0 times (12) | 12 translations 3 x VEC3 (36) | 48 sparse indices u8 {0, 2} + 2 pad
	 * | 52 sparse values 2 x VEC4 i16 (16) = 68 bytes */
	uint8_t bin[68];
	memset(bin, 0, sizeof(bin));
	for (int i = 0; i < 3; i++) {
		le_f32(bin + 4 * i, 0.5f * (float)i);
		for (int k = 0; k < 3; k++)
			le_f32(bin + 12 + 12 * i + 4 * k, 0.1f * (float)(i + k));
	}
	bin[48] = 0;
	bin[49] = 2;
	static const int q[2][4] = {{0, 0, 0, 32767}, {0, 23170, 0, 23170}};
	for (int e = 0; e < 2; e++)
		for (int k = 0; k < 4; k++)
			le_i16(bin + 52 + 8 * e + 2 * k, q[e][k]);
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char b64[sizeof(bin) / 3 * 4 + 8];
	size_t o = 0;
	for (size_t i = 0; i < sizeof(bin); i += 3) {
		uint32_t v = (uint32_t)bin[i] << 16 | (i + 1 < sizeof(bin) ? (uint32_t)bin[i + 1] << 8 : 0) |
		             (i + 2 < sizeof(bin) ? bin[i + 2] : 0);
		b64[o++] = alphabet[v >> 18];
		b64[o++] = alphabet[(v >> 12) & 63];
		b64[o++] = i + 1 < sizeof(bin) ? alphabet[(v >> 6) & 63] : '=';
		b64[o++] = i + 2 < sizeof(bin) ? alphabet[v & 63] : '=';
	}
	b64[o] = 0;
	int n = snprintf(
	    out, cap,
	    "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
	    "\"nodes\":[{\"name\":\"root\",\"children\":[1],\"matrix\":[0,0,-2,0,0,2,0,0,2,0,0,0,1,2,3,1]},"
	    "{\"name\":\"spine\",\"children\":[2],\"translation\":[0,1,0],\"rotation\":[0,0,0,1]},{\"name\":\"head\"}],"
	    "\"buffers\":[{\"byteLength\":68,\"uri\":\"data:application/gltf-buffer;base64,%s\"}],"
	    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":48},{\"buffer\":0,\"byteOffset\":48,\"byteLength\":20}],"
	    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
	    "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
	    "{\"componentType\":5122,\"normalized\":true,\"count\":3,\"type\":\"VEC4\",\"sparse\":{\"count\":2,"
	    "\"indices\":{\"bufferView\":1,\"componentType\":5121},\"values\":{\"bufferView\":1,\"byteOffset\":4}}}],"
	    "\"animations\":[{\"name\":\"features\",\"samplers\":[{\"input\":0,\"output\":1},"
	    "{\"input\":0,\"output\":2,\"interpolation\":\"STEP\"}],"
	    "\"channels\":[{\"sampler\":0,\"target\":{\"node\":2,\"path\":\"translation\"}},"
	    "{\"sampler\":1,\"target\":{\"node\":2,\"path\":\"rotation\"}}]}]}",
	    b64);
	return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}


static int g_failed;

static void write_seed(const char *target, const char *name, const void *data, size_t size)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", g_dir, target);
	if (hks_platform_mkdir(path) != 0 && errno != EEXIST) {
		fprintf(stderr, "make_seeds: cannot create %s\n", path);
		g_failed = 1;
		return;
	}
	snprintf(path, sizeof(path), "%s/%s/%s", g_dir, target, name);
	if (size > 65536)
		fprintf(stderr, "make_seeds: warning: %s is %zu bytes (> 64 KiB)\n", path, size);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
		fprintf(stderr, "make_seeds: cannot write %s\n", path);
		g_failed = 1;
	}
}

static uint8_t *read_all(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	synth_buf b = {0};
	uint8_t tmp[4096];
	size_t k;
	while ((k = fread(tmp, 1, sizeof(tmp), f)) > 0)
		synth_put(&b, tmp, k);
	fclose(f);
	*size = b.n;
	return b.p;
}

/* The spline target's input for a packed spline (spline_input.h). */
static void spline_seed(const char *name, const hks_packed_spline *p, int strict)
{
	const hks_spline_header *h = &p->header;
	synth_buf b = {0};
	synth_put32(&b, (uint32_t)h->num_frames);
	synth_put32(&b, (uint32_t)h->num_blocks);
	synth_put32(&b, (uint32_t)h->max_frames_per_block);
	synth_put32(&b, (uint32_t)h->mask_and_quantization_size);
	uint32_t u;
	float fs[4] = {h->block_duration, h->block_inverse_duration, h->frame_duration, p->duration};
	for (int i = 0; i < 4; i++) {
		memcpy(&u, &fs[i], 4);
		synth_put32(&b, u);
	}
	uint8_t counts[12] = {(uint8_t)p->num_transform_tracks, (uint8_t)(p->num_transform_tracks >> 8),
	                      (uint8_t)p->num_float_tracks, (uint8_t)(p->num_float_tracks >> 8),
	                      (uint8_t)h->num_block_offsets, (uint8_t)(h->num_block_offsets >> 8),
	                      (uint8_t)h->num_float_block_offsets, (uint8_t)(h->num_float_block_offsets >> 8),
	                      (uint8_t)strict, 0, 0, 0};
	synth_put(&b, counts, sizeof(counts));
	for (uint32_t i = 0; i < h->num_block_offsets; i++)
		synth_put32(&b, h->block_offsets[i]);
	for (uint32_t i = 0; i < h->num_float_block_offsets; i++)
		synth_put32(&b, h->float_block_offsets[i]);
	synth_put(&b, h->data, h->data_size);
	write_seed("spline", name, b.p, b.n);
	free(b.p);
}

/* The encode target's input (fuzz_encode.c): counts, flags, then smooth frames. */
static void encode_seed(const char *name, uint8_t T, uint8_t F, uint16_t frames, uint8_t flags, uint8_t mfpb,
                        uint8_t tol, unsigned variant)
{
	synth_buf b = {0};
	uint8_t head[8] = {T, F, (uint8_t)(frames - 2), (uint8_t)((frames - 2) >> 8), flags, mfpb, tol, 0};
	synth_put(&b, head, 8);
	size_t nt = (size_t)frames * T * HKS_TRACK_SAMPLE_FLOATS, nf = (size_t)frames * F;
	float *tr = (float *)calloc(nt + 1, sizeof(float)), *fl = (float *)calloc(nf + 1, sizeof(float));
	synth_frames(T, F, frames, variant, tr, fl);
	for (size_t i = 0; i < nt + nf; i++) {
		uint32_t u;
		memcpy(&u, i < nt ? &tr[i] : &fl[i - nt], 4);
		synth_put32(&b, u);
	}
	write_seed("encode", name, b.p, b.n);
	free(b.p), free(tr), free(fl);
}

typedef struct entry {
	const char *name;
	const uint8_t *data;
	size_t size;
} entry;

static uint8_t *binder(const entry *e, size_t n, size_t *size)
{
	hks_bnd4 *bnd = NULL;
	hks_error err;
	uint8_t *out = NULL;
	*size = 0;
	if (hks_bnd4_create(NULL, NULL, &bnd, &err) != HKS_OK) {
		fprintf(stderr, "make_seeds: bnd4: %s\n", err.message);
		g_failed = 1;
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (hks_bnd4_add(bnd, e[i].name, (int32_t)i, 0, e[i].data, e[i].size, &err) != HKS_OK) {
			fprintf(stderr, "make_seeds: bnd4 add: %s\n", err.message);
			g_failed = 1;
		}
	}
	if (hks_bnd4_write(bnd, NULL, &out, size, &err) != HKS_OK) {
		fprintf(stderr, "make_seeds: bnd4 write: %s\n", err.message);
		g_failed = 1;
		out = NULL;
	}
	hks_bnd4_free(bnd);
	return out;
}

static void dcx_seed(const char *target, const char *name, const uint8_t *data, size_t size)
{
	uint8_t *out = NULL;
	size_t n = 0;
	hks_error err;
	if (hks_dcx_compress(data, size, NULL, NULL, &out, &n, &err) != HKS_OK) {
		fprintf(stderr, "make_seeds: dcx: %s\n", err.message);
		g_failed = 1;
		return;
	}
	write_seed(target, name, out, n);
	hks_buffer_free(NULL, out, n);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: make_seeds SEEDS_DIR SAMPLE.hkx SKELETON.hkx\n");
		return 2;
	}
	g_dir = argv[1];
	if (hks_platform_mkdir(g_dir) != 0 && errno != EEXIST) {
		fprintf(stderr, "make_seeds: cannot create %s\n", g_dir);
		return 1;
	}
	size_t sample_size = 0, skel_size = 0;
	uint8_t *sample = read_all(argv[2], &sample_size), *skel = read_all(argv[3], &skel_size);
	if (!sample || !skel) {
		fprintf(stderr, "make_seeds: cannot read %s / %s\n", argv[2], argv[3]);
		return 1;
	}
	static const uint8_t comp_id[8] = {0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe};

	/* splines: tracks, float tracks, frames, maxFramesPerBlock, variant, SDK */
	hks_packed_spline *sek = synth_spline(3, 1, 31, 0, 0, "20160200");
	hks_packed_spline *er = synth_spline(2, 0, 40, 16, 1, "20180100");     /* 3 blocks + guard rule */
	hks_packed_spline *q8 = synth_spline(2, 2, 20, 8, 2, "20160200");      /* 8-bit, ThreeComp48 */
	hks_packed_spline *floats = synth_spline(0, 2, 12, 0, 0, "20160200");  /* float tracks only */
	if (!sek || !er || !q8 || !floats)
		return 1;

	size_t n_sek, n_er, n_comp, n_ref, n_xml, n_xml2;
	uint8_t *t_sek = synth_tagfile(sek, "20160200", NULL, &n_sek);
	uint8_t *t_er = synth_tagfile(er, "20180100", NULL, &n_er);
	uint8_t *comp = synth_compendium(comp_id, &n_comp);
	uint8_t *t_ref = synth_tagfile(q8, "20180100", comp_id, &n_ref);
	uint8_t *xml = synth_xml(sek, &n_xml);
	uint8_t *xml2 = synth_xml(q8, &n_xml2);

	/* fuzz_file: one of each container kind */
	write_seed("tagfile", "tagfile_20160200.hkx", t_sek, n_sek); /* fuzz_tagfile: TAG0 / TCM0 only */
	write_seed("tagfile", "tagfile_20180100.hkx", t_er, n_er);
	write_seed("tagfile", "types.compendium", comp, n_comp);
	write_seed("file", "tagfile_20160200.hkx", t_sek, n_sek);
	write_seed("file", "tagfile_20180100.hkx", t_er, n_er);
	write_seed("file", "types.compendium", comp, n_comp);
	write_seed("file", "packfile_2010.hkx", sample, sample_size);
	write_seed("file", "packfile_skeleton.hkx", skel, skel_size);
	write_seed("file", "packfile.xml", xml, n_xml);
	write_seed("packfile", "animation.hkx", sample, sample_size);
	write_seed("packfile", "skeleton.hkx", skel, skel_size);
	write_seed("xml", "spline_16bit.xml", xml, n_xml);
	write_seed("xml", "spline_8bit.xml", xml2, n_xml2);

	/* fuzz_compendium: u32 length, compendium, TCRF tagfile */
	synth_buf cb = {0};
	synth_put32(&cb, (uint32_t)n_comp);
	synth_put(&cb, comp, n_comp);
	synth_put(&cb, t_ref, n_ref);
	write_seed("compendium", "compendium_and_tcrf.bin", cb.p, cb.n);
	cb.n = 0;
	synth_put32(&cb, (uint32_t)n_comp);
	synth_put(&cb, comp, n_comp);
	synth_put(&cb, t_sek, n_sek);
	write_seed("compendium", "compendium_and_inline.bin", cb.p, cb.n);
	free(cb.p);

	/* fuzz_bnd4 and fuzz_dcx */
	const entry anibnd[] = {
	    {"N:\\GR\\data\\INTERROOT_win64\\chr\\c9990\\hkx\\a000_000000.hkx", t_ref, n_ref},
	    {"N:\\GR\\data\\INTERROOT_win64\\chr\\c9990\\hkx\\a000_000001.hkx", t_er, n_er},
	    {"N:\\GR\\data\\INTERROOT_win64\\chr\\c9990\\hkx\\c9990.compendium", comp, n_comp},
	    {"N:\\GR\\data\\INTERROOT_win64\\chr\\c9990\\hkx\\skeleton.hkx", skel, skel_size},
	};
	size_t n_bnd = 0, n_one = 0, n_empty = 0;
	uint8_t *bnd = binder(anibnd, 4, &n_bnd);
	uint8_t *one = binder(anibnd + 1, 1, &n_one);
	uint8_t *empty = binder(NULL, 0, &n_empty);
	if (bnd && one && empty) {
		write_seed("bnd4", "anibnd_4.bnd", bnd, n_bnd);
		write_seed("bnd4", "anibnd_1.bnd", one, n_one);
		write_seed("bnd4", "empty.bnd", empty, n_empty);
		dcx_seed("dcx", "anibnd.dcx", bnd, n_bnd);
		dcx_seed("dcx", "tagfile.dcx", t_sek, n_sek);
		dcx_seed("dcx", "empty.dcx", NULL, 0);
	}

	/* fuzz_spline */
	spline_seed("sekiro_3t1f.bin", sek, 0);
	spline_seed("eldenring_guard_3blocks.bin", er, 1);
	spline_seed("quant8_tc48.bin", q8, 0);
	spline_seed("floats_only.bin", floats, 0);

	/* fuzz_encode: flags as documented in fuzz_encode.c */
	encode_seed("smooth_2t.bin", 2, 0, 30, 0x00, 0, 2, 0);
	encode_seed("tc48_8bit_1f.bin", 1, 1, 20, 0x05, 8, 1, 1);
	encode_seed("uncompressed_quality.bin", 2, 1, 24, 0x0A, 0, 3, 2);
	encode_seed("polar_degree1_er.bin", 1, 0, 40, 0x93, 16, 2, 3);

	/* fuzz_gltf */
	size_t n_glb = 0, n_gltf = 0;
	uint8_t *glb = synth_gltf(12, 1, &n_glb), *gltf = synth_gltf(5, 0, &n_gltf);
	if (!glb || !gltf)
		return 1;
	write_seed("gltf", "synthetic.glb", glb, n_glb);
	write_seed("gltf", "synthetic.gltf", gltf, n_gltf);
	free(glb), free(gltf);
	/* the importer's other paths (docs/GLTF.md "Import"): a matrix node, a
	 * sparse normalized-i16 rotation over zeros, a gltf-buffer data: URI */
	char features[4096];
	size_t n_features = gltf_features_seed(features, sizeof(features));
	if (!n_features)
		return 1;
	write_seed("gltf", "features.gltf", features, n_features);

	/* fuzz_record: reconstruction records of the synthetic splines with uncompressed bodies (so
	 * mutations reach the body), one with its body coded, one deflated as version 8 wrote it, and a
	 * record file holding two */
	{
		const uint8_t *tags[3] = {t_sek, t_er, t_ref};
		size_t tag_sizes[3] = {n_sek, n_er, n_ref};
		const char *names[3] = {"sekiro.hksr", "eldenring.hksr", "q8.hksr"};
		hks_record_file_entry ents[3];
		uint8_t *recs[3] = {NULL, NULL, NULL};
		size_t rec_sizes[3] = {0, 0, 0};
		uint32_t nrec = 0;
		for (int i = 0; i < 3; i++) {
			hks_file *f = NULL;
			hks_error e;
			hks_read_options rdo;
			memset(&rdo, 0, sizeof(rdo));
			hks_compendium_set *set = NULL;
			if (i == 2) { /* the TCRF tagfile reads against its compendium */
				if (hks_compendium_set_create(NULL, &set, &e) != HKS_OK ||
				    hks_compendium_set_add(set, comp, n_comp, "types.compendium", NULL, &e) != HKS_OK)
					return 1;
				rdo.compendiums = set;
			}
			if (hks_file_read(tags[i], tag_sizes[i], &rdo, &f, &e) != HKS_OK || !f->num_animations) {
				fprintf(stderr, "make_seeds: record seed %s: %s\n", names[i], e.message);
				return 1;
			}
			hks_recompress_options ro;
			memset(&ro, 0, sizeof(ro));
			ro.no_zlib = 1;
			ro.sdk = f->sdk;
			if (hks_recompress(&f->animations[0], &ro, &recs[i], &rec_sizes[i], NULL, NULL, &e) != HKS_OK) {
				fprintf(stderr, "make_seeds: record seed %s: %s\n", names[i], e.message);
				return 1;
			}
			write_seed("record", names[i], recs[i], rec_sizes[i]);
			ents[nrec].animation = (uint32_t)i;
			ents[nrec].record = recs[i];
			ents[nrec].size = rec_sizes[i];
			nrec++;
			if (i == 0) {
				/* the body coded (v9, record_model.c), when coding shrinks it */
				uint8_t *z = NULL;
				size_t zn = 0;
				ro.no_zlib = 0;
				if (hks_recompress(&f->animations[0], &ro, &z, &zn, NULL, NULL, &e) != HKS_OK)
					return 1;
				if (zn > 5 && z[5] != 0)
					write_seed("record", "sekiro_model.hksr", z, zn);
				hks_buffer_free(NULL, z, zn);
				/* a version-8 record with a deflated body, which this build still reads: the stored body of a
				 * version 10 record (version 8's layout; version 11 changed it) as a raw deflate stream of one
				 * stored block (RFC 1951 §3.2.4), so that the fuzzer starts from a record whose inflate
				 * succeeds and that parses */
				uint8_t *r10 = NULL;
				size_t n10 = 0;
				ro.no_zlib = 1;
				if (hks_recompress_version(&f->animations[0], &ro, 10, &r10, &n10, NULL, NULL, &e) != HKS_OK)
					return 1;
				const uint8_t *r0 = r10;
				size_t n0 = n10, h = 6;
				while (h < n0 && (r0[h] & 0x80))
					h++;
				h++;
				size_t body = n0 - h;
				uint8_t *d = body <= 0xFFFF && h <= n0 ? (uint8_t *)malloc(n0 + 5) : NULL;
				if (!d)
					return 1;
				memcpy(d, r0, h);
				d[4] = 8;
				d[5] = 1;
				d[h] = 1; /* BFINAL, BTYPE 00 */
				d[h + 1] = (uint8_t)body;
				d[h + 2] = (uint8_t)(body >> 8);
				d[h + 3] = (uint8_t)~body;
				d[h + 4] = (uint8_t)(~body >> 8);
				memcpy(d + h + 5, r0 + h, body);
				write_seed("record", "sekiro_zlib_v8.hksr", d, n0 + 5);
				free(d);
				hks_buffer_free(NULL, r10, n10);
			}
			hks_file_free(f);
			if (set)
				hks_compendium_set_free(set);
		}
		uint8_t *rf = NULL;
		size_t rfn = 0;
		hks_error e;
		if (hks_record_file_write(ents, 2, NULL, &rf, &rfn, &e) != HKS_OK)
			return 1;
		write_seed("record", "two.hksf", rf, rfn);
		hks_buffer_free(NULL, rf, rfn);
		for (int i = 0; i < 3; i++)
			hks_buffer_free(NULL, recs[i], rec_sizes[i]);
	}

	hks_packed_spline_free(sek), hks_packed_spline_free(er), hks_packed_spline_free(q8),
	    hks_packed_spline_free(floats);
	free(t_sek), free(t_er), free(comp), free(t_ref), free(xml), free(xml2), free(sample), free(skel);
	hks_buffer_free(NULL, bnd, n_bnd), hks_buffer_free(NULL, one, n_one), hks_buffer_free(NULL, empty, n_empty);
	return g_failed;
}
