/* Core: error record, allocator hook and limits, cursor, arena, byte buffer. */
#include "hks_test.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static void test_error_format(void **state)
{
	(void)state;
	hks_error e;
	hks_error_clear(&e);
	assert_int_equal(e.offset, -1);
	hks_ctx ctx;
	hks_options o = {0};
	o.name = "a000_000000.hkx";
	hks_ctx_init(&ctx, &o, 0, &e);
	hks_err_object(&ctx, "hkaSplineCompressedAnimation (item %d)", 3);
	hks_err_member(&ctx, "data");
	hks_err_location(&ctx, 0, 1, 7, HKS_PART_ROTATION);
	assert_int_equal(hks_fail(&ctx, HKS_E_MALFORMED, 1234, "walk ends at %d", 5), HKS_E_MALFORMED);
	/* the first error wins */
	hks_fail(&ctx, HKS_E_TRUNCATED, 1, "second");
	char buf[512];
	hks_error_format(&e, buf, sizeof(buf));
	assert_string_equal(buf, "a000_000000.hkx: hkaSplineCompressedAnimation (item 3): data: animation 0: block 1: "
	                         "track 7: rotation: at byte 1234: walk ends at 5");
	assert_int_equal(e.code, HKS_E_MALFORMED);
	/* truncated output buffer still terminates */
	char small[8];
	size_t need = hks_error_format(&e, small, sizeof(small));
	assert_int_equal(strlen(small), 7);
	assert_true(need > 7);
	assert_string_equal(hks_result_name(HKS_E_COMPENDIUM), "compendium not found");
}

static void test_cursor_bounds(void **state)
{
	(void)state;
	const uint8_t bytes[7] = {1, 2, 3, 4, 5, 6, 7};
	hks_error e;
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, sizeof(bytes), &e);
	hks_cursor c = hks_cursor_make(&ctx, bytes, sizeof(bytes), 100);
	uint32_t v = 0;
	assert_int_equal(hks_read_le32(&c, &v, "x"), HKS_OK);
	assert_int_equal(v, 0x04030201u);
	assert_int_equal(hks_align(&c, 4, "pad"), HKS_OK);
	assert_int_equal(c.pos, 4);
	assert_int_equal(hks_read_le32(&c, &v, "y"), HKS_E_TRUNCATED);
	assert_int_equal(v, 0x04030201u);
	assert_int_equal(e.offset, 104);
	assert_int_equal(c.pos, 4);
	uint16_t h;
	hks_error_clear(&e);
	assert_int_equal(hks_read_le16(&c, &h, "z"), HKS_OK);
	assert_int_equal(h, 0x0605);
	assert_int_equal(hks_align(&c, 8, "pad"), HKS_E_TRUNCATED);
	assert_false(hks_range_ok(7, 6, 2));
	assert_true(hks_range_ok(7, 5, 2));
	assert_false(hks_range_ok(7, 1, UINT64_MAX));
}

typedef struct counting {
	int allocs;
	int fail_at; /* fail the n-th allocation (1-based); 0 = never */
	size_t live;
} counting;

static void *c_alloc(void *u, size_t n)
{
	counting *c = (counting *)u;
	if (++c->allocs == c->fail_at)
		return NULL;
	c->live += n;
	return malloc(n);
}
static void *c_realloc(void *u, void *p, size_t o, size_t n)
{
	counting *c = (counting *)u;
	if (++c->allocs == c->fail_at)
		return NULL;
	c->live += n;
	c->live -= o;
	return realloc(p, n);
}
static void c_free(void *u, void *p, size_t n)
{
	counting *c = (counting *)u;
	c->live -= n;
	free(p);
}

static void test_allocator_and_limits(void **state)
{
	(void)state;
	counting cnt = {0};
	hks_options o = {0};
	o.allocator.alloc = c_alloc;
	o.allocator.realloc = c_realloc;
	o.allocator.free = c_free;
	o.allocator.user = &cnt;
	o.limits.max_memory = 1 << 20;
	hks_error e;
	hks_ctx ctx;
	hks_ctx_init(&ctx, &o, 0, &e);
	hks_arena *a = hks_arena_create(&ctx);
	assert_non_null(a);
	void *p = hks_arena_alloc(a, 1000);
	assert_non_null(p);
	assert_int_equal(((uintptr_t)p) & 15, 0);
	assert_null(hks_arena_alloc(a, 2 << 20));
	assert_int_equal(e.code, HKS_E_LIMIT);
	char *s = hks_arena_strdup(a, "bone");
	assert_string_equal(s, "bone");
	hks_arena_free(a);
	assert_int_equal(cnt.live, 0);

	/* allocation failure is an error, not a crash */
	cnt.fail_at = cnt.allocs + 1;
	hks_ctx_init(&ctx, &o, 0, &e);
	assert_null(hks_malloc(&ctx, 10));
	assert_int_equal(e.code, HKS_E_NOMEM);

	/* byte buffer with output limit */
	cnt.fail_at = 0;
	o.limits.max_output_bytes = 100;
	hks_ctx_init(&ctx, &o, 0, &e);
	hks_bytebuf b;
	hks_bytebuf_init(&b, &ctx);
	assert_int_equal(hks_bytebuf_append(&b, "abc", 3), HKS_OK);
	assert_int_equal(hks_bytebuf_pad(&b, 16), HKS_OK);
	assert_int_equal(b.size, 16);
	assert_int_equal(hks_bytebuf_zeros(&b, 100), HKS_E_LIMIT);
	size_t n;
	uint8_t *d = hks_bytebuf_take(&b, &n);
	assert_int_equal(n, 16);
	assert_memory_equal(d, "abc\0", 4);
	hks_buffer_free(&o, d, n);
	assert_int_equal(cnt.live, 0);
}

