/*
 * Havok XML files, parsed with expat into a small element tree, then read
 * into the same object model as the binary containers. Two dialects:
 *
 *   hkpackfile (Havok Content Tools): <hkpackfile classversion contentsversion
 *     toplevelobject="#NNNN"> <hksection name="__data__"> <hkobject name="#NNNN"
 *     class="..." signature="0x..."> <hkparam name="member" [numelements="n"]>
 *     values as text (numbers, "#NNNN" references, "(x y z w)" vectors) or
 *     nested <hkobject> elements for struct arrays.
 *
 *   hktagfile v1 (what the corpus's 10 Skyrim XML files are, see
 *     docs/PACKFILE.md): <hktagfile version="1"> <class>/<member> type
 *     declarations, then <object id="#NNNN" type="..."> whose members are
 *     <int|real|string|ref|vec4|vec12|byte|struct|array name="member">;
 *     <array size="n"> holds <ref>/<struct>/<vec4> children or text.
 *     Reals are written as their bit patterns, "x3f800000", followed by a
 *     decimal comment; members with default values are omitted (zero).
 *
 * Both dialects name members the same way (the hkaSplineCompressedAnimation
 * members of FORMAT.md §1), so after the tree is built one set of accessors
 * serves both: a member is the child element whose "name" attribute matches.
 * Memory: expat allocates through the context (a thread-local hook, expat's
 * allocator has no user pointer); the DOCTYPE is rejected (no entities).
 */
#include "readers.h"

#include <expat.h>
#include <stdio.h>
#include <stdlib.h>

#define XML_MAX_DEPTH 64u
#define XNONE UINT32_MAX

typedef struct xnode {
	const char *name;
	const char **attrs;       /* name, value, ..., NULL (arena) */
	uint32_t parent, first_child, last_child, next_sibling;
	uint32_t text_off, text_len; /* direct character data, in the text pool */
	int64_t offset;           /* byte offset of the start tag */
} xnode;

typedef struct xml_reader {
	hks_ctx *ctx;
	hks_arena *arena;
	hks_file *file;
	XML_Parser parser;
	xnode *nodes;
	uint32_t num_nodes, cap_nodes;
	hks_bytebuf text;
	uint32_t current;         /* open element, XNONE at top level */
	uint32_t depth;
	hks_result failure;       /* set by a handler that stopped the parser */
	/* objects by id, sorted */
	struct xobj {
		const char *id;
		uint32_t node;
	} * objects;
	uint32_t num_objects;
	bool packfile_dialect;
	/* output */
	uint32_t *anim_nodes;
} xml_reader;

/* ---- expat memory through the context ----------------------------------- */

static _Thread_local hks_ctx *xml_alloc_ctx;

static void *xml_mm_malloc(size_t size)
{
	size_t total;
	if (!xml_alloc_ctx || !hks_add_size(size, 16, &total))
		return NULL;
	uint8_t *p = (uint8_t *)hks_malloc(xml_alloc_ctx, total);
	if (!p)
		return NULL;
	memcpy(p, &size, sizeof(size));
	return p + 16;
}

static void xml_mm_free(void *ptr)
{
	if (!ptr || !xml_alloc_ctx)
		return;
	uint8_t *p = (uint8_t *)ptr - 16;
	size_t size;
	memcpy(&size, p, sizeof(size));
	hks_free(xml_alloc_ctx, p, size + 16);
}

static void *xml_mm_realloc(void *ptr, size_t size)
{
	if (!ptr)
		return xml_mm_malloc(size);
	size_t total, old;
	if (!xml_alloc_ctx || !hks_add_size(size, 16, &total))
		return NULL;
	uint8_t *p = (uint8_t *)ptr - 16;
	memcpy(&old, p, sizeof(old));
	uint8_t *q = (uint8_t *)hks_realloc(xml_alloc_ctx, p, old + 16, total);
	if (!q)
		return NULL;
	memcpy(q, &size, sizeof(size));
	return q + 16;
}

/* ---- tree building --------------------------------------------------------- */

static void stop(xml_reader *r, hks_result code)
{
	if (r->failure == HKS_OK)
		r->failure = code;
	XML_StopParser(r->parser, XML_FALSE);
}

static int64_t here(const xml_reader *r)
{
	XML_Index i = XML_GetCurrentByteIndex(r->parser);
	return i < 0 ? -1 : (int64_t)i;
}

static void XMLCALL on_start(void *user, const XML_Char *name, const XML_Char **attrs)
{
	xml_reader *r = (xml_reader *)user;
	if (r->failure != HKS_OK)
		return;
	if (r->depth >= XML_MAX_DEPTH) {
		stop(r, hks_fail(r->ctx, HKS_E_LIMIT, here(r), "XML elements nested deeper than %u", XML_MAX_DEPTH));
		return;
	}
	if (r->num_nodes >= r->ctx->limits.max_objects) {
		stop(r, hks_fail(r->ctx, HKS_E_LIMIT, here(r), "more than %u XML elements", r->ctx->limits.max_objects));
		return;
	}
	if (r->num_nodes == r->cap_nodes) {
		uint32_t cap = r->cap_nodes ? r->cap_nodes * 2 : 256;
		xnode *n = (xnode *)hks_realloc(r->ctx, r->nodes, (size_t)r->cap_nodes * sizeof(xnode), (size_t)cap * sizeof(xnode));
		if (!n) {
			stop(r, HKS_E_NOMEM);
			return;
		}
		r->nodes = n;
		r->cap_nodes = cap;
	}
	uint32_t id = r->num_nodes++;
	xnode *n = &r->nodes[id];
	memset(n, 0, sizeof(*n));
	n->parent = r->current;
	n->first_child = n->last_child = n->next_sibling = XNONE;
	n->offset = here(r);
	n->name = hks_arena_strdup(r->arena, name);
	size_t na = 0;
	while (attrs[na])
		na++;
	n->attrs = (const char **)hks_arena_array(r->arena, na + 1, sizeof(char *));
	if (!n->name || !n->attrs) {
		stop(r, HKS_E_NOMEM);
		return;
	}
	for (size_t i = 0; i < na; i++)
		if (!(n->attrs[i] = hks_arena_strdup(r->arena, attrs[i]))) {
			stop(r, HKS_E_NOMEM);
			return;
		}
	if (r->current != XNONE) {
		xnode *p = &r->nodes[r->current];
		if (p->last_child == XNONE)
			p->first_child = id;
		else
			r->nodes[p->last_child].next_sibling = id;
		p->last_child = id;
	}
	r->current = id;
	r->depth++;
}

