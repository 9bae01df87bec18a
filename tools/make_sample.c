/*
 * make_sample: write a small, valid Havok file built entirely by this program
 * (no game data): a 32-bit little-endian hk_2010.2.0-r1 packfile
 * (CONTAINERS.md §5) holding hkRootLevelContainer -> hkaAnimationContainer ->
 * one hkaSplineCompressedAnimation (2 transform tracks, 31 frames, one block)
 * and its hkaAnimationBinding. It is the project's embedded default input for
 * the README's first command and for the CLI tests.
 *
 * usage: make_sample [--skeleton] OUT.hkx
 *
 * With --skeleton the container holds instead one hkaSkeleton "Sample" with
 * two bones (Root, Child of Root) in the reference pose (identity), as the
 * Skeleton.HKX of a character folder would.
 *
 * The spline block (FORMAT.md §2):
 *   track 0: static translation (1, 2, 3), static Uncompressed rotation
 *            (identity), no scale;
 *   track 1: translation x a degree-1 spline with two 16-bit control points
 *            (0 -> 1 over the clip), rotation and scale absent.
 * Member offsets are the "2010 x86" column of CONTAINERS.md §3.1; arrays are
 * {ptr, size, size | 0x80000000}; pointers are zero and described by fixups
 * (§5.4); objects and arrays start 16-aligned (§5.5).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAP 8192

typedef struct buf {
	uint8_t b[CAP];
	size_t n;
} buf;

static void need(buf *w, size_t k)
{
	if (w->n + k > CAP) {
		fprintf(stderr, "make_sample: internal buffer too small\n");
		exit(2);
	}
}
static void put8(buf *w, uint8_t v) { need(w, 1); w->b[w->n++] = v; }
static void put16(buf *w, uint16_t v) { put8(w, (uint8_t)v); put8(w, (uint8_t)(v >> 8)); }
static void put32(buf *w, uint32_t v) { put16(w, (uint16_t)v); put16(w, (uint16_t)(v >> 16)); }
static void putf(buf *w, float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	put32(w, u);
}
static void putbytes(buf *w, const void *p, size_t k) { need(w, k); memcpy(w->b + w->n, p, k); w->n += k; }
static void pad(buf *w, size_t a, uint8_t fill) { while (w->n % a) put8(w, fill); }
static void set32(buf *w, size_t at, uint32_t v)
{
	w->b[at] = (uint8_t)v;
	w->b[at + 1] = (uint8_t)(v >> 8);
	w->b[at + 2] = (uint8_t)(v >> 16);
	w->b[at + 3] = (uint8_t)(v >> 24);
}
static void zeros(buf *w, size_t k) { for (size_t i = 0; i < k; i++) put8(w, 0); }

/* An array header {ptr = 0 (fixed up), size, size | 0x80000000}. */
static void array_header(buf *w, uint32_t size)
{
	put32(w, 0);
	put32(w, size);
	put32(w, size | 0x80000000u);
}

typedef struct fixups {
	uint32_t local[32][2];
	size_t num_local;
	uint32_t global[16][2];
	size_t num_global;
	uint32_t virt[8][2];
	size_t num_virt;
} fixups;

/* The spline data block described at the top (FORMAT.md §2.3-2.6). */
static size_t spline_block(buf *w)
{
	size_t start = w->n;
	/* masks: byte 0 = t | r << 2 | s << 6 (16-bit scalars; selector 5 / 2) */
	put8(w, 0x01 | (5 << 2) | (1 << 6));
	put8(w, 0x07); /* translation x, y, z static */
	put8(w, 0x0F); /* rotation static */
	put8(w, 0x00); /* no scale */
	put8(w, 0x01 | (2 << 2) | (1 << 6));
	put8(w, 0x10); /* translation x spline */
	put8(w, 0x00);
	put8(w, 0x00);
	/* track 0: translation statics, then the Uncompressed quaternion (align 4) */
	putf(w, 1.0f);
	putf(w, 2.0f);
	putf(w, 3.0f);
	putf(w, 0.0f);
	putf(w, 0.0f);
	putf(w, 0.0f);
	putf(w, 1.0f);
	/* track 1: n = 1 (two control points), degree 1, knots {0, 0, 30, 30} */
	put16(w, 1);
	put8(w, 1);
	put8(w, 0);
	put8(w, 0);
	put8(w, 30);
	put8(w, 30);
	pad(w, 4, 0);
	putf(w, 0.0f); /* min */
	putf(w, 1.0f); /* max */
	put16(w, 0);
	put16(w, 65535);
	pad(w, 4, 0);
	return w->n - start; /* = floatBlockOffsets[0]; no float tracks */
}

