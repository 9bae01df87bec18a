/*
 * rcpss / rsqrtss models (ENCODER.md §11): table checksums of §11.2 and §11.3,
 * the published spot values, the special cases, the Newton forms of §4.1, the
 * Intel-vs-Zen difference counts of §11.1, and the native instruction.
 */
#include "hks_test.h"
#include "encode_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- a small sha256 (FIPS 180-4) for the table checksums -------------- */

typedef struct sha256 {
	uint32_t h[8];
	uint8_t block[64];
	size_t fill;
	uint64_t bytes;
} sha256;

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t ror(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

static void sha_init(sha256 *s)
{
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	memcpy(s->h, h0, sizeof(h0));
	s->fill = 0;
	s->bytes = 0;
}

static void sha_block(sha256 *s, const uint8_t *p)
{
	uint32_t w[64];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++)
		w[i] = w[i - 16] + (ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3)) + w[i - 7] +
		       (ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10));
	uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
	}
	s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
	s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

static void sha_update(sha256 *s, const void *data, size_t n)
{
	const uint8_t *p = (const uint8_t *)data;
	s->bytes += n;
	while (n--) {
		s->block[s->fill++] = *p++;
		if (s->fill == 64) {
			sha_block(s, s->block);
			s->fill = 0;
		}
	}
}

static void sha_hex(sha256 *s, char out[65])
{
	uint64_t bits = s->bytes * 8;
	uint8_t b = 0x80;
	sha_update(s, &b, 1);
	b = 0;
	while (s->fill != 56)
		sha_update(s, &b, 1);
	for (int i = 7; i >= 0; i--) {
		b = (uint8_t)(bits >> (8 * i));
		sha_update(s, &b, 1);
	}
	for (int i = 0; i < 8; i++)
		snprintf(out + 8 * i, 9, "%08" PRIx32, s->h[i]);
}

static void sha_line(sha256 *s, unsigned v)
{
	char line[8];
	int n = snprintf(line, sizeof(line), "%03x\n", v);
	sha_update(s, line, (size_t)n);
}

