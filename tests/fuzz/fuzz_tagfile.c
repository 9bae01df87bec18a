/*
 * Fuzz target: TAG0 / TCM0 tagfiles with a structure-aware mutator. The
 * body is fuzz_file's (read, walk + sample every spline, write, read the
 * written file back: same animation count), but mutations go where the
 * format has its meaning: LLVMFuzzerCustomMutator parses the section tree
 * (a 4-byte big-endian word, 2 flag bits and a 30-bit size counting the
 * 8-byte header, then a 4-character tag; CONTAINERS.md §2.1), picks one
 * section (leaves of the type table TYPE: TNA1/TNAM, TBDY/TBOD, TPTR, TSTR,
 * FSTR, THSH, TPAD; the index INDX: ITEM and PTCH; DATA; TCRF/TCID),
 * mutates its body with libFuzzer's mutator (its length may change), and
 * rewrites the sizes of every section that encloses it, so the container
 * stays well-formed and the readers behind the header see the mutation. A
 * quarter of the mutations are plain byte mutations of the whole input, and
 * one in sixteen swaps two leaf bodies (an ITEM table where PTCH was ...).
 * Seeds: the TAG0 / TCM0 seeds of fuzz_file; dictionary: file.dict.
 */
#include "fuzz.h"
#include "fuzz_common.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) __attribute__((weak));
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	hks_read_options ro;
	memset(&ro, 0, sizeof(ro));
	fuzz_options(&ro.base);
	hks_file *file = NULL;
	hks_error err;
	if (hks_file_read(data, size, &ro, &file, &err) != HKS_OK) {
		FUZZ_CHECK(file == NULL && err.code != HKS_OK);
		return 0;
	}
	fuzz_walk_file(file);
	hks_write_options wo;
	memset(&wo, 0, sizeof(wo));
	fuzz_options(&wo.base);
	uint8_t *out = NULL;
	size_t out_size = 0;
	if (hks_file_write(file, &wo, &out, &out_size, &err) == HKS_OK) {
		hks_file *again = NULL;
		hks_result again_r = hks_file_read(out, out_size, &ro, &again, &err);
		if (again_r != HKS_OK)
			fprintf(stderr, "the written file does not read back: %s\n", err.message);
		FUZZ_CHECK(again_r == HKS_OK);
		FUZZ_CHECK(again->num_animations == file->num_animations);
		hks_file_free(again);
		hks_buffer_free(&wo.base, out, out_size);
	}
	hks_file_free(file);
	return 0;
}

/* ---- the section tree ---- */

#define MAX_SECTIONS 256
#define MAX_DEPTH 8

typedef struct section {
	size_t start;     /* header offset */
	size_t size;      /* header + body (the 30-bit size) */
	int leaf;         /* flag bit 0x40 of the first byte */
	int parent;       /* index, -1 for the root */
} section;

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* Parse [at, end) as a list of sections (children of `parent`); false when malformed. */
static int parse(const uint8_t *d, size_t at, size_t end, int parent, int depth, section *s, int *n)
{
	while (at < end) {
		if (end - at < 8 || *n >= MAX_SECTIONS || depth > MAX_DEPTH)
			return 0;
		uint32_t w = be32(d + at);
		size_t sz = w & 0x3FFFFFFFu;
		if (sz < 8 || sz > end - at)
			return 0;
		int me = (*n)++;
		s[me].start = at;
		s[me].size = sz;
		s[me].leaf = (w & 0x40000000u) != 0;
		s[me].parent = parent;
		if (!s[me].leaf && !parse(d, at + 8, at + sz, me, depth + 1, s, n))
			return 0;
		at += sz;
	}
	return 1;
}

static void put_size(uint8_t *p, size_t size)
{
	uint32_t w = (be32(p) & 0xC0000000u) | ((uint32_t)size & 0x3FFFFFFFu);
	p[0] = (uint8_t)(w >> 24);
	p[1] = (uint8_t)(w >> 16);
	p[2] = (uint8_t)(w >> 8);
	p[3] = (uint8_t)w;
}

static uint32_t next_rand(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* Replace the body of section `k` by `nb` bytes from `body`, fixing the enclosing sizes. */
static size_t replace_body(uint8_t *data, size_t size, size_t max_size, section *s, int k, const uint8_t *body,
                           size_t nb)
{
	size_t body_at = s[k].start + 8, old = s[k].size - 8;
	if (nb > old && size + (nb - old) > max_size)
		nb = old + (max_size - size);
	memmove(data + body_at + nb, data + body_at + old, size - body_at - old);
	memcpy(data + body_at, body, nb);
	for (int p = k; p >= 0; p = s[p].parent) {
		size_t ns = s[p].size - old + nb;
		if (ns > 0x3FFFFFFFu)
			return size;
		put_size(data + s[p].start, ns);
	}
	return size - old + nb;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	uint32_t r = seed * 2654435761u + 1;
	section s[MAX_SECTIONS];
	int n = 0;
	if (!LLVMFuzzerMutate)
		return size;
	if ((next_rand(&r) & 3) == 0 || !parse(data, 0, size, -1, 0, s, &n) || n == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	/* leaves only (their bodies are the tables); pick one, or swap two */
	int leaves[MAX_SECTIONS], nl = 0;
	for (int i = 0; i < n; i++)
		if (s[i].leaf)
			leaves[nl++] = i;
	if (nl == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	int k = leaves[next_rand(&r) % (uint32_t)nl];
	size_t old = s[k].size - 8;
	if ((next_rand(&r) & 15) == 0 && nl > 1) {
		int j = leaves[next_rand(&r) % (uint32_t)nl];
		if (j != k && s[j].size - 8 <= 65536) {
			size_t nb = s[j].size - 8;
			uint8_t *copy = (uint8_t *)malloc(nb ? nb : 1);
			if (!copy)
				return size;
			memcpy(copy, data + s[j].start + 8, nb);
			size_t out = replace_body(data, size, max_size, s, k, copy, nb);
			free(copy);
			return out;
		}
	}
	/* mutate the body in a scratch buffer with room to grow */
	size_t room = old + 256;
	if (size - old + room > max_size)
		room = max_size > size - old ? max_size - (size - old) : old;
	if (room < old)
		room = old;
	uint8_t *body = (uint8_t *)malloc(room ? room : 1);
	if (!body)
		return size;
	memcpy(body, data + s[k].start + 8, old);
	size_t nb = old ? LLVMFuzzerMutate(body, old, room) : 0;
	/* sections are padded to 4 bytes: keep the body a multiple of 4 when there is room */
	while ((nb & 3) && nb < room)
		body[nb++] = 0;
	size_t out = replace_body(data, size, max_size, s, k, body, nb);
	free(body);
	return out;
}