/* The animation content: container (size 68), spline (size 132), binding (size 44). */
static void build_animation(buf *data, fixups *fx, uint32_t variants, const uint32_t name_at[9])
{
	/* hkaAnimationContainer (size 68) */
	uint32_t container = (uint32_t)data->n;
	zeros(data, 8);       /* hkReferencedObject */
	array_header(data, 0); /* skeletons 8 */
	array_header(data, 1); /* animations 20 */
	array_header(data, 1); /* bindings 32 */
	array_header(data, 0); /* attachments 44 */
	array_header(data, 0); /* skins 56 */
	pad(data, 16, 0);
	uint32_t anim_ptrs = (uint32_t)data->n;
	put32(data, 0);
	pad(data, 16, 0);
	uint32_t binding_ptrs = (uint32_t)data->n;
	put32(data, 0);
	pad(data, 16, 0);
	fx->local[fx->num_local][0] = container + 20;
	fx->local[fx->num_local++][1] = anim_ptrs;
	fx->local[fx->num_local][0] = container + 32;
	fx->local[fx->num_local++][1] = binding_ptrs;

	/* hkaSplineCompressedAnimation (size 132) */
	const int32_t num_frames = 31, max_frames_per_block = 256;
	const float duration = 1.0f;
	volatile float frames_minus_one = (float)(num_frames - 1);
	float frame_duration = duration / frames_minus_one;            /* FORMAT.md §1.1, f32 */
	volatile float intervals = (float)(max_frames_per_block - 1);
	float block_duration = frame_duration * intervals;
	float block_inverse = 1.0f / block_duration;
	uint32_t spline = (uint32_t)data->n;
	zeros(data, 8);
	put32(data, 5);        /* type 8: spline (Havok 2010) */
	putf(data, duration);  /* 12 */
	put32(data, 2);        /* numberOfTransformTracks 16 */
	put32(data, 0);        /* numberOfFloatTracks 20 */
	put32(data, 0);        /* extractedMotion 24 */
	array_header(data, 0); /* annotationTracks 28 */
	put32(data, (uint32_t)num_frames);           /* 40 */
	put32(data, 1);                              /* numBlocks 44 */
	put32(data, (uint32_t)max_frames_per_block); /* 48 */
	put32(data, 8);                              /* maskAndQuantizationSize 52: (4T + F + 3) & ~3 */
	putf(data, block_duration);                  /* 56 */
	putf(data, block_inverse);                   /* 60 */
	putf(data, frame_duration);                  /* 64 */
	array_header(data, 1);                       /* blockOffsets 68 */
	array_header(data, 1);                       /* floatBlockOffsets 80 */
	array_header(data, 0);                       /* transformOffsets 92 */
	array_header(data, 0);                       /* floatOffsets 104 */
	size_t data_array = data->n;
	array_header(data, 0);                       /* data 116 (size set below) */
	put32(data, 0);                              /* endian 128 */
	pad(data, 16, 0);
	uint32_t block_offsets = (uint32_t)data->n;
	put32(data, 0);
	pad(data, 16, 0);
	uint32_t float_block_offsets = (uint32_t)data->n;
	size_t fbo_at = data->n;
	put32(data, 0);
	pad(data, 16, 0);
	uint32_t spline_data = (uint32_t)data->n;
	size_t transform_end = spline_block(data);
	pad(data, 16, 0); /* block end (FORMAT.md §2.8) */
	uint32_t spline_data_size = (uint32_t)(data->n - spline_data);
	set32(data, fbo_at, (uint32_t)transform_end);
	set32(data, data_array + 4, spline_data_size);
	set32(data, data_array + 8, spline_data_size | 0x80000000u);
	fx->local[fx->num_local][0] = spline + 68;
	fx->local[fx->num_local++][1] = block_offsets;
	fx->local[fx->num_local][0] = spline + 80;
	fx->local[fx->num_local++][1] = float_block_offsets;
	fx->local[fx->num_local][0] = spline + 116;
	fx->local[fx->num_local++][1] = spline_data;

	/* hkaAnimationBinding (size 44) */
	uint32_t binding = (uint32_t)data->n;
	zeros(data, 8);
	put32(data, 0);        /* originalSkeletonName 8 */
	put32(data, 0);        /* animation 12 */
	array_header(data, 2); /* transformTrackToBoneIndices 16 */
	array_header(data, 0); /* floatTrackToFloatSlotIndices 28 */
	put8(data, 0);         /* blendHint 40: normal */
	zeros(data, 3);
	pad(data, 16, 0);
	uint32_t skeleton_name = (uint32_t)data->n;
	putbytes(data, "Sample", 7);
	pad(data, 16, 0);
	uint32_t bone_map = (uint32_t)data->n;
	put16(data, 0);
	put16(data, 1);
	pad(data, 16, 0);
	fx->local[fx->num_local][0] = binding + 8;
	fx->local[fx->num_local++][1] = skeleton_name;
	fx->local[fx->num_local][0] = binding + 16;
	fx->local[fx->num_local++][1] = bone_map;

	/* object pointers: global fixups into section 2 */
	uint32_t globals[][2] = {{variants + 8, container}, {anim_ptrs, spline}, {binding_ptrs, binding},
	                         {binding + 12, spline}};
	for (size_t i = 0; i < 4; i++) {
		fx->global[fx->num_global][0] = globals[i][0];
		fx->global[fx->num_global++][1] = globals[i][1];
	}
	uint32_t objects[][2] = {{container, name_at[5]}, {spline, name_at[6]}, {binding, name_at[7]}};
	for (size_t i = 0; i < 3; i++) {
		fx->virt[fx->num_virt][0] = objects[i][0];
		fx->virt[fx->num_virt++][1] = objects[i][1];
	}

}

