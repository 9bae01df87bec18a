/*
 * hkspline bnd: list, extract, replace and pack BND4 binders, plain or inside
 * a DCX (CONTAINERS.md §6, §7). Syntax and the manifest format: docs/BINDERS.md.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* realpath */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include <strings.h>

#define MANIFEST_NAME "_hkspline_bnd.txt"
#define MANIFEST_MAGIC "hkspline-bnd 1"

static void usage(FILE *out)
{
	fprintf(out,
	        "usage:\n"
	        "  hkspline bnd list BINDER [--json]\n"
	        "      index, ID, stored size and name of every member\n"
	        "  hkspline bnd extract BINDER [-o DIR] [MEMBER...]\n"
	        "      write members (all by default) to DIR as their base names; when all are\n"
	        "      extracted, also DIR/" MANIFEST_NAME " (names, IDs, flags, headers) for 'pack'.\n"
	        "      DIR defaults to the binder's file name with '.' replaced by '-'\n"
	        "  hkspline bnd replace BINDER MEMBER FILE -o OUT [--dcx|--no-dcx] [--deflate-level N]\n"
	        "      put FILE's bytes in place of MEMBER; OUT is a DCX when BINDER was\n"
	        "  hkspline bnd pack DIR -o OUT [--dcx|--no-dcx] [--deflate-level N]\n"
	        "      rebuild a binder from a folder written by 'extract' (byte for byte when\n"
	        "      nothing changed and a zlib level reproduces the DCX: a note says so);\n"
	        "      OUT is a DCX when the extracted binder was\n"
	        "\n"
	        "BINDER is a .anibnd (BND4) or .anibnd.dcx (DCX DFLT around a BND4). MEMBER is\n"
	        "a member's full name or its base name (case-insensitive), e.g. a000_003000.hkx.\n"
	        "DCX archives are written as DFLT (zlib) keeping the input's DCX header; zlib\n"
	        "deflates at the level that reproduces the source's compressed bytes when one\n"
	        "does (found by extract and replace: the header's level, then 9 to 1), else at\n"
	        "the header's level byte; --deflate-level N (1-9) overrides (docs/BINDERS.md).\n");
}

/* ---- loading a binder (plain or DCX) -------------------------------- */

typedef struct loaded_binder {
	hks_bnd4 *bnd;
	bool was_dcx;
	hks_dcx_info dcx;
	int match_level; /* with load_binder_match: the zlib level that reproduces the DCX, 0 none */
} loaded_binder;

static bool load_binder_match(const char *path, loaded_binder *lb, bool match);
static bool load_binder(const char *path, loaded_binder *lb) { return load_binder_match(path, lb, false); }

/* The note line on how the DCX stream will be written (bnd extract / pack / replace). */
static void deflate_note(int match_level, int header_level, bool from_manifest)
{
	if (match_level)
		printf("note: zlib level %d reproduces the original DCX stream%s\n", match_level,
		       from_manifest ? " (found by 'bnd extract')" : "");
	else
		printf("note: no zlib level reproduces the original DCX stream (another deflate implementation); "
		       "deflating at the header's level %d, the archive will differ in its compressed bytes\n",
		       header_level >= 1 && header_level <= 9 ? header_level : 9);
}

static bool load_binder_match(const char *path, loaded_binder *lb, bool match)
{
	memset(lb, 0, sizeof(*lb));
	size_t size = 0;
	uint8_t *data = cli_read_file(path, &size);
	if (!data)
		return false;
	hks_options opts = {0};
	opts.name = path;
	hks_error err;
	const uint8_t *bytes = data;
	size_t bytes_size = size;
	uint8_t *inflated = NULL;
	size_t inflated_size = 0;
	if (size >= 4 && !memcmp(data, "DCX\0", 4)) {
		if (hks_dcx_decompress(data, size, &opts, &inflated, &inflated_size, &lb->dcx, &err) != HKS_OK) {
			cli_print_error(&err);
			free(data);
			return false;
		}
		lb->was_dcx = true;
		bytes = inflated;
		bytes_size = inflated_size;
		if (match)
			lb->match_level = hks_dcx_match_level(inflated, inflated_size, data, size);
	}
	hks_result r = hks_bnd4_read(bytes, bytes_size, &opts, &lb->bnd, &err);
	if (inflated)
		hks_buffer_free(&opts, inflated, inflated_size);
	free(data);
	if (r != HKS_OK) {
		cli_print_error(&err);
		return false;
	}
	return true;
}

/* Serialize, DCX-wrap when asked, write; returns the bytes written (0 on failure). */
static size_t save_binder(const hks_bnd4 *bnd, bool dcx, const hks_dcx_info *like, int deflate_level,
                          const char *out_path)
{
	/* the DCX header to keep (or none), with the deflate effort asked for */
	hks_dcx_info info;
	memset(&info, 0, sizeof(info));
	if (like)
		info = *like;
	info.deflate_level = (uint8_t)deflate_level;
	hks_options opts = {0};
	opts.name = out_path;
	hks_error err;
	uint8_t *raw = NULL, *packed = NULL;
	size_t raw_size = 0, packed_size = 0;
	if (hks_bnd4_write(bnd, &opts, &raw, &raw_size, &err) != HKS_OK) {
		cli_print_error(&err);
		return 0;
	}
	const uint8_t *final = raw;
	size_t final_size = raw_size;
	if (dcx) {
		if (hks_dcx_compress(raw, raw_size, &info, &opts, &packed, &packed_size, &err) != HKS_OK) {
			cli_print_error(&err);
			hks_buffer_free(&opts, raw, raw_size);
			return 0;
		}
		final = packed;
		final_size = packed_size;
	}
	bool ok = cli_write_file(out_path, final, final_size);
	hks_buffer_free(&opts, raw, raw_size);
	if (packed)
		hks_buffer_free(&opts, packed, packed_size);
	return ok ? final_size : 0;
}