static void XMLCALL on_end(void *user, const XML_Char *name)
{
	(void)name;
	xml_reader *r = (xml_reader *)user;
	if (r->failure != HKS_OK || r->current == XNONE)
		return;
	r->current = r->nodes[r->current].parent;
	r->depth--;
}

static bool all_space(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
			return false;
	return true;
}

static void XMLCALL on_text(void *user, const XML_Char *s, int len)
{
	xml_reader *r = (xml_reader *)user;
	if (r->failure != HKS_OK || r->current == XNONE || len <= 0)
		return;
	xnode *n = &r->nodes[r->current];
	bool contiguous = n->text_len > 0 && (size_t)n->text_off + n->text_len == r->text.size;
	if (!contiguous) {
		if (all_space(s, (size_t)len))
			return; /* layout between child elements */
		if (n->text_len > 0) {
			stop(r, hks_fail(r->ctx, HKS_E_MALFORMED, here(r), "element <%s> mixes text and child elements", n->name));
			return;
		}
		if (r->text.size > UINT32_MAX - (size_t)len) {
			stop(r, hks_fail(r->ctx, HKS_E_LIMIT, here(r), "XML text larger than 4 GiB"));
			return;
		}
		n->text_off = (uint32_t)r->text.size;
	}
	if (hks_bytebuf_append(&r->text, s, (size_t)len) != HKS_OK) {
		stop(r, HKS_E_NOMEM);
		return;
	}
	n->text_len += (uint32_t)len;
}

static void XMLCALL on_doctype(void *user, const XML_Char *name, const XML_Char *sysid, const XML_Char *pubid,
                               int has_internal_subset)
{
	(void)name;
	(void)sysid;
	(void)pubid;
	(void)has_internal_subset;
	xml_reader *r = (xml_reader *)user;
	stop(r, hks_fail(r->ctx, HKS_E_UNSUPPORTED, here(r), "Havok XML has no DOCTYPE; refusing one"));
}

/*
 * Havok Content Tools declare encoding="ascii", a name expat does not know
 * (it knows "US-ASCII"). Accept the ASCII aliases; bytes above 127 are read
 * as Latin-1 rather than rejected, since names in modded files may carry them.
 */
static int XMLCALL on_unknown_encoding(void *user, const XML_Char *name, XML_Encoding *info)
{
	(void)user;
	static const char *const aliases[] = {"ascii", "ansi", "windows-1252", "cp1252"};
	bool known = false;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]) && !known; i++) {
		size_t k = 0;
		while (aliases[i][k] && name[k] && (name[k] | 0x20) == aliases[i][k])
			k++;
		known = !aliases[i][k] && !name[k];
	}
	if (!known)
		return XML_STATUS_ERROR;
	for (int i = 0; i < 256; i++)
		info->map[i] = i;
	info->data = NULL;
	info->convert = NULL;
	info->release = NULL;
	return XML_STATUS_OK;
}

static hks_result build_tree(xml_reader *r, const uint8_t *data, size_t size)
{
	static const XML_Memory_Handling_Suite suite = {xml_mm_malloc, xml_mm_realloc, xml_mm_free};
	xml_alloc_ctx = r->ctx;
	r->parser = XML_ParserCreate_MM(NULL, &suite, NULL);
	if (!r->parser) {
		xml_alloc_ctx = NULL;
		return hks_fail(r->ctx, HKS_E_NOMEM, -1, "cannot create the XML parser");
	}
	XML_SetUserData(r->parser, r);
	XML_SetElementHandler(r->parser, on_start, on_end);
	XML_SetCharacterDataHandler(r->parser, on_text);
	XML_SetStartDoctypeDeclHandler(r->parser, on_doctype);
	XML_SetUnknownEncodingHandler(r->parser, on_unknown_encoding, NULL);
	hks_result result = HKS_OK;
	size_t pos = 0;
	do {
		size_t chunk = size - pos > (1u << 24) ? (1u << 24) : size - pos;
		bool last = pos + chunk == size;
		if (XML_Parse(r->parser, (const char *)data + pos, (int)chunk, last) != XML_STATUS_OK) {
			if (r->failure != HKS_OK) {
				result = r->failure;
			} else {
				enum XML_Error e = XML_GetErrorCode(r->parser);
				int64_t at = here(r);
				result = hks_fail(r->ctx, e == XML_ERROR_NO_MEMORY ? HKS_E_NOMEM : HKS_E_MALFORMED, at,
				                  "XML error at line %lu: %s", (unsigned long)XML_GetCurrentLineNumber(r->parser),
				                  XML_ErrorString(e));
			}
			break;
		}
		pos += chunk;
	} while (pos < size);
	XML_ParserFree(r->parser);
	r->parser = NULL;
	xml_alloc_ctx = NULL;
	return result;
}

/* ---- tree accessors ------------------------------------------------------ */

static const char *attr(const xnode *n, const char *name)
{
	for (size_t i = 0; n->attrs[i]; i += 2)
		if (!strcmp(n->attrs[i], name))
			return n->attrs[i + 1];
	return NULL;
}

