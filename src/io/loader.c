/*
 * The path loader: user paths -> units (one Havok file each) -> parsed files.
 *
 * Units come from loose files (sniffed by content), folders (walked
 * recursively in sorted order, keeping .hkx in any case, .anibnd, .dcx and
 * .compendium), BND4 binders and DCX archives (CONTAINERS.md §6, §7: every
 * binder member that is a Havok file is one unit; a DCX around a single Havok
 * file is one unit).
 *
 * A TCRF tagfile's compendium is resolved by its 64-bit ID (CONTAINERS.md
 * §2.11) through, in order: every --compendium path of the options (an
 * explicit choice wins), the compendiums of the unit's own binder, the
 * .compendium files of its folder (for a binder member: the binder's folder),
 * and last every compendium
 * under the paths given to hks_loader_add_path (so `check corpus/` finds a
 * compendium stored in a sibling folder). Each location's set is built on
 * first use and cached; the set that holds the ID is handed to the reader.
 *
 * Threads: hks_loader_load may run concurrently for different indices. One
 * mutex protects the caches (decompressed binders, compendium sets, the folder
 * table); parsing runs outside it. Between hks_loader_begin_adding and
 * hks_loader_end_adding, one thread adds paths while others load the units
 * found so far (issue 16: the folder walk and the opening of binders overlap
 * the work). hks_loader_add_path then holds the mutex except while it reads a
 * file's first bytes or reads and inflates a binder (a private context, no
 * loader state touched); units are only appended, and a load copies its unit
 * under the mutex. The last compendium location (every compendium under the
 * paths added) is built only once adding has ended, so it is the same set
 * whatever the timing.
 */
#define _POSIX_C_SOURCE 200809L
#include "io_internal.h"

#include "platform.h"

#include <ctype.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

/* Decompressed binders kept resident for the next member (bytes). Units of
 * one binder are consecutive, so a small budget avoids re-decompressing. */
#define ARCHIVE_CACHE_BUDGET ((size_t)512 << 20)
/* Folder nesting followed by the walk. A folder already open higher up the
 * walk (a symlink loop) is skipped; the depth bound is a second guard. */
#define MAX_WALK_DEPTH 64

/* The folders open along the current walk, by device and inode. */
typedef struct walk_stack {
	uint64_t dev[MAX_WALK_DEPTH + 1];
	uint64_t ino[MAX_WALK_DEPTH + 1];
	unsigned depth;
} walk_stack;

/* Push `st` unless it is already on the stack or the stack is full. */
static bool walk_enter(walk_stack *w, const hks_path_info *st)
{
	if (w->depth > MAX_WALK_DEPTH)
		return false;
	for (unsigned i = 0; i < w->depth; i++)
		if (w->dev[i] == st->dev && w->ino[i] == st->ino)
			return false;
	w->dev[w->depth] = st->dev;
	w->ino[w->depth] = st->ino;
	w->depth++;
	return true;
}
#define NONE UINT32_MAX

typedef enum archive_kind {
	ARCHIVE_BINDER = 1,   /* a BND4, raw or inside a DCX: members are units */
	ARCHIVE_SINGLE = 2    /* a DCX around one Havok file: the payload is the unit */
} archive_kind;

typedef struct archive {
	char *disk_path;
	uint32_t folder;
	archive_kind kind;
	int dcx;                       /* the file on disk is a DCX */
	uint32_t num_members;          /* binder entries */
	char **member_names;           /* full entry names (binder) */
	hks_container *member_kinds;   /* sniffed kind of each entry's (decompressed) bytes */
	/* resident copy, guarded by the loader mutex */
	hks_bnd4 *bnd;                 /* ARCHIVE_BINDER */
	uint8_t *payload;              /* ARCHIVE_SINGLE */
	size_t payload_size;
	size_t resident_bytes;
	uint64_t last_use;
	/* compendium set of this binder (location 1), built on first use */
	bool compendiums_built;
	hks_compendium_set *compendiums;
	size_t num_compendium_files;
	/* decompression amplification (issue 17 M2): entries storing the same range (same bytes,
	 * same size) share one decompression: range_lead[i] is the first such entry, and the last
	 * shared range inflated stays cached; every inflation of the archive counts against
	 * limits.max_output_bytes (inflated) */
	uint32_t *range_lead;
	uint8_t *range_shared;          /* 1 when another entry stores the same range */
	uint64_t inflated;
	uint32_t cache_lead;            /* UINT32_MAX: empty */
	uint8_t *cache;
	size_t cache_size;
	uint64_t inflations;            /* count of decompressions of members */
	uint8_t *base_shared;           /* L1: 1 when another entry has the same basename (any case) */
} archive;

typedef struct folder {
	char *path;
	bool compendiums_built;        /* location 2 */
	hks_compendium_set *compendiums;
	size_t num_compendium_files;
} folder;

/* Where a Havok file's bytes come from: a unit, or a skeleton found nearby. */
typedef struct source {
	char *path;            /* display path */
	char *container_path;  /* file on disk */
	char *member;          /* binder entry name, NULL otherwise */
	uint32_t archive;      /* NONE for a loose file */
	uint32_t member_index;
	uint32_t folder;
	hks_error *deferred;   /* opening failed at add time: reported by hks_loader_load */
	uint64_t walk_seq;     /* the file's place in the walk (hks_loader_walk_order) */
} source;

/* A binder or DCX met in a folder walk while adding overlaps loading: opened once the
 * walk of the path given to hks_loader_add_path is done (add_deferred_archives). */
typedef struct deferred_archive {
	char *path;
	hks_container outer;
	uint64_t walk_seq;
} deferred_archive;

struct hks_loader {
	hks_load_options opts;
	hks_ctx ctx;                   /* bookkeeping allocations (under the mutex once loading) */
	hks_mutex mutex;
	bool mutex_ready;
	/* adding while loading (hks_loader_begin_adding): under the mutex */
	bool adding;                   /* between begin and end: more units may come */
	hks_cond grown;                /* broadcast when units are appended or adding ends */
	bool grown_ready;
	atomic_size_t published;       /* num_units, readable without the mutex (hks_loader_wait_count) */
	source *units;
	size_t num_units, cap_units;
	archive **archives;
	size_t num_archives, cap_archives;
	folder **folders;
	size_t num_folders, cap_folders;
	uint64_t clock;
	size_t resident_bytes;
	/* location 3: every compendium path of the options */
	bool global_built;
	hks_compendium_set *global;
	size_t global_files;
	/* location 4: the compendiums under the paths the user asked to read
	 * (CONTAINERS.md §2.11: "index every compendium the user gives") */
	char **inputs;
	size_t num_inputs, cap_inputs;
	/* the walk's order (hks_loader_walk_order): every file found takes the next sequence number */
	uint64_t next_seq;
	uint64_t cur_seq;              /* stamped on the units being added */
	deferred_archive *deferred;    /* binders of the walk under way, while adding overlaps loading */
	size_t num_deferred, cap_deferred;
	bool inputs_built;
	bool inputs_building;          /* build_input_set walks the folders without the mutex */
	bool inputs_declared;          /* hks_loader_begin_adding named every path to come */
	hks_compendium_set *input_set;
	size_t input_files;
	/* L5: compendiums that were added to a set already holding one of their IDs with other
	 * types (the first stays): each kept alone in `dups`, so a unit whose ID is among them is
	 * reported as ambiguous (binder and folder locations) */
	struct dup_compendium {
		const hks_compendium_set *owner;
		hks_compendium_set *dups;
		char *name;
	} *dups;
	size_t num_dups, cap_dups;
};

/* The public record plus what is needed to free it without the loader. */
typedef struct loaded_impl {
	hks_loaded pub;
	hks_options opts;      /* allocator and limits the record was allocated with */
	size_t self_size;      /* this struct plus the strings after it */
	uint8_t *bytes;
	size_t bytes_size;
} loaded_impl;

/* ---- small helpers ---------------------------------------------------- */

static char *loader_strdup(hks_loader *L, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = (char *)hks_malloc(&L->ctx, n);
	if (p)
		memcpy(p, s, n);
	return p;
}

static void loader_strfree(hks_loader *L, char *s)
{
	if (s)
		hks_free(&L->ctx, s, strlen(s) + 1);
}

/* Grow an array of `elem`-sized items to hold one more. */
static bool grow(hks_loader *L, void **items, size_t count, size_t *cap, size_t elem)
{
	if (count < *cap)
		return true;
	size_t ncap = *cap ? *cap * 2 : 16, old_bytes, new_bytes;
	if (!hks_mul_size(*cap, elem, &old_bytes) || !hks_mul_size(ncap, elem, &new_bytes)) {
		hks_fail(&L->ctx, HKS_E_LIMIT, -1, "too many paths");
		return false;
	}
	void *p = hks_realloc(&L->ctx, *items, old_bytes, new_bytes);
	if (!p)
		return false;
	*items = p;
	*cap = ncap;
	return true;
}

static bool ends_with_ci(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	if (k > n)
		return false;
	for (size_t i = 0; i < k; i++)
		if (tolower((unsigned char)s[n - k + i]) != tolower((unsigned char)suffix[i]))
			return false;
	return true;
}

static const char *base_name(const char *name)
{
	const char *b = name;
	for (const char *p = name; *p; p++)
		if (*p == '/' || *p == '\\')
			b = p + 1;
	return b;
}

static bool equals_ci(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return false;
	return *a == *b;
}

/* The names a folder walk keeps (the brief of issue 2). */
static bool walk_keeps(const char *name)
{
	return ends_with_ci(name, ".hkx") || ends_with_ci(name, ".anibnd") || ends_with_ci(name, ".dcx") ||
	       ends_with_ci(name, ".compendium");
}

static bool is_compendium_name(const char *name)
{
	return ends_with_ci(name, ".compendium") || ends_with_ci(name, ".compendium.dcx");
}

