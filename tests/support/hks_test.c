#define _DEFAULT_SOURCE
#include "hks_test.h"
#include "record.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *hks_test_corpus(void)
{
	const char *env = getenv("HKSPLINE_CORPUS");
	if (!env || !*env)
		env = getenv("HKSPLINE_CORPUS_DEFAULT");
	if (!env || !*env)
		env = "../shared/corpus";
	struct stat st;
	if (stat(env, &st) != 0 || !S_ISDIR(st.st_mode))
		return NULL;
	return env;
}

const char *hks_test_require_corpus(const char *test_name)
{
	const char *c = hks_test_corpus();
	if (!c) {
		printf("SKIPPED %s: corpus not found (set HKSPLINE_CORPUS to the corpus folder)\n", test_name);
		fflush(stdout);
		exit(77);
	}
	return c;
}

uint8_t *hks_test_read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0) {
		fclose(f);
		return NULL;
	}
	long n = ftell(f);
	if (n < 0) {
		fclose(f);
		return NULL;
	}
	rewind(f);
	uint8_t *p = (uint8_t *)malloc((size_t)n + 1);
	if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		p = NULL;
	}
	fclose(f);
	if (p) {
		p[n] = 0; /* text readers (atoi, strtol) may rely on the terminator */
		*size = (size_t)n;
	}
	return p;
}

static int ends_with_ci(const char *name, const char *suffix, size_t slen)
{
	size_t n = strlen(name);
	if (n < slen)
		return 0;
	for (size_t i = 0; i < slen; i++)
		if (tolower((unsigned char)name[n - slen + i]) != tolower((unsigned char)suffix[i]))
			return 0;
	return 1;
}

static int matches(const char *name, const char *suffixes)
{
	const char *s = suffixes;
	while (*s) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		if (len && ends_with_ci(name, s, len))
			return 1;
		if (!e)
			break;
		s = e + 1;
	}
	return 0;
}

typedef struct list {
	char **items;
	size_t count, cap;
} list;

static void push(list *l, const char *path)
{
	if (l->count == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->items = (char **)realloc(l->items, l->cap * sizeof(char *));
	}
	l->items[l->count++] = strdup(path);
}

static void walk(const char *dir, const char *suffixes, list *l)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		size_t n = strlen(dir) + strlen(e->d_name) + 2;
		char *p = (char *)malloc(n);
		snprintf(p, n, "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(p, &st) == 0) {
			if (S_ISDIR(st.st_mode))
				walk(p, suffixes, l);
			else if (S_ISREG(st.st_mode) && matches(e->d_name, suffixes))
				push(l, p);
		}
		free(p);
	}
	closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **hks_test_list_files(const char *dir, const char *suffixes, size_t *count)
{
	list l = {0};
	walk(dir, suffixes, &l);
	if (l.count)
		qsort(l.items, l.count, sizeof(char *), cmp_str);
	*count = l.count;
	return l.items;
}

void hks_test_free_list(char **list_, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(list_[i]);
	free(list_);
}

hks_animation hks_test_animation_of(const hks_packed_spline *p) { return hks_animation_of_packed(p); }

double hks_test_lane_step(const hks_stored_animation *s, uint32_t t, int part, int lane)
{
	/* 1 / (levels of one ThreeComp component over [-1/sqrt 2, 1/sqrt 2]) per selector */
	static const double q[6] = {0.0, 1.0 / 2894.8953, 1.0 / 23169.061, 1.0 / 89.095451, 1.0 / 23169.0, 0.0};
	double step = 0;
	for (uint32_t b = 0; b < s->num_blocks; b++) {
		const hks_stored_part *p = part < 3 ? &s->blocks[b].tracks[t].part[part] : &s->blocks[b].floats[t];
		double st = 0;
		if (part == 1) {
			if (p->is_spline || (p->flags & 0x0F))
				st = 3.0 * q[p->quantization % 6];
		} else if (p->flags & (0x10 << lane)) {
			st = ((double)p->max[lane] - (double)p->min[lane]) / (p->quantization ? 65535.0 : 255.0);
		}
		if (st > step)
			step = st;
	}
	return step;
}

int hks_test_record_knot_edits(const uint8_t *rec, size_t size, uint64_t *payload_bytes, uint64_t *later_step)
{
	hks_options o;
	memset(&o, 0, sizeof(o));
	hks_ctx ctx;
	hks_error err;
	hks_ctx_init(&ctx, &o, 0, &err);
	hks_arena *arena = hks_arena_create(&ctx);
	if (!arena)
		return 0;
	hks_rec_anim ra;
	uint64_t bytes = 0, later = 0;
	int ok = hks_rec_read(&ctx, arena, rec, size, &ra) == HKS_OK;
	for (uint32_t i = 0; ok && i < ra.num_entries; i++)
		if (ra.entries[i].kind == HKS_REC_ENTRY_REFIT_INV) {
			bytes += ra.entries[i].payload_size;
			later += ra.entries[i].ladder > 0;
		}
	hks_arena_free(arena);
	if (payload_bytes)
		*payload_bytes = bytes;
	if (later_step)
		*later_step = later;
	return ok;
}