static const char *base_name(const char *s)
{
	const char *b = s;
	for (const char *p = s; *p; p++)
		if (*p == '\\' || *p == '/')
			b = p + 1;
	return b;
}

/* ---- list ----------------------------------------------------------- */

static int bnd_list(int argc, char **argv)
{
	const char *path = NULL;
	bool json = false;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "hkspline bnd list: unknown option %s\n", argv[i]);
			return 2;
		} else if (!path)
			path = argv[i];
		else {
			fprintf(stderr, "hkspline bnd list: one BINDER only\n");
			return 2;
		}
	}
	if (!path) {
		usage(stderr);
		return 2;
	}
	loaded_binder lb;
	if (!load_binder(path, &lb))
		return 1;
	const hks_bnd4 *b = lb.bnd;
	const char *table = b->hash_table_conforms == 1 ? "conforms" : b->hash_table_conforms == 0 ? "differs" : "none";
	if (json) {
		cli_json j;
		cli_json_init(&j, stdout, true);
		cli_json_begin_object(&j);
		cli_json_key(&j, "path");
		cli_json_string(&j, path);
		cli_json_key(&j, "dcx");
		if (lb.was_dcx) {
			cli_json_begin_object(&j);
			cli_json_key(&j, "compression");
			cli_json_string(&j, lb.dcx.compression);
			cli_json_key(&j, "version");
			cli_json_uint(&j, lb.dcx.version);
			cli_json_key(&j, "level");
			cli_json_uint(&j, lb.dcx.level);
			cli_json_key(&j, "compressed_size");
			cli_json_uint(&j, lb.dcx.compressed_size);
			cli_json_key(&j, "uncompressed_size");
			cli_json_uint(&j, lb.dcx.uncompressed_size);
			cli_json_end_object(&j);
		} else {
			cli_json_null(&j);
		}
		cli_json_key(&j, "version");
		cli_json_string(&j, b->version);
		cli_json_key(&j, "format");
		cli_json_uint(&j, b->format);
		cli_json_key(&j, "unicode");
		cli_json_bool(&j, b->unicode != 0);
		cli_json_key(&j, "hash_table");
		cli_json_string(&j, table);
		cli_json_key(&j, "entries");
		cli_json_begin_array(&j);
		for (uint32_t i = 0; i < b->num_entries; i++) {
			const hks_bnd4_entry *e = &b->entries[i];
			cli_json_begin_object(&j);
			cli_json_key(&j, "index");
			cli_json_uint(&j, i);
			cli_json_key(&j, "id");
			cli_json_int(&j, e->id);
			cli_json_key(&j, "size");
			cli_json_uint(&j, e->size);
			cli_json_key(&j, "uncompressed_size");
			cli_json_uint(&j, e->uncompressed_size);
			cli_json_key(&j, "flags");
			cli_json_uint(&j, e->flags);
			cli_json_key(&j, "dcx_compressed");
			cli_json_bool(&j, (e->flags & HKS_BND4_ENTRY_COMPRESSED) != 0);
			cli_json_key(&j, "name");
			cli_json_string(&j, e->name);
			cli_json_end_object(&j);
		}
		cli_json_end_array(&j);
		cli_json_end_object(&j);
		fputc('\n', stdout);
	} else {
		printf("%s: BND4 version \"%s\", format 0x%02X, %u entries, hash table %s", path, b->version, b->format,
		       b->num_entries, table);
		if (lb.was_dcx)
			printf(", in DCX %s version 0x%08X level %u", lb.dcx.compression, lb.dcx.version, lb.dcx.level);
		printf("\n%6s %11s %10s  %s\n", "index", "id", "size", "name");
		uint32_t compressed = 0;
		for (uint32_t i = 0; i < b->num_entries; i++) {
			const hks_bnd4_entry *e = &b->entries[i];
			bool c = (e->flags & HKS_BND4_ENTRY_COMPRESSED) != 0;
			compressed += c;
			printf("%6u %11d %10llu  %s%s\n", i, (int)e->id, (unsigned long long)e->size, e->name,
			       c ? "  (DCX-compressed entry)" : "");
		}
		if (compressed)
			printf("%u entries are themselves DCX-compressed\n", compressed);
	}
	hks_bnd4_free(lb.bnd);
	return 0;
}

/* ---- manifest ------------------------------------------------------- */

static void put_hex(FILE *f, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
}

/* Names keep their backslashes; only '%' and control bytes are escaped (%XX)
 * so that a name is one tab-free field. */