/* The member element `name` of an object / struct element, or XNONE. */
static uint32_t member(const xml_reader *r, uint32_t node, const char *name)
{
	for (uint32_t c = r->nodes[node].first_child; c != XNONE; c = r->nodes[c].next_sibling) {
		const char *a = attr(&r->nodes[c], "name");
		if (a && !strcmp(a, name))
			return c;
	}
	return XNONE;
}

static void err_at(xml_reader *r, uint32_t node, const char *member_name)
{
	(void)node;
	hks_err_member(r->ctx, member_name);
}

/* Token scanner over an element's text: separators are white space,
 * parentheses and commas (vectors are "(x y z w)" in hkpackfile XML). */
typedef struct tokens {
	const char *p, *end;
} tokens;

static tokens text_of(const xml_reader *r, uint32_t node)
{
	tokens t;
	t.p = t.end = ""; /* an element without text: the document may have no text buffer at all */
	if (r->nodes[node].text_len) {
		t.p = (const char *)r->text.data + r->nodes[node].text_off;
		t.end = t.p + r->nodes[node].text_len;
	}
	return t;
}

static bool is_sep(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '(' || c == ')' || c == ','; }

/* Next token into buf (NUL-terminated, truncated tokens rejected). */
static bool next_token(tokens *t, char *buf, size_t size)
{
	while (t->p < t->end && is_sep(*t->p))
		t->p++;
	if (t->p >= t->end)
		return false;
	size_t n = 0;
	while (t->p < t->end && !is_sep(*t->p)) {
		if (n + 1 < size)
			buf[n] = *t->p;
		n++;
		t->p++;
	}
	if (n + 1 > size)
		n = size - 1, buf[0] = '?'; /* too long: make it unparsable */
	buf[n] = 0;
	return true;
}

static bool parse_int(const char *s, int64_t *v)
{
	char *end;
	long long x = strtoll(s, &end, 0);
	if (end == s || *end)
		return false;
	*v = x;
	return true;
}

/* A real: "x3f800000" (bit pattern, kept exactly) or a decimal. */
static bool parse_real(const char *s, float *v)
{
	if (s[0] == 'x' || s[0] == 'X') {
		char *end;
		unsigned long long bits = strtoull(s + 1, &end, 16);
		if (end == s + 1 || *end || bits > 0xFFFFFFFFull)
			return false;
		*v = hks_f32_from_bits((uint32_t)bits);
		return true;
	}
	char *end;
	float f = strtof(s, &end);
	if (end == s || *end)
		return false;
	*v = f;
	return true;
}

/*
 * hkpackfile XML may write enums by name. blendHint: CONTAINERS.md §3.3.
 * hkaAnimation::type: spline is 5 in Havok 2010 and 3 from 2011 on (§3.3);
 * the other names are not needed by this library and read as 0 (unknown).
 */
static bool enum_value(const xml_reader *r, const char *member_name, const char *tok, int64_t *v)
{
	if (!strcmp(member_name, "blendHint")) {
		if (!strcmp(tok, "NORMAL"))
			*v = 0;
		else if (!strcmp(tok, "ADDITIVE_DEPRECATED"))
			*v = 1;
		else if (!strcmp(tok, "ADDITIVE"))
			*v = 2;
		else
			return false;
		return true;
	}
	if (!strcmp(member_name, "type") && !strncmp(tok, "HK_", 3)) {
		if (!strcmp(tok, "HK_SPLINE_COMPRESSED_ANIMATION"))
			*v = !strncmp(r->file->sdk, "hk_2010", 7) ? 5 : 3;
		else if (!strcmp(tok, "HK_INTERLEAVED_ANIMATION"))
			*v = 1;
		else
			*v = 0;
		return true;
	}
	return false;
}

static hks_result bad_value(xml_reader *r, uint32_t node, const char *what, const char *tok)
{
	return hks_fail(r->ctx, HKS_E_MALFORMED, r->nodes[node].offset, "<%s>: %s \"%.40s\" is not valid",
	                r->nodes[node].name, what, tok);
}

static hks_result get_int(xml_reader *r, uint32_t obj, const char *name, int32_t *out)
{
	*out = 0;
	uint32_t m = member(r, obj, name);
	if (m == XNONE)
		return HKS_OK; /* omitted = default */
	tokens t = text_of(r, m);
	char tok[64];
	int64_t v;
	if (!next_token(&t, tok, sizeof(tok)))
		return HKS_OK;
	if (!parse_int(tok, &v) && !enum_value(r, name, tok, &v)) {
		err_at(r, m, name);
		return bad_value(r, m, "integer", tok);
	}
	if (v < INT32_MIN || v > UINT32_MAX) {
		err_at(r, m, name);
		return bad_value(r, m, "integer", tok);
	}
	*out = (int32_t)(uint32_t)(v & 0xFFFFFFFF);
	return HKS_OK;
}

static hks_result get_real(xml_reader *r, uint32_t obj, const char *name, float *out)
{
	*out = 0.0f;
	uint32_t m = member(r, obj, name);
	if (m == XNONE)
		return HKS_OK;
	tokens t = text_of(r, m);
	char tok[64];
	if (!next_token(&t, tok, sizeof(tok)))
		return HKS_OK;
	if (!parse_real(tok, out)) {
		err_at(r, m, name);
		return bad_value(r, m, "real", tok);
	}
	return HKS_OK;
}

