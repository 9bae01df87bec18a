/*
 * glTF 2.0 import (docs/GLTF.md): .glb / .gltf -> frames of one animation,
 * resampled at a target frame rate, matched to a skeleton by bone name.
 *
 * Every index and range of the file is checked before use (hostile input is
 * normal input): buffers, bufferViews, accessors (component types, strides,
 * counts), samplers (strictly increasing times) and channel targets. glTF
 * interpolation (glTF 2.0 §3.11): STEP, LINEAR (slerp for rotations) and
 * CUBICSPLINE (Hermite; rotations normalized after). Buffers (GLB BIN, data:
 * URIs, external files) come from gltf_buffers.c; accessors may be sparse or
 * have no bufferView (§3.6.2.3, §3.6.2.1: a dense copy is made); node matrices
 * are decomposed into TRS (gltf_math.c). docs/GLTF.md "What the importer
 * accepts" lists every rule.
 */
#include "author.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct gbuf {
	const uint8_t *data;
	size_t size;
} gbuf;

typedef struct gr {
	hks_ctx *ctx;
	hks_arena *arena;
	json_t *root;
	author_buffers bufs;
	int64_t json_offset;  /* byte offset of the JSON text in the file (GLB: 20) */
	uint8_t *times_ok;    /* per accessor: its keyframe times were checked (issue 17 L2: once, not per channel) */
	size_t num_times_ok;
	struct acc_memo *memo; /* per accessor: the last get_accessor result (L2: a dense or sparse copy once) */
	size_t num_memo;
} gr;

static hks_result bad(gr *g, const char *member, const char *fmt, ...) HKS_PRINTF(3, 4);
static hks_result bad(gr *g, const char *member, const char *fmt, ...)
{
	hks_err_member(g->ctx, member);
	va_list ap;
	va_start(ap, fmt);
	hks_result r = hks_failv(g->ctx, HKS_E_MALFORMED, -1, fmt, ap);
	va_end(ap);
	return r;
}

static hks_result nomem(gr *g)
{
	return g->ctx->err && g->ctx->err->code ? g->ctx->err->code : HKS_E_NOMEM;
}

/* A non-negative integer member below `limit`. */
static int get_index(const json_t *obj, const char *key, size_t limit, size_t *out)
{
	const json_t *v = json_object_get(obj, key);
	if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) >= limit)
		return 0;
	*out = (size_t)json_integer_value(v);
	return 1;
}

static int get_f32_array(const json_t *v, float *out, size_t n)
{
	if (!json_is_array(v) || json_array_size(v) != n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const json_t *x = json_array_get(v, i);
		if (!json_is_number(x))
			return 0;
		out[i] = (float)json_number_value(x);
	}
	return 1;
}

/* A float of the extras: a number, or "nan" / "inf" / "-inf" as the writer emits them. */
static int get_f32(const json_t *x, float *out)
{
	if (json_is_number(x)) {
		*out = (float)json_number_value(x);
		return 1;
	}
	const char *s = json_string_value(x);
	if (!s)
		return 0;
	if (!strcmp(s, "nan"))
		*out = NAN;
	else if (!strcmp(s, "inf"))
		*out = INFINITY;
	else if (!strcmp(s, "-inf"))
		*out = -INFINITY;
	else
		return 0;
	return 1;
}

/* ---- container ---- */

static hks_result split_glb(gr *g, const uint8_t *p, size_t size, const uint8_t **json, size_t *json_size,
                            gbuf *bin)
{
	hks_cursor c = hks_cursor_make(g->ctx, p, size, 0);
	uint32_t magic, version, length, clen, ctype;
	HKS_TRY(hks_read_le32(&c, &magic, "GLB magic"));
	HKS_TRY(hks_read_le32(&c, &version, "GLB version"));
	HKS_TRY(hks_read_le32(&c, &length, "GLB length"));
	if (version != 2)
		return hks_fail(g->ctx, HKS_E_UNSUPPORTED, 4, "GLB version %u (only 2)", version);
	if (length > size)
		return hks_fail(g->ctx, HKS_E_TRUNCATED, 8, "GLB declares %u bytes, the file has %zu", length, size);
	c = hks_cursor_make(g->ctx, p, length, 0);
	HKS_TRY(hks_skip(&c, 12, "GLB header"));
	HKS_TRY(hks_read_le32(&c, &clen, "JSON chunk length"));
	HKS_TRY(hks_read_le32(&c, &ctype, "JSON chunk type"));
	if (ctype != GLB_CHUNK_JSON)
		return hks_fail(g->ctx, HKS_E_MALFORMED, 16, "the first GLB chunk is not JSON (type 0x%08x)", ctype);
	g->json_offset = hks_cursor_offset(&c);
	HKS_TRY(hks_read_bytes(&c, clen, json, "JSON chunk"));
	*json_size = clen;
	bin->data = NULL;
	bin->size = 0;
	while (c.pos + 8 <= c.size) {
		int64_t at = hks_cursor_offset(&c);
		const uint8_t *d;
		HKS_TRY(hks_read_le32(&c, &clen, "chunk length"));
		HKS_TRY(hks_read_le32(&c, &ctype, "chunk type"));
		HKS_TRY(hks_read_bytes(&c, clen, &d, "chunk data"));
		if (ctype == GLB_CHUNK_BIN) {
			if (bin->data)
				return hks_fail(g->ctx, HKS_E_MALFORMED, at, "a second BIN chunk");
			bin->data = d;
			bin->size = clen;
		}
		HKS_TRY(hks_align(&c, 4, "chunk padding"));
	}
	return HKS_OK;
}

/* ---- accessors ---- */

typedef struct acc {
	const uint8_t *base;   /* first element */
	size_t count, stride;
	uint32_t comps, ctype;
	int normalized;
} acc;

static uint32_t comps_of(const char *type)
{
	if (!type)
		return 0;
	if (!strcmp(type, "SCALAR"))
		return 1;
	if (!strcmp(type, "VEC2"))
		return 2;
	if (!strcmp(type, "VEC3"))
		return 3;
	if (!strcmp(type, "VEC4"))
		return 4;
	if (!strcmp(type, "MAT4"))
		return 16;
	return 0;
}

static uint32_t ctype_size(uint32_t t)
{
	switch (t) {
	case GLTF_FLOAT:
		return 4;
	case GLTF_BYTE:
	case GLTF_UNSIGNED_BYTE:
		return 1;
	case GLTF_SHORT:
	case GLTF_UNSIGNED_SHORT:
		return 2;
	default:
		return 0;
	}
}

/* Which component types an accessor may have (glTF 2.0 §3.11, table of
 * animation sampler outputs): keyframe times, translations and scales are
 * float; rotations are float or normalized byte / unsigned byte / short /
 * unsigned short. */
enum { ACC_FLOAT_ONLY = 0, ACC_ROTATION = 1 };