static void put_escaped(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7F || *p == '%')
			fprintf(f, "%%%02X", *p);
		else
			fputc(*p, f);
	}
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode exactly n bytes of hex; false when the text is not 2n hex digits. */
static bool get_hex(const char *s, uint8_t *out, size_t n)
{
	if (strlen(s) != 2 * n)
		return false;
	for (size_t i = 0; i < n; i++) {
		int hi = hex_value(s[2 * i]), lo = hex_value(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		out[i] = (uint8_t)(hi * 16 + lo);
	}
	return true;
}

/* Undo put_escaped in place. */
static bool unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (*r == '%') {
			int hi = hex_value(r[1]), lo = hi >= 0 ? hex_value(r[2]) : -1;
			if (hi < 0 || lo < 0)
				return false;
			*w++ = (char)(hi * 16 + lo);
			r += 2;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	return true;
}

/* ---- extract names (issue 17 M3) ---------------------------------------
 * Every member gets a file name in the output folder before anything is
 * written: its base name when that is a plain name no other member (nor the
 * manifest, nor the binder itself when extracting beside it) takes, compared
 * after Unicode case folding; otherwise "entry_NNNNN.bin", with a suffix when
 * even that is taken. Names can never leave the folder: separators are cut
 * by the base name, "." / "..", control characters, ':' (drive letters,
 * streams), characters Windows refuses and its device names fall back to a
 * numbered name. Linear: one hash set of folded names. */

/* Simple case folding of one code point (Latin-1, Latin Extended-A, Greek, Cyrillic, fullwidth). */
static uint32_t fold_cp(uint32_t c)
{
	if (c >= 'A' && c <= 'Z')
		return c + 32;
	if (c < 0x80)
		return c;
	if ((c >= 0xC0 && c <= 0xDE && c != 0xD7))
		return c + 32;
	if (c == 0x178)
		return 0xFF;
	if (c >= 0x100 && c <= 0x137 && c != 0x130)
		return c | 1;
	if (c >= 0x139 && c <= 0x148)
		return (c & 1) ? c + 1 : c;
	if (c >= 0x14A && c <= 0x177)
		return c | 1;
	if (c >= 0x179 && c <= 0x17E)
		return (c & 1) ? c + 1 : c;
	if (c >= 0x391 && c <= 0x3AB && c != 0x3A2)
		return c + 32;
	if (c == 0x3C2)
		return 0x3C3; /* final sigma */
	if (c >= 0x410 && c <= 0x42F)
		return c + 32;
	if (c >= 0x400 && c <= 0x40F)
		return c + 80;
	if (c >= 0x460 && c <= 0x4FF && !(c >= 0x482 && c <= 0x489))
		return c | 1;
	if (c >= 0xFF21 && c <= 0xFF3A)
		return c + 32;
	return c;
}

/* UTF-8 -> folded UTF-8 key; false when `s` is not valid UTF-8 or too long. */
static bool fold_name(const char *s, char *out, size_t cap)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;
	while (*p) {
		uint32_t c;
		int len;
		if (p[0] < 0x80) {
			c = p[0];
			len = 1;
		} else if ((p[0] & 0xE0) == 0xC0 && (p[1] & 0xC0) == 0x80) {
			c = ((uint32_t)(p[0] & 0x1F) << 6) | (p[1] & 0x3F);
			len = 2;
			if (c < 0x80)
				return false;
		} else if ((p[0] & 0xF0) == 0xE0 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80) {
			c = ((uint32_t)(p[0] & 0x0F) << 12) | ((uint32_t)(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
			len = 3;
			if (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF))
				return false;
		} else if ((p[0] & 0xF8) == 0xF0 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80 &&
		           (p[3] & 0xC0) == 0x80) {
			c = ((uint32_t)(p[0] & 0x07) << 18) | ((uint32_t)(p[1] & 0x3F) << 12) | ((uint32_t)(p[2] & 0x3F) << 6) |
			    (p[3] & 0x3F);
			len = 4;
			if (c < 0x10000 || c > 0x10FFFF)
				return false;
		} else
			return false;
		p += len;
		c = fold_cp(c);
		unsigned char buf[4];
		int k;
		if (c < 0x80) {
			buf[0] = (unsigned char)c;
			k = 1;
		} else if (c < 0x800) {
			buf[0] = (unsigned char)(0xC0 | (c >> 6));
			buf[1] = (unsigned char)(0x80 | (c & 0x3F));
			k = 2;
		} else if (c < 0x10000) {
			buf[0] = (unsigned char)(0xE0 | (c >> 12));
			buf[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
			buf[2] = (unsigned char)(0x80 | (c & 0x3F));
			k = 3;
		} else {
			buf[0] = (unsigned char)(0xF0 | (c >> 18));
			buf[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
			buf[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
			buf[3] = (unsigned char)(0x80 | (c & 0x3F));
			k = 4;
		}
		if (n + (size_t)k + 1 > cap)
			return false;
		memcpy(out + n, buf, (size_t)k);
		n += (size_t)k;
	}
	out[n] = '\0';
	return true;
}

/* A base name usable as a file name in any folder on Linux, macOS and Windows. */
static bool plain_file_name(const char *base)
{
	size_t n = strlen(base);
	if (n == 0 || n >= 200 || !strcmp(base, ".") || !strcmp(base, ".."))
		return false;
	for (const unsigned char *p = (const unsigned char *)base; *p; p++)
		if (*p < 0x20 || *p == 0x7F || strchr(":<>\"|?*/\\", *p))
			return false;
	if (base[n - 1] == '.' || base[n - 1] == ' ')
		return false; /* Windows drops them: "a.hkx." would be "a.hkx" */
	/* Windows device names, with any extension */
	static const char *const dev[] = {"con", "prn", "aux", "nul", "com", "lpt"};
	for (size_t d = 0; d < sizeof(dev) / sizeof(dev[0]); d++) {
		size_t k = 3;
		if (strncasecmp(base, dev[d], 3) != 0)
			continue;
		if (d >= 4) {
			if (!(base[3] >= '0' && base[3] <= '9'))
				continue;
			k = 4;
		}
		if (base[k] == '\0' || base[k] == '.')
			return false;
	}
	return true;
}

typedef struct name_set {
	char **keys;
	size_t cap; /* power of two */
} name_set;

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* Reserve the folded form of `name`: false when taken (or out of memory: *oom). */
static bool name_reserve(name_set *ns, const char *name, bool *oom)
{
	char key[1024];
	if (!fold_name(name, key, sizeof(key)))
		return false;
	size_t i = (size_t)name_hash(key) & (ns->cap - 1);
	while (ns->keys[i]) {
		if (!strcmp(ns->keys[i], key))
			return false;
		i = (i + 1) & (ns->cap - 1);
	}
	ns->keys[i] = strdup(key);
	if (!ns->keys[i])
		*oom = true;
	return ns->keys[i] != NULL;
}

/* The file name of every member (all entries, selected or not, so names do not depend on the
 * selection). `binder_base`: the binder's own name when extracting into its folder, else NULL.
 * Returns an array of num_entries malloc'd names (free_member_names), NULL when out of memory. */
static char **member_file_names(const hks_bnd4 *b, const char *binder_base)
{
	uint32_t n = b->num_entries;
	char **names = (char **)calloc(n ? n : 1, sizeof(char *));
	name_set ns = {NULL, 16};
	while (ns.cap < 2 * ((size_t)n + 4))
		ns.cap *= 2;
	ns.keys = (char **)calloc(ns.cap, sizeof(char *));
	bool oom = !names || !ns.keys;
	if (!oom) {
		name_reserve(&ns, MANIFEST_NAME, &oom);
		if (binder_base)
			name_reserve(&ns, binder_base, &oom);
	}
	/* plain names first, in entry order, so that no numbered name can take a later member's */
	for (uint32_t i = 0; i < n && !oom; i++) {
		const char *base = base_name(b->entries[i].name ? b->entries[i].name : "");
		if (plain_file_name(base) && name_reserve(&ns, base, &oom)) {
			names[i] = strdup(base);
			oom = oom || !names[i];
		}
	}
	for (uint32_t i = 0; i < n && !oom; i++) {
		if (names[i])
			continue;
		char buf[64];
		snprintf(buf, sizeof(buf), "entry_%05u.bin", i);
		for (unsigned k = 1; !name_reserve(&ns, buf, &oom) && !oom; k++)
			snprintf(buf, sizeof(buf), "entry_%05u_%u.bin", i, k);
		names[i] = oom ? NULL : strdup(buf);
		oom = oom || !names[i];
	}
	if (ns.keys)
		for (size_t i = 0; i < ns.cap; i++)
			free(ns.keys[i]);
	free(ns.keys);
	if (oom && names) {
		for (uint32_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
		names = NULL;
	}
	return names;
}

static void free_member_names(char **names, uint32_t n)
{
	if (!names)
		return;
	for (uint32_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static char *join_path(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = (char *)malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

/* mkdir -p */
static bool make_dir(const char *dir)
{
	char *tmp = strdup(dir);
	if (!tmp)
		return false;
	for (char *p = tmp + 1; *p; p++)
		if (hks_platform_is_separator(*p)) {
			char sep = *p;
			*p = '\0';
			hks_platform_mkdir(tmp); /* errors surface at the final mkdir / stat */
			*p = sep;
		}
	free(tmp);
	if (hks_platform_mkdir(dir) == 0 || errno == EEXIST) {
		if (hks_platform_path_kind(dir) == HKS_PATH_DIR)
			return true;
	}
	fprintf(stderr, "hkspline: %s: cannot create folder (%s)\n", dir, strerror(errno));
	return false;
}

/* ---- extract -------------------------------------------------------- */

static int bnd_extract(int argc, char **argv)
{
	const char *path = NULL, *dir = NULL;
	char **members = (char **)calloc((size_t)argc + 1, sizeof(char *));
	int num_members = 0;
	if (!members)
		return 2;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			dir = argv[++i];
		else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "hkspline bnd extract: unknown option %s\n", argv[i]);
			free(members);
			return 2;
		} else if (!path)
			path = argv[i];
		else
			members[num_members++] = argv[i];
	}
	if (!path) {
		usage(stderr);
		free(members);
		return 2;
	}
	char default_dir[512];
	if (!dir) {
		snprintf(default_dir, sizeof(default_dir), "%s", base_name(path));
		for (char *p = default_dir; *p; p++)
			if (*p == '.')
				*p = '-';
		dir = default_dir;
	}
	loaded_binder lb;
	if (!load_binder_match(path, &lb, num_members == 0)) {
		free(members);
		return 1;
	}
	const hks_bnd4 *b = lb.bnd;
	int status = 0;
	char **file_names = NULL;
	bool *selected = (bool *)calloc(b->num_entries ? b->num_entries : 1, sizeof(bool));
	if (!selected) {
		status = 2;
		goto done;
	}
	/* the members named first: a missing one must not leave an empty folder behind */
	for (int m = 0; m < num_members; m++) {
		hks_error err;
		uint32_t index;
		if (hks_bnd4_find(b, members[m], &index, &err) != HKS_OK) {
			fprintf(stderr, "hkspline bnd extract: %s: %s\n", path, err.message);
			status = 1;
			goto done;
		}
		selected[index] = true;
	}
	if (!make_dir(dir)) {
		status = 2; /* the output folder cannot be made: fatal */
		goto done;
	}
	/* every file name reserved before anything is written; the binder's own name too when
	 * extracting into its folder */
	hks_path_info binder_st, dir_st, bdir_st;
	bool have_binder_stat = hks_platform_stat(path, &binder_st) == 0;
	char *bdir = strdup(path);
	const char *binder_base = NULL;
	if (bdir) {
		char *slash = strrchr(bdir, '/');
		const char *bd = ".";
		if (slash) {
			slash[slash == bdir ? 1 : 0] = '\0';
			bd = bdir;
		}
		if (hks_platform_stat(dir, &dir_st) == 0 && hks_platform_stat(bd, &bdir_st) == 0 && dir_st.dev == bdir_st.dev &&
		    dir_st.ino == bdir_st.ino)
			binder_base = base_name(path);
	}
	file_names = member_file_names(b, binder_base);
	free(bdir);
	if (!file_names) {
		fprintf(stderr, "hkspline bnd extract: out of memory\n");
		status = 2;
		goto done;
	}
	FILE *manifest = NULL;
	hks_atomic_file *manifest_file = NULL;  /* renamed into place only when complete */
	if (num_members == 0) {
		char *mp = join_path(dir, MANIFEST_NAME);
		hks_atomic_options ao;
		memset(&ao, 0, sizeof(ao));
		ao.base.name = mp;
		hks_error aerr;
		if (!mp || hks_atomic_open(mp, &ao, &manifest_file, &aerr) != HKS_OK) {
			fprintf(stderr, "hkspline: %s: cannot write the manifest (%s)\n", mp ? mp : dir,
			        mp ? aerr.message : strerror(errno));
			free(mp);
			status = 2;
			goto done;
		}
		free(mp);
		manifest = hks_atomic_stream(manifest_file);
		fprintf(manifest, "# hkspline BND4 manifest (docs/BINDERS.md): rebuild with 'hkspline bnd pack DIR -o OUT'.\n");
		fprintf(manifest, "# entry lines: id, logical flags, raw file header, file, name (tab-separated;\n");
		fprintf(manifest, "# the id and flags columns win over the header bytes; the order is the binder's)\n");
		fprintf(manifest, "%s\n", MANIFEST_MAGIC);
		fprintf(manifest, "bnd4-header\t");
		put_hex(manifest, b->header, HKS_BND4_HEADER_SIZE);
		fputc('\n', manifest);
		if (lb.was_dcx) {
			fprintf(manifest, "dcx-header\t");
			put_hex(manifest, lb.dcx.header, HKS_DCX_HEADER_SIZE);
			fputc('\n', manifest);
			/* the zlib level that reproduces the stream (0: none), for pack */
			fprintf(manifest, "dcx-deflate-level\t%d\n", lb.match_level);
			deflate_note(lb.match_level, lb.dcx.level, false);
		}
	}
	uint32_t written = 0;
	for (uint32_t i = 0; i < b->num_entries && status == 0; i++) {
		if (num_members && !selected[i])
			continue;
		const hks_bnd4_entry *e = &b->entries[i];
		const char *file = file_names[i];
		char *fp = join_path(dir, file);
		hks_path_info fst;
		if (fp && have_binder_stat && hks_platform_stat(fp, &fst) == 0 && fst.dev == binder_st.dev &&
		    fst.ino == binder_st.ino) {
			/* reserved names make this unreachable short of a hard link; never write over the input */
			fprintf(stderr, "hkspline bnd extract: %s is the binder itself; not overwritten\n", fp);
			free(fp);
			status = 1;
			break;
		}
		if (!fp || !cli_write_file(fp, e->data, (size_t)e->size)) {
			free(fp);
			status = 2; /* a member file cannot be written: fatal */
			break;
		}
		free(fp);
		written++;
		if (manifest) {
			fprintf(manifest, "entry\t%d\t%02x\t", (int)e->id, e->flags);
			put_hex(manifest, e->header, (size_t)b->file_header_size);
			fprintf(manifest, "\t%s\t", file);
			put_escaped(manifest, e->name);
			fputc('\n', manifest);
		}
	}
	if (manifest_file) {
		hks_error aerr;
		if (status != 0)
			hks_atomic_abort(manifest_file);
		else if (hks_atomic_commit(manifest_file, &aerr) != HKS_OK) {
			fprintf(stderr, "hkspline: %s: error writing the manifest: %s\n", dir, aerr.message);
			status = 2;
		}
	}
	if (status == 0)
		printf("extracted %u of %u members to %s%s\n", written, b->num_entries, dir,
		       num_members ? "" : " (with " MANIFEST_NAME ")");
done:
	free_member_names(file_names, b->num_entries);
	free(selected);
	free(members);
	hks_bnd4_free(lb.bnd);
	return status;
}

/* ---- replace -------------------------------------------------------- */

/* The output options replace and pack share (docs/BINDERS.md). */
typedef struct output_args {
	const char *out;   /* -o OUT */
	int force_dcx;     /* --dcx 1, --no-dcx 0, else -1: as the input (replace) or plain (pack) */
	int deflate_level; /* --deflate-level 1-9; 0: the default */
} output_args;

/* argv[*i] as one of the output options: 1 when taken (*i past its value),
 * 0 when it is not one (an option missing its value is not one either),
 * -1 after printing a usage error. */
static int parse_output_arg(output_args *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	bool has_value = *i + 1 < argc;
	if (!strcmp(a, "-o") && has_value) {
		o->out = argv[++*i];
	} else if (!strcmp(a, "--dcx")) {
		o->force_dcx = 1;
	} else if (!strcmp(a, "--no-dcx")) {
		o->force_dcx = 0;
	} else if (!strcmp(a, "--deflate-level") && has_value) {
		const char *v = argv[++*i];
		/* one digit 1-9 and nothing else ("1x" and "5 " were taken as 1 and 5) */
		o->deflate_level = v[0] >= '1' && v[0] <= '9' && !v[1] ? v[0] - '0' : 0;
		if (o->deflate_level < 1 || o->deflate_level > 9) {
			fprintf(stderr, "hkspline bnd: --deflate-level takes 1 to 9\n");
			return -1;
		}
	} else {
		return 0;
	}
	return 1;
}

/* The command line of `bnd SUB` (replace, pack): the output options and at most
 * `max_pos` positional arguments into pos[]. Returns how many were given, or -1
 * after printing a usage error (`too_many` when there are more). */
static int parse_output_command(output_args *o, int argc, char **argv, const char *sub, const char **pos,
                                int max_pos, const char *too_many)
{
	o->out = NULL;
	o->force_dcx = -1;
	o->deflate_level = 0;
	int npos = 0;
	for (int i = 0; i < argc; i++) {
		int taken = parse_output_arg(o, argc, argv, &i);
		if (taken < 0)
			return -1;
		if (taken)
			continue;
		if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "hkspline bnd %s: unknown option %s\n", sub, argv[i]);
			return -1;
		}
		if (npos == max_pos) {
			fprintf(stderr, "hkspline bnd %s: %s\n", sub, too_many);
			return -1;
		}
		pos[npos++] = argv[i];
	}
	return npos;
}

static int bnd_replace(int argc, char **argv)
{
	const char *pos[3] = {NULL, NULL, NULL};
	output_args o;
	int npos = parse_output_command(&o, argc, argv, "replace", pos, 3, "too many arguments");
	if (npos < 0)
		return 2;
	if (npos != 3 || !o.out) {
		usage(stderr);
		return 2;
	}
	/* -o over FILE replaced the member's source with the whole binder, status 0 (session 24 new-user
	 * trial); -o over BINDER is the in-place replace and stays */
	if (cli_same_target(o.out, pos[2])) {
		fprintf(stderr, "hkspline bnd replace: -o %s names FILE, the new member: write the binder elsewhere\n",
		        o.out);
		return 2;
	}
	size_t new_size = 0;
	uint8_t *new_data = cli_read_file(pos[2], &new_size);
	if (!new_data)
		return 1;
	/* a read-modify-write when OUT is BINDER: hold the binder's lock (as encode --into) */
	hks_file_lock *lock = NULL;
	hks_error lerr;
	(void)hks_lock_file(pos[0], NULL, &lock, &lerr); /* a missing binder is reported by the load */
	loaded_binder lb;
	if (!load_binder_match(pos[0], &lb, o.deflate_level == 0)) {
		hks_unlock_file(lock);
		free(new_data);
		return 1;
	}
	int status = 1;
	hks_error err;
	uint32_t index;
	uint8_t *packed = NULL;
	size_t packed_size = 0;
	hks_options opts = {0};
	opts.name = pos[2];
	if (hks_bnd4_find(lb.bnd, pos[1], &index, &err) != HKS_OK) {
		fprintf(stderr, "hkspline bnd replace: %s: %s\n", pos[0], err.message);
		goto done;
	}
	hks_bnd4_entry *e = &lb.bnd->entries[index];
	uint64_t old_size = e->size;
	const uint8_t *stored = new_data;
	size_t stored_size = new_size;
	/* a member stored DCX-compressed: the new bytes compressed like it */
	if (!cli_member_bytes(e, new_data, new_size, &opts, &packed, &packed_size))
		goto done;
	if (packed) {
		stored = packed;
		stored_size = packed_size;
	}
	if (hks_bnd4_replace(lb.bnd, index, stored, stored_size, &err) != HKS_OK) {
		cli_print_error(&err);
		goto done;
	}
	bool dcx = o.force_dcx >= 0 ? o.force_dcx == 1 : lb.was_dcx;
	if (dcx && lb.was_dcx && !o.deflate_level)
		deflate_note(lb.match_level, lb.dcx.level, false);
	size_t wrote = save_binder(lb.bnd, dcx, lb.was_dcx ? &lb.dcx : NULL, o.deflate_level ? o.deflate_level : lb.match_level,
	                           o.out);
	if (!wrote) {
		status = 2; /* OUT could not be written: fatal (docs/CLI.md "Exit statuses") */
		goto done;
	}
	printf("replaced entry %u (%s): %llu -> %llu bytes; wrote %s (%zu bytes%s)\n", index, e->name,
	       (unsigned long long)old_size, (unsigned long long)stored_size, o.out, wrote, dcx ? ", DCX DFLT" : "");
	status = 0;
done:
	if (packed)
		hks_buffer_free(&opts, packed, packed_size);
	free(new_data);
	hks_bnd4_free(lb.bnd);
	hks_unlock_file(lock);
	return status;
}

/* ---- pack ----------------------------------------------------------- */

/* Split `line` at tabs into at most `max` fields; returns the count. */
static int split_tabs(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;
	while (n < max) {
		fields[n++] = p;
		char *t = strchr(p, '\t');
		if (!t)
			break;
		*t = '\0';
		p = t + 1;
	}
	return n;
}

/* A member file of `pack` must lie inside DIR once every symbolic link is resolved: a folder from
 * a mod archive with a link to ~/.ssh/id_rsa or /etc/passwd must not carry that file into the
 * binder (as glTF external buffers, issue 17 L3). */
static bool inside_folder(const char *dir, const char *path)
{
#ifdef _WIN32
	(void)dir;
	(void)path;
	return true;
#else
	char *real_dir = realpath(dir, NULL), *real = realpath(path, NULL);
	size_t n = real_dir ? strlen(real_dir) : 0;
	bool inside = real_dir && real && !strncmp(real, real_dir, n) && (real[n] == '/' || (n == 1 && real[0] == '/'));
	free(real_dir);
	free(real);
	return inside;
#endif
}

/* Whether OUT (which may not exist yet) lies inside DIR: OUT's folder or one of its ancestors is DIR
 * (same device and file identity, so links and relative spellings count). */
static bool out_inside_folder(const char *dir, const char *out)
{
	hks_path_info d, cur, up;
	if (hks_platform_stat(dir, &d) != 0)
		return false;
	enum { MAX_DEPTH = 64 };
	char folder[4096];
	(void)cli_split_folder(out, folder, sizeof(folder)); /* OUT's folder, a root with its separator */
	size_t n = strlen(folder);
	char *path = (char *)malloc(n + 3 * MAX_DEPTH + 8);
	if (!path)
		return false;
	memcpy(path, folder, n + 1);
	bool inside = false;
	for (int depth = 0; depth < MAX_DEPTH && !inside; depth++) {
		if (hks_platform_stat(path, &cur) != 0)
			break;
		inside = cur.dev == d.dev && cur.ino == d.ino;
		strcat(path, "/..");
		if (hks_platform_stat(path, &up) != 0 || (up.dev == cur.dev && up.ino == cur.ino))
			break; /* the root */
	}
	free(path);
	return inside;
}

static int bnd_pack(int argc, char **argv)
{
	const char *dir = NULL;
	output_args o;
	if (parse_output_command(&o, argc, argv, "pack", &dir, 1, "one DIR only") < 0)
		return 2;
	if (!dir || !o.out) {
		usage(stderr);
		return 2;
	}
	if (out_inside_folder(dir, o.out)) {
		/* OUT in DIR overwrote a member file (or a later pack took the binder as a member) */
		fprintf(stderr, "hkspline bnd pack: -o %s is inside %s: a later pack would take it as a member; write elsewhere\n",
		        o.out, dir);
		return 2;
	}
	char *mp = join_path(dir, MANIFEST_NAME);
	size_t msize = 0;
	uint8_t *mtext = mp ? cli_read_file(mp, &msize) : NULL;
	if (!mtext) {
		fprintf(stderr, "hkspline bnd pack: %s has no %s (write one with 'hkspline bnd extract')\n", dir,
		        MANIFEST_NAME);
		free(mp);
		return 1;
	}
	const uint8_t *nul = (const uint8_t *)memchr(mtext, 0, msize);
	if (nul) {
		/* a NUL would end the text there and drop every later entry without a word */
		fprintf(stderr, "hkspline bnd pack: %s: at byte %zu: a NUL byte (not a text manifest)\n", mp,
		        (size_t)(nul - mtext));
		free(mtext);
		free(mp);
		return 1;
	}
	char *text = (char *)realloc(mtext, msize + 1);
	if (!text) {
		free(mtext);
		free(mp);
		return 2;
	}
	text[msize] = '\0';
	int status = 1;
	hks_bnd4 *bnd = NULL;
	hks_dcx_info dcx;
	bool have_dcx = false, have_magic = false;
	int manifest_level = -1; /* dcx-deflate-level: -1 not given (older manifests) */
	memset(&dcx, 0, sizeof(dcx));
	hks_error err;
	unsigned line_no = 0;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line_no++;
		size_t len = strlen(line);
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (!len || line[0] == '#')
			continue;
		if (!have_magic) {
			if (strcmp(line, MANIFEST_MAGIC) != 0) {
				fprintf(stderr, "hkspline bnd pack: %s: not an hkspline manifest (expected \"%s\")\n", mp,
				        MANIFEST_MAGIC);
				goto done;
			}
			have_magic = true;
			continue;
		}
		char *f[6] = {0};
		int nf = split_tabs(line, f, 6);
		if (!strcmp(f[0], "bnd4-header") && nf == 2 && !bnd) {
			uint8_t header[HKS_BND4_HEADER_SIZE];
			if (!get_hex(f[1], header, sizeof(header))) {
				fprintf(stderr, "hkspline bnd pack: %s:%u: bad bnd4-header\n", mp, line_no);
				goto done;
			}
			hks_options opts = {0};
			opts.name = mp;
			if (hks_bnd4_create(header, &opts, &bnd, &err) != HKS_OK) {
				cli_print_error(&err);
				goto done;
			}
		} else if (!strcmp(f[0], "dcx-header") && nf == 2) {
			if (!get_hex(f[1], dcx.header, HKS_DCX_HEADER_SIZE)) {
				fprintf(stderr, "hkspline bnd pack: %s:%u: bad dcx-header\n", mp, line_no);
				goto done;
			}
			dcx.header_size = HKS_DCX_HEADER_SIZE;
			memcpy(dcx.compression, dcx.header + 0x28, 4);
			dcx.level = dcx.header[0x30];
			have_dcx = true;
		} else if (!strcmp(f[0], "dcx-deflate-level") && nf == 2) {
			manifest_level = atoi(f[1]);
			if (manifest_level < 0 || manifest_level > 9)
				manifest_level = 0;
		} else if (!strcmp(f[0], "entry") && nf == 6 && bnd) {
			char *end = NULL;
			long long id = strtoll(f[1], &end, 10);
			char *fend = NULL;
			unsigned long flags = strtoul(f[2], &fend, 16);
			uint8_t header_check[256];
			if (!end || *end || id < INT32_MIN || id > INT32_MAX || !f[2][0] || !fend || *fend || flags > 0xFF ||
			    strlen(f[3]) != 2 * (size_t)bnd->file_header_size || bnd->file_header_size > sizeof(header_check) ||
			    !get_hex(f[3], header_check, (size_t)bnd->file_header_size) || !unescape(f[5]) ||
			    strchr(f[4], '/') || !strcmp(f[4], "..")) {
				fprintf(stderr, "hkspline bnd pack: %s:%u: bad entry line\n", mp, line_no);
				goto done;
			}
			char *fp = join_path(dir, f[4]);
			if (fp && !inside_folder(dir, fp)) {
				fprintf(stderr, "hkspline bnd pack: %s:%u: %s leads outside %s (a link?): not packed\n", mp, line_no,
				        fp, dir);
				free(fp);
				goto done;
			}
			size_t size = 0;
			uint8_t *data = fp ? cli_read_file(fp, &size) : NULL;
			free(fp);
			if (!data)
				goto done;
			hks_result r = hks_bnd4_add(bnd, f[5], (int32_t)id, (uint8_t)flags, data, size, &err);
			free(data);
			if (r != HKS_OK) {
				cli_print_error(&err);
				goto done;
			}
			/* unknown header bytes as extracted; the writer sets the rest */
			get_hex(f[3], bnd->entries[bnd->num_entries - 1].header, (size_t)bnd->file_header_size);
		} else {
			fprintf(stderr, "hkspline bnd pack: %s:%u: unexpected line\n", mp, line_no);
			goto done;
		}
	}
	if (!bnd) {
		fprintf(stderr, "hkspline bnd pack: %s: no bnd4-header line\n", mp);
		goto done;
	}
	bool want_dcx = o.force_dcx >= 0 ? o.force_dcx == 1 : have_dcx;
	int level = o.deflate_level;
	if (want_dcx && have_dcx && !level && manifest_level >= 0) {
		level = manifest_level;
		deflate_note(manifest_level, dcx.level, true);
	}
	size_t wrote = save_binder(bnd, want_dcx, have_dcx ? &dcx : NULL, level, o.out);
	if (!wrote) {
		status = 2; /* OUT could not be written: fatal (docs/CLI.md "Exit statuses") */
		goto done;
	}
	printf("packed %u members from %s into %s (%zu bytes%s)\n", bnd->num_entries, dir, o.out, wrote,
	       want_dcx ? ", DCX DFLT" : "");
	status = 0;
done:
	hks_bnd4_free(bnd);
	free(text);
	free(mp);
	return status;
}

int cmd_bnd(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		}
	const char *sub = argv[1];
	if (!strcmp(sub, "list"))
		return bnd_list(argc - 2, argv + 2);
	if (!strcmp(sub, "extract"))
		return bnd_extract(argc - 2, argv + 2);
	if (!strcmp(sub, "replace"))
		return bnd_replace(argc - 2, argv + 2);
	if (!strcmp(sub, "pack"))
		return bnd_pack(argc - 2, argv + 2);
	fprintf(stderr, "hkspline bnd: unknown subcommand '%s'\n", sub);
	usage(stderr);
	return 2;
}