/* Read a whole file with the context's allocator. */
static hks_result read_disk_file(hks_ctx *ctx, const char *path, uint8_t **out, size_t *out_size)
{
	*out = NULL;
	*out_size = 0;
	FILE *fd = hks_platform_fopen(path, "rb");
	if (!fd)
		return hks_fail(ctx, HKS_E_IO, -1, "cannot open: %s", strerror(errno));
	hks_path_info st;
	if (hks_platform_stat(path, &st) != 0 || st.kind != HKS_PATH_FILE) {
		fclose(fd);
		return hks_fail(ctx, HKS_E_IO, -1, "not a regular file");
	}
	if (st.size > ctx->limits.max_output_bytes || st.size > SIZE_MAX - 1) {
		fclose(fd);
		return hks_fail(ctx, HKS_E_LIMIT, -1, "file of %lld bytes exceeds the limit of %llu bytes",
		                (long long)st.size, (unsigned long long)ctx->limits.max_output_bytes);
	}
	size_t size = (size_t)st.size;
	uint8_t *buf = (uint8_t *)hks_malloc(ctx, size ? size : 1);
	if (!buf) {
		fclose(fd);
		return ctx->err && ctx->err->code ? ctx->err->code : HKS_E_NOMEM;
	}
	size_t got = 0;
	while (got < size) {
		size_t k = fread(buf + got, 1, size - got, fd);
		if (k == 0) {
			int e = ferror(fd) ? errno : 0;
			fclose(fd);
			hks_free(ctx, buf, size ? size : 1);
			return hks_fail(ctx, HKS_E_IO, (int64_t)got, "read error: %s", e ? strerror(e) : "file shrank");
		}
		got += k;
	}
	fclose(fd);
	*out = buf;
	*out_size = size;
	return HKS_OK;
}

static void free_disk_file(hks_ctx *ctx, uint8_t *buf, size_t size)
{
	hks_free(ctx, buf, size ? size : 1);
}

/* Read the first bytes of a file (for sniffing); 0 bytes on failure. */
static size_t read_head(const char *path, uint8_t *buf, size_t cap)
{
	FILE *fd = hks_platform_fopen(path, "rb");
	if (!fd)
		return 0;
	size_t got = 0;
	while (got < cap) {
		size_t k = fread(buf + got, 1, cap - got, fd);
		if (k == 0)
			break;
		got += k;
	}
	fclose(fd);
	return got;
}

/*
 * A per-call context for reading `path`: the default memory bound scales with
 * the input (16 x size + 64 MiB, see hks_limits), so size it by the file on
 * disk plus `extra` (the decompressed size of an archive, when known).
 */
static void ctx_for_file(hks_loader *L, hks_ctx *ctx, const char *path, uint64_t extra, hks_error *err)
{
	hks_path_info st;
	uint64_t size = path && hks_platform_stat(path, &st) == 0 ? st.size : 0;
	hks_ctx_init(ctx, &L->opts.base, size + extra, err);
}

/* ---- folders ---------------------------------------------------------- */

static char *dir_of(hks_loader *L, const char *path)
{
	const char *slash = hks_platform_last_separator(path);
	if (!slash)
		return loader_strdup(L, ".");
	size_t n = slash == path ? 1 : (size_t)(slash - path);
	char *p = (char *)hks_malloc(&L->ctx, n + 1);
	if (p) {
		memcpy(p, path, n);
		p[n] = '\0';
	}
	return p;
}