/* The skeleton content: container with one hkaSkeleton (size 84; bones of 8
 * bytes {name, lockTranslation}; hkQsTransform 48 bytes, 16-aligned). */
static void build_skeleton(buf *data, fixups *fx, uint32_t variants, const uint32_t name_at[9])
{
	uint32_t container = (uint32_t)data->n;
	zeros(data, 8);
	array_header(data, 1); /* skeletons 8 */
	array_header(data, 0); /* animations 20 */
	array_header(data, 0); /* bindings 32 */
	array_header(data, 0); /* attachments 44 */
	array_header(data, 0); /* skins 56 */
	pad(data, 16, 0);
	uint32_t skeleton_ptrs = (uint32_t)data->n;
	put32(data, 0);
	pad(data, 16, 0);
	fx->local[fx->num_local][0] = container + 8;
	fx->local[fx->num_local++][1] = skeleton_ptrs;

	uint32_t skeleton = (uint32_t)data->n;
	zeros(data, 8);
	put32(data, 0);         /* name 8 */
	array_header(data, 2);  /* parentIndices 12 */
	array_header(data, 2);  /* bones 24 */
	array_header(data, 2);  /* referencePose 36 */
	array_header(data, 0);  /* referenceFloats 48 */
	array_header(data, 0);  /* floatSlots 60 */
	array_header(data, 0);  /* localFrames 72 */
	pad(data, 16, 0);
	uint32_t name = (uint32_t)data->n;
	putbytes(data, "Sample", 7);
	pad(data, 16, 0);
	uint32_t parents = (uint32_t)data->n;
	put16(data, 0xFFFF);
	put16(data, 0);
	pad(data, 16, 0);
	uint32_t bones = (uint32_t)data->n;
	zeros(data, 16); /* {name, lockTranslation} x 2 */
	pad(data, 16, 0);
	uint32_t bone_names[2];
	bone_names[0] = (uint32_t)data->n;
	putbytes(data, "Root", 5);
	pad(data, 16, 0);
	bone_names[1] = (uint32_t)data->n;
	putbytes(data, "Child", 6);
	pad(data, 16, 0);
	uint32_t pose = (uint32_t)data->n;
	for (int b = 0; b < 2; b++) {
		const float t[12] = {0, (float)b, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0};
		for (int k = 0; k < 12; k++)
			putf(data, t[k]);
	}
	pad(data, 16, 0);
	uint32_t locals[][2] = {{skeleton + 8, name}, {skeleton + 12, parents}, {skeleton + 24, bones},
	                        {bones, bone_names[0]}, {bones + 8, bone_names[1]}, {skeleton + 36, pose}};
	for (size_t i = 0; i < 6; i++) {
		fx->local[fx->num_local][0] = locals[i][0];
		fx->local[fx->num_local++][1] = locals[i][1];
	}
	fx->global[fx->num_global][0] = variants + 8;
	fx->global[fx->num_global++][1] = container;
	fx->global[fx->num_global][0] = skeleton_ptrs;
	fx->global[fx->num_global++][1] = skeleton;
	fx->virt[fx->num_virt][0] = container;
	fx->virt[fx->num_virt++][1] = name_at[5];
	fx->virt[fx->num_virt][0] = skeleton;
	fx->virt[fx->num_virt++][1] = name_at[8];
}