/* A bufferView's bytes: [offset, offset + length) of its buffer, checked. */
static hks_result get_view(gr *g, const char *member, size_t vi, const uint8_t **data, size_t *length,
                           int64_t *stride)
{
	const json_t *views = json_object_get(g->root, "bufferViews");
	const json_t *v = json_array_get(views, vi);
	size_t bi;
	if (!json_is_object(v))
		return bad(g, member, "bufferView %zu does not exist", vi);
	if (!get_index(v, "buffer", g->bufs.count, &bi))
		return bad(g, member, "bufferViews[%zu].buffer is missing or out of range", vi);
	const json_t *vo = json_object_get(v, "byteOffset"), *vl = json_object_get(v, "byteLength"),
	             *vs = json_object_get(v, "byteStride");
	int64_t voff = vo ? (json_is_integer(vo) ? json_integer_value(vo) : -1) : 0;
	int64_t vlen = json_is_integer(vl) ? json_integer_value(vl) : -1;
	*stride = vs ? (json_is_integer(vs) ? json_integer_value(vs) : -1) : 0;
	/* glTF 2.0 §5.11: byteLength >= 1, byteStride in [4, 252] */
	if (voff < 0 || vlen < 1 || (vs && (*stride < 4 || *stride > 252)))
		return bad(g, member, "bufferViews[%zu] offset, length or stride invalid", vi);
	const author_buffer *b;
	hks_err_member(g->ctx, member);
	HKS_TRY(author_buffer_get(&g->bufs, bi, &b));
	if (!hks_range_ok(b->size, (uint64_t)voff, (uint64_t)vlen))
		return bad(g, member, "bufferViews[%zu] [%lld, +%lld) lies outside its %zu-byte buffer", vi,
		           (long long)voff, (long long)vlen, b->size);
	*data = b->data + voff;
	*length = (size_t)vlen;
	return HKS_OK;
}

/* Sparse storage (glTF 2.0 §3.6.2.3): `count` strictly increasing indices
 * (unsigned byte / short / int) and as many elements, tightly packed, that
 * replace the elements of the dense copy at `dense` (the bufferView's data or
 * zeros). */
static hks_result apply_sparse(gr *g, const char *member, const json_t *sparse, acc *a, uint8_t *dense, size_t esize)
{
	const json_t *jc = json_object_get(sparse, "count"), *ji = json_object_get(sparse, "indices"),
	             *jv = json_object_get(sparse, "values");
	if (!json_is_integer(jc) || json_integer_value(jc) < 1 || (uint64_t)json_integer_value(jc) > a->count ||
	    !json_is_object(ji) || !json_is_object(jv))
		return bad(g, member, "sparse: count (1 to %zu), indices and values are required", a->count);
	size_t n = (size_t)json_integer_value(jc);
	const json_t *ict = json_object_get(ji, "componentType");
	uint32_t isize = 0;
	if (json_is_integer(ict))
		switch (json_integer_value(ict)) {
		case GLTF_UNSIGNED_BYTE:
			isize = 1;
			break;
		case GLTF_UNSIGNED_SHORT:
			isize = 2;
			break;
		case GLTF_UNSIGNED_INT:
			isize = 4;
			break;
		default:
			break;
		}
	if (!isize)
		return bad(g, member, "sparse.indices: componentType must be 5121, 5123 or 5125");
	const uint8_t *part[2];
	for (int k = 0; k < 2; k++) {
		const json_t *side = k ? jv : ji;
		const char *what = k ? "values" : "indices";
		size_t vi, vlen;
		int64_t stride;
		const json_t *views = json_object_get(g->root, "bufferViews");
		const json_t *jo = json_object_get(side, "byteOffset");
		int64_t off = jo ? (json_is_integer(jo) ? json_integer_value(jo) : -1) : 0;
		if (!get_index(side, "bufferView", json_is_array(views) ? json_array_size(views) : 0, &vi) || off < 0)
			return bad(g, member, "sparse.%s: bufferView missing or out of range, or byteOffset invalid",
			           what);
		const uint8_t *d;
		HKS_TRY(get_view(g, member, vi, &d, &vlen, &stride));
		if (stride) /* §3.6.2.3: sparse indices and values are tightly packed */
			return bad(g, member, "sparse.%s: its bufferView has a byteStride", what);
		uint64_t need = (uint64_t)n * (k ? esize : isize);
		if (!hks_range_ok(vlen, (uint64_t)off, need))
			return bad(g, member, "sparse.%s need %llu bytes at %lld of a %zu-byte bufferView", what,
			           (unsigned long long)need, (long long)off, vlen);
		part[k] = d + off;
	}
	uint64_t prev = 0;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *p = part[0] + i * isize;
		uint64_t at = isize == 1 ? p[0] : isize == 2 ? hks_le16(p) : hks_le32(p);
		if (at >= a->count || (i && at <= prev))
			return bad(g, member, "sparse.indices[%zu] = %llu: not strictly increasing below count %zu", i,
			           (unsigned long long)at, a->count);
		memcpy(dense + at * esize, part[1] + i * esize, esize);
		prev = at;
	}
	return HKS_OK;
}

static hks_result get_accessor(gr *g, size_t index, uint32_t want_comps, int kind, acc *out)
{
	char member[48];
	snprintf(member, sizeof(member), "accessors[%zu]", index);
	const json_t *accs = json_object_get(g->root, "accessors");
	const json_t *a = json_array_get(accs, index);
	if (!json_is_object(a))
		return bad(g, member, "does not exist");
	const json_t *ct = json_object_get(a, "componentType"), *cnt = json_object_get(a, "count");
	uint32_t comps = comps_of(json_string_value(json_object_get(a, "type")));
	if (!json_is_integer(ct) || !ctype_size((uint32_t)json_integer_value(ct)) || !json_is_integer(cnt) ||
	    json_integer_value(cnt) < 1 || comps != want_comps)
		return bad(g, member, "type, componentType or count is invalid (want %lld components, count >= 1)",
		           (long long)want_comps);
	out->ctype = (uint32_t)json_integer_value(ct);
	out->comps = comps;
	out->count = (size_t)json_integer_value(cnt);
	out->normalized = json_is_true(json_object_get(a, "normalized"));
	if (out->ctype != GLTF_FLOAT && (kind != ACC_ROTATION || !out->normalized))
		return bad(g, member,
		           "componentType %u%s is not allowed here (glTF 2.0 §3.11: keyframe times, translations and "
		           "scales are float; rotations float or normalized integers)",
		           out->ctype, out->normalized ? " normalized" : "");
	if (out->count > g->ctx->limits.max_frames * (size_t)3 + 3) {
		hks_err_member(g->ctx, member);
		return hks_fail(g->ctx, HKS_E_LIMIT, -1, "%zu elements exceed the frame limit", out->count);
	}
	size_t esize = (size_t)ctype_size(out->ctype) * comps;
	const json_t *views = json_object_get(g->root, "bufferViews"), *jview = json_object_get(a, "bufferView"),
	             *sparse = json_object_get(a, "sparse");
	const uint8_t *vdata = NULL;
	size_t vlen = 0;
	int64_t stride = (int64_t)esize;
	if (jview) {
		size_t vi;
		const json_t *ao = json_object_get(a, "byteOffset");
		int64_t aoff = ao ? (json_is_integer(ao) ? json_integer_value(ao) : -1) : 0;
		if (!get_index(a, "bufferView", json_is_array(views) ? json_array_size(views) : 0, &vi) || aoff < 0)
			return bad(g, member, "bufferView out of range or byteOffset invalid");
		int64_t vstride;
		HKS_TRY(get_view(g, member, vi, &vdata, &vlen, &vstride));
		if (vstride) {
			if (vstride < (int64_t)esize)
				return bad(g, member, "byteStride %lld is below the element size %zu", (long long)vstride,
				           esize);
			stride = vstride;
		}
		uint64_t need = (uint64_t)aoff + (uint64_t)stride * (out->count - 1) + esize;
		if (need > (uint64_t)vlen)
			return bad(g, member, "needs %llu bytes of a %lld-byte bufferView", (unsigned long long)need,
			           (long long)vlen);
		vdata += aoff;
	}
	if (vdata && !sparse) {
		out->base = vdata;
		out->stride = (size_t)stride;
		return HKS_OK;
	}
	/* No bufferView (zeros, §3.6.2.1) or sparse: a dense copy, tightly packed.
	 * count * esize is below 3 million x 16 bytes (limit check above), and the
	 * arena charges it against max_memory. */
	uint8_t *dense = (uint8_t *)hks_arena_array(g->arena, out->count, esize);
	if (!dense)
		return nomem(g);
	for (size_t i = 0; vdata && i < out->count; i++)
		memcpy(dense + i * esize, vdata + i * (size_t)stride, esize);
	if (sparse) {
		if (!json_is_object(sparse))
			return bad(g, member, "sparse is not an object");
		HKS_TRY(apply_sparse(g, member, sparse, out, dense, esize));
	}
	out->base = dense;
	out->stride = esize;
	return HKS_OK;
}