/* Up to `n` reals from a vector member. */
static hks_result get_vec(xml_reader *r, uint32_t m, float *out, uint32_t n, const char *name)
{
	tokens t = text_of(r, m);
	char tok[64];
	for (uint32_t i = 0; i < n; i++) {
		if (!next_token(&t, tok, sizeof(tok))) {
			err_at(r, m, name);
			return hks_fail(r->ctx, HKS_E_MALFORMED, r->nodes[m].offset, "<%s> %s: %u of %u components",
			                r->nodes[m].name, name, i, n);
		}
		if (!parse_real(tok, &out[i])) {
			err_at(r, m, name);
			return bad_value(r, m, "real", tok);
		}
	}
	return HKS_OK;
}

static hks_result get_string(xml_reader *r, uint32_t obj, const char *name, const char **out)
{
	*out = NULL;
	uint32_t m = member(r, obj, name);
	if (m == XNONE)
		return HKS_OK;
	const xnode *n = &r->nodes[m];
	*out = hks_arena_strndup(r->arena, n->text_len ? (const char *)r->text.data + n->text_off : "", n->text_len);
	return *out ? HKS_OK : HKS_E_NOMEM;
}

static int cmp_obj(const void *a, const void *b)
{
	return strcmp(((const struct xobj *)a)->id, ((const struct xobj *)b)->id);
}

/* The object a reference text ("#0003") names; XNONE for null. */
static hks_result resolve_ref(xml_reader *r, uint32_t at, const char *tok, uint32_t *out)
{
	*out = XNONE;
	if (!tok[0] || !strcmp(tok, "null") || !strcmp(tok, "#0000"))
		return HKS_OK;
	struct xobj key = {tok, 0};
	const struct xobj *o =
	    (const struct xobj *)bsearch(&key, r->objects, r->num_objects, sizeof(struct xobj), cmp_obj);
	if (!o)
		return hks_fail(r->ctx, HKS_E_MALFORMED, r->nodes[at].offset, "reference %.40s names no object", tok);
	*out = o->node;
	return HKS_OK;
}

static hks_result get_ref(xml_reader *r, uint32_t obj, const char *name, uint32_t *out)
{
	*out = XNONE;
	uint32_t m = member(r, obj, name);
	if (m == XNONE)
		return HKS_OK;
	tokens t = text_of(r, m);
	char tok[64];
	if (!next_token(&t, tok, sizeof(tok)))
		return HKS_OK;
	err_at(r, m, name);
	HKS_TRY(resolve_ref(r, m, tok, out));
	hks_err_member(r->ctx, NULL);
	return HKS_OK;
}

static const char *class_of(const xml_reader *r, uint32_t node)
{
	const char *c = attr(&r->nodes[node], r->packfile_dialect ? "class" : "type");
	return c ? c : "";
}

/* The declared element count of an array member (size= / numelements=). */
static hks_result declared_count(xml_reader *r, uint32_t m, uint32_t *count)
{
	const char *s = attr(&r->nodes[m], "size");
	if (!s)
		s = attr(&r->nodes[m], "numelements");
	*count = 0;
	if (!s)
		return HKS_OK;
	int64_t v;
	if (!parse_int(s, &v) || v < 0 || v > (int64_t)r->ctx->limits.max_output_bytes || v > UINT32_MAX)
		return hks_fail(r->ctx, HKS_E_MALFORMED, r->nodes[m].offset, "array size \"%.40s\" is not valid", s);
	*count = (uint32_t)v;
	return HKS_OK;
}

/*
 * The values of a scalar array member: its own text, or (hktagfile) the text
 * of its value children (<int>, <real>, <vec4>, ...) in order. `per` values
 * per element; every element is parsed by `parse`.
 */
typedef enum { VAL_INT, VAL_REAL } val_kind;

static hks_result get_values(xml_reader *r, uint32_t obj, const char *name, val_kind kind, uint32_t per,
                             uint32_t elem_bytes, void **out, uint32_t *count)
{
	*out = NULL;
	*count = 0;
	uint32_t m = member(r, obj, name);
	if (m == XNONE)
		return HKS_OK;
	err_at(r, m, name);
	uint32_t n;
	HKS_TRY(declared_count(r, m, &n));
	bool has_size = attr(&r->nodes[m], "size") || attr(&r->nodes[m], "numelements");
	if (!has_size) {
		/* no declared size: count the tokens */
		tokens t = text_of(r, m);
		char tok[64];
		uint64_t k = 0;
		while (next_token(&t, tok, sizeof(tok)))
			k++;
		for (uint32_t c = r->nodes[m].first_child; c != XNONE; c = r->nodes[c].next_sibling) {
			tokens u = text_of(r, c);
			while (next_token(&u, tok, sizeof(tok)))
				k++;
		}
		if (k % per)
			return hks_fail(r->ctx, HKS_E_MALFORMED, r->nodes[m].offset, "%llu values are not a multiple of %u",
			                (unsigned long long)k, per);
		n = (uint32_t)(k / per);
	}
	if (!n) {
		hks_err_member(r->ctx, NULL);
		return HKS_OK;
	}
	/* every value takes at least 2 bytes of text: bound the allocation by the input */
	if ((uint64_t)n * per > r->text.size)
		return hks_fail(r->ctx, HKS_E_MALFORMED, r->nodes[m].offset, "array %s declares %u elements, the text holds fewer",
		                name, n);
	uint8_t *v = (uint8_t *)hks_arena_array(r->arena, n, elem_bytes);
	if (!v)
		return HKS_E_NOMEM;
	uint64_t total = (uint64_t)n * per, got = 0;
	uint32_t src = m;
	uint32_t child = r->nodes[m].first_child;
	tokens t = text_of(r, m);
	char tok[64];
	while (got < total) {
		if (!next_token(&t, tok, sizeof(tok))) {
			if (child == XNONE)
				return hks_fail(r->ctx, HKS_E_MALFORMED, r->nodes[m].offset, "array %s: %llu of %llu values", name,
				                (unsigned long long)got, (unsigned long long)total);
			src = child;
			t = text_of(r, child);
			child = r->nodes[child].next_sibling;
			continue;
		}
		if (kind == VAL_REAL) {
			float f;
			if (!parse_real(tok, &f))
				return bad_value(r, src, "real", tok);
			memcpy(v + 4 * got, &f, 4);
		} else {
			int64_t x;
			if (!parse_int(tok, &x))
				return bad_value(r, src, "integer", tok);
			if (elem_bytes == 1) {
				if (x < -128 || x > 255)
					return bad_value(r, src, "byte", tok);
				v[got] = (uint8_t)x;
			} else if (elem_bytes == 2) {
				if (x < INT16_MIN || x > UINT16_MAX)
					return bad_value(r, src, "16-bit integer", tok);
				int16_t s16 = (int16_t)(uint16_t)(x & 0xFFFF);
				memcpy(v + 2 * got, &s16, 2);
			} else {
				if (x < INT32_MIN || x > UINT32_MAX)
					return bad_value(r, src, "32-bit integer", tok);
				uint32_t u = (uint32_t)(x & 0xFFFFFFFF);
				memcpy(v + 4 * got, &u, 4);
			}
		}
		got++;
	}
	/* more values than declared? */
	bool extra = next_token(&t, tok, sizeof(tok));
	for (; !extra && child != XNONE; child = r->nodes[child].next_sibling) {
		tokens u = text_of(r, child);
		extra = next_token(&u, tok, sizeof(tok));
	}
	if (extra)
		return hks_fail(r->ctx, HKS_E_MALFORMED, r->nodes[m].offset, "array %s holds more than %u elements", name, n);
	hks_err_member(r->ctx, NULL);
	*out = v;
	*count = n;
	return HKS_OK;
}