/* Index of the folder holding `path`, added when new. NONE on allocation failure. */
static uint32_t folder_for(hks_loader *L, const char *path)
{
	char *dir = dir_of(L, path);
	if (!dir)
		return NONE;
	/* units arrive folder by folder: the last folder is almost always the one */
	for (size_t i = L->num_folders; i-- > 0;)
		if (!strcmp(L->folders[i]->path, dir)) {
			loader_strfree(L, dir);
			return (uint32_t)i;
		}
	if (!grow(L, (void **)&L->folders, L->num_folders, &L->cap_folders, sizeof(folder *))) {
		loader_strfree(L, dir);
		return NONE;
	}
	folder *f = (folder *)hks_calloc(&L->ctx, 1, sizeof(folder));
	if (!f) {
		loader_strfree(L, dir);
		return NONE;
	}
	f->path = dir;
	L->folders[L->num_folders] = f;
	return (uint32_t)L->num_folders++;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder's entry names, sorted (dot files skipped). Free with free_names. */
typedef struct name_list {
	char **names;
	size_t count, cap;
} name_list;

static void free_names(hks_loader *L, name_list *nl)
{
	for (size_t i = 0; i < nl->count; i++)
		loader_strfree(L, nl->names[i]);
	if (nl->names)
		hks_free(&L->ctx, nl->names, nl->cap * sizeof(char *));
	memset(nl, 0, sizeof(*nl));
}

static hks_result list_dir(hks_loader *L, const char *dir, name_list *nl)
{
	memset(nl, 0, sizeof(*nl));
	hks_dir *d = hks_platform_opendir(dir);
	if (!d)
		return hks_fail(&L->ctx, HKS_E_IO, -1, "cannot open folder %s: %s", dir, strerror(errno));
	const char *e;
	hks_result r = HKS_OK;
	while ((e = hks_platform_readdir(d)) != NULL) {
		if (e[0] == '.')
			continue;
		char *copy = NULL;
		if (!grow(L, (void **)&nl->names, nl->count, &nl->cap, sizeof(char *)) ||
		    !(copy = loader_strdup(L, e))) {
			r = HKS_E_NOMEM;
			break;
		}
		nl->names[nl->count++] = copy;
	}
	hks_platform_closedir(d);
	if (r != HKS_OK) {
		free_names(L, nl);
		return r;
	}
	if (nl->count)
		qsort(nl->names, nl->count, sizeof(char *), compare_names);
	return HKS_OK;
}

/* "dir/name" into p (strlen(dir) + strlen(name) + 2 bytes, or NULL: returns NULL). */
static char *join_into(char *p, const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	if (p) {
		bool slash = a > 0 && !hks_platform_is_separator(dir[a - 1]);
		memcpy(p, dir, a);
		if (slash)
			p[a++] = hks_platform_separator_for(dir);
		memcpy(p + a, name, b + 1);
	}
	return p;
}

static char *join_path(hks_loader *L, const char *dir, const char *name)
{
	return join_into((char *)hks_malloc(&L->ctx, strlen(dir) + strlen(name) + 2), dir, name);
}

/* ---- archives (binders, DCX) ------------------------------------------ */

/* Make an archive resident: read it, decompress a DCX, parse a BND4.
 * Caller holds the mutex (or is single-threaded). */
static hks_result archive_make_resident(hks_loader *L, archive *a, hks_ctx *ctx)
{
	a->last_use = ++L->clock;
	if (a->bnd || a->payload)
		return HKS_OK;
	uint8_t *file = NULL, *plain = NULL;
	size_t file_size = 0, plain_size = 0;
	HKS_TRY(read_disk_file(ctx, a->disk_path, &file, &file_size));
	hks_options o = L->opts.base;
	o.name = a->disk_path;
	hks_result r = HKS_OK;
	if (a->dcx) {
		r = hks_dcx_decompress(file, file_size, &o, &plain, &plain_size, NULL, ctx->err);
		free_disk_file(ctx, file, file_size);
		if (r != HKS_OK)
			return r;
	} else {
		plain = file;
		plain_size = file_size;
	}
	if (a->kind == ARCHIVE_BINDER) {
		r = hks_bnd4_read(plain, plain_size, &o, &a->bnd, ctx->err);
		if (a->dcx)
			hks_buffer_free(&o, plain, plain_size);
		else
			free_disk_file(ctx, plain, plain_size);
		if (r != HKS_OK) {
			a->bnd = NULL;
			return r;
		}
		a->resident_bytes = plain_size;
	} else {
		if (!a->dcx) {
			free_disk_file(ctx, plain, plain_size);
			return hks_fail(ctx, HKS_E_INTERNAL, -1, "single-file archive that is not a DCX");
		}
		a->payload = plain;
		a->payload_size = plain_size;
		a->resident_bytes = plain_size;
	}
	L->resident_bytes += a->resident_bytes;
	return HKS_OK;
}

static void archive_evict(hks_loader *L, archive *a)
{
	if (a->bnd)
		hks_bnd4_free(a->bnd);
	if (a->payload)
		hks_buffer_free(&L->opts.base, a->payload, a->payload_size);
	a->bnd = NULL;
	a->payload = NULL;
	a->payload_size = 0;
	if (a->cache)
		hks_buffer_free(&L->opts.base, a->cache, a->cache_size);
	a->cache = NULL;
	a->cache_size = 0;
	a->cache_lead = UINT32_MAX;
	L->resident_bytes -= a->resident_bytes < L->resident_bytes ? a->resident_bytes : L->resident_bytes;
	a->resident_bytes = 0;
}

/* Keep the decompressed archives within the budget, oldest first, except `keep`. */
static void archive_trim(hks_loader *L, const archive *keep)
{
	while (L->resident_bytes > ARCHIVE_CACHE_BUDGET) {
		archive *oldest = NULL;
		for (size_t i = 0; i < L->num_archives; i++) {
			archive *a = L->archives[i];
			if (a != keep && a->resident_bytes && (!oldest || a->last_use < oldest->last_use))
				oldest = a;
		}
		if (!oldest)
			break;
		archive_evict(L, oldest);
	}
}

/* Copy out the bytes of member `index` (a DCX entry decompressed) or of the
 * single payload. Caller holds the mutex. */
static hks_result archive_member_bytes(hks_loader *L, archive *a, uint32_t index, hks_ctx *ctx, uint8_t **out,
                                       size_t *out_size)
{
	*out = NULL;
	*out_size = 0;
	HKS_TRY(archive_make_resident(L, a, ctx));
	const uint8_t *src;
	size_t size;
	if (a->kind == ARCHIVE_SINGLE) {
		src = a->payload;
		size = a->payload_size;
	} else {
		if (index >= a->bnd->num_entries)
			return hks_fail(ctx, HKS_E_IO, -1, "binder changed on disk: entry %u is gone", index);
		const hks_bnd4_entry *e = &a->bnd->entries[index];
		if (e->size > SIZE_MAX)
			return hks_fail(ctx, HKS_E_LIMIT, -1, "binder entry %u too large", index);
		src = e->data;
		size = (size_t)e->size;
		if (e->flags & HKS_BND4_ENTRY_COMPRESSED) {
			hks_options o = L->opts.base;
			o.name = ctx->file;
			uint8_t *plain = NULL;
			size_t plain_size = 0;
			uint32_t lead = a->range_lead ? a->range_lead[index] : index;
			bool shared = a->range_shared && a->range_shared[lead];
			if (shared && a->cache && a->cache_lead == lead) {
				plain = a->cache;
				plain_size = a->cache_size;
			} else {
				/* the archive's inflate budget, checked on the declared size before inflating */
				hks_dcx_info di;
				uint64_t budget = L->ctx.limits.max_output_bytes;
				if (hks_dcx_read_info(src, size, &di, NULL) == HKS_OK &&
				    (a->inflated > budget || di.uncompressed_size > budget - a->inflated))
					return hks_fail(ctx, HKS_E_LIMIT, -1,
					                "binder entry %u: inflating %u more bytes exceeds the binder's total "
					                "decompression budget of %llu bytes (%llu inflated so far)",
					                index, di.uncompressed_size, (unsigned long long)budget,
					                (unsigned long long)a->inflated);
				a->inflations++;
				HKS_TRY(hks_dcx_decompress(src, size, &o, &plain, &plain_size, NULL, ctx->err));
				a->inflated += plain_size;
				if (shared) {
					if (a->cache)
						hks_buffer_free(&L->opts.base, a->cache, a->cache_size);
					a->cache = plain;
					a->cache_size = plain_size;
					a->cache_lead = lead;
				}
			}
			/* hand over as a context allocation so every unit frees the same way */
			uint8_t *copy = (uint8_t *)hks_malloc(ctx, plain_size ? plain_size : 1);
			if (copy && plain_size)  /* an empty DCX gives no buffer: no memcpy from NULL (L4) */
				memcpy(copy, plain, plain_size);
			if (plain != a->cache)
				hks_buffer_free(&o, plain, plain_size);
			if (!copy)
				return ctx->err && ctx->err->code ? ctx->err->code : HKS_E_NOMEM;
			*out = copy;
			*out_size = plain_size;
			return HKS_OK;
		}
	}
	uint8_t *copy = (uint8_t *)hks_malloc(ctx, size ? size : 1);
	if (!copy)
		return ctx->err && ctx->err->code ? ctx->err->code : HKS_E_NOMEM;
	if (size)  /* an empty payload may have no buffer (L4) */
		memcpy(copy, src, size);
	*out = copy;
	*out_size = size;
	return HKS_OK;
}

static void archive_free(hks_loader *L, archive *a)
{
	archive_evict(L, a);
	for (uint32_t i = 0; i < a->num_members; i++)
		loader_strfree(L, a->member_names[i]);
	if (a->member_names)
		hks_free(&L->ctx, a->member_names, a->num_members * sizeof(char *));
	if (a->member_kinds)
		hks_free(&L->ctx, a->member_kinds, a->num_members * sizeof(hks_container));
	if (a->range_lead)
		hks_free(&L->ctx, a->range_lead, (a->num_members ? a->num_members : 1) * sizeof(uint32_t));
	if (a->range_shared)
		hks_free(&L->ctx, a->range_shared, a->num_members ? a->num_members : 1);
	if (a->base_shared)
		hks_free(&L->ctx, a->base_shared, a->num_members ? a->num_members : 1);
	if (a->compendiums)
		hks_compendium_set_free(a->compendiums);
	loader_strfree(L, a->disk_path);
	hks_free(&L->ctx, a, sizeof(archive));
}

/* Sort key of group_ranges: an entry's stored range. */
typedef struct range_key {
	const uint8_t *data;
	uint64_t size;
	uint32_t index;
} range_key;

static int compare_ranges(const void *x, const void *y)
{
	const range_key *a = (const range_key *)x, *b = (const range_key *)y;
	if (a->data != b->data)
		return (uintptr_t)a->data < (uintptr_t)b->data ? -1 : 1;
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* Basenames compared ignoring ASCII case (as member_display). */
typedef struct base_key {
	const char *base;
	uint32_t index;
} base_key;

static int compare_bases(const void *x, const void *y)
{
	const char *a = ((const base_key *)x)->base, *b = ((const base_key *)y)->base;
	for (; *a && *b; a++, b++) {
		int ca = tolower((unsigned char)*a), cb = tolower((unsigned char)*b);
		if (ca != cb)
			return ca - cb;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

/* base_shared of a binder whose member_names are set: O(n log n) (was a scan per member). */
static hks_result mark_shared_bases(hks_loader *L, archive *a)
{
	uint32_t n = a->num_members;
	a->base_shared = (uint8_t *)hks_calloc(&L->ctx, n ? n : 1, 1);
	base_key *k = (base_key *)hks_calloc(&L->ctx, n ? n : 1, sizeof(base_key));
	if (!a->base_shared || !k) {
		if (k)
			hks_free(&L->ctx, k, (n ? n : 1) * sizeof(base_key));
		return HKS_E_NOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		k[i].base = base_name(a->member_names[i]);
		k[i].index = i;
	}
	if (n)
		qsort(k, n, sizeof(base_key), compare_bases);
	for (uint32_t i = 0; i + 1 < n; i++)
		if (equals_ci(k[i].base, k[i + 1].base))
			a->base_shared[k[i].index] = a->base_shared[k[i + 1].index] = 1;
	hks_free(&L->ctx, k, (n ? n : 1) * sizeof(base_key));
	return HKS_OK;
}

/* range_lead / range_shared of a resident binder: O(n log n). */
static hks_result group_ranges(hks_loader *L, archive *a)
{
	uint32_t n = a->num_members;
	a->range_lead = (uint32_t *)hks_calloc(&L->ctx, n ? n : 1, sizeof(uint32_t));
	a->range_shared = (uint8_t *)hks_calloc(&L->ctx, n ? n : 1, 1);
	range_key *k = (range_key *)hks_calloc(&L->ctx, n ? n : 1, sizeof(range_key));
	if (!a->range_lead || !a->range_shared || !k) {
		if (k)
			hks_free(&L->ctx, k, (n ? n : 1) * sizeof(range_key));
		return HKS_E_NOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		k[i].data = a->bnd->entries[i].data;
		k[i].size = a->bnd->entries[i].size;
		k[i].index = i;
	}
	if (n)
		qsort(k, n, sizeof(range_key), compare_ranges);
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i;
		while (j < n && k[j].data == k[i].data && k[j].size == k[i].size)
			j++;
		for (uint32_t m = i; m < j; m++)
			a->range_lead[k[m].index] = k[i].index;  /* sorted by index within the group */
		a->range_shared[k[i].index] = j - i > 1;
		i = j;
	}
	hks_free(&L->ctx, k, (n ? n : 1) * sizeof(range_key));
	return HKS_OK;
}

/*
 * Read an archive's file, inflate a DCX and parse a BND4 into `a` (a new
 * archive, in no table yet). Touches no loader state: errors go to `err`
 * (named `file` when nothing more precise), memory to a context of its own.
 */
static hks_result archive_read_new(hks_loader *L, archive *a, const char *path, const char *file, hks_error *err)
{
	hks_ctx ctx;
	ctx_for_file(L, &ctx, path, 0, err);
	ctx.file = file;
	uint8_t *bytes = NULL, *plain = NULL;
	size_t size = 0, plain_size = 0;
	HKS_TRY(read_disk_file(&ctx, path, &bytes, &size));
	hks_options o = L->opts.base;
	o.name = path;
	hks_result r;
	if (a->dcx) {
		/* what does the DCX hold? decompress once to see */
		r = hks_dcx_decompress(bytes, size, &o, &plain, &plain_size, NULL, err);
		free_disk_file(&ctx, bytes, size);
		if (r != HKS_OK)
			return r;
		if (hks_detect_container(plain, plain_size) == HKS_CONTAINER_BND4) {
			a->kind = ARCHIVE_BINDER;
			/* the binder keeps the inflated bytes (a copy was a second pass of page faults) */
			r = hks_bnd4_read_adopt(plain, plain_size, &o, &a->bnd, err);
			if (r != HKS_OK) {
				hks_buffer_free(&o, plain, plain_size);
				a->bnd = NULL;
				return r;
			}
		} else {
			a->kind = ARCHIVE_SINGLE;
			a->payload = plain;
			a->payload_size = plain_size;
		}
		a->resident_bytes = plain_size;
	} else {
		a->kind = ARCHIVE_BINDER;
		r = hks_bnd4_read(bytes, size, &o, &a->bnd, err);
		free_disk_file(&ctx, bytes, size);
		if (r != HKS_OK) {
			a->bnd = NULL;
			return r;
		}
		a->resident_bytes = size;
	}
	return HKS_OK;
}

/*
 * Open an archive on disk: decompress, list the binder entries and sniff each
 * one. On success *out is a new archive (not yet in the loader's table).
 * Caller holds the mutex; `unlocked_read`: release it while reading and
 * inflating (the adding thread; not while a compendium search runs).
 */
static hks_result archive_open(hks_loader *L, const char *path, hks_container outer, bool unlocked_read,
                               archive **out)
{
	*out = NULL;
	hks_ctx *ctx = &L->ctx;
	archive *a = (archive *)hks_calloc(ctx, 1, sizeof(archive));
	if (!a)
		return ctx->err && ctx->err->code ? ctx->err->code : HKS_E_NOMEM;
	a->disk_path = loader_strdup(L, path);
	if (!a->disk_path) {
		hks_free(ctx, a, sizeof(archive));
		return HKS_E_NOMEM;
	}
	a->folder = NONE;
	a->cache_lead = UINT32_MAX;
	a->dcx = outer == HKS_CONTAINER_DCX;
	hks_error *err = ctx->err;
	const char *file = ctx->file;
	if (unlocked_read)
		hks_mutex_unlock(&L->mutex);
	hks_result r = archive_read_new(L, a, path, file, err);
	if (unlocked_read) {
		hks_mutex_lock(&L->mutex);
		/* another thread may have used the loader's context meanwhile: ours again */
		ctx->err = err;
		ctx->file = file;
	}
	if (r != HKS_OK) {
		archive_free(L, a);
		return r;
	}
	L->resident_bytes += a->resident_bytes;
	a->last_use = ++L->clock;
	if (a->kind == ARCHIVE_BINDER) {
		uint32_t n = a->bnd->num_entries;
		a->member_names = (char **)hks_calloc(ctx, n ? n : 1, sizeof(char *));
		a->member_kinds = (hks_container *)hks_calloc(ctx, n ? n : 1, sizeof(hks_container));
		if (!a->member_names || !a->member_kinds) {
			archive_free(L, a);
			return HKS_E_NOMEM;
		}
		a->num_members = n;
		if (group_ranges(L, a) != HKS_OK) {
			archive_free(L, a);
			return HKS_E_NOMEM;
		}
		for (uint32_t i = 0; i < n; i++) {
			const hks_bnd4_entry *e = &a->bnd->entries[i];
			a->member_names[i] = loader_strdup(L, e->name ? e->name : "");
			if (!a->member_names[i]) {
				archive_free(L, a);
				return HKS_E_NOMEM;
			}
			if ((e->flags & HKS_BND4_ENTRY_COMPRESSED) && a->range_lead[i] != i) {
				/* the same stored range as an earlier entry: the same kind, no second inflation */
				a->member_kinds[i] = a->member_kinds[a->range_lead[i]];
			} else if (e->flags & HKS_BND4_ENTRY_COMPRESSED) {
				uint8_t *bytes = NULL;
				size_t size = 0;
				hks_error scratch;
				hks_ctx sub;
				ctx_for_file(L, &sub, path, a->resident_bytes, &scratch);
				sub.file = path;
				if (archive_member_bytes(L, a, i, &sub, &bytes, &size) == HKS_OK) {
					a->member_kinds[i] = hks_detect_container(bytes, size);
					hks_free(&sub, bytes, size ? size : 1);
				} else {
					/* keep it as a unit: loading reports the error */
					a->member_kinds[i] = HKS_CONTAINER_DCX;
				}
			} else {
				a->member_kinds[i] = hks_detect_container(e->data, e->size > SIZE_MAX ? 0 : (size_t)e->size);
			}
		}
		if (mark_shared_bases(L, a) != HKS_OK) {
			archive_free(L, a);
			return HKS_E_NOMEM;
		}
	}
	*out = a;
	return HKS_OK;
}

/* ---- compendium sets -------------------------------------------------- */

/* Add one compendium's bytes to *set (created on first use). Files that are
 * not compendiums or fail to index are skipped: they are reported as parse
 * failures when they are units themselves. */
static void set_add_bytes(hks_loader *L, hks_compendium_set **set, const uint8_t *data, size_t size,
                          const char *name, size_t *count)
{
	if (hks_detect_container(data, size) != HKS_CONTAINER_COMPENDIUM)
		return;
	hks_error e;
	if (!*set && hks_compendium_set_create(&L->opts.base, set, &e) != HKS_OK) {
		*set = NULL;
		return;
	}
	int conflict = 0;
	if (hks_compendium_set_add(*set, data, size, name, &conflict, &e) == HKS_OK)
		(*count)++;
	if (conflict && grow(L, (void **)&L->dups, L->num_dups, &L->cap_dups, sizeof(*L->dups))) {
		struct dup_compendium *d = &L->dups[L->num_dups];
		d->owner = *set;
		d->dups = NULL;
		d->name = loader_strdup(L, name ? name : "?");
		if (d->name && hks_compendium_set_create(&L->opts.base, &d->dups, &e) == HKS_OK &&
		    hks_compendium_set_add(d->dups, data, size, name, NULL, &e) == HKS_OK)
			L->num_dups++;
		else {
			if (d->dups)
				hks_compendium_set_free(d->dups);
			loader_strfree(L, d->name);
		}
	}
}

/* The later compendium of `set` that holds `id` with other types than the one used, or NULL. */
static const char *ambiguous_in(const hks_loader *L, const hks_compendium_set *set, const uint8_t id[8])
{
	for (size_t i = 0; i < L->num_dups; i++)
		if (L->dups[i].owner == set && hks_compendium_set_contains(L->dups[i].dups, id))
			return L->dups[i].name;
	return NULL;
}

/* Every compendium member of an open archive. Caller holds the mutex. */
static void set_add_archive(hks_loader *L, archive *a, hks_compendium_set **set, size_t *count)
{
	hks_error e;
	hks_ctx ctx;
	ctx_for_file(L, &ctx, a->disk_path, a->resident_bytes, &e);
	ctx.file = a->disk_path;
	if (a->kind == ARCHIVE_SINGLE) {
		if (archive_make_resident(L, a, &ctx) == HKS_OK)
			set_add_bytes(L, set, a->payload, a->payload_size, a->disk_path, count);
		return;
	}
	for (uint32_t i = 0; i < a->num_members; i++) {
		if (a->member_kinds[i] != HKS_CONTAINER_COMPENDIUM && a->member_kinds[i] != HKS_CONTAINER_DCX)
			continue;
		uint8_t *bytes = NULL;
		size_t size = 0;
		hks_error_clear(&e);
		if (archive_member_bytes(L, a, i, &ctx, &bytes, &size) != HKS_OK)
			continue;
		set_add_bytes(L, set, bytes, size, a->member_names[i], count);
		hks_free(&ctx, bytes, size ? size : 1);
	}
}

/* A compendium file on disk (.compendium, or a DCX / binder holding some).
 * `unlocked_read`: a binder not open yet is read and inflated without the
 * mutex (build_input_set, whose set no other thread reads meanwhile). */
static void set_add_path(hks_loader *L, const char *path, hks_compendium_set **set, size_t *count,
                         bool unlocked_read)
{
	uint8_t head[64];
	size_t n = read_head(path, head, sizeof(head));
	hks_container kind = hks_detect_container(head, n);
	if (kind == HKS_CONTAINER_COMPENDIUM) {
		hks_error e;
		hks_ctx ctx;
		ctx_for_file(L, &ctx, path, 0, &e);
		uint8_t *bytes = NULL;
		size_t size = 0;
		if (read_disk_file(&ctx, path, &bytes, &size) == HKS_OK) {
			set_add_bytes(L, set, bytes, size, path, count);
			free_disk_file(&ctx, bytes, size);
		}
	} else if (kind == HKS_CONTAINER_BND4 || kind == HKS_CONTAINER_DCX) {
		hks_error *saved = L->ctx.err;
		hks_error e;
		hks_error_clear(&e);
		L->ctx.err = &e;
		/* A binder the loader already opened (its units are being loaded)
		 * is read from its resident copy instead of being opened and
		 * inflated a second time under the mutex; its decompression budget
		 * is left as it was, as for the separate copy. */
		archive *open = NULL;
		for (size_t i = 0; i < L->num_archives && !open; i++)
			if (L->archives[i] && L->archives[i]->disk_path && !strcmp(L->archives[i]->disk_path, path))
				open = L->archives[i];
		archive *a = NULL;
		if (open) {
			uint64_t inflated = open->inflated, inflations = open->inflations;
			set_add_archive(L, open, set, count);
			open->inflated = inflated;
			open->inflations = inflations;
		} else if (archive_open(L, path, kind, unlocked_read, &a) == HKS_OK) {
			set_add_archive(L, a, set, count);
			archive_free(L, a);
		}
		/* after an unlocked read `saved` may belong to an adding thread that has
		 * finished: that thread sets its own again whenever it takes the mutex */
		L->ctx.err = unlocked_read ? NULL : saved;
	}
}

static void set_add_tree(hks_loader *L, const char *dir, walk_stack *w, hks_compendium_set **set, size_t *count)
{
	hks_path_info self;
	if (hks_platform_stat(dir, &self) != 0 || !walk_enter(w, &self))
		return;
	name_list nl;
	hks_error *saved = L->ctx.err;
	hks_error e;
	hks_error_clear(&e);
	L->ctx.err = &e;
	hks_result r = list_dir(L, dir, &nl);
	L->ctx.err = saved;
	if (r != HKS_OK) {
		w->depth--;
		return;
	}
	for (size_t i = 0; i < nl.count; i++) {
		char *p = join_path(L, dir, nl.names[i]);
		hks_path_info st;
		if (p && hks_platform_stat(p, &st) == 0) {
			if (st.kind == HKS_PATH_DIR)
				set_add_tree(L, p, w, set, count);
			else if (st.kind == HKS_PATH_FILE && (is_compendium_name(nl.names[i]) || ends_with_ci(nl.names[i], ".anibnd") ||
			                                 ends_with_ci(nl.names[i], ".dcx")))
				set_add_path(L, p, set, count, false);
		}
		loader_strfree(L, p);
	}
	free_names(L, &nl);
	w->depth--;
}

/* Location 2: the .compendium files directly in a folder. */
static void build_folder_set(hks_loader *L, folder *f)
{
	f->compendiums_built = true;
	name_list nl;
	hks_error *saved = L->ctx.err;
	hks_error e;
	hks_error_clear(&e);
	L->ctx.err = &e;
	hks_result r = list_dir(L, f->path, &nl);
	L->ctx.err = saved;
	if (r != HKS_OK)
		return;
	for (size_t i = 0; i < nl.count; i++) {
		if (!is_compendium_name(nl.names[i]))
			continue;
		char *p = join_path(L, f->path, nl.names[i]);
		if (p)
			set_add_path(L, p, &f->compendiums, &f->num_compendium_files, false);
		loader_strfree(L, p);
	}
	free_names(L, &nl);
}

/* Location 3: every compendium path of the options. */
static void build_global_set(hks_loader *L)
{
	L->global_built = true;
	for (size_t i = 0; i < L->opts.num_compendium_paths; i++) {
		const char *p = L->opts.compendium_paths[i];
		hks_path_info st;
		if (!p || hks_platform_stat(p, &st) != 0)
			continue;
		if (st.kind == HKS_PATH_DIR)
		{
			walk_stack w;
			w.depth = 0;
			set_add_tree(L, p, &w, &L->global, &L->global_files);
		}
		else
			set_add_path(L, p, &L->global, &L->global_files, false);
	}
}

/* Paths collected by a walk that holds no loader state (plain allocations). */
typedef struct path_list {
	char **items;
	size_t count, cap;
} path_list;

static void path_list_add(path_list *pl, char *p)
{
	if (pl->count == pl->cap) {
		size_t ncap = pl->cap ? pl->cap * 2 : 64;
		char **items = (char **)realloc(pl->items, ncap * sizeof(char *));
		if (!items) {
			free(p);  /* out of memory: the path is left out, as set_add_tree skips a folder it cannot list */
			return;
		}
		pl->items = items;
		pl->cap = ncap;
	}
	pl->items[pl->count++] = p;
}

static char *join_plain(const char *dir, const char *name)
{
	return join_into((char *)malloc(strlen(dir) + strlen(name) + 2), dir, name);
}

/* The files set_add_tree(dir) would read, in the same order, without the
 * mutex: the walk of every folder given took ~50 ms on the corpus, during
 * which every other load waited (session 5). */
static void collect_tree(const char *dir, walk_stack *w, path_list *out)
{
	hks_path_info self;
	if (hks_platform_stat(dir, &self) != 0 || !walk_enter(w, &self))
		return;
	hks_dir *d = hks_platform_opendir(dir);
	if (!d) {
		w->depth--;
		return;
	}
	path_list names = {NULL, 0, 0};
	const char *e;
	while ((e = hks_platform_readdir(d)) != NULL) {
		if (e[0] == '.')
			continue;
		size_t n = strlen(e) + 1;
		char *copy = (char *)malloc(n);
		if (copy) {
			memcpy(copy, e, n);
			path_list_add(&names, copy);
		}
	}
	hks_platform_closedir(d);
	if (names.count)
		qsort(names.items, names.count, sizeof(char *), compare_names);
	for (size_t i = 0; i < names.count; i++) {
		char *p = join_plain(dir, names.items[i]);
		hks_path_info st;
		bool keep = false;
		if (p && hks_platform_stat(p, &st) == 0) {
			if (st.kind == HKS_PATH_DIR)
				collect_tree(p, w, out);
			else if (st.kind == HKS_PATH_FILE &&
			         (is_compendium_name(names.items[i]) || ends_with_ci(names.items[i], ".anibnd") ||
			          ends_with_ci(names.items[i], ".dcx")))
				keep = true;
		}
		if (keep)
			path_list_add(out, p);
		else
			free(p);
		free(names.items[i]);
	}
	free(names.items);
	w->depth--;
}

/* Location 4: every compendium under the paths given to hks_loader_add_path.
 * Caller holds the mutex; adding has ended. With `unlocked_walk` the mutex is
 * released while the folders are walked (L->inputs_building tells the other
 * loads to wait for the set); the compendiums are then read under it in the
 * order of set_add_tree. */
static void build_input_set(hks_loader *L, bool unlocked_walk)
{
	path_list found = {NULL, 0, 0};
	size_t n = L->num_inputs;
	if (unlocked_walk) {
		L->inputs_building = true;
		hks_mutex_unlock(&L->mutex);
	}
	for (size_t i = 0; i < n; i++) {
		const char *p = L->inputs[i];  /* fixed once adding has ended or the paths were declared */
		hks_path_info st;
		if (hks_platform_stat(p, &st) != 0)
			continue;
		if (st.kind == HKS_PATH_DIR) {
			walk_stack w;
			w.depth = 0;
			collect_tree(p, &w, &found);
		} else {
			size_t len = strlen(p) + 1;
			char *copy = (char *)malloc(len);
			if (copy) {
				memcpy(copy, p, len);
				path_list_add(&found, copy);
			}
		}
	}
	if (unlocked_walk)
		hks_mutex_lock(&L->mutex);
	for (size_t k = 0; k < found.count; k++) {
		set_add_path(L, found.items[k], &L->input_set, &L->input_files, unlocked_walk);
		free(found.items[k]);
	}
	free(found.items);
	L->inputs_built = true;
	if (unlocked_walk) {
		L->inputs_building = false;
		hks_cond_broadcast(&L->grown);
	}
}

/* One searched location for the missing-compendium message: "; what PATH (n files)". */
static void where_add(char *where, size_t cap, const char *what, const char *path, size_t files)
{
	size_t len = strlen(where);
	/* a mistyped --compendium (its locations only: the others were found on disk) */
	int missing = path && !files && !strcmp(what, "--compendium") && hks_platform_path_kind(path) == HKS_PATH_NONE;
	if (len + 1 < cap && missing)
		snprintf(where + len, cap - len, "%s%s %s (no such file or folder)", len ? "; " : "", what, path);
	else if (len + 1 < cap)
		snprintf(where + len, cap - len, "%s%s%s%s (%zu file%s)", len ? "; " : "", what, path ? " " : "",
		         path ? path : "", files, files == 1 ? "" : "s");
}

/*
 * The compendium set for a TCRF file with `id` loaded from `src`: the first
 * location (binder, folder, options) that holds the ID. When none does, the
 * reader still gets a set (or NULL) and reports the missing ID itself;
 * *searched_files / *searched_locations and `where` (each location with its
 * compendium files) describe the search for the message.
 */
static const hks_compendium_set *resolve_compendium(hks_loader *L, const source *src, const uint8_t id[8],
                                                    size_t *searched_files, size_t *searched_locations,
                                                    char *where, size_t where_cap, const char **ambiguous)
{
	where[0] = '\0';
	const hks_compendium_set *fallback = NULL;
	*searched_files = 0;
	*searched_locations = 0;
	*ambiguous = NULL;
	hks_mutex_lock(&L->mutex);
	/* an explicit --compendium wins over the binder and folder search (issue 17 L5) */
	if (!L->global_built) {
		build_global_set(L);
		archive_trim(L, NULL);
	}
	if (L->global && hks_compendium_set_contains(L->global, id)) {
		*searched_locations += L->opts.num_compendium_paths;
		*searched_files += L->global_files;
		hks_mutex_unlock(&L->mutex);
		return L->global;
	}
	if (src->archive != NONE) {
		archive *a = L->archives[src->archive];
		if (!a->compendiums_built) {
			a->compendiums_built = true;
			set_add_archive(L, a, &a->compendiums, &a->num_compendium_files);
			archive_trim(L, NULL);
		}
		(*searched_locations)++;
		*searched_files += a->num_compendium_files;
		where_add(where, where_cap, "own binder", a->disk_path, a->num_compendium_files);
		if (a->compendiums && hks_compendium_set_contains(a->compendiums, id)) {
			*ambiguous = ambiguous_in(L, a->compendiums, id);
			hks_mutex_unlock(&L->mutex);
			return a->compendiums;
		}
		if (a->compendiums)
			fallback = a->compendiums;
	}
	if (src->folder != NONE) {
		folder *f = L->folders[src->folder];
		if (!f->compendiums_built) {
			build_folder_set(L, f);
			archive_trim(L, NULL);
		}
		(*searched_locations)++;
		*searched_files += f->num_compendium_files;
		where_add(where, where_cap, "folder", f->path, f->num_compendium_files);
		if (f->compendiums && hks_compendium_set_contains(f->compendiums, id)) {
			*ambiguous = ambiguous_in(L, f->compendiums, id);
			hks_mutex_unlock(&L->mutex);
			return f->compendiums;
		}
		if (f->compendiums)
			fallback = f->compendiums;
	}
	*searched_locations += L->opts.num_compendium_paths;
	*searched_files += L->global_files;
	for (size_t i = 0; i < L->opts.num_compendium_paths; i++)
		where_add(where, where_cap, "--compendium", L->opts.compendium_paths[i],
		          L->opts.num_compendium_paths == 1 ? L->global_files : 0);
	if (L->opts.num_compendium_paths > 1)
		where_add(where, where_cap, "--compendium paths together", NULL, L->global_files);
	if (L->global)
		fallback = L->global;
	/* every path must be known first: a set built from part of them would depend on timing */
	while ((L->adding && !L->inputs_declared) || L->inputs_building)
		hks_cond_wait_ms(&L->grown, &L->mutex, 100u);
	if (!L->inputs_built) {
		build_input_set(L, L->grown_ready);
		archive_trim(L, NULL);
	}
	*searched_locations += L->num_inputs;
	*searched_files += L->input_files;
	if (L->num_inputs)
		where_add(where, where_cap, L->num_inputs == 1 ? "the path given" : "the paths given", NULL, L->input_files);
	if (L->input_set && hks_compendium_set_contains(L->input_set, id))
		fallback = L->input_set;
	hks_mutex_unlock(&L->mutex);
	return fallback;
}

/* ---- adding paths ----------------------------------------------------- */

static hks_result add_unit(hks_loader *L, const source *s)
{
	if (!grow(L, (void **)&L->units, L->num_units, &L->cap_units, sizeof(source)))
		return L->ctx.err && L->ctx.err->code ? L->ctx.err->code : HKS_E_NOMEM;
	L->units[L->num_units] = *s;
	L->units[L->num_units++].walk_seq = L->cur_seq;
	atomic_store_explicit(&L->published, L->num_units, memory_order_release);
	if (L->adding)
		hks_cond_broadcast(&L->grown);
	return HKS_OK;
}

/* A unit whose opening failed: loading it reports `e`. */
static hks_result add_failed_unit(hks_loader *L, const char *path, const hks_error *e)
{
	source s = {0};
	s.archive = NONE;
	s.path = loader_strdup(L, path);
	s.container_path = loader_strdup(L, path);
	s.folder = folder_for(L, path);
	s.deferred = (hks_error *)hks_malloc(&L->ctx, sizeof(hks_error));
	if (!s.path || !s.container_path || !s.deferred) {
		loader_strfree(L, s.path);
		loader_strfree(L, s.container_path);
		if (s.deferred)
			hks_free(&L->ctx, s.deferred, sizeof(hks_error));
		return HKS_E_NOMEM;
	}
	*s.deferred = *e;
	if (!s.deferred->file[0])
		snprintf(s.deferred->file, sizeof(s.deferred->file), "%s", path);
	return add_unit(L, &s);
}

static hks_mutex *mutex_of(const hks_loader *L);

static hks_result member_unit_locked(hks_loader *L, const char *binder, const char *member, size_t *unit,
                                     hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, NULL, 0, err); /* no file in the record: the messages name the binder */
	const archive *a = NULL;
	uint32_t ai = 0;
	for (size_t i = L->num_archives; i-- > 0 && !a;)
		if (L->archives[i] && !strcmp(L->archives[i]->disk_path, binder)) {
			a = L->archives[i];
			ai = (uint32_t)i;
		}
	if (!a || a->kind != ARCHIVE_BINDER)
		return hks_fail(&ctx, HKS_E_NOT_FOUND, -1, "%s has no member '%s' (it is no binder)", binder, member);
	/* the full entry name first; else the base name, which must name one entry */
	uint32_t hit = NONE, bases = 0;
	for (uint32_t j = 0; j < a->num_members && hit == NONE; j++)
		if (!strcasecmp(a->member_names[j], member))
			hit = j;
	if (hit == NONE) /* base names on both sides, as hks_bnd4_find ("sub\\a.hkx" names a.hkx) */
		for (uint32_t j = 0; j < a->num_members; j++)
			if (!strcasecmp(base_name(a->member_names[j]), base_name(member)) && bases++ == 0)
				hit = j;
	if (bases > 1)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1,
		                "'%s' names %u members of %s; give the full name, as 'hkspline info %s' lists them", member,
		                bases, binder, binder);
	if (hit == NONE)
		return hks_fail(&ctx, HKS_E_NOT_FOUND, -1, "%s has no member '%s'", binder, member);
	for (size_t u = 0; u < L->num_units; u++)
		if (L->units[u].archive == ai && L->units[u].member_index == hit) {
			*unit = u;
			return HKS_OK;
		}
	return hks_fail(&ctx, HKS_E_NOT_FOUND, -1,
	                "member '%s' of %s is not a Havok file ('hkspline bnd extract' gives its bytes)",
	                a->member_names[hit], binder);
}

hks_result hks_loader_member_unit(hks_loader *L, const char *binder, const char *member, size_t *unit, hks_error *err)
{
	hks_mutex_lock(mutex_of(L));
	hks_result r = member_unit_locked(L, binder, member, unit, err);
	hks_mutex_unlock(mutex_of(L));
	return r;
}

/* Display path of a binder member: "binder:basename", or "binder:full name"
 * when another entry of the binder has the same basename. */
static char *member_display(hks_loader *L, const archive *a, uint32_t index)
{
	const char *base = base_name(a->member_names[index]);
	if (a->base_shared ? a->base_shared[index] != 0 : false)
		base = a->member_names[index];
	size_t n1 = strlen(a->disk_path), n2 = strlen(base);
	char *p = (char *)hks_malloc(&L->ctx, n1 + n2 + 2);
	if (p) {
		memcpy(p, a->disk_path, n1);
		p[n1] = ':';
		memcpy(p + n1 + 1, base, n2 + 1);
	}
	return p;
}

static hks_result add_archive(hks_loader *L, const char *path, hks_container outer)
{
	hks_error *saved = L->ctx.err;
	hks_error e;
	hks_error_clear(&e);
	L->ctx.err = &e;
	archive *a = NULL;
	hks_result r = archive_open(L, path, outer, true, &a);
	L->ctx.err = saved;
	if (r != HKS_OK) {
		if (r == HKS_E_NOMEM)
			return r;
		return add_failed_unit(L, path, &e);
	}
	a->folder = folder_for(L, path);
	if (!grow(L, (void **)&L->archives, L->num_archives, &L->cap_archives, sizeof(archive *))) {
		archive_free(L, a);
		return HKS_E_NOMEM;
	}
	uint32_t ai = (uint32_t)L->num_archives;
	L->archives[L->num_archives++] = a;
	if (a->kind == ARCHIVE_SINGLE) {
		source s = {0};
		s.archive = ai;
		s.folder = a->folder;
		s.path = loader_strdup(L, path);
		s.container_path = loader_strdup(L, path);
		if (!s.path || !s.container_path)
			return HKS_E_NOMEM;
		HKS_TRY(add_unit(L, &s));
	} else {
		for (uint32_t i = 0; i < a->num_members; i++) {
			hks_container k = a->member_kinds[i];
			/* Havok content, or a Havok name (a damaged member is reported, not
			 * skipped), or a compressed entry that failed to open (DCX): loading
			 * reports why. Other members (.tae ...) are not Havok files. */
			bool havok_name = ends_with_ci(a->member_names[i], ".hkx") || is_compendium_name(a->member_names[i]);
			if (!hks_sniff_is_havok(k) && k != HKS_CONTAINER_DCX && !havok_name)
				continue;
			source s = {0};
			s.archive = ai;
			s.member_index = i;
			s.folder = a->folder;
			s.path = member_display(L, a, i);
			s.container_path = loader_strdup(L, path);
			s.member = loader_strdup(L, a->member_names[i]);
			if (!s.path || !s.container_path || !s.member)
				return HKS_E_NOMEM;
			HKS_TRY(add_unit(L, &s));
		}
	}
	archive_trim(L, NULL);
	return HKS_OK;
}

/* One file: a binder / DCX is opened, anything else is a unit (sniffed when loaded).
 * `in_walk`: met in a folder; while adding overlaps loading, a binder is then only noted
 * and opened after the rest of the walk (add_deferred_archives): inflating a large binder
 * takes the adding thread tens of milliseconds, during which the loading threads would
 * have no unit to load (docs/BENCHMARKS.md, session 7). */
static hks_result add_file(hks_loader *L, const char *path, bool in_walk)
{
	uint8_t head[64];
	/* file I/O only: loads may take the mutex meanwhile (and the context's error sink) */
	hks_error *err = L->ctx.err;
	const char *file = L->ctx.file;
	hks_mutex_unlock(&L->mutex);
	size_t n = read_head(path, head, sizeof(head));
	hks_mutex_lock(&L->mutex);
	L->ctx.err = err;
	L->ctx.file = file;
	hks_container kind = hks_detect_container(head, n);
	L->cur_seq = L->next_seq++;
	if ((kind == HKS_CONTAINER_BND4 || kind == HKS_CONTAINER_DCX) && in_walk && L->adding) {
		if (!grow(L, (void **)&L->deferred, L->num_deferred, &L->cap_deferred, sizeof(deferred_archive)))
			return L->ctx.err && L->ctx.err->code ? L->ctx.err->code : HKS_E_NOMEM;
		deferred_archive *d = &L->deferred[L->num_deferred];
		d->path = loader_strdup(L, path);
		if (!d->path)
			return HKS_E_NOMEM;
		d->outer = kind;
		d->walk_seq = L->cur_seq;
		L->num_deferred++;
		return HKS_OK;
	}
	if (kind == HKS_CONTAINER_BND4 || kind == HKS_CONTAINER_DCX)
		return add_archive(L, path, kind);
	source s = {0};
	s.archive = NONE;
	s.path = loader_strdup(L, path);
	s.container_path = loader_strdup(L, path);
	s.folder = folder_for(L, path);
	if (!s.path || !s.container_path || s.folder == NONE)
		return HKS_E_NOMEM;
	return add_unit(L, &s);
}

static hks_result add_tree(hks_loader *L, const char *dir, walk_stack *w)
{
	hks_path_info self;
	if (hks_platform_stat(dir, &self) != 0)
		return HKS_OK;
	if (w->depth > MAX_WALK_DEPTH) /* not skipped in silence: `check` said "0 files", exit 0 */
		return hks_fail(&L->ctx, HKS_E_LIMIT, -1, "%s: folders nested deeper than %d levels are not walked", dir,
		                MAX_WALK_DEPTH);
	if (!walk_enter(w, &self)) /* a folder already open higher up: a symlink loop */
		return HKS_OK;
	name_list nl;
	hks_result r = list_dir(L, dir, &nl);
	if (r != HKS_OK) {
		w->depth--;
		return r;
	}
	for (size_t i = 0; i < nl.count && r == HKS_OK; i++) {
		char *p = join_path(L, dir, nl.names[i]);
		if (!p) {
			r = HKS_E_NOMEM;
			break;
		}
		hks_path_info st;
		hks_error *err = L->ctx.err;
		const char *file = L->ctx.file;
		hks_mutex_unlock(&L->mutex);  /* file system only: loads may take the mutex meanwhile */
		int stat_failed = hks_platform_stat(p, &st);
		hks_mutex_lock(&L->mutex);
		L->ctx.err = err;
		L->ctx.file = file;
		if (stat_failed == 0) {
			if (st.kind == HKS_PATH_DIR)
				r = add_tree(L, p, w);
			else if (st.kind == HKS_PATH_FILE && walk_keeps(nl.names[i]))
				r = add_file(L, p, true);
		}
		loader_strfree(L, p);
	}
	free_names(L, &nl);
	w->depth--;
	return r;
}

/* The binders add_file noted during a walk, opened in the walk's order, each with
 * its own place in it, unless the walk failed (`r`, returned as it is: its error
 * stands). Every note is freed, also after a failure. */
static hks_result add_deferred_archives(hks_loader *L, hks_result r)
{
	for (size_t i = 0; i < L->num_deferred; i++) {
		deferred_archive *d = &L->deferred[i];
		if (r == HKS_OK) {
			L->cur_seq = d->walk_seq;
			r = add_archive(L, d->path, d->outer);
		}
		loader_strfree(L, d->path);
		d->path = NULL;
	}
	L->num_deferred = 0;
	return r;
}

/* ---- public API ------------------------------------------------------- */

hks_result hks_loader_create(const hks_load_options *opts, hks_loader **out, hks_error *err)
{
	hks_ctx ctx;
	hks_ctx_init(&ctx, opts ? &opts->base : NULL, 0, err);
	if (!out)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_loader_create: NULL argument");
	*out = NULL;
	hks_loader *L = (hks_loader *)hks_calloc(&ctx, 1, sizeof(hks_loader));
	if (!L)
		return err && err->code ? err->code : HKS_E_NOMEM;
	if (opts)
		L->opts = *opts;
	L->ctx = ctx;
	L->ctx.err = NULL;
	/* The loader's own tables grow with the number of paths, not with one
	 * input: bound them by the output limit rather than 16 x input. */
	if (!(opts && opts->base.limits.max_memory))
		L->ctx.limits.max_memory = L->ctx.limits.max_output_bytes;
	L->ctx.in_use = sizeof(hks_loader);
	/* keep our own copy of the compendium path list */
	if (L->opts.num_compendium_paths) {
		if (!L->opts.compendium_paths) {
			hks_free(&ctx, L, sizeof(hks_loader));
			return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "compendium path count without paths");
		}
		char **paths = (char **)hks_calloc(&L->ctx, L->opts.num_compendium_paths, sizeof(char *));
		if (!paths) {
			hks_free(&ctx, L, sizeof(hks_loader));
			return hks_fail_nomem(&ctx, L->opts.num_compendium_paths * sizeof(char *));
		}
		for (size_t i = 0; i < L->opts.num_compendium_paths; i++) {
			paths[i] = loader_strdup(L, L->opts.compendium_paths[i] ? L->opts.compendium_paths[i] : "");
			if (!paths[i]) {
				for (size_t j = 0; j < i; j++)
					loader_strfree(L, paths[j]);
				hks_free(&L->ctx, paths, L->opts.num_compendium_paths * sizeof(char *));
				hks_free(&ctx, L, sizeof(hks_loader));
				return hks_fail_nomem(&ctx, 0);
			}
		}
		L->opts.compendium_paths = (const char *const *)paths;
	} else {
		L->opts.compendium_paths = NULL;
	}
	L->opts.base.name = NULL;
	if (hks_mutex_init(&L->mutex) != 0) {
		hks_loader_free(L);
		return hks_fail(&ctx, HKS_E_INTERNAL, -1, "mutex initialisation failed");
	}
	L->mutex_ready = true;
	L->grown_ready = hks_cond_init(&L->grown) == 0;
	atomic_init(&L->published, 0);
	*out = L;
	return HKS_OK;
}

