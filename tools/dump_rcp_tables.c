/*
 * dump_rcp_tables: measure the host CPU's rcpss / rsqrtss 12-bit estimate
 * tables by the dump method of ENCODER.md §11.3.
 *
 *   dump_rcp_tables            print Z_rcp, Z_odd, Z_even (3 x 4096 lines "%03x")
 *   dump_rcp_tables --sha256   print the sha256 of that text and of each table
 *   dump_rcp_tables --c        print src/encode/rcp_tables_zen.c (with checksums)
 *   dump_rcp_tables --verify   compare the library's amd-zen and intel models with
 *                              the host instruction over all 2^32 inputs (slow)
 *
 * For i = 0 … 4095: rcp of the float with bits 0x3F800000 | i << 11 gives
 * Z_rcp[i] = (bits >> 11) & 0xFFF; rsqrt of 0x3F800000 | i << 11 (odd biased
 * exponent 127) gives Z_odd[i], of 0x40000000 | i << 11 (even exponent 128)
 * Z_even[i]. The tool also checks the assumption behind the method: every
 * result has the expected exponent and zero low 11 bits; otherwise the table
 * would not describe the instruction and the tool fails.
 *
 * x86 only (the instructions are what is measured).
 */
#include "encode_internal.h"

#include <inttypes.h>
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#include <cpuid.h>
#define HAVE_CPUID_H 1
#endif
#include <stdio.h>
#include <string.h>

#if defined(__SSE__) || defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#define HAVE_SSE 1
#else
#define HAVE_SSE 0
#endif

/* ---- a small sha256 (FIPS 180-4), for printing the checksums ---------- */