/*
 * The elements of an array of objects or structs: struct elements are child
 * elements (<struct>, <hkobject>); references are <ref> children or "#NNNN"
 * tokens in the text. Each element is returned as the node that holds its
 * members (the referenced object or the inline struct); XNONE for null.
 */
static hks_result get_elements(xml_reader *r, uint32_t obj, const char *name, uint32_t **out, uint32_t *count)
{
	*out = NULL;
	*count = 0;
	uint32_t m = member(r, obj, name);
	if (m == XNONE)
		return HKS_OK;
	err_at(r, m, name);
	uint32_t n = 0;
	tokens t = text_of(r, m);
	char tok[64];
	while (next_token(&t, tok, sizeof(tok)))
		n++;
	for (uint32_t c = r->nodes[m].first_child; c != XNONE; c = r->nodes[c].next_sibling)
		n++;
	uint32_t declared;
	HKS_TRY(declared_count(r, m, &declared));
	if ((attr(&r->nodes[m], "size") || attr(&r->nodes[m], "numelements")) && declared != n)
		return hks_fail(r->ctx, HKS_E_MALFORMED, r->nodes[m].offset, "array %s declares %u elements and holds %u", name,
		                declared, n);
	if (!n) {
		hks_err_member(r->ctx, NULL);
		return HKS_OK;
	}
	uint32_t *v = (uint32_t *)hks_arena_array(r->arena, n, 4);
	if (!v)
		return HKS_E_NOMEM;
	uint32_t k = 0;
	t = text_of(r, m);
	while (next_token(&t, tok, sizeof(tok)))
		HKS_TRY(resolve_ref(r, m, tok, &v[k++]));
	for (uint32_t c = r->nodes[m].first_child; c != XNONE; c = r->nodes[c].next_sibling) {
		const xnode *cn = &r->nodes[c];
		if (!strcmp(cn->name, "ref")) {
			tokens u = text_of(r, c);
			if (!next_token(&u, tok, sizeof(tok)))
				tok[0] = 0;
			HKS_TRY(resolve_ref(r, c, tok, &v[k]));
		} else {
			v[k] = c; /* inline struct */
		}
		k++;
	}
	hks_err_member(r->ctx, NULL);
	*out = v;
	*count = n;
	return HKS_OK;
}

/* ---- objects ------------------------------------------------------------ */

static void object_context(xml_reader *r, uint32_t node)
{
	const char *id = attr(&r->nodes[node], r->packfile_dialect ? "name" : "id");
	hks_err_object(r->ctx, "%s %s", class_of(r, node), id ? id : "(inline)");
}

static hks_result read_reference_frame(xml_reader *r, uint32_t node, int32_t *out)
{
	hks_reference_frame *f = &r->file->reference_frames[r->file->num_reference_frames];
	object_context(r, node);
	f->class_name = hks_arena_strdup(r->arena, class_of(r, node));
	if (!f->class_name)
		return HKS_E_NOMEM;
	if (!strcmp(f->class_name, "hkaDefaultAnimatedReferenceFrame")) {
		uint32_t m;
		if ((m = member(r, node, "up")) != XNONE)
			HKS_TRY(get_vec(r, m, f->up, 4, "up"));
		if ((m = member(r, node, "forward")) != XNONE)
			HKS_TRY(get_vec(r, m, f->forward, 4, "forward"));
		HKS_TRY(get_real(r, node, "duration", &f->duration));
		void *s;
		HKS_TRY(get_values(r, node, "referenceFrameSamples", VAL_REAL, 4, 16, &s, &f->num_samples));
		f->samples = (const float(*)[4])s;
	}
	*out = (int32_t)r->file->num_reference_frames++;
	return HKS_OK;
}