/* hks_bytebuf_finish: the output is exactly `size` bytes for the allocator
 * (its free receives that size), an empty buffer is a success with no
 * output, and a failed final shrink is HKS_E_NOMEM with nothing leaked: a
 * writer that returns its result cannot report success without output. */
static void test_bytebuf_finish(void **state)
{
	(void)state;
	counting cnt = {0};
	hks_options o = {0};
	o.allocator.alloc = c_alloc;
	o.allocator.realloc = c_realloc;
	o.allocator.free = c_free;
	o.allocator.user = &cnt;
	hks_error e;
	hks_ctx ctx;
	hks_ctx_init(&ctx, &o, 0, &e);
	hks_bytebuf b;
	uint8_t *out = (uint8_t *)&cnt; /* overwritten in every case */
	size_t n = 99;

	hks_bytebuf_init(&b, &ctx);
	assert_int_equal(hks_bytebuf_finish(&b, &out, &n), HKS_OK);
	assert_null(out);
	assert_int_equal(n, 0);

	hks_bytebuf_init(&b, &ctx);
	assert_int_equal(hks_bytebuf_append(&b, "abcde", 5), HKS_OK);
	assert_true(b.capacity > 5);
	assert_int_equal(hks_bytebuf_finish(&b, &out, &n), HKS_OK);
	assert_int_equal(n, 5);
	assert_int_equal(cnt.live, 5); /* shrunk: the allocator holds exactly n bytes */
	assert_memory_equal(out, "abcde", 5);
	hks_buffer_free(&o, out, n);
	assert_int_equal(cnt.live, 0);

	/* the shrinking realloc fails */
	hks_bytebuf_init(&b, &ctx);
	assert_int_equal(hks_bytebuf_append(&b, "abcde", 5), HKS_OK);
	cnt.fail_at = cnt.allocs + 1;
	assert_int_equal(hks_bytebuf_finish(&b, &out, &n), HKS_E_NOMEM);
	assert_int_equal(e.code, HKS_E_NOMEM);
	assert_null(out);
	assert_int_equal(n, 0);
	assert_int_equal(cnt.live, 0);
	assert_null(b.data);
	cnt.fail_at = 0;
}

static void test_nan_bits_survive(void **state)
{
	(void)state;
	uint32_t bits[] = {0x7FC00000u, 0x7FA00001u, 0xFFC12345u, 0x7F800000u};
	for (size_t i = 0; i < 4; i++) {
		float f = hks_f32_from_bits(bits[i]);
		volatile float g = f; /* a copy through memory */
		assert_int_equal(hks_f32_bits(g), bits[i]);
	}
}

static void test_detect(void **state)
{
	(void)state;
	const uint8_t tag[8] = {0, 0, 0, 8, 'T', 'A', 'G', '0'};
	assert_int_equal(hks_detect_container(tag, 8), HKS_CONTAINER_TAGFILE);
	assert_int_equal(hks_detect_container("BND4", 4), HKS_CONTAINER_BND4);
	assert_int_equal(hks_detect_container("DCX\0", 4), HKS_CONTAINER_DCX);
	assert_int_equal(hks_detect_container(" <?xml", 6), HKS_CONTAINER_XML);
	assert_int_equal(hks_detect_container("xx", 2), HKS_CONTAINER_UNKNOWN);
	assert_int_equal(hks_detect_container(NULL, 0), HKS_CONTAINER_UNKNOWN);
	hks_file *f = (hks_file *)1;
	hks_error e;
	assert_int_equal(hks_file_read("junk", 4, NULL, &f, &e), HKS_E_UNSUPPORTED);
	assert_null(f);
	assert_int_equal(e.offset, 0);
}

/* The printf-free object names are what snprintf writes, also when truncated. */
static void test_error_object_names(void **state)
{
	(void)state;
	hks_error e;
	hks_ctx ctx;
	char want[sizeof(e.object)], longname[300];
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	const uint32_t numbers[] = {0, 7, 10, 4294967295u};
	const size_t lengths[] = {0, 1, 100, 113, 114, 115, 116, 118, 119, 120, 126, 127, 128, 299};
	for (size_t k = 0; k < sizeof(numbers) / sizeof(numbers[0]); k++) {
		for (size_t l = 0; l < sizeof(lengths) / sizeof(lengths[0]); l++) {
			const char *name = longname + sizeof(longname) - 1 - lengths[l];
			hks_ctx_init(&ctx, NULL, 0, &e);
			hks_err_object_item(&ctx, name, numbers[k]);
			snprintf(want, sizeof(want), "%s (item %u)", name, numbers[k]);
			assert_string_equal(e.object, want);
			hks_ctx_init(&ctx, NULL, 0, &e);
			hks_err_object_type(&ctx, numbers[k], name);
			snprintf(want, sizeof(want), "type %u (%s)", numbers[k], name);
			assert_string_equal(e.object, want);
		}
	}
	/* a recorded error keeps its object, as with hks_err_object */
	hks_ctx_init(&ctx, NULL, 0, &e);
	hks_err_object_item(&ctx, "hkaSkeleton", 2);
	hks_fail(&ctx, HKS_E_MALFORMED, 0, "bad");
	hks_err_object_type(&ctx, 9, "hkRootLevelContainer");
	assert_string_equal(e.object, "hkaSkeleton (item 2)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_format),
		cmocka_unit_test(test_error_object_names),
		cmocka_unit_test(test_cursor_bounds),
		cmocka_unit_test(test_allocator_and_limits),
		cmocka_unit_test(test_bytebuf_finish),
		cmocka_unit_test(test_nan_bits_survive),
		cmocka_unit_test(test_detect),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