/* Component k of element i, as a float (normalized integers per glTF §3.11). */
static float acc_get(const acc *a, size_t i, uint32_t k)
{
	const uint8_t *p = a->base + i * a->stride;
	switch (a->ctype) {
	case GLTF_FLOAT:
		return hks_f32_from_bits(hks_le32(p + 4 * k));
	case GLTF_BYTE: {
		float v = (float)(int8_t)p[k] / 127.0f;
		return v < -1 ? -1 : v;
	}
	case GLTF_UNSIGNED_BYTE:
		return (float)p[k] / 255.0f;
	case GLTF_SHORT: {
		float v = (float)(int16_t)hks_le16(p + 2 * k) / 32767.0f;
		return v < -1 ? -1 : v;
	}
	default:
		return (float)hks_le16(p + 2 * k) / 65535.0f;
	}
}

/* get_accessor, remembered per accessor index (with the components and kind asked): channels
 * sharing an accessor validate and copy it once (issue 17 L2). */
typedef struct acc_memo {
	int valid;
	uint32_t comps;
	int kind;
	acc a;
} acc_memo;

static hks_result get_accessor_once(gr *g, size_t na, size_t index, uint32_t want_comps, int kind, acc *out)
{
	if (!g->memo && na) {
		g->memo = (acc_memo *)hks_arena_array(g->arena, na, sizeof(acc_memo));
		if (!g->memo)
			return nomem(g);
		g->num_memo = na;
	}
	acc_memo *m = index < g->num_memo ? &g->memo[index] : NULL;
	if (m && m->valid && m->comps == want_comps && m->kind == kind) {
		*out = m->a;
		return HKS_OK;
	}
	HKS_TRY(get_accessor(g, index, want_comps, kind, out));
	if (m) {
		m->valid = 1;
		m->comps = want_comps;
		m->kind = kind;
		m->a = *out;
	}
	return HKS_OK;
}

/* ---- channels ---- */

enum { PATH_T = 0, PATH_R = 1, PATH_S = 2 };
enum { INTERP_LINEAR = 0, INTERP_STEP = 1, INTERP_CUBIC = 2 };

typedef struct chan {
	acc in, out;
	int interp;
	uint32_t comps;
} chan;

static hks_result get_channel(gr *g, const json_t *anim, size_t ci, size_t *node, int *path, chan *ch)
{
	char member[64]; /* the object is animations[ai] (read_animation) */
	snprintf(member, sizeof(member), "channels[%zu]", ci);
	const json_t *c = json_array_get(json_object_get(anim, "channels"), ci);
	const json_t *samplers = json_object_get(anim, "samplers");
	const json_t *tg = json_object_get(c, "target");
	const json_t *nodes = json_object_get(g->root, "nodes");
	size_t si;
	if (!get_index(c, "sampler", json_is_array(samplers) ? json_array_size(samplers) : 0, &si))
		return bad(g, member, "sampler missing or out of range");
	const char *p = json_string_value(json_object_get(tg, "path"));
	if (!p)
		return bad(g, member, "target.path missing");
	if (!strcmp(p, "translation"))
		*path = PATH_T;
	else if (!strcmp(p, "rotation"))
		*path = PATH_R;
	else if (!strcmp(p, "scale"))
		*path = PATH_S;
	else {
		*path = -1; /* "weights" or an extension's path: not a bone transform */
		return HKS_OK;
	}
	if (!json_object_get(tg, "node")) {
		*path = -1; /* animation-pointer style targets without a node: ignored */
		return HKS_OK;
	}
	if (!get_index(tg, "node", json_is_array(nodes) ? json_array_size(nodes) : 0, node))
		return bad(g, member, "target.node out of range");
	const json_t *s = json_array_get(samplers, si);
	const char *ip = json_string_value(json_object_get(s, "interpolation"));
	ch->interp = !ip || !strcmp(ip, "LINEAR") ? INTERP_LINEAR : !strcmp(ip, "STEP") ? INTERP_STEP
	             : !strcmp(ip, "CUBICSPLINE")                               ? INTERP_CUBIC
	                                                                        : -1;
	if (ch->interp < 0)
		return bad(g, member, "unknown interpolation");
	ch->comps = *path == PATH_R ? 4 : 3;
	size_t in_i, out_i;
	const json_t *accs = json_object_get(g->root, "accessors");
	size_t na = json_is_array(accs) ? json_array_size(accs) : 0;
	if (!get_index(s, "input", na, &in_i) || !get_index(s, "output", na, &out_i))
		return bad(g, member, "sampler input / output missing or out of range");
	HKS_TRY(get_accessor_once(g, na, in_i, 1, ACC_FLOAT_ONLY, &ch->in));
	HKS_TRY(get_accessor_once(g, na, out_i, ch->comps, *path == PATH_R ? ACC_ROTATION : ACC_FLOAT_ONLY, &ch->out));
	size_t want = ch->in.count * (ch->interp == INTERP_CUBIC ? 3 : 1);
	if (ch->out.count != want)
		return bad(g, member, "%lld output elements for %lld keyframes", (long long)ch->out.count,
		           (long long)ch->in.count);
	/* a sampler input shared by many channels is checked once */
	if (!g->times_ok && na) {
		g->times_ok = (uint8_t *)hks_arena_alloc(g->arena, na);
		if (!g->times_ok)
			return nomem(g);
		g->num_times_ok = na;
	}
	if (in_i < g->num_times_ok && g->times_ok[in_i])
		return HKS_OK;
	float prev = acc_get(&ch->in, 0, 0);
	if (!isfinite(prev))
		return bad(g, member, "keyframe time 0 is not finite");
	for (size_t i = 1; i < ch->in.count; i++) {
		float t = acc_get(&ch->in, i, 0);
		if (!(t > prev) || !isfinite(t))
			return bad(g, member, "keyframe times not strictly increasing at key %lld",
			           (long long)i);
		prev = t;
	}
	if (in_i < g->num_times_ok)
		g->times_ok[in_i] = 1;
	return HKS_OK;
}