static hks_result read_animation(xml_reader *r, uint32_t node, hks_animation *a)
{
	object_context(r, node);
	a->class_name = hks_arena_strdup(r->arena, class_of(r, node));
	if (!a->class_name)
		return HKS_E_NOMEM;
	a->object_offset = r->nodes[node].offset;
	a->data_offset = -1;
	a->reference_frame = -1;
	HKS_TRY(get_int(r, node, "type", &a->type));
	HKS_TRY(get_real(r, node, "duration", &a->duration));
	HKS_TRY(get_int(r, node, "numberOfTransformTracks", &a->number_of_transform_tracks));
	HKS_TRY(get_int(r, node, "numberOfFloatTracks", &a->number_of_float_tracks));
	uint32_t *tracks, nt;
	HKS_TRY(get_elements(r, node, "annotationTracks", &tracks, &nt));
	if (nt) {
		const char **names = (const char **)hks_arena_array(r->arena, nt, sizeof(char *));
		if (!names)
			return HKS_E_NOMEM;
		for (uint32_t i = 0; i < nt; i++)
			if (tracks[i] != XNONE)
				HKS_TRY(get_string(r, tracks[i], "trackName", &names[i]));
		a->annotation_track_names = names;
		a->num_annotation_tracks = nt;
	}
	uint32_t motion;
	HKS_TRY(get_ref(r, node, "extractedMotion", &motion));
	if (motion != XNONE) {
		HKS_TRY(read_reference_frame(r, motion, &a->reference_frame));
		object_context(r, node);
	}
	if (!strcmp(a->class_name, "hkaSplineCompressedAnimation")) {
		hks_spline_header *s = &a->spline;
		void *v;
		a->kind = HKS_ANIMATION_SPLINE;
		HKS_TRY(get_int(r, node, "numFrames", &s->num_frames));
		HKS_TRY(get_int(r, node, "numBlocks", &s->num_blocks));
		HKS_TRY(get_int(r, node, "maxFramesPerBlock", &s->max_frames_per_block));
		HKS_TRY(get_int(r, node, "maskAndQuantizationSize", &s->mask_and_quantization_size));
		HKS_TRY(get_real(r, node, "blockDuration", &s->block_duration));
		HKS_TRY(get_real(r, node, "blockInverseDuration", &s->block_inverse_duration));
		HKS_TRY(get_real(r, node, "frameDuration", &s->frame_duration));
		HKS_TRY(get_values(r, node, "blockOffsets", VAL_INT, 1, 4, &v, &s->num_block_offsets));
		s->block_offsets = (const uint32_t *)v;
		HKS_TRY(get_values(r, node, "floatBlockOffsets", VAL_INT, 1, 4, &v, &s->num_float_block_offsets));
		s->float_block_offsets = (const uint32_t *)v;
		HKS_TRY(get_values(r, node, "transformOffsets", VAL_INT, 1, 4, &v, &s->num_transform_offsets));
		s->transform_offsets = (const uint32_t *)v;
		HKS_TRY(get_values(r, node, "floatOffsets", VAL_INT, 1, 4, &v, &s->num_float_offsets));
		s->float_offsets = (const uint32_t *)v;
		HKS_TRY(get_values(r, node, "data", VAL_INT, 1, 1, &v, &s->data_size));
		s->data = (const uint8_t *)v;
		uint32_t dm = member(r, node, "data");
		if (dm != XNONE && s->data_size)
			a->data_offset = r->nodes[dm].offset;
		HKS_TRY(get_int(r, node, "endian", &s->endian));
	} else if (!strcmp(a->class_name, "hkaInterleavedUncompressedAnimation")) {
		void *v;
		a->kind = HKS_ANIMATION_INTERLEAVED;
		HKS_TRY(get_values(r, node, "transforms", VAL_REAL, 12, sizeof(hks_qs_transform), &v, &a->num_transforms));
		a->transforms = (const hks_qs_transform *)v;
		HKS_TRY(get_values(r, node, "floats", VAL_REAL, 1, 4, &v, &a->num_floats));
		a->floats = (const float *)v;
	} else {
		a->kind = HKS_ANIMATION_OTHER;
	}
	return HKS_OK;
}

static hks_result read_binding(xml_reader *r, uint32_t node, hks_binding *b)
{
	object_context(r, node);
	b->animation = -1;
	HKS_TRY(get_string(r, node, "originalSkeletonName", &b->original_skeleton_name));
	uint32_t anim;
	HKS_TRY(get_ref(r, node, "animation", &anim));
	for (uint32_t i = 0; anim != XNONE && i < r->file->num_animations; i++)
		if (r->anim_nodes[i] == anim) {
			b->animation = (int32_t)i;
			break;
		}
	void *v;
	HKS_TRY(get_values(r, node, "transformTrackToBoneIndices", VAL_INT, 1, 2, &v,
	                   &b->num_transform_track_to_bone_indices));
	b->transform_track_to_bone_indices = (const int16_t *)v;
	HKS_TRY(get_values(r, node, "floatTrackToFloatSlotIndices", VAL_INT, 1, 2, &v,
	                   &b->num_float_track_to_float_slot_indices));
	b->float_track_to_float_slot_indices = (const int16_t *)v;
	HKS_TRY(get_values(r, node, "partitionIndices", VAL_INT, 1, 2, &v, &b->num_partition_indices));
	b->partition_indices = (const int16_t *)v;
	int32_t hint;
	HKS_TRY(get_int(r, node, "blendHint", &hint));
	b->blend_hint = (int8_t)hint;
	return HKS_OK;
}