int main(int argc, char **argv)
{
	bool skeleton_mode = argc == 3 && !strcmp(argv[1], "--skeleton");
	if (argc != 2 && !skeleton_mode) {
		fprintf(stderr, "usage: make_sample [--skeleton] OUT.hkx\n");
		return 2;
	}
	const char *out_path = argv[argc - 1];
	static buf file, names, data;
	fixups fx;
	memset(&fx, 0, sizeof(fx));

	/* __classnames__ (§5.3): {u32 signature, 0x09, name}. Signatures from
	 * §5.6 where it lists them; readers identify classes by name, so the
	 * three meta classes it does not list carry 0. */
	static const struct {
		uint32_t sig;
		const char *name;
	} classes[] = {
	    {0x14425E51u, "hkClass"},
	    {0, "hkClassMember"},
	    {0, "hkClassEnum"},
	    {0, "hkClassEnumItem"},
	    {0x2772C11Eu, "hkRootLevelContainer"},
	    {0x8DC20333u, "hkaAnimationContainer"},
	    {0x792EE0BBu, "hkaSplineCompressedAnimation"},
	    {0x66EAC971u, "hkaAnimationBinding"},
	    {0x366E8220u, "hkaSkeleton"},
	};
	uint32_t name_at[9];
	for (size_t i = 0; i < 9; i++) {
		put32(&names, classes[i].sig);
		put8(&names, 0x09);
		name_at[i] = (uint32_t)names.n;
		putbytes(&names, classes[i].name, strlen(classes[i].name) + 1);
	}
	pad(&names, 16, 0xFF);

	/* __data__: root, its variant array and strings */
	uint32_t root = (uint32_t)data.n;
	array_header(&data, 1);
	pad(&data, 16, 0);
	uint32_t variants = (uint32_t)data.n;
	fx.local[fx.num_local][0] = root;
	fx.local[fx.num_local++][1] = variants;
	zeros(&data, 12); /* name, className, variant */
	pad(&data, 16, 0);
	uint32_t s_name = (uint32_t)data.n;
	putbytes(&data, "Merged Animation Container", 27);
	pad(&data, 16, 0);
	uint32_t s_class = (uint32_t)data.n;
	putbytes(&data, "hkaAnimationContainer", 22);
	pad(&data, 16, 0);
	fx.local[fx.num_local][0] = variants;
	fx.local[fx.num_local++][1] = s_name;
	fx.local[fx.num_local][0] = variants + 4;
	fx.local[fx.num_local++][1] = s_class;

	fx.virt[fx.num_virt][0] = root;
	fx.virt[fx.num_virt++][1] = name_at[4];
	if (skeleton_mode)
		build_skeleton(&data, &fx, variants, name_at);
	else
		build_animation(&data, &fx, variants, name_at);

	/* fixup tables after the data, each padded to 16 with 0xFF (§5.4) */
	uint32_t local_off = (uint32_t)data.n;
	for (size_t i = 0; i < fx.num_local; i++) {
		put32(&data, fx.local[i][0]);
		put32(&data, fx.local[i][1]);
	}
	pad(&data, 16, 0xFF);
	uint32_t global_off = (uint32_t)data.n;
	for (size_t i = 0; i < fx.num_global; i++) {
		put32(&data, fx.global[i][0]);
		put32(&data, 2);
		put32(&data, fx.global[i][1]);
	}
	pad(&data, 16, 0xFF);
	uint32_t virtual_off = (uint32_t)data.n;
	for (size_t i = 0; i < fx.num_virt; i++) {
		put32(&data, fx.virt[i][0]);
		put32(&data, 0);
		put32(&data, fx.virt[i][1]);
	}
	pad(&data, 16, 0xFF);
	uint32_t data_end = (uint32_t)data.n;

	/* file header (§5.1) */
	static const uint8_t magic[8] = {0x57, 0xE0, 0xE0, 0x57, 0x10, 0xC0, 0xC0, 0x10};
	putbytes(&file, magic, 8);
	put32(&file, 0);           /* userTag */
	put32(&file, 8);           /* fileVersion: Havok 2010.2 */
	put8(&file, 4);            /* bytesInPointer */
	put8(&file, 1);            /* littleEndian */
	put8(&file, 0);            /* reusePaddingOptimization */
	put8(&file, 1);            /* emptyBaseClassOptimization */
	put32(&file, 3);           /* numSections */
	put32(&file, 2);           /* contentsSectionIndex */
	put32(&file, root);        /* contentsSectionOffset */
	put32(&file, 0);           /* contentsClassNameSectionIndex */
	put32(&file, name_at[4]);  /* contentsClassNameSectionOffset */
	char version[16];
	memset(version, 0xFF, sizeof(version));
	memcpy(version, "hk_2010.2.0-r1", 15);
	putbytes(&file, version, 16);
	put32(&file, 0);           /* flags */
	put16(&file, 0xFFFF);      /* maxPredicate -1 */
	put16(&file, 0xFFFF);      /* predicateArraySizePlusPadding -1 */

	/* section headers (§5.2): tag[20], then 7 offsets relative to the data start */
	uint32_t names_start = 0x40 + 3 * 48;
	uint32_t types_start = names_start + (uint32_t)names.n;
	uint32_t data_start = types_start;
	const char *tags[3] = {"__classnames__", "__types__", "__data__"};
	uint32_t starts[3] = {names_start, types_start, data_start};
	for (int s = 0; s < 3; s++) {
		char tag[20];
		memset(tag, 0, sizeof(tag));
		memcpy(tag, tags[s], strlen(tags[s]));
		tag[19] = (char)0xFF;
		putbytes(&file, tag, 20);
		put32(&file, starts[s]);
		if (s == 2) {
			put32(&file, local_off);
			put32(&file, global_off);
			put32(&file, virtual_off);
			put32(&file, data_end);
			put32(&file, data_end);
			put32(&file, data_end);
		} else {
			uint32_t end = s == 0 ? (uint32_t)names.n : 0;
			for (int k = 0; k < 6; k++)
				put32(&file, end);
		}
	}
	putbytes(&file, names.b, names.n);
	putbytes(&file, data.b, data.n);

	FILE *f = fopen(out_path, "wb");
	if (!f || fwrite(file.b, 1, file.n, f) != file.n || fclose(f) != 0) {
		fprintf(stderr, "make_sample: cannot write %s\n", out_path);
		return 1;
	}
	return 0;
}