static void test_sha256_itself(void **state)
{
	(void)state;
	char hex[65];
	sha256 s;
	sha_init(&s);
	sha_update(&s, "abc", 3);
	sha_hex(&s, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha_init(&s);
	sha_hex(&s, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

/* ---- helpers ------------------------------------------------------------ */

static const hks_rcp_model *intel(void) { return hks_rcp_model_get(HKS_CPU_INTEL); }
static const hks_rcp_model *zen(void) { return hks_rcp_model_get(HKS_CPU_AMD_ZEN); }
static float fb(uint32_t u) { return hks_f32_from_bits(u); }
static uint32_t bf(float f) { return hks_f32_bits(f); }
/* The 12-bit mantissa of an estimate (the stored table value). */
static unsigned mant12(float r) { return (bf(r) >> 11) & 0xFFFu; }

/* ---- §11.2: Intel closed forms ----------------------------------------- */

static void test_intel_table_checksums(void **state)
{
	(void)state;
	const hks_rcp_model *m = intel();
	char hex[65];
	sha256 s, via_model;
	/* T_rcp: the closed form, and the model evaluated on 1 + i/2048 */
	sha_init(&s);
	sha_init(&via_model);
	for (uint32_t i = 0; i < 2048; i++) {
		sha_line(&s, hks_intel_rcp_entry(i));
		sha_line(&via_model, mant12(hks_rcp(m, fb(0x3F800000u | i << 12))));
	}
	sha_hex(&s, hex);
	assert_string_equal(hex, "e9667860c78d12fe69a35f754e707da56fb96224a8f29c9a5657240ca2405566");
	sha_hex(&via_model, hex);
	assert_string_equal(hex, "e9667860c78d12fe69a35f754e707da56fb96224a8f29c9a5657240ca2405566");
	/* T_odd (biased exponent 127 is odd) and T_even (128) */
	sha256 so, se, mo, me;
	sha_init(&so);
	sha_init(&se);
	sha_init(&mo);
	sha_init(&me);
	for (uint32_t i = 0; i < 1024; i++) {
		sha_line(&so, hks_intel_rsqrt_odd_entry(i));
		sha_line(&se, hks_intel_rsqrt_even_entry(i));
		sha_line(&mo, mant12(hks_rsqrt(m, fb(0x3F800000u | i << 13))));
		sha_line(&me, mant12(hks_rsqrt(m, fb(0x40000000u | i << 13))));
	}
	sha_hex(&so, hex);
	assert_string_equal(hex, "3a4cb0b97e250898f75103b08f96726105d79b04fc5d827c6521c08899d1838b");
	sha_hex(&mo, hex);
	assert_string_equal(hex, "3a4cb0b97e250898f75103b08f96726105d79b04fc5d827c6521c08899d1838b");
	sha_hex(&se, hex);
	assert_string_equal(hex, "636e6481ab695ac713eee0101fa05932549300ba0bab622aa6760ffbcfd321de");
	sha_hex(&me, hex);
	assert_string_equal(hex, "636e6481ab695ac713eee0101fa05932549300ba0bab622aa6760ffbcfd321de");
	/* §11.2 end points and spot values (published Skylake measurements) */
	assert_int_equal(hks_intel_rcp_entry(0), 0xFFE);
	assert_int_equal(hks_intel_rcp_entry(2047), 0x001);
	assert_int_equal(bf(hks_rcp(m, 1.0f)), 0x3F7FF000u);
	assert_int_equal(bf(hks_rsqrt(m, 256.0f)), 0x3D7FF000u);
	/* the low 12 fraction bits are ignored by the 11-bit index */
	assert_int_equal(bf(hks_rcp(m, fb(0x3F800FFFu))), 0x3F7FF000u);
}

/* ---- §11.3: Zen tables -------------------------------------------------- */

static void test_zen_table_checksums(void **state)
{
	(void)state;
	const hks_rcp_model *m = zen();
	const uint16_t *tabs[3] = {hks_zen_rcp_table, hks_zen_rsqrt_odd_table, hks_zen_rsqrt_even_table};
	const char *want[3] = {"d40aebf44ed2b593bdf6a052f496ef5837ffc5a7e135eaa776d5cf918129aa2d",
	                       "359f56185c889d48d81eecc15ac4b89764e579f9d532cbfada50ac04fd4e4c73",
	                       "fb1f1404ed8c07b1e261bb9e5c41cf4d038169d8f020a8e42ffba6eb1575ab48"};
	char hex[65];
	sha256 all, all_model;
	sha_init(&all);
	sha_init(&all_model);
	for (int t = 0; t < 3; t++) {
		sha256 s;
		sha_init(&s);
		for (uint32_t i = 0; i < 4096; i++) {
			sha_line(&s, tabs[t][i]);
			sha_line(&all, tabs[t][i]);
			float x = fb((t == 2 ? 0x40000000u : 0x3F800000u) | i << 11);
			sha_line(&all_model, mant12(t == 0 ? hks_rcp(m, x) : hks_rsqrt(m, x)));
		}
		sha_hex(&s, hex);
		assert_string_equal(hex, want[t]);
	}
	sha_hex(&all, hex);
	assert_string_equal(hex, "d4d38513d98ac5fc0d5e33bf1158fc0c56de6a64b7c284ec0860aab06382b898");
	sha_hex(&all_model, hex);
	assert_string_equal(hex, "d4d38513d98ac5fc0d5e33bf1158fc0c56de6a64b7c284ec0860aab06382b898");
	/* §11.3 spot values */
	const uint16_t first[4] = {0xffe, 0xffc, 0xffb, 0xff9}, last[4] = {0x002, 0x001, 0x001, 0x000};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(hks_zen_rcp_table[i], first[i]);
		assert_int_equal(hks_zen_rcp_table[4092 + i], last[i]);
	}
	assert_int_equal(bf(hks_rcp(m, 1.0f)), 0x3F7FF000u);
	assert_int_equal(bf(hks_rsqrt(m, 256.0f)), 0x3D7FF800u);
	/* "The Zen reciprocal differs from the Intel model in 2,115 of 4,096
	 * entries (by 1-2 units of 2^-12)": Intel's 11-bit index is i >> 1. */
	int differ = 0, max_units = 0;
	for (uint32_t i = 0; i < 4096; i++) {
		int d = (int)hks_zen_rcp_table[i] - (int)hks_intel_rcp_entry(i >> 1);
		if (d < 0)
			d = -d;
		differ += d != 0;
		if (d > max_units)
			max_units = d;
	}
	assert_int_equal(differ, 2115);
	assert_int_equal(max_units, 2);
}

/* ---- §11.3 special cases (both table models) ---------------------------- */

static void check_special_cases(const hks_rcp_model *m)
{
	/* ±0 and denormals → ±∞, sign kept */
	assert_int_equal(bf(hks_rcp(m, fb(0x00000000u))), 0x7F800000u);
	assert_int_equal(bf(hks_rcp(m, fb(0x80000000u))), 0xFF800000u);
	assert_int_equal(bf(hks_rcp(m, fb(0x00000001u))), 0x7F800000u);
	assert_int_equal(bf(hks_rcp(m, fb(0x807FFFFFu))), 0xFF800000u);
	assert_int_equal(bf(hks_rsqrt(m, fb(0x00000000u))), 0x7F800000u);
	assert_int_equal(bf(hks_rsqrt(m, fb(0x80000000u))), 0xFF800000u);
	assert_int_equal(bf(hks_rsqrt(m, fb(0x007FFFFFu))), 0x7F800000u);
	assert_int_equal(bf(hks_rsqrt(m, fb(0x80000001u))), 0xFF800000u);
	/* +∞ → +0; −∞ → −0 (rcp) / default NaN (rsqrt) */
	assert_int_equal(bf(hks_rcp(m, fb(0x7F800000u))), 0x00000000u);
	assert_int_equal(bf(hks_rcp(m, fb(0xFF800000u))), 0x80000000u);
	assert_int_equal(bf(hks_rsqrt(m, fb(0x7F800000u))), 0x00000000u);
	assert_int_equal(bf(hks_rsqrt(m, fb(0xFF800000u))), 0xFFC00000u);
	/* NaN → the input, quieted (payload and sign kept) */
	assert_int_equal(bf(hks_rcp(m, fb(0x7F800001u))), 0x7FC00001u);
	assert_int_equal(bf(hks_rcp(m, fb(0xFFA12345u))), 0xFFE12345u);
	assert_int_equal(bf(hks_rsqrt(m, fb(0x7FC00000u))), 0x7FC00000u);
	assert_int_equal(bf(hks_rsqrt(m, fb(0xFF812345u))), 0xFFC12345u);
	/* negative normal: rcp keeps the sign; rsqrt gives the default NaN */
	assert_int_equal(bf(hks_rcp(m, -1.0f)), 0xBF7FF000u);
	assert_int_equal(bf(hks_rsqrt(m, -4.0f)), 0xFFC00000u);
	/* 253 − e ≤ 0: the result would be denormal → ±0 */
	assert_int_equal(bf(hks_rcp(m, fb(0x7E800000u))), 0x00000000u); /* e = 253 */
	assert_int_equal(bf(hks_rcp(m, fb(0xFF7FFFFFu))), 0x80000000u); /* e = 254 */
	/* e = 252: smallest normal result exponent 1 */
	assert_int_equal(bf(hks_rcp(m, fb(0x7E000000u))) >> 23, 1u);
	/* the smallest normal input: exponent 252 */
	assert_int_equal(bf(hks_rcp(m, fb(0x00800000u))) >> 23, 252u);
	/* rsqrt exponent rule with floor division: rsqrt(0.5) ~ 1.414 (e = 126 even),
	 * rsqrt(2^-126) = 2^63 (e = 1 odd), rsqrt(2^127) ~ 2^-63.5 (e = 254 even) */
	assert_int_equal(bf(hks_rsqrt(m, 0.5f)) >> 23, 127u);
	assert_int_equal(bf(hks_rsqrt(m, fb(0x00800000u))) >> 23, 126u + 63u);
	assert_int_equal(bf(hks_rsqrt(m, fb(0x7F000000u))) >> 23, 126u - 63u);
}

static void test_special_cases(void **state)
{
	(void)state;
	check_special_cases(intel());
	check_special_cases(zen());
	/* scale invariance: rcp(4x) = rcp(x)/4 exactly, the mantissa only depends on f */
	for (uint32_t i = 0; i < 4096; i += 7) {
		float x = fb(0x3F800000u | i << 11);
		assert_int_equal(bf(hks_rcp(zen(), x * 4.0f)), bf(hks_rcp(zen(), x) * 0.25f));
		assert_int_equal(bf(hks_rcp(intel(), x * 4.0f)), bf(hks_rcp(intel(), x) * 0.25f));
		assert_int_equal(bf(hks_rsqrt(zen(), x * 4.0f)), bf(hks_rsqrt(zen(), x) * 0.5f));
	}
}

/* ---- §4.1 Newton forms and §11.1 difference counts --------------------- */

static void test_newton_forms(void **state)
{
	(void)state;
	/* rcpNR(1): r0 = 1 − 2^-12, t = r0, d = 1 + 2^-12, r = 1 − 2^-24 exactly (both models). */
	assert_int_equal(bf(hks_rcp_nr(intel(), 1.0f)), 0x3F7FFFFFu);
	assert_int_equal(bf(hks_rcp_nr(zen(), 1.0f)), 0x3F7FFFFFu);
	/* rcpLin(1): a = 2 − 2^-11, b = r0² = 1 − 2^-11 + 2^-24 → f32 rounding, c = b, r = a − c */
	{
		float r0 = fb(0x3F7FF000u);
		float a = r0 + r0, b = r0 * r0, c = b * 1.0f;
		assert_int_equal(bf(hks_rcp_lin(intel(), 1.0f)), bf(a - c));
	}
	/* §16: rsqrtNR(1.0f) is one ulp below 1 on Intel, exactly 1 on Zen. */
	assert_int_equal(bf(hks_rsqrt_nr(intel(), 1.0f)), 0x3F7FFFFFu);
	assert_int_equal(bf(hks_rsqrt_nr(zen(), 1.0f)), 0x3F800000u);
	/* exact model: true division */
	const hks_rcp_model *ex = hks_rcp_model_get(HKS_CPU_EXACT);
	assert_non_null(ex);
	assert_true(hks_rcp(ex, 3.0f) == 1.0f / 3.0f);
	assert_true(hks_rsqrt(ex, 4.0f) == 0.5f);
	assert_true(isinf(hks_rcp(ex, 0.0f)));
	/* §11.1: for n = 1 … 256 the Intel and Zen 5 models differ in the raw
	 * estimate for 118 values, after rcpNR for 77, after rcpLin for 70. */
	int raw = 0, nr = 0, lin = 0;
	for (int n = 1; n <= 256; n++) {
		float x = (float)n;
		raw += bf(hks_rcp(intel(), x)) != bf(hks_rcp(zen(), x));
		nr += bf(hks_rcp_nr(intel(), x)) != bf(hks_rcp_nr(zen(), x));
		lin += bf(hks_rcp_lin(intel(), x)) != bf(hks_rcp_lin(zen(), x));
	}
	assert_int_equal(raw, 118);
	assert_int_equal(nr, 77);
	assert_int_equal(lin, 70);
}

static void test_model_names(void **state)
{
	(void)state;
	hks_cpu_model id;
	const char *names[] = {"auto", "intel", "amd-zen", "native", "exact"};
	for (int i = 0; i < 5; i++) {
		assert_int_equal(hks_cpu_model_parse(names[i], &id), 0);
		assert_int_equal(id, i);
		assert_string_equal(hks_cpu_model_name(id), names[i]);
	}
	assert_int_equal(hks_cpu_model_parse("zen", &id), -1);
	assert_null(hks_rcp_model_get(HKS_CPU_AUTO));
	assert_int_equal(hks_rcp_model_id(zen()), HKS_CPU_AMD_ZEN);
	assert_int_equal(hks_rcp_model_id(intel()), HKS_CPU_INTEL);
}

/* ---- native: the host instruction -------------------------------------- */

#if defined(__SSE__) || defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#define TEST_HAVE_SSE 1
#else
#define TEST_HAVE_SSE 0
#endif

static void test_native(void **state)
{
	(void)state;
#if TEST_HAVE_SSE
	const hks_rcp_model *nat = hks_rcp_model_get(HKS_CPU_NATIVE);
	assert_non_null(nat);
	/* the model is the instruction */
	for (uint32_t u = 0; u < 0xFFFFF000u; u += 0x10001u * 7u) {
		float x = fb(u);
		assert_int_equal(bf(hks_rcp(nat, x)), bf(_mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(x)))));
		assert_int_equal(bf(hks_rsqrt(nat, x)), bf(_mm_cvtss_f32(_mm_rsqrt_ss(_mm_set_ss(x)))));
	}
	/* Which table model is this host? Compare its 12-bit tables by the dump method. */
	int is_zen = 1, is_intel = 1;
	for (uint32_t i = 0; i < 4096; i++) {
		float a = fb(0x3F800000u | i << 11), b = fb(0x40000000u | i << 11);
		unsigned r = mant12(hks_rcp(nat, a)), so = mant12(hks_rsqrt(nat, a)), se = mant12(hks_rsqrt(nat, b));
		is_zen &= r == hks_zen_rcp_table[i] && so == hks_zen_rsqrt_odd_table[i] && se == hks_zen_rsqrt_even_table[i];
		is_intel &= r == hks_intel_rcp_entry(i >> 1) && so == hks_intel_rsqrt_odd_entry(i >> 2) &&
		            se == hks_intel_rsqrt_even_entry(i >> 2);
	}
	const hks_rcp_model *same = is_zen ? zen() : is_intel ? intel() : NULL;
	if (!same) {
		print_message("native: this host's estimates match neither model; model comparison skipped\n");
		return;
	}
	print_message("native: this host matches the %s model\n", is_zen ? "amd-zen" : "intel");
	/* Then the model must equal the instruction everywhere: a strided sweep
	 * over all 2^32 inputs (tools/dump_rcp_tables --verify does all of them),
	 * plus every special class. */
	uint64_t checked = 0;
	for (uint64_t v = 0; v <= 0xFFFFFFFFu; v += 4099) {
		float x = fb((uint32_t)v);
		assert_int_equal(bf(hks_rcp(same, x)), bf(hks_rcp(nat, x)));
		assert_int_equal(bf(hks_rsqrt(same, x)), bf(hks_rsqrt(nat, x)));
		checked++;
	}
	const uint32_t specials[] = {0, 0x80000000u, 1, 0x807FFFFFu, 0x7F800000u, 0xFF800000u, 0x7F800001u,
	                             0xFFC00000u, 0x7FC12345u, 0xBF800000u, 0x7E800000u, 0x7E7FFFFFu, 0xFF7FFFFFu,
	                             0x00800000u, 0x3F800000u, 0x43800000u};
	for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]); i++) {
		float x = fb(specials[i]);
		assert_int_equal(bf(hks_rcp(same, x)), bf(hks_rcp(nat, x)));
		assert_int_equal(bf(hks_rsqrt(same, x)), bf(hks_rsqrt(nat, x)));
	}
	assert_true(checked > 1000000);
#else
	assert_null(hks_rcp_model_get(HKS_CPU_NATIVE));
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_itself),
		cmocka_unit_test(test_intel_table_checksums),
		cmocka_unit_test(test_zen_table_checksums),
		cmocka_unit_test(test_special_cases),
		cmocka_unit_test(test_newton_forms),
		cmocka_unit_test(test_model_names),
		cmocka_unit_test(test_native),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