static hks_result read_skeleton(xml_reader *r, uint32_t node, hks_skeleton *s)
{
	object_context(r, node);
	void *v;
	HKS_TRY(get_string(r, node, "name", &s->name));
	HKS_TRY(get_values(r, node, "parentIndices", VAL_INT, 1, 2, &v, &s->num_parent_indices));
	s->parent_indices = (const int16_t *)v;
	uint32_t *bones, nb;
	HKS_TRY(get_elements(r, node, "bones", &bones, &nb));
	if (nb) {
		const char **names = (const char **)hks_arena_array(r->arena, nb, sizeof(char *));
		uint8_t *lock = (uint8_t *)hks_arena_alloc(r->arena, nb);
		if (!names || !lock)
			return HKS_E_NOMEM;
		for (uint32_t i = 0; i < nb; i++) {
			if (bones[i] == XNONE)
				continue;
			int32_t l;
			HKS_TRY(get_string(r, bones[i], "name", &names[i]));
			uint32_t lm = member(r, bones[i], "lockTranslation");
			if (lm != XNONE) {
				tokens t = text_of(r, lm);
				char tok[16];
				l = next_token(&t, tok, sizeof(tok)) && (!strcmp(tok, "true") || !strcmp(tok, "1"));
				lock[i] = (uint8_t)l;
			}
		}
		s->bone_names = names;
		s->lock_translation = lock;
		s->num_bones = nb;
	}
	HKS_TRY(get_values(r, node, "referencePose", VAL_REAL, 12, sizeof(hks_qs_transform), &v, &s->num_reference_pose));
	s->reference_pose = (const hks_qs_transform *)v;
	HKS_TRY(get_values(r, node, "referenceFloats", VAL_REAL, 1, 4, &v, &s->num_reference_floats));
	s->reference_floats = (const float *)v;
	uint32_t m = member(r, node, "floatSlots");
	if (m != XNONE) {
		/* strings: hktagfile <string> children; hkpackfile <hkcstring> children */
		uint32_t n = 0;
		for (uint32_t c = r->nodes[m].first_child; c != XNONE; c = r->nodes[c].next_sibling)
			n++;
		if (n) {
			const char **slots = (const char **)hks_arena_array(r->arena, n, sizeof(char *));
			if (!slots)
				return HKS_E_NOMEM;
			uint32_t k = 0;
			for (uint32_t c = r->nodes[m].first_child; c != XNONE; c = r->nodes[c].next_sibling, k++) {
				const xnode *cn = &r->nodes[c];
				slots[k] = hks_arena_strndup(r->arena, cn->text_len ? (const char *)r->text.data + cn->text_off : "",
				                             cn->text_len);
				if (!slots[k])
					return HKS_E_NOMEM;
			}
			s->float_slots = slots;
			s->num_float_slots = n;
		}
	}
	return HKS_OK;
}

/* ---- document --------------------------------------------------------- */

static hks_result index_objects(xml_reader *r, uint32_t root)
{
	/* objects: children of the root (hktagfile) or of its sections (hkpackfile) */
	uint32_t n = 0;
	for (uint32_t i = 0; i < r->num_nodes; i++) {
		const xnode *x = &r->nodes[i];
		if (r->packfile_dialect ? (!strcmp(x->name, "hkobject") && x->parent != XNONE &&
		                           !strcmp(r->nodes[x->parent].name, "hksection"))
		                        : (!strcmp(x->name, "object") && x->parent == root))
			n++;
	}
	r->objects = (struct xobj *)hks_arena_array(r->arena, n ? n : 1, sizeof(struct xobj));
	if (!r->objects)
		return HKS_E_NOMEM;
	for (uint32_t i = 0; i < r->num_nodes; i++) {
		const xnode *x = &r->nodes[i];
		bool is_obj = r->packfile_dialect ? (!strcmp(x->name, "hkobject") && x->parent != XNONE &&
		                                     !strcmp(r->nodes[x->parent].name, "hksection"))
		                                  : (!strcmp(x->name, "object") && x->parent == root);
		if (!is_obj)
			continue;
		const char *id = attr(x, r->packfile_dialect ? "name" : "id");
		if (!id)
			return hks_fail(r->ctx, HKS_E_MALFORMED, x->offset, "<%s> without an id", x->name);
		r->objects[r->num_objects].id = id;
		r->objects[r->num_objects].node = i;
		r->num_objects++;
	}
	qsort(r->objects, r->num_objects, sizeof(struct xobj), cmp_obj);
	for (uint32_t i = 1; i < r->num_objects; i++)
		if (!strcmp(r->objects[i].id, r->objects[i - 1].id))
			return hks_fail(r->ctx, HKS_E_MALFORMED, r->nodes[r->objects[i].node].offset, "two objects named %s",
			                r->objects[i].id);
	return HKS_OK;
}