hks_result hks_loader_add_path(hks_loader *L, const char *path, hks_error *err)
{
	hks_error_clear(err);
	if (!L || !path) {
		hks_ctx ctx;
		hks_ctx_init(&ctx, NULL, 0, err);
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "hks_loader_add_path: NULL argument");
	}
	/* held throughout but for file reads (add_file, archive_open): see the top */
	hks_mutex_lock(&L->mutex);
	L->ctx.err = err;
	L->ctx.file = path;
	hks_result r;
	hks_path_info st;
	if (hks_platform_stat(path, &st) != 0)
		r = hks_fail(&L->ctx, HKS_E_IO, -1, "%s", strerror(errno));
	else if (st.kind == HKS_PATH_DIR)
	{
		walk_stack w;
		w.depth = 0;
		r = add_deferred_archives(L, add_tree(L, path, &w));
	}
	else if (st.kind == HKS_PATH_FILE)
		r = add_file(L, path, false);
	else
		r = hks_fail(&L->ctx, HKS_E_IO, -1, "not a regular file or folder");
	if (r == HKS_OK && !L->inputs_declared) {
		char *copy = NULL;
		if (grow(L, (void **)&L->inputs, L->num_inputs, &L->cap_inputs, sizeof(char *)) &&
		    (copy = loader_strdup(L, path)) != NULL)
			L->inputs[L->num_inputs++] = copy;
		else
			r = L->ctx.err && L->ctx.err->code ? L->ctx.err->code : HKS_E_NOMEM;
	}
	if (r != HKS_OK && err && err->code == HKS_OK) {
		err->code = r;
		snprintf(err->message, sizeof(err->message), "%s", hks_result_name(r));
	}
	L->ctx.err = NULL;
	L->ctx.file = NULL;
	hks_mutex_unlock(&L->mutex);
	return r;
}