/* Value of a channel at time t (glTF §3.11 interpolation; clamped outside the keys). */
static void sample_channel(const chan *ch, float t, float *v)
{
	size_t n = ch->in.count, vk = ch->interp == INTERP_CUBIC ? 3 : 1, vo = ch->interp == INTERP_CUBIC ? 1 : 0;
	float t0 = acc_get(&ch->in, 0, 0), tn = acc_get(&ch->in, n - 1, 0);
	size_t i;
	if (!(t > t0) || n == 1) {
		for (uint32_t k = 0; k < ch->comps; k++)
			v[k] = acc_get(&ch->out, vo, k);
		return;
	}
	if (t >= tn) {
		for (uint32_t k = 0; k < ch->comps; k++)
			v[k] = acc_get(&ch->out, (n - 1) * vk + vo, k);
		return;
	}
	size_t lo = 0, hi = n - 1; /* in[lo] <= t < in[hi] */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (acc_get(&ch->in, mid, 0) <= t)
			lo = mid;
		else
			hi = mid;
	}
	i = lo;
	float ta = acc_get(&ch->in, i, 0), tb = acc_get(&ch->in, i + 1, 0);
	double dt = (double)tb - ta;
	/* on a key (within 1e-4 of the key interval: a writer's rounding of f / fps): its value, bit for bit */
	if ((double)tb - t <= 1e-4 * dt && ch->interp != INTERP_STEP) {
		for (uint32_t k = 0; k < ch->comps; k++)
			v[k] = acc_get(&ch->out, (i + 1) * vk + vo, k);
		return;
	}
	if ((double)t - ta <= 1e-4 * dt || ch->interp == INTERP_STEP) {
		for (uint32_t k = 0; k < ch->comps; k++)
			v[k] = acc_get(&ch->out, i * vk + vo, k);
		return;
	}
	double u = ((double)t - ta) / dt;
	float a[4], b[4];
	for (uint32_t k = 0; k < ch->comps; k++) {
		a[k] = acc_get(&ch->out, i * vk + vo, k);
		b[k] = acc_get(&ch->out, (i + 1) * vk + vo, k);
	}
	if (ch->interp == INTERP_LINEAR) {
		if (ch->comps == 4) {
			author_quat_slerp(a, b, (float)u, v);
			return;
		}
		for (uint32_t k = 0; k < ch->comps; k++)
			v[k] = (float)((1 - u) * a[k] + u * b[k]);
		return;
	}
	/* CUBICSPLINE: elements are (in-tangent, value, out-tangent) per key */
	double u2 = u * u, u3 = u2 * u;
	double h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
	for (uint32_t k = 0; k < ch->comps; k++) {
		double mo = acc_get(&ch->out, i * 3 + 2, k), mi = acc_get(&ch->out, (i + 1) * 3, k);
		v[k] = (float)(h00 * a[k] + h10 * dt * mo + h01 * b[k] + h11 * dt * mi);
	}
	if (ch->comps == 4)
		author_quat_normalize(v);
}

/* ---- matching and resampling ---- */

typedef struct named {
	const char *name;
	size_t index;
} named;

static int named_cmp(const void *a, const void *b)
{
	const named *x = (const named *)a, *y = (const named *)b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->index < y->index ? -1 : x->index > y->index);
}