typedef struct sha256 {
	uint32_t h[8];
	uint8_t block[64];
	size_t fill;
	uint64_t bytes;
} sha256;

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t ror(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

static void sha256_init(sha256 *s)
{
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	memcpy(s->h, h0, sizeof(h0));
	s->fill = 0;
	s->bytes = 0;
}

static void sha256_block(sha256 *s, const uint8_t *p)
{
	uint32_t w[64];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
	uint32_t e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + sha256_k[i] + w[i];
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		h = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
	s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

static void sha256_update(sha256 *s, const void *data, size_t n)
{
	const uint8_t *p = (const uint8_t *)data;
	s->bytes += n;
	while (n > 0) {
		size_t take = 64 - s->fill < n ? 64 - s->fill : n;
		memcpy(s->block + s->fill, p, take);
		s->fill += take;
		p += take;
		n -= take;
		if (s->fill == 64) {
			sha256_block(s, s->block);
			s->fill = 0;
		}
	}
}

static void sha256_hex(sha256 *s, char out[65])
{
	uint64_t bits = s->bytes * 8;
	uint8_t pad = 0x80;
	sha256_update(s, &pad, 1);
	pad = 0;
	while (s->fill != 56)
		sha256_update(s, &pad, 1);
	uint8_t len[8];
	for (int i = 0; i < 8; i++)
		len[i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256_update(s, len, 8);
	for (int i = 0; i < 8; i++)
		sprintf(out + 8 * i, "%08" PRIx32, s->h[i]);
}

#if HAVE_SSE

static float hw_rcp(float x) { return _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(x))); }
static float hw_rsqrt(float x) { return _mm_cvtss_f32(_mm_rsqrt_ss(_mm_set_ss(x))); }

static uint16_t tables[3][4096];

/* Dump the three tables; 0 on success, 1 when a result breaks the method's assumption. */
static int dump(void)
{
	for (uint32_t i = 0; i < 4096; i++) {
		uint32_t in_odd = 0x3F800000u | i << 11;
		uint32_t in_even = 0x40000000u | i << 11;
		uint32_t r = hks_f32_bits(hw_rcp(hks_f32_from_bits(in_odd)));
		uint32_t so = hks_f32_bits(hw_rsqrt(hks_f32_from_bits(in_odd)));
		uint32_t se = hks_f32_bits(hw_rsqrt(hks_f32_from_bits(in_even)));
		/* rcp of [1, 2) lies in (0.5, 1]: exponent 126 (253 − 127); rsqrt of
		 * [1, 2) in (0.70, 1] and of [2, 4) in (0.5, 0.71]: exponent 126. */
		if (r >> 23 != 126 || so >> 23 != 126 || se >> 23 != 126 || (r & 0x7FF) || (so & 0x7FF) || (se & 0x7FF)) {
			fprintf(stderr, "dump_rcp_tables: entry %u breaks the 12-bit table assumption "
			                "(rcp %08x, rsqrt odd %08x, even %08x)\n", i, r, so, se);
			return 1;
		}
		tables[0][i] = (uint16_t)((r >> 11) & 0xFFF);
		tables[1][i] = (uint16_t)((so >> 11) & 0xFFF);
		tables[2][i] = (uint16_t)((se >> 11) & 0xFFF);
	}
	return 0;
}

static void checksums(char all[65], char each[3][65])
{
	sha256 s_all;
	sha256_init(&s_all);
	for (int t = 0; t < 3; t++) {
		sha256 s;
		sha256_init(&s);
		for (int i = 0; i < 4096; i++) {
			char line[8];
			int n = snprintf(line, sizeof(line), "%03x\n", tables[t][i]);
			sha256_update(&s, line, (size_t)n);
			sha256_update(&s_all, line, (size_t)n);
		}
		sha256_hex(&s, each[t]);
	}
	sha256_hex(&s_all, all);
}

/* The Zen 5 checksums published in ENCODER.md §11.3 (all three tables, then each). */
static const char *const spec_zen5_sha256[4] = {
	"d4d38513d98ac5fc0d5e33bf1158fc0c56de6a64b7c284ec0860aab06382b898",
	"d40aebf44ed2b593bdf6a052f496ef5837ffc5a7e135eaa776d5cf918129aa2d",
	"359f56185c889d48d81eecc15ac4b89764e579f9d532cbfada50ac04fd4e4c73",
	"fb1f1404ed8c07b1e261bb9e5c41cf4d038169d8f020a8e42ffba6eb1575ab48"};

/* "AuthenticAMD family 0x1a model 0x02" or "unknown CPU". */
static void cpu_description(char *buf, size_t size)
{
	snprintf(buf, size, "unknown CPU");
#ifdef HAVE_CPUID_H
	unsigned a, b, c, d;
	if (!__get_cpuid(0, &a, &b, &c, &d))
		return;
	char vendor[13];
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return;
	unsigned family = (a >> 8) & 0xF, model = (a >> 4) & 0xF;
	if (family == 0xF)
		family += (a >> 20) & 0xFF;
	if (family >= 0x6)
		model |= ((a >> 16) & 0xF) << 4;
	snprintf(buf, size, "%s family 0x%x model 0x%02x stepping %u", vendor, family, model, a & 0xF);
#endif
}

static const char *const table_names[3] = {"hks_zen_rcp_table", "hks_zen_rsqrt_odd_table",
                                           "hks_zen_rsqrt_even_table"};

static void print_c(void)
{
	char all[65], each[3][65], cpu[96];
	checksums(all, each);
	cpu_description(cpu, sizeof(cpu));
	int same = strcmp(all, spec_zen5_sha256[0]) == 0;
	printf("/*\n"
	       " * GENERATED by tools/dump_rcp_tables.c (`dump_rcp_tables --c`): do not edit.\n"
	       " *\n"
	       " * The AMD Zen rcpss / rsqrtss 12-bit mantissa tables of ENCODER.md §11.3,\n"
	       " * measured with the dump method on the host CPU the generator ran on:\n"
	       " * %s.\n"
	       " * Entry i is the estimate for the input 1 + i/4096 (rcp, rsqrt odd exponent)\n"
	       " * or 2·(1 + i/4096) (rsqrt even exponent); the low 11 input bits are ignored.\n"
	       " *\n"
	       " * sha256 of the 3 x 4096 \"%%03x\\n\" lines (rcp, odd, even): %s\n"
	       " *   rcp       %s\n"
	       " *   rsqrt odd %s\n"
	       " *   rsqrt even %s\n"
	       " * %s\n"
	       " */\n"
	       "#include \"encode_internal.h\"\n",
	       cpu, all, each[0], each[1], each[2],
	       same ? "These equal the Zen 5 checksums of ENCODER.md §11.3 (test_rcp.c verifies them)."
	            : "WARNING: these DIFFER from the Zen 5 checksums of ENCODER.md §11.3.");
	for (int t = 0; t < 3; t++) {
		printf("\nconst uint16_t %s[4096] = {\n", table_names[t]);
		for (int i = 0; i < 4096; i++)
			printf("%s0x%03x,%s", i % 12 == 0 ? "\t" : "", tables[t][i], i % 12 == 11 || i == 4095 ? "\n" : " ");
		printf("};\n");
	}
}

/* Compare a library model with the instruction over every 32-bit input. */
static uint64_t verify_model(hks_cpu_model id)
{
	const hks_rcp_model *m = hks_rcp_model_get(id);
	uint64_t bad_rcp = 0, bad_rsqrt = 0;
	uint32_t u = 0;
	do {
		float x = hks_f32_from_bits(u);
		uint32_t a = hks_f32_bits(hks_rcp(m, x)), b = hks_f32_bits(hw_rcp(x));
		if (a != b && bad_rcp++ < 5)
			fprintf(stderr, "  %s rcp(%08x): model %08x, instruction %08x\n", hks_cpu_model_name(id), u, a, b);
		a = hks_f32_bits(hks_rsqrt(m, x));
		b = hks_f32_bits(hw_rsqrt(x));
		if (a != b && bad_rsqrt++ < 5)
			fprintf(stderr, "  %s rsqrt(%08x): model %08x, instruction %08x\n", hks_cpu_model_name(id), u, a, b);
	} while (++u != 0);
	printf("%s: rcp differs on %" PRIu64 " inputs, rsqrt on %" PRIu64 " of 2^32\n", hks_cpu_model_name(id), bad_rcp,
	       bad_rsqrt);
	return bad_rcp + bad_rsqrt;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (argc > 2 || (argc == 2 && strcmp(mode, "--sha256") && strcmp(mode, "--c") && strcmp(mode, "--verify"))) {
		fprintf(stderr, "usage: dump_rcp_tables [--sha256 | --c | --verify]\n");
		return 2;
	}
	if (dump())
		return 1;
	if (strcmp(mode, "--sha256") == 0) {
		char all[65], each[3][65];
		checksums(all, each);
		const char *names[4] = {"all       ", "rcp       ", "rsqrt_odd ", "rsqrt_even"};
		const char *sums[4] = {all, each[0], each[1], each[2]};
		for (int i = 0; i < 4; i++)
			printf("%s %s %s\n", names[i], sums[i],
			       strcmp(sums[i], spec_zen5_sha256[i]) == 0 ? "(= Zen 5, ENCODER.md §11.3)" : "(differs from Zen 5)");
	} else if (strcmp(mode, "--c") == 0) {
		print_c();
	} else if (strcmp(mode, "--verify") == 0) {
		uint64_t zen = verify_model(HKS_CPU_AMD_ZEN);
		uint64_t intel = verify_model(HKS_CPU_INTEL);
		/* success when the host equals one of the two models everywhere */
		return (zen == 0 || intel == 0) ? 0 : 1;
	} else {
		for (int t = 0; t < 3; t++)
			for (int i = 0; i < 4096; i++)
				printf("%03x\n", tables[t][i]);
	}
	return 0;
}

#else

int main(void)
{
	fprintf(stderr, "dump_rcp_tables: needs an x86 CPU with SSE (the instructions are what is measured)\n");
	return 1;
}

#endif