/* The loader's mutex from a const pointer (the loader itself is never const). */
static hks_mutex *mutex_of(const hks_loader *L)
{
	return (hks_mutex *)(uintptr_t)&L->mutex;
}

size_t hks_loader_count(const hks_loader *L)
{
	if (!L)
		return 0;
	hks_mutex_lock(mutex_of(L));
	size_t n = L->num_units;
	hks_mutex_unlock(mutex_of(L));
	return n;
}

const char *hks_loader_path(const hks_loader *L, size_t index)
{
	if (!L)
		return NULL;
	hks_mutex_lock(mutex_of(L));
	const char *p = index < L->num_units ? L->units[index].path : NULL;
	hks_mutex_unlock(mutex_of(L));
	return p;
}

/* Units of one file are added together, in the file's own order, so the index
 * orders them within their place in the walk. */
typedef struct walk_key {
	uint64_t seq;
	size_t index;
} walk_key;

static int compare_walk_keys(const void *x, const void *y)
{
	const walk_key *a = (const walk_key *)x, *b = (const walk_key *)y;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

hks_result hks_loader_walk_order(const hks_loader *L, size_t *order, size_t count)
{
	if (!L || (count && !order))
		return HKS_E_ARGUMENT;
	hks_mutex_lock(mutex_of(L));
	hks_result r = HKS_OK;
	if (count != L->num_units || L->adding) {
		r = HKS_E_ARGUMENT;
	} else if (count) {
		hks_loader *M = (hks_loader *)(uintptr_t)L; /* its allocator (under the mutex) */
		size_t bytes = 0;
		walk_key *k = hks_mul_size(count, sizeof(walk_key), &bytes) ? (walk_key *)hks_malloc(&M->ctx, bytes) : NULL;
		if (!k) {
			r = HKS_E_NOMEM;
		} else {
			for (size_t i = 0; i < count; i++) {
				k[i].seq = L->units[i].walk_seq;
				k[i].index = i;
			}
			qsort(k, count, sizeof(walk_key), compare_walk_keys);
			for (size_t i = 0; i < count; i++)
				order[i] = k[i].index;
			hks_free(&M->ctx, k, bytes);
		}
	}
	hks_mutex_unlock(mutex_of(L));
	return r;
}

hks_result hks_loader_begin_adding(hks_loader *L, const char *const *paths, size_t num_paths)
{
	if (!L || (num_paths && !paths))
		return HKS_E_ARGUMENT;
	if (!L->grown_ready)
		return HKS_E_INTERNAL;
	hks_mutex_lock(&L->mutex);
	hks_result r = HKS_OK;
	if (paths && !L->inputs_declared && !L->inputs_built) {
		/* the last compendium location: these paths, whether or not they add */
		for (size_t i = 0; i < L->num_inputs; i++)
			loader_strfree(L, L->inputs[i]);
		L->num_inputs = 0;
		for (size_t i = 0; i < num_paths && r == HKS_OK; i++) {
			char *copy = NULL;
			if (paths[i] && grow(L, (void **)&L->inputs, L->num_inputs, &L->cap_inputs, sizeof(char *)) &&
			    (copy = loader_strdup(L, paths[i])) != NULL)
				L->inputs[L->num_inputs++] = copy;
			else if (paths[i])
				r = HKS_E_NOMEM;
		}
		L->inputs_declared = r == HKS_OK;
	}
	/* only on success: a caller told of a failure adds without loads overlapping and never calls
	 * hks_loader_end_adding (a loader left adding made hks_loader_wait_count wait forever) */
	L->adding = r == HKS_OK;
	hks_mutex_unlock(&L->mutex);
	return r;
}

void hks_loader_end_adding(hks_loader *L)
{
	if (!L || !L->grown_ready)
		return;
	hks_mutex_lock(&L->mutex);
	L->adding = false;
	hks_cond_broadcast(&L->grown);
	hks_mutex_unlock(&L->mutex);
}

size_t hks_loader_wait_count(hks_loader *L, size_t known)
{
	if (!L)
		return 0;
	/* the common case, without the mutex the adding thread holds most of the time */
	size_t seen = atomic_load_explicit(&L->published, memory_order_acquire);
	if (seen > known)
		return seen;
	hks_mutex_lock(&L->mutex);
	while (L->adding && L->num_units <= known)
		hks_cond_wait_ms(&L->grown, &L->mutex, 100u);
	size_t n = L->num_units;
	hks_mutex_unlock(&L->mutex);
	return n;
}

/* Read and parse the file a source describes. */
static hks_result load_source(hks_loader *L, const source *src, hks_loaded **out)
{
	*out = NULL;
	size_t n_path = strlen(src->path) + 1, n_cont = strlen(src->container_path) + 1;
	size_t n_member = src->member ? strlen(src->member) + 1 : 0;
	size_t self = sizeof(loaded_impl) + n_path + n_cont + n_member;
	hks_ctx actx;
	hks_ctx_init(&actx, &L->opts.base, 0, NULL);
	loaded_impl *li = (loaded_impl *)hks_calloc(&actx, 1, self);
	if (!li)
		return HKS_E_NOMEM;
	li->opts = L->opts.base;
	li->opts.name = NULL;
	li->self_size = self;
	char *strings = (char *)(li + 1);
	memcpy(strings, src->path, n_path);
	memcpy(strings + n_path, src->container_path, n_cont);
	if (src->member)
		memcpy(strings + n_path + n_cont, src->member, n_member);
	hks_loaded *ld = &li->pub;
	ld->path = strings;
	ld->container_path = strings + n_path;
	ld->member = src->member ? strings + n_path + n_cont : NULL;
	hks_error_clear(&ld->error);
	*out = ld;

	if (src->deferred) {
		ld->error = *src->deferred;
		ld->status = src->deferred->code;
		return HKS_OK;
	}
	hks_ctx ctx;
	hks_result r;
	if (src->archive == NONE) {
		ctx_for_file(L, &ctx, src->container_path, 0, &ld->error);
		ctx.file = ld->path;
		r = read_disk_file(&ctx, src->container_path, &li->bytes, &li->bytes_size);
	} else {
		hks_mutex_lock(&L->mutex);
		archive *a = L->archives[src->archive];
		ctx_for_file(L, &ctx, src->container_path, a->resident_bytes, &ld->error);
		ctx.file = ld->path;
		r = archive_member_bytes(L, a, src->member_index, &ctx, &li->bytes, &li->bytes_size);
		archive_trim(L, a);
		hks_mutex_unlock(&L->mutex);
	}
	if (r != HKS_OK) {
		ld->status = r;
		return HKS_OK;
	}
	ld->bytes = li->bytes;
	ld->size = li->bytes_size;

	hks_sniff sn;
	hks_sniff_bytes(li->bytes, li->bytes_size, &sn);
	ld->container = sn.container;
	memcpy(ld->sdk, sn.sdk, sizeof(ld->sdk));
	const hks_compendium_set *set = NULL;
	size_t searched_files = 0, searched_locations = 0;
	char where[600] = "";
	const char *ambiguous = NULL;
	if (sn.container == HKS_CONTAINER_TAGFILE && sn.has_tcrf)
		set = resolve_compendium(L, src, sn.tcrf_id, &searched_files, &searched_locations, where, sizeof(where),
		                          &ambiguous);
	if (ambiguous) {
		/* two compendiums of one location hold the ID with different types: do not guess */
		hks_error_clear(&ld->error);
		ld->error.code = HKS_E_COMPENDIUM;
		snprintf(ld->error.file, sizeof(ld->error.file), "%s", ld->path);
		snprintf(ld->error.object, sizeof(ld->error.object), "section TCRF");
		snprintf(ld->error.message, sizeof(ld->error.message),
		         "compendium ID %02x%02x%02x%02x%02x%02x%02x%02x is held with different types by more than one "
		         "compendium beside the file (one is %s); name the right one with --compendium",
		         sn.tcrf_id[0], sn.tcrf_id[1], sn.tcrf_id[2], sn.tcrf_id[3], sn.tcrf_id[4], sn.tcrf_id[5],
		         sn.tcrf_id[6], sn.tcrf_id[7], ambiguous);
		ld->status = HKS_E_COMPENDIUM;
		return HKS_OK;
	}

	hks_read_options ro;
	memset(&ro, 0, sizeof(ro));
	ro.base = L->opts.base;
	ro.base.name = ld->path;
	ro.compendiums = set;
	r = hks_file_read(li->bytes, li->bytes_size, &ro, &ld->file, &ld->error);
	ld->status = r;
	if (r == HKS_OK && ld->file->sdk[0])
		snprintf(ld->sdk, sizeof(ld->sdk), "%s", ld->file->sdk);
	if (r != HKS_OK) {
		ld->file = NULL;
		if (!ld->error.file[0])
			snprintf(ld->error.file, sizeof(ld->error.file), "%s", ld->path);
		if (r == HKS_E_COMPENDIUM) {
			/* CONTAINERS.md §2.11 step 3: say where we looked and what to do (one
			 * message: the reader's own count only knows the set it was given) */
			char id[17];
			hks_format_id(sn.tcrf_id, id);
			snprintf(ld->error.message, sizeof(ld->error.message),
			         "compendium %s not found: searched %zu compendium file%s in %zu location%s (%.300s); pass the "
			         "folder or binder that holds it (--compendium)",
			         id, searched_files, searched_files == 1 ? "" : "s", searched_locations,
			         searched_locations == 1 ? "" : "s", where[0] ? where : "none");
		}
	}
	return HKS_OK;
}


/* A copy of unit `index` (false when there is none): the table may grow, and
 * move, while paths are being added. */
static bool unit_copy(hks_loader *L, size_t index, source *s)
{
	hks_mutex_lock(&L->mutex);
	bool known = index < L->num_units;
	*s = known ? L->units[index] : (source){0};
	hks_mutex_unlock(&L->mutex);
	return known;
}

hks_result hks_loader_load(hks_loader *L, size_t index, hks_loaded **out)
{
	if (!out)
		return HKS_E_ARGUMENT;
	*out = NULL;
	if (!L)
		return HKS_E_ARGUMENT;
	source s;
	if (!unit_copy(L, index, &s))
		return HKS_E_ARGUMENT;
	return load_source(L, &s, out);
}

static bool is_skeleton_name(const char *name)
{
	return equals_ci(base_name(name), "skeleton.hkx");
}

/* Keep `ld` when it parsed and holds a skeleton. */
static bool keep_if_skeleton(hks_loaded *ld)
{
	if (ld && ld->status == HKS_OK && ld->file && ld->file->num_skeletons > 0)
		return true;
	hks_loaded_free(ld);
	return false;
}

hks_result hks_loader_find_skeleton(hks_loader *L, size_t index, hks_loaded **out)
{
	if (!out)
		return HKS_E_ARGUMENT;
	*out = NULL;
	if (!L)
		return HKS_E_ARGUMENT;
	source unit;
	if (!unit_copy(L, index, &unit))
		return HKS_E_ARGUMENT;
	const source *u = &unit;
	/* 1. the same binder */
	hks_mutex_lock(&L->mutex);
	archive *binder = u->archive != NONE ? L->archives[u->archive] : NULL;
	hks_mutex_unlock(&L->mutex);
	if (binder && binder->kind == ARCHIVE_BINDER) {
		archive *a = binder;
		for (uint32_t i = 0; i < a->num_members; i++) {
			if (!is_skeleton_name(a->member_names[i]) || !hks_sniff_is_havok(a->member_kinds[i]))
				continue;
			source s = {0};
			s.archive = u->archive;
			s.member_index = i;
			s.folder = u->folder;
			s.container_path = a->disk_path;
			s.member = a->member_names[i];
			hks_mutex_lock(&L->mutex);
			s.path = member_display(L, a, i);
			hks_mutex_unlock(&L->mutex);
			if (!s.path)
				return HKS_E_NOMEM;
			hks_loaded *ld = NULL;
			hks_result r = load_source(L, &s, &ld);
			hks_mutex_lock(&L->mutex);
			loader_strfree(L, s.path);
			hks_mutex_unlock(&L->mutex);
			if (r != HKS_OK)
				return r;
			if (keep_if_skeleton(ld)) {
				*out = ld;
				return HKS_OK;
			}
		}
	}
	/* 2. the same folder */
	if (u->folder == NONE)
		return HKS_E_NOT_FOUND;
	hks_mutex_lock(&L->mutex);
	const char *dir = L->folders[u->folder]->path;
	name_list nl;
	hks_result r = list_dir(L, dir, &nl);
	char *found = NULL;
	for (size_t i = 0; r == HKS_OK && i < nl.count && !found; i++)
		if (equals_ci(nl.names[i], "skeleton.hkx"))
			found = join_path(L, dir, nl.names[i]);
	free_names(L, &nl);
	hks_mutex_unlock(&L->mutex);
	if (!found)
		return HKS_E_NOT_FOUND;
	source s = {0};
	s.archive = NONE;
	s.folder = u->folder;
	s.path = found;
	s.container_path = found;
	hks_loaded *ld = NULL;
	r = load_source(L, &s, &ld);
	hks_mutex_lock(&L->mutex);
	loader_strfree(L, found);
	hks_mutex_unlock(&L->mutex);
	if (r != HKS_OK)
		return r;
	if (keep_if_skeleton(ld)) {
		*out = ld;
		return HKS_OK;
	}
	return HKS_E_NOT_FOUND;
}

void hks_loaded_free(hks_loaded *loaded)
{
	if (!loaded)
		return;
	loaded_impl *li = (loaded_impl *)loaded;
	hks_ctx ctx;
	hks_ctx_init(&ctx, &li->opts, 0, NULL);
	if (loaded->file)
		hks_file_free(loaded->file);
	if (li->bytes)
		hks_free(&ctx, li->bytes, li->bytes_size ? li->bytes_size : 1);
	hks_free(&ctx, li, li->self_size);
}

void hks_loader_free(hks_loader *L)
{
	if (!L)
		return;
	for (size_t i = 0; i < L->num_units; i++) {
		source *s = &L->units[i];
		loader_strfree(L, s->path);
		loader_strfree(L, s->container_path);
		loader_strfree(L, s->member);
		if (s->deferred)
			hks_free(&L->ctx, s->deferred, sizeof(hks_error));
	}
	if (L->units)
		hks_free(&L->ctx, L->units, L->cap_units * sizeof(source));
	for (size_t i = 0; i < L->num_archives; i++)
		archive_free(L, L->archives[i]);
	if (L->archives)
		hks_free(&L->ctx, L->archives, L->cap_archives * sizeof(archive *));
	for (size_t i = 0; i < L->num_folders; i++) {
		folder *f = L->folders[i];
		if (f->compendiums)
			hks_compendium_set_free(f->compendiums);
		loader_strfree(L, f->path);
		hks_free(&L->ctx, f, sizeof(folder));
	}
	if (L->folders)
		hks_free(&L->ctx, L->folders, L->cap_folders * sizeof(folder *));
	if (L->global)
		hks_compendium_set_free(L->global);
	if (L->input_set)
		hks_compendium_set_free(L->input_set);
	for (size_t i = 0; i < L->num_dups; i++) {
		hks_compendium_set_free(L->dups[i].dups);
		loader_strfree(L, L->dups[i].name);
	}
	if (L->dups)
		hks_free(&L->ctx, L->dups, L->cap_dups * sizeof(*L->dups));
	for (size_t i = 0; i < L->num_inputs; i++)
		loader_strfree(L, L->inputs[i]);
	if (L->inputs)
		hks_free(&L->ctx, L->inputs, L->cap_inputs * sizeof(char *));
	if (L->deferred)
		hks_free(&L->ctx, L->deferred, L->cap_deferred * sizeof(deferred_archive));
	if (L->opts.compendium_paths) {
		char **paths = (char **)(void *)L->opts.compendium_paths;
		for (size_t i = 0; i < L->opts.num_compendium_paths; i++)
			loader_strfree(L, paths[i]);
		hks_free(&L->ctx, paths, L->opts.num_compendium_paths * sizeof(char *));
	}
	if (L->grown_ready)
		hks_cond_destroy(&L->grown);
	if (L->mutex_ready)
		hks_mutex_destroy(&L->mutex);
	hks_ctx ctx = L->ctx;
	hks_free(&ctx, L, sizeof(hks_loader));
}