static const named *find_named(const named *v, size_t n, const char *name)
{
	size_t lo = 0, hi = n;
	while (lo < hi) { /* first entry >= name */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(v[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(v[lo].name, name) ? &v[lo] : NULL;
}

/* A node's static TRS (defaults where absent). A `matrix` (glTF 2.0 §3.5.2)
 * is decomposed into T·R·S (author_mat_decompose: shear, singular and
 * non-affine matrices are refused, a mirror becomes negative scales). A
 * matrix other than the identity together with translation / rotation /
 * scale is ambiguous and refused; the identity is the default value, which
 * writers may spell out beside TRS. */
static hks_result node_trs(gr *g, const json_t *node, size_t index, float t[3], float r[4], float s[3])
{
	static const float id_t[3] = {0, 0, 0}, id_r[4] = {0, 0, 0, 1}, id_s[3] = {1, 1, 1};
	memcpy(t, id_t, sizeof(id_t));
	memcpy(r, id_r, sizeof(id_r));
	memcpy(s, id_s, sizeof(id_s));
	char member[48];
	snprintf(member, sizeof(member), "nodes[%zu]", index);
	const json_t *jt = json_object_get(node, "translation"), *jr = json_object_get(node, "rotation"),
	             *js = json_object_get(node, "scale");
	if ((jt && !get_f32_array(jt, t, 3)) || (jr && !get_f32_array(jr, r, 4)) || (js && !get_f32_array(js, s, 3)))
		return bad(g, member, "translation / rotation / scale must be arrays of 3 / 4 / 3 numbers");
	const json_t *m = json_object_get(node, "matrix");
	if (!m)
		return HKS_OK;
	double mv[16];
	int identity = 1;
	if (!json_is_array(m) || json_array_size(m) != 16)
		return bad(g, member, "matrix must hold 16 numbers");
	for (size_t k = 0; k < 16; k++) {
		const json_t *x = json_array_get(m, k);
		if (!json_is_number(x))
			return bad(g, member, "matrix must hold 16 numbers");
		/* glTF stores f32 values: round as a float accessor would */
		mv[k] = (double)(float)json_number_value(x);
		identity &= mv[k] == ((k % 5) == 0 ? 1.0 : 0.0);
	}
	if (identity)
		return HKS_OK;
	if (jt || jr || js)
		return bad(g, member,
		           "has both a matrix and translation / rotation / scale (glTF 2.0 §3.5.2: one or the other)");
	author_trs x;
	const char *why = author_mat_decompose(mv, &x);
	if (why) {
		hks_err_member(g->ctx, member);
		return hks_fail(g->ctx, HKS_E_UNSUPPORTED, -1,
		                "%s; glTF requires matrices decomposable into translation, rotation and scale", why);
	}
	for (int k = 0; k < 3; k++) {
		t[k] = (float)x.t[k];
		s[k] = (float)x.s[k];
	}
	for (int k = 0; k < 4; k++)
		r[k] = (float)x.r[k];
	return HKS_OK;
}

/* ---- rest poses (docs/GLTF.md "Rest poses") ---- */

/* Per skeleton bone: the glTF node, the rest rotations composed to model space along
 * the glTF's and the skeleton's parents, and the constant change of axes
 * qc = conj(glTF world rest) · Havok world rest (glTF_world · C = Havok_world). */
typedef struct rest_info {
	int32_t *node;        /* per bone: glTF node, -1 none */
	int32_t *gparent;     /* per bone: the bone of the glTF parent node, -1 none */
	double (*qc)[4];      /* per bone: the change of axes (identity when none) */
	uint8_t *axes;        /* per bone: qc is not the identity (the bone is converted) */
	uint8_t *bad_parent;  /* per bone: the glTF parent is not the skeleton's parent */
} rest_info;

#define REST_AXIS_EPS 1e-4 /* radians: smaller changes of axes are f32 noise of the writer */
#define REST_DIFF_EPS 1e-4 /* m or scale units: rest-pose differences reported */

static int32_t havok_parent(const hks_skeleton *sk, uint32_t b)
{
	if (!sk->parent_indices || b >= sk->num_parent_indices)
		return -1;
	int32_t p = sk->parent_indices[b];
	return p >= 0 && (uint32_t)p < sk->num_bones && (uint32_t)p != b ? p : -1;
}

/* World rest rotations of every bone along `parent` (cycles and over-long chains end
 * at the bone that repeats: it is taken as a root). */
static void world_rotations(uint32_t nb, const int32_t *parent, const double (*local)[4], double (*world)[4],
                            uint8_t *state, uint32_t *stack)
{
	for (uint32_t b = 0; b < nb; b++) {
		if (state[b] == 2)
			continue;
		uint32_t depth = 0, x = b;
		while (state[x] == 0 && depth < nb) {
			state[x] = 1; /* on the stack */
			stack[depth++] = x;
			if (parent[x] < 0 || state[parent[x]] != 0)
				break;
			x = (uint32_t)parent[x];
		}
		while (depth) {
			uint32_t y = stack[--depth];
			int32_t p = parent[y];
			if (p >= 0 && state[p] == 2)
				author_qmul(world[p], local[y], world[y]);
			else
				memcpy(world[y], local[y], sizeof(world[y]));
			author_qnormalize(world[y]);
			state[y] = 2;
		}
	}
}

static hks_result rest_poses(gr *g, const hks_skeleton *sk, const json_t *nodes, size_t num_nodes, const named *by_name,
                             size_t nn, hks_gltf_animation *out, rest_info *ri)
{
	uint32_t nb = sk->num_bones;
	int32_t *parent_node = (int32_t *)hks_arena_array(g->arena, num_nodes + 1, sizeof(int32_t));
	int32_t *node_bone = (int32_t *)hks_arena_array(g->arena, num_nodes + 1, sizeof(int32_t));
	int32_t *hparent = (int32_t *)hks_arena_array(g->arena, nb + 1, sizeof(int32_t));
	double(*ql)[4] = (double(*)[4])hks_arena_array(g->arena, nb + 1, sizeof(double[4]));
	double(*hl)[4] = (double(*)[4])hks_arena_array(g->arena, nb + 1, sizeof(double[4]));
	double(*gw)[4] = (double(*)[4])hks_arena_array(g->arena, nb + 1, sizeof(double[4]));
	double(*hw)[4] = (double(*)[4])hks_arena_array(g->arena, nb + 1, sizeof(double[4]));
	float(*gt)[3] = (float(*)[3])hks_arena_array(g->arena, nb + 1, sizeof(float[3]));
	float(*gs)[3] = (float(*)[3])hks_arena_array(g->arena, nb + 1, sizeof(float[3]));
	uint8_t *state = (uint8_t *)hks_arena_array(g->arena, nb + 1, 1);
	uint32_t *stack = (uint32_t *)hks_arena_array(g->arena, nb + 1, sizeof(uint32_t));
	ri->node = (int32_t *)hks_arena_array(g->arena, nb + 1, sizeof(int32_t));
	ri->gparent = (int32_t *)hks_arena_array(g->arena, nb + 1, sizeof(int32_t));
	ri->qc = (double(*)[4])hks_arena_array(g->arena, nb + 1, sizeof(double[4]));
	ri->axes = (uint8_t *)hks_arena_array(g->arena, nb + 1, 1);
	ri->bad_parent = (uint8_t *)hks_arena_array(g->arena, nb + 1, 1);
	int32_t *axis_bones = (int32_t *)hks_arena_array(g->arena, nb + 1, sizeof(int32_t));
	int32_t *rest_bones = (int32_t *)hks_arena_array(g->arena, nb + 1, sizeof(int32_t));
	float *rest_t = (float *)hks_arena_array(g->arena, nb + 1, sizeof(float));
	float *rest_s = (float *)hks_arena_array(g->arena, nb + 1, sizeof(float));
	uint8_t *rest_h = (uint8_t *)hks_arena_array(g->arena, nb + 1, 1);
	uint8_t *rest_u = (uint8_t *)hks_arena_array(g->arena, nb + 1, 1);
	if (!parent_node || !node_bone || !hparent || !ql || !hl || !gw || !hw || !gt || !gs || !state || !stack ||
	    !ri->node || !ri->gparent || !ri->qc || !ri->axes || !ri->bad_parent || !axis_bones || !rest_bones ||
	    !rest_t || !rest_s || !rest_h || !rest_u)
		return nomem(g);
	out->rest_unit_scale = rest_u;
	out->axis_bones = axis_bones;
	out->rest_bones = rest_bones;
	out->rest_translation = rest_t;
	out->rest_scale = rest_s;
	out->rest_hierarchy = rest_h;
	for (size_t i = 0; i < num_nodes; i++)
		parent_node[i] = node_bone[i] = -1;
	for (size_t i = 0; i < num_nodes; i++) {
		const json_t *ch = json_object_get(json_array_get(nodes, i), "children");
		for (size_t k = 0; json_is_array(ch) && k < json_array_size(ch); k++) {
			const json_t *c = json_array_get(ch, k);
			if (json_is_integer(c) && json_integer_value(c) >= 0 && (uint64_t)json_integer_value(c) < num_nodes &&
			    parent_node[json_integer_value(c)] < 0 && (size_t)json_integer_value(c) != i)
				parent_node[json_integer_value(c)] = (int32_t)i;
		}
	}
	for (uint32_t b = 0; b < nb; b++) {
		const named *hit = sk->bone_names && sk->bone_names[b] ? find_named(by_name, nn, sk->bone_names[b]) : NULL;
		ri->node[b] = hit ? (int32_t)hit->index : -1;
		if (hit && node_bone[hit->index] < 0)
			node_bone[hit->index] = (int32_t)b;
		ri->qc[b][3] = 1;
		hparent[b] = havok_parent(sk, b);
		static const float id[4] = {0, 0, 0, 1};
		const float *hr = b < sk->num_reference_pose && sk->reference_pose ? sk->reference_pose[b].rotation : id;
		for (int k = 0; k < 4; k++)
			hl[b][k] = hr[k];
		author_qnormalize(hl[b]);
		memcpy(ql[b], hl[b], sizeof(ql[b])); /* a bone without node: as the skeleton */
	}
	for (uint32_t b = 0; b < nb; b++) {
		ri->gparent[b] = -1;
		if (ri->node[b] < 0) {
			ri->gparent[b] = hparent[b];
			continue;
		}
		float t[3], r[4], sc[3];
		HKS_TRY(node_trs(g, json_array_get(nodes, (size_t)ri->node[b]), (size_t)ri->node[b], t, r, sc));
		memcpy(gt[b], t, sizeof(t));
		memcpy(gs[b], sc, sizeof(sc));
		for (int k = 0; k < 4; k++)
			ql[b][k] = r[k];
		author_qnormalize(ql[b]);
		int32_t pn = parent_node[ri->node[b]];
		ri->gparent[b] = pn >= 0 ? node_bone[pn] : -1;
		ri->bad_parent[b] = ri->gparent[b] != hparent[b];
	}
	world_rotations(nb, ri->gparent, (const double(*)[4])ql, gw, state, stack);
	memset(state, 0, nb);
	world_rotations(nb, hparent, (const double(*)[4])hl, hw, state, stack);
	for (uint32_t b = 0; b < nb; b++) {
		if (ri->node[b] < 0)
			continue;
		if (!ri->bad_parent[b]) {
			double c[4];
			author_qconj(gw[b], c);
			author_qmul(c, hw[b], ri->qc[b]);
			author_qnormalize(ri->qc[b]);
			if (ri->qc[b][3] < 0)
				for (int k = 0; k < 4; k++)
					ri->qc[b][k] = -ri->qc[b][k];
			double a = author_qangle(ri->qc[b]);
			if (a > REST_AXIS_EPS) {
				ri->axes[b] = 1;
				axis_bones[out->num_axis_bones++] = (int32_t)b;
				out->max_axis_angle = a > out->max_axis_angle ? a : out->max_axis_angle;
			} else {
				ri->qc[b][0] = ri->qc[b][1] = ri->qc[b][2] = 0;
				ri->qc[b][3] = 1;
			}
		}
	}
	/* what a change of axes does not explain: the glTF rest translation against the
	 * skeleton's in the parent's glTF axes, the scales, the parent */
	for (uint32_t b = 0; b < nb; b++) {
		if (ri->node[b] < 0 || !sk->reference_pose || b >= sk->num_reference_pose)
			continue;
		int32_t p = hparent[b];
		double ht[3], et[3], m[3][3];
		for (int k = 0; k < 3; k++)
			ht[k] = sk->reference_pose[b].translation[k];
		author_qrotate(p >= 0 ? ri->qc[p] : (const double[4]){0, 0, 0, 1}, ht, et);
		double dt = 0, ds = 0;
		for (int k = 0; k < 3; k++)
			dt += (gt[b][k] - et[k]) * (gt[b][k] - et[k]);
		dt = sqrt(dt);
		author_qmatrix(ri->qc[b], m);
		for (int i = 0; i < 3; i++) {
			double e = 0;
			for (int j = 0; j < 3; j++)
				e += m[i][j] * m[i][j] * sk->reference_pose[b].scale[j];
			double d = fabs(gs[b][i] - e);
			ds = d > ds ? d : ds;
		}
		if (!(dt <= REST_DIFF_EPS) || !(ds <= REST_DIFF_EPS) || ri->bad_parent[b]) {
			rest_bones[out->num_rest_bones] = (int32_t)b;
			rest_t[out->num_rest_bones] = (float)dt;
			rest_s[out->num_rest_bones] = (float)ds;
			rest_u[out->num_rest_bones] = fabsf(gs[b][0] - 1) <= 1e-6f && fabsf(gs[b][1] - 1) <= 1e-6f &&
			                              fabsf(gs[b][2] - 1) <= 1e-6f;
			rest_h[out->num_rest_bones++] = ri->bad_parent[b];
		}
	}
	return HKS_OK;
}

/* One sample of bone b from the glTF bone frame to the skeleton's:
 * Havok_local = inverse(C_parent) · glTF_local · C_b (C rotations; docs/GLTF.md). */
static void to_havok_axes(const rest_info *ri, uint32_t b, float *x)
{
	static const double id[4] = {0, 0, 0, 1};
	int32_t p = ri->gparent[b];
	const double *qp = p >= 0 ? ri->qc[p] : id, *qb = ri->qc[b];
	double cp[4], t[3], r[4], q[4], m[3][3], s[3];
	author_qconj(qp, cp);
	for (int k = 0; k < 3; k++)
		t[k] = x[k];
	author_qrotate(cp, t, t);
	for (int k = 0; k < 4; k++)
		r[k] = x[3 + k];
	author_qmul(cp, r, q);
	author_qmul(q, qb, q);
	author_qmatrix(qb, m);
	for (int j = 0; j < 3; j++) {
		s[j] = 0;
		for (int i = 0; i < 3; i++)
			s[j] += m[i][j] * m[i][j] * x[7 + i];
	}
	for (int k = 0; k < 3; k++) {
		x[k] = (float)t[k];
		x[7 + k] = (float)s[k];
	}
	for (int k = 0; k < 4; k++)
		x[3 + k] = (float)q[k];
}

static const json_t *select_animation(gr *g, const hks_gltf_read_options *o, size_t *ai)
{
	const json_t *anims = json_object_get(g->root, "animations");
	size_t n = json_is_array(anims) ? json_array_size(anims) : 0;
	if (o && o->animation_name) {
		for (size_t i = 0; i < n; i++) {
			const char *nm = json_string_value(json_object_get(json_array_get(anims, i), "name"));
			if (nm && !strcmp(nm, o->animation_name)) {
				*ai = i;
				return json_array_get(anims, i);
			}
		}
		return NULL;
	}
	size_t want = o && o->animation >= 0 ? (size_t)o->animation : 0;
	*ai = want;
	return want < n ? json_array_get(anims, want) : NULL;
}

static hks_result import(gr *g, const hks_skeleton *sk, const hks_gltf_read_options *o, hks_gltf_animation *out)
{
	hks_ctx *ctx = g->ctx;
	const json_t *anims = json_object_get(g->root, "animations");
	out->num_gltf_animations = json_is_array(anims) ? (uint32_t)json_array_size(anims) : 0;
	size_t ai = 0;
	const json_t *anim = select_animation(g, o, &ai);
	if (!anim) {
		hks_err_member(ctx, "animations");
		if (o && o->animation_name)
			return hks_fail(ctx, HKS_E_NOT_FOUND, -1, "no glTF animation named '%s' (%u animations)",
			                o->animation_name, out->num_gltf_animations);
		return hks_fail(ctx, HKS_E_NOT_FOUND, -1, "glTF animation %lld not found (%u animations)",
		                (long long)(o && o->animation >= 0 ? o->animation : 0), out->num_gltf_animations);
	}
	const char *aname = json_string_value(json_object_get(anim, "name"));
	snprintf(out->name, sizeof(out->name), "%s", aname ? aname : "");
	hks_err_object(ctx, "animations[%zu]", ai);
	const json_t *nodes = json_object_get(g->root, "nodes");
	size_t num_nodes = json_is_array(nodes) ? json_array_size(nodes) : 0;
	if (num_nodes > ctx->limits.max_objects)
		return hks_fail(ctx, HKS_E_LIMIT, -1, "%zu nodes", num_nodes);

	/* channels per node and path; a later channel on the same target replaces an earlier one */
	const json_t *jch = json_object_get(anim, "channels");
	size_t nch = json_is_array(jch) ? json_array_size(jch) : 0;
	if (!nch)
		return bad(g, "channels", "%s has no channels", "the animation");
	chan *chans = (chan *)hks_arena_array(g->arena, nch, sizeof(chan));
	int32_t(*by_node)[3] = (int32_t(*)[3])hks_arena_array(g->arena, num_nodes + 1, sizeof(int32_t[3]));
	uint8_t *is_tr = (uint8_t *)hks_arena_array(g->arena, nch, 1);
	if (!chans || !by_node || !is_tr)
		return nomem(g);
	for (size_t i = 0; i <= num_nodes; i++)
		by_node[i][0] = by_node[i][1] = by_node[i][2] = -1;
	double t0 = INFINITY, t1 = -INFINITY;
	for (size_t c = 0; c < nch; c++) {
		size_t node = 0;
		int path = -1;
		HKS_TRY(get_channel(g, anim, c, &node, &path, &chans[c]));
		if (path < 0)
			continue;
		by_node[node][path] = (int32_t)c;
		is_tr[c] = 1;
		double a = acc_get(&chans[c].in, 0, 0), b = acc_get(&chans[c].in, chans[c].in.count - 1, 0);
		t0 = a < t0 ? a : t0;
		t1 = b > t1 ? b : t1;
	}
	if (!(t1 >= t0))
		return bad(g, "channels", "%s has no translation, rotation or scale channel", "the animation");

	/* frame count at the target rate */
	double fd = o && o->frame_duration > 0 ? o->frame_duration : 1.0 / 30.0;
	float fdf = (float)fd;
	double span = t1 - t0, nf = floor(span / (double)fdf + 0.5) + 1;
	/* the key-time grid (docs/GLTF.md "Frame grid"): the step of the channel with the most
	 * keys; off the target step, the clip is resampled (the caller warns) */
	size_t most = 0;
	for (size_t c = 0; c < nch; c++)
		if (chans[c].in.count > most && is_tr[c])
			most = chans[c].in.count;
	for (size_t c = 0; c < nch && most > 1; c++)
		if (chans[c].in.count == most && is_tr[c]) {
			out->key_step = ((double)acc_get(&chans[c].in, most - 1, 0) - acc_get(&chans[c].in, 0, 0)) / (double)(most - 1);
			break;
		}
	out->key_span = span;
	out->off_grid = out->key_step > 0 && fabs(out->key_step - (double)fdf) > 1e-3 * (double)fdf;
	/* a final key within half a frame of the target duration is taken as the target
	 * duration: no frame added or dropped. Keys on a coarser grid (Blender at 24 fps for
	 * a 60 fps clip) end on the last whole key frame inside the clip: up to one key step
	 * short, which is snapped too. */
	double half = out->off_grid && out->key_step > (double)fdf ? out->key_step * (1 - 1e-6) : 0.5 * (double)fdf;
	int snap = 0;
	if (o && o->duration > 0 && fabs(span - (double)o->duration) <= half) {
		double want = floor((double)o->duration / (double)fdf + 0.5) + 1;
		snap = want != nf || fabs(span - (double)o->duration) > 1e-4 * (double)fdf;
		out->end_snapped = snap;
		nf = want;
	}
	if (nf < 2)
		nf = 2;
	if (nf > ctx->limits.max_frames)
		return hks_fail(ctx, HKS_E_LIMIT, -1, "%.0f frames at %g s per frame exceed %u", nf, fd, ctx->limits.max_frames);
	uint32_t n = (uint32_t)nf;
	out->num_frames = n;
	out->frame_duration = fdf;
	out->duration = (float)((double)(n - 1) * (double)fdf);
	if (o && o->duration > 0 && floor((double)o->duration / (double)fdf + 0.5) + 1 == nf)
		out->duration = o->duration;

	/* bone names -> nodes */
	named *by_name = (named *)hks_arena_array(g->arena, num_nodes + 1, sizeof(named));
	named *bones = (named *)hks_arena_array(g->arena, sk->num_bones + 1, sizeof(named));
	if (!by_name || !bones)
		return nomem(g);
	size_t nn = 0, nb = 0;
	size_t root_node = num_nodes;
	for (size_t i = 0; i < num_nodes; i++) {
		const char *nm = json_string_value(json_object_get(json_array_get(nodes, i), "name"));
		if (!nm)
			continue;
		if (!strcmp(nm, HKS_GLTF_ROOT_MOTION_NODE)) {
			if (root_node == num_nodes)
				root_node = i;
			continue;
		}
		by_name[nn].name = nm;
		by_name[nn++].index = i;
	}
	qsort(by_name, nn, sizeof(named), named_cmp);
	for (uint32_t b = 0; b < sk->num_bones; b++)
		if (sk->bone_names && sk->bone_names[b]) {
			bones[nb].name = sk->bone_names[b];
			bones[nb++].index = b;
		}
	qsort(bones, nb, sizeof(named), named_cmp);
	const char **unmatched = (const char **)hks_arena_array(g->arena, nn + 1, sizeof(char *));
	if (!unmatched)
		return nomem(g);
	for (size_t i = 0; i < nn; i++)
		if (!find_named(bones, nb, by_name[i].name) && (i == 0 || strcmp(by_name[i].name, by_name[i - 1].name))) {
			/* copied: the names belong to the JSON tree, freed before hks_gltf_read returns */
			const char *copy = hks_arena_strdup(g->arena, by_name[i].name);
			if (!copy)
				return nomem(g);
			unmatched[out->num_unmatched_nodes++] = copy;
		}
	out->unmatched_nodes = unmatched;

	/* rest poses: the change of axes per bone (docs/GLTF.md "Rest poses") */
	rest_info ri;
	memset(&ri, 0, sizeof(ri));
	if (!(o && o->keep_bone_axes))
		HKS_TRY(rest_poses(g, sk, nodes, num_nodes, by_name, nn, out, &ri));

	/* tracks */
	uint32_t T = o && o->track_to_bone ? o->num_tracks : sk->num_bones;
	uint32_t F = o ? o->num_float_tracks : 0;
	if ((uint64_t)T + F > ctx->limits.max_tracks)
		return hks_fail(ctx, HKS_E_LIMIT, -1, "%u + %u tracks exceed %u", T, F, ctx->limits.max_tracks);
	uint64_t bytes = ((uint64_t)n * T * HKS_TRACK_SAMPLE_FLOATS + (uint64_t)n * F + (uint64_t)n * 4) * sizeof(float);
	if (bytes > ctx->limits.max_output_bytes || bytes > ctx->limits.max_memory)
		return hks_fail(ctx, HKS_E_LIMIT, -1, "%u frames x %u tracks exceed the memory limit", n, T);
	out->num_transform_tracks = T;
	out->num_float_tracks = F;
	out->transforms = (float *)hks_arena_array(g->arena, (size_t)n * T * HKS_TRACK_SAMPLE_FLOATS + 1, sizeof(float));
	out->floats = (float *)hks_arena_array(g->arena, (size_t)n * F + 1, sizeof(float));
	out->root_motion = (float(*)[4])hks_arena_array(g->arena, n, sizeof(float[4]));
	int32_t *missing = (int32_t *)hks_arena_array(g->arena, T + 1, sizeof(int32_t));
	int32_t *statics = (int32_t *)hks_arena_array(g->arena, T + 1, sizeof(int32_t));
	if (!out->transforms || !out->floats || !out->root_motion || !missing || !statics)
		return nomem(g);
	out->missing_bones = missing;
	out->static_bones = statics;
	size_t stride = (size_t)T * HKS_TRACK_SAMPLE_FLOATS;
	for (uint32_t t = 0; t < T; t++) {
		int32_t bone = o && o->track_to_bone ? o->track_to_bone[t] : (int32_t)t;
		const named *hit = bone >= 0 && (uint32_t)bone < sk->num_bones && sk->bone_names && sk->bone_names[bone]
		                       ? find_named(by_name, nn, sk->bone_names[bone])
		                       : NULL;
		float st[3] = {0, 0, 0}, sr[4] = {0, 0, 0, 1}, ss[3] = {1, 1, 1};
		const chan *cp[3] = {NULL, NULL, NULL};
		if (hit) {
			HKS_TRY(node_trs(g, json_array_get(nodes, hit->index), hit->index, st, sr, ss));
			for (int p = 0; p < 3; p++)
				cp[p] = by_node[hit->index][p] >= 0 ? &chans[by_node[hit->index][p]] : NULL;
			if (!cp[0] && !cp[1] && !cp[2])
				statics[out->num_static_bones++] = bone;
		} else {
			/* no node: the skeleton's reference pose (FORMAT.md §4.6 does not apply: this is authoring) */
			if (bone >= 0 && (uint32_t)bone < sk->num_reference_pose && sk->reference_pose) {
				memcpy(st, sk->reference_pose[bone].translation, sizeof(st));
				memcpy(sr, sk->reference_pose[bone].rotation, sizeof(sr));
				memcpy(ss, sk->reference_pose[bone].scale, sizeof(ss));
			}
			missing[out->num_missing_bones++] = bone;
		}
		int convert = hit && ri.axes && (ri.axes[bone] || (ri.gparent[bone] >= 0 && ri.axes[ri.gparent[bone]]));
		float prev[4] = {0, 0, 0, 1};
		for (uint32_t f = 0; f < n; f++) {
			float tm = (float)((double)t0 + (double)f * (double)fdf);
			if (snap && f == n - 1)
				tm = (float)t1;
			float *x = out->transforms + f * stride + (size_t)t * HKS_TRACK_SAMPLE_FLOATS;
			if (cp[0])
				sample_channel(cp[0], tm, x);
			else
				memcpy(x, st, sizeof(st));
			if (cp[1])
				sample_channel(cp[1], tm, x + 3);
			else
				memcpy(x + 3, sr, sizeof(sr));
			if (cp[2])
				sample_channel(cp[2], tm, x + 7);
			else
				memcpy(x + 7, ss, sizeof(ss));
			if (convert)
				to_havok_axes(&ri, (uint32_t)bone, x);
			/* sign continuity (the encoder fits components: a flip would be a jump) */
			if (f && (double)x[3] * prev[0] + (double)x[4] * prev[1] + (double)x[5] * prev[2] + (double)x[6] * prev[3] < 0) {
				for (int k = 3; k < 7; k++)
					x[k] = -x[k];
				out->sign_flips++;
			}
			memcpy(prev, x + 3, sizeof(prev));
		}
	}

	/* float tracks from the animation's extras (resampled linearly at the target times) */
	const json_t *hk = json_object_get(json_object_get(anim, "extras"), "hkspline");
	const json_t *fts = json_object_get(hk, "float_tracks");
	float src_fd = 0;
	get_f32(json_object_get(hk, "frame_duration"), &src_fd);
	const char **missing_slots = (const char **)hks_arena_array(g->arena, F + 1, sizeof(char *));
	if (!missing_slots)
		return nomem(g);
	out->missing_float_slots = missing_slots;
	for (uint32_t i = 0; i < F; i++) {
		const char *slot = o->float_slot_names ? o->float_slot_names[i] : NULL;
		const json_t *vals = NULL;
		for (size_t k = 0; json_is_array(fts) && k < json_array_size(fts) && !vals; k++) {
			const json_t *e = json_array_get(fts, k);
			const char *s = json_string_value(json_object_get(e, "slot"));
			if (slot ? (s && !strcmp(s, slot)) : k == i)
				vals = json_object_get(e, "values");
		}
		size_t nv = json_is_array(vals) ? json_array_size(vals) : 0;
		float fallback = o->reference_floats ? o->reference_floats[i] : 0.0f;
		if (!nv || !(src_fd > 0)) {
			missing_slots[out->num_missing_float_slots++] = slot ? slot : "(unnamed)";
			for (uint32_t f = 0; f < n; f++)
				out->floats[(size_t)f * F + i] = fallback;
			continue;
		}
		for (uint32_t f = 0; f < n; f++) {
			double tm = (double)(float)((double)f * (double)fdf), pos = tm / (double)src_fd;
			size_t k = (size_t)(pos < 0 ? 0 : pos);
			float a, b;
			if (k >= nv - 1) {
				k = nv - 1;
				pos = (double)k;
			}
			if (!get_f32(json_array_get(vals, k), &a) || !get_f32(json_array_get(vals, k + 1 < nv ? k + 1 : k), &b))
				return bad(g, "extras.hkspline.float_tracks", "%s: value %lld is not a number", "float track",
				           (long long)k);
			double u = pos - (double)k;
			out->floats[(size_t)f * F + i] = u == 0 ? a : (float)((1 - u) * a + u * b);
		}
	}

	/* root motion: translation (x, y, z) and the heading about `up` (w) */
	out->up[1] = 1;
	out->forward[2] = 1;
	const json_t *rm = json_object_get(hk, "root_motion");
	if (json_is_object(rm)) {
		float up[4], fw[4];
		if (get_f32_array(json_object_get(rm, "up"), up, 4) && author_finite(up, 4))
			memcpy(out->up, up, sizeof(up));
		if (get_f32_array(json_object_get(rm, "forward"), fw, 4) && author_finite(fw, 4))
			memcpy(out->forward, fw, sizeof(fw));
	}
	if (root_node < num_nodes) {
		const chan *ct = by_node[root_node][PATH_T] >= 0 ? &chans[by_node[root_node][PATH_T]] : NULL;
		const chan *cr = by_node[root_node][PATH_R] >= 0 ? &chans[by_node[root_node][PATH_R]] : NULL;
		out->has_root_motion = ct || cr;
		double un = sqrt((double)out->up[0] * out->up[0] + (double)out->up[1] * out->up[1] +
		                 (double)out->up[2] * out->up[2]);
		for (uint32_t f = 0; f < n; f++) {
			float tm = (float)((double)t0 + (double)f * (double)fdf), v[4] = {0, 0, 0, 1};
			if (snap && f == n - 1)
				tm = (float)t1;
			if (ct)
				sample_channel(ct, tm, v);
			memcpy(out->root_motion[f], v, 3 * sizeof(float));
			out->root_motion[f][3] = 0;
			if (cr && un > 0) {
				sample_channel(cr, tm, v);
				double s = (v[0] * out->up[0] + v[1] * out->up[1] + v[2] * out->up[2]) / un;
				out->root_motion[f][3] = (float)(2 * atan2(s, (double)v[3]));
			}
		}
	}
	return HKS_OK;
}

hks_result hks_gltf_read(const void *data, size_t size, const hks_skeleton *skeleton,
                         const hks_gltf_read_options *opts, hks_gltf_animation **out, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts ? &opts->base : NULL, size, err);
	if (out)
		*out = NULL;
	if (!data || !skeleton || !out)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_gltf_read: NULL argument");
	if (opts && opts->track_to_bone == NULL && opts->num_tracks)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_gltf_read: num_tracks without track_to_bone");
	if (opts && opts->num_float_tracks && !opts->float_slot_names)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_gltf_read: float tracks without slot names");
	gr g;
	memset(&g, 0, sizeof(g));
	g.ctx = &ctx;
	const uint8_t *p = (const uint8_t *)data, *json = p;
	size_t json_size = size;
	gbuf bin = {NULL, 0};
	hks_result r = HKS_OK;
	hks_arena *arena = NULL;
	hks_gltf_animation *a = NULL;
	if (size >= 4 && hks_le32(p) == GLB_MAGIC) {
		hks_err_object(&ctx, "GLB");
		r = split_glb(&g, p, size, &json, &json_size, &bin);
	}
	if (r == HKS_OK) {
		json_error_t je;
		hks_err_object(&ctx, "glTF JSON");
		g.root = json_loadb((const char *)json, json_size, 0, &je);
		if (!g.root)
			r = hks_fail(&ctx, HKS_E_MALFORMED, g.json_offset + (int64_t)je.position, "JSON: %s (line %d)", je.text,
			             je.line);
		else if (!json_is_object(g.root))
			r = hks_fail(&ctx, HKS_E_MALFORMED, g.json_offset, "the glTF JSON is not an object");
	}
	if (r == HKS_OK) {
		const char *ver = json_string_value(json_object_get(json_object_get(g.root, "asset"), "version"));
		if (!ver)
			r = hks_fail(&ctx, HKS_E_MALFORMED, -1, "no asset.version: not a glTF file");
		else if (strncmp(ver, "2.", 2) != 0)
			r = hks_fail(&ctx, HKS_E_UNSUPPORTED, -1, "glTF version %.16s (only 2.x)", ver);
	}
	if (r == HKS_OK && !(opts && opts->base.limits.max_memory) && (opts && (opts->source_path || opts->loader.open))) {
		/* External buffer files are input like the GLB BIN chunk: the default
		 * memory limit (16 x input + 64 MiB, hks_limits) counts them. A lying
		 * byteLength cannot make the library allocate: a file shorter than its
		 * byteLength is refused before the read (gltf_buffers.c). */
		uint64_t in = (uint64_t)size + author_buffers_external_bytes(g.root);
		ctx.limits.max_memory = in * 16 + (UINT64_C(64) << 20);
	}
	if (r == HKS_OK) {
		/* the arena copies the limits: created once they are final */
		arena = hks_arena_create(&ctx);
		a = arena ? (hks_gltf_animation *)hks_arena_alloc(arena, sizeof(*a)) : NULL;
		if (!a)
			r = err && err->code ? err->code : HKS_E_NOMEM;
		else
			a->arena = arena;
	}
	if (r == HKS_OK) {
		g.arena = arena;
		g.bufs.ctx = &ctx;
		g.bufs.arena = arena;
		g.bufs.source_path = opts ? opts->source_path : NULL;
		if (opts)
			g.bufs.loader = opts->loader;
		hks_err_object(&ctx, "glTF JSON");
		r = author_buffers_declare(&g.bufs, g.root, bin.data, bin.size);
	}
	if (r == HKS_OK)
		r = import(&g, skeleton, opts, a);
	author_buffers_release(&g.bufs);
	json_decref(g.root);
	if (r != HKS_OK) {
		hks_arena_free(arena);
		return r;
	}
	hks_arena_set_ctx(arena, NULL);
	*out = a;
	return HKS_OK;
}

void hks_gltf_animation_free(hks_gltf_animation *anim)
{
	if (anim)
		hks_arena_free(anim->arena);
}