static hks_result read_document(xml_reader *r)
{
	hks_file *file = r->file;
	if (!r->num_nodes)
		return hks_fail(r->ctx, HKS_E_MALFORMED, 0, "empty XML document");
	const uint32_t root = 0;
	const xnode *doc = &r->nodes[root];
	uint32_t top = XNONE;
	if (!strcmp(doc->name, "hkpackfile")) {
		r->packfile_dialect = true;
		const char *v = attr(doc, "contentsversion");
		snprintf(file->sdk, sizeof(file->sdk), "%s", v ? v : "");
		const char *cv = attr(doc, "classversion");
		int64_t x;
		file->file_version = cv && parse_int(cv, &x) && x >= 0 && x <= 1000 ? (uint32_t)x : 0;
		HKS_TRY(index_objects(r, root));
		const char *t = attr(doc, "toplevelobject");
		if (t) {
			hks_err_object(r->ctx, "hkpackfile");
			HKS_TRY(resolve_ref(r, root, t, &top));
		}
	} else if (!strcmp(doc->name, "hktagfile")) {
		const char *v = attr(doc, "sdkversion");
		const char *ver = attr(doc, "version");
		if (v)
			snprintf(file->sdk, sizeof(file->sdk), "%s", v);
		else
			snprintf(file->sdk, sizeof(file->sdk), "hktagfile-%s", ver ? ver : "?");
		HKS_TRY(index_objects(r, root));
		/* the first object is the root (the contents) */
		for (uint32_t c = doc->first_child; c != XNONE && top == XNONE; c = r->nodes[c].next_sibling)
			if (!strcmp(r->nodes[c].name, "object"))
				top = c;
	} else {
		return hks_fail(r->ctx, HKS_E_UNSUPPORTED, doc->offset, "XML root <%s> is neither <hkpackfile> nor <hktagfile>",
		                doc->name);
	}
	file->pointer_size = 0; /* not a property of XML */
	if (top == XNONE)
		return HKS_OK;

	/* containers: the root itself, or hkRootLevelContainer named variants */
	uint32_t *containers = NULL, nc = 0;
	if (!strcmp(class_of(r, top), "hkaAnimationContainer")) {
		containers = (uint32_t *)hks_arena_array(r->arena, 1, 4);
		if (!containers)
			return HKS_E_NOMEM;
		containers[nc++] = top;
	} else if (!strcmp(class_of(r, top), "hkRootLevelContainer")) {
		uint32_t *vars, nv;
		object_context(r, top);
		HKS_TRY(get_elements(r, top, "namedVariants", &vars, &nv));
		containers = (uint32_t *)hks_arena_array(r->arena, nv ? nv : 1, 4);
		if (!containers)
			return HKS_E_NOMEM;
		for (uint32_t i = 0; i < nv; i++) {
			uint32_t v;
			if (vars[i] == XNONE)
				continue;
			HKS_TRY(get_ref(r, vars[i], "variant", &v));
			if (v != XNONE && !strcmp(class_of(r, v), "hkaAnimationContainer")) {
				bool seen = false;
				for (uint32_t k = 0; k < nc; k++)
					seen |= containers[k] == v;
				if (!seen)
					containers[nc++] = v;
			}
		}
	}

	uint32_t *lists[3][8];
	uint32_t counts[3][8];
	if (nc > 8)
		return hks_fail(r->ctx, HKS_E_UNSUPPORTED, r->nodes[top].offset, "more than 8 animation containers");
	uint64_t total[3] = {0, 0, 0};
	static const char *const names[3] = {"animations", "bindings", "skeletons"};
	for (uint32_t c = 0; c < nc; c++) {
		object_context(r, containers[c]);
		for (int k = 0; k < 3; k++) {
			HKS_TRY(get_elements(r, containers[c], names[k], &lists[k][c], &counts[k][c]));
			total[k] += counts[k][c];
		}
	}
	if (total[0] + total[1] + total[2] > r->ctx->limits.max_objects)
		return hks_fail(r->ctx, HKS_E_LIMIT, -1, "too many container entries");
	if (total[0]) {
		file->animations = (hks_animation *)hks_arena_array(r->arena, (size_t)total[0], sizeof(hks_animation));
		file->reference_frames = (hks_reference_frame *)hks_arena_array(r->arena, (size_t)total[0], sizeof(hks_reference_frame));
		r->anim_nodes = (uint32_t *)hks_arena_array(r->arena, (size_t)total[0], 4);
		if (!file->animations || !file->reference_frames || !r->anim_nodes)
			return HKS_E_NOMEM;
	}
	if (total[1] && !(file->bindings = (hks_binding *)hks_arena_array(r->arena, (size_t)total[1], sizeof(hks_binding))))
		return HKS_E_NOMEM;
	if (total[2] && !(file->skeletons = (hks_skeleton *)hks_arena_array(r->arena, (size_t)total[2], sizeof(hks_skeleton))))
		return HKS_E_NOMEM;
	for (uint32_t c = 0; c < nc; c++)
		for (uint32_t i = 0; i < counts[0][c]; i++) {
			uint32_t n = lists[0][c][i];
			if (n == XNONE)
				return hks_fail(r->ctx, HKS_E_MALFORMED, r->nodes[containers[c]].offset, "null animation %u", i);
			uint32_t ai = file->num_animations;
			hks_err_location(r->ctx, (int32_t)ai, -1, -1, HKS_PART_NONE);
			HKS_TRY(read_animation(r, n, &file->animations[ai]));
			hks_err_location(r->ctx, -1, -1, -1, HKS_PART_NONE);
			r->anim_nodes[ai] = n;
			file->num_animations++;
		}
	for (uint32_t c = 0; c < nc; c++) {
		for (uint32_t i = 0; i < counts[1][c]; i++) {
			if (lists[1][c][i] == XNONE)
				return hks_fail(r->ctx, HKS_E_MALFORMED, r->nodes[containers[c]].offset, "null binding %u", i);
			HKS_TRY(read_binding(r, lists[1][c][i], &file->bindings[file->num_bindings++]));
		}
		for (uint32_t i = 0; i < counts[2][c]; i++) {
			if (lists[2][c][i] == XNONE)
				return hks_fail(r->ctx, HKS_E_MALFORMED, r->nodes[containers[c]].offset, "null skeleton %u", i);
			HKS_TRY(read_skeleton(r, lists[2][c][i], &file->skeletons[file->num_skeletons++]));
		}
	}
	return HKS_OK;
}

hks_result hks_xml_parse(hks_ctx *ctx, const uint8_t *data, size_t size, hks_file *file)
{
	if (!file || !file->internal || !file->internal->arena || (!data && size))
		return hks_fail(ctx, HKS_E_ARGUMENT, -1, "hks_xml_parse: NULL argument");
	xml_reader r;
	memset(&r, 0, sizeof(r));
	r.ctx = ctx;
	r.arena = file->internal->arena;
	r.file = file;
	r.current = XNONE;
	hks_bytebuf_init(&r.text, ctx);
	file->container = HKS_CONTAINER_XML;
	hks_err_object(ctx, "XML document");
	hks_result res = build_tree(&r, data, size);
	if (res == HKS_OK)
		res = read_document(&r);
	hks_free(ctx, r.nodes, (size_t)r.cap_nodes * sizeof(xnode));
	hks_bytebuf_free(&r.text);
	return res;
}
