/*
 * hkspline: decode, encode and re-compress Havok spline-compressed animations
 * (hkaSplineCompressedAnimation) as shipped in FromSoftware games and Skyrim.
 *
 * One public header. Conventions (in the manner of libdeflate and ufbx):
 *   - Every fallible call returns an hks_result and fills an optional hks_error
 *     record (message, file, object, member, byte offset, animation/block/track/part).
 *   - Every reader takes a caller-supplied buffer and its length; nothing reads
 *     past it. Input is never modified.
 *   - Options structs whose zero value means "the defaults" (memset 0 or {0}).
 *   - Memory comes from the allocator in the options (malloc/realloc/free when
 *     zero) and is bounded by hks_limits, checked before allocating.
 *   - Stored floats are kept bit for bit (NaN payloads included): the library
 *     only copies them, and never sanitizes.
 *
 * Section markers ("=== SECTION: ... ===") delimit the parts of this header
 * owned by each module; see docs/DESIGN.md.
 */
#ifndef HKSPLINE_H
#define HKSPLINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exported symbols. The shared library is compiled with -fvisibility=hidden:
 * exactly what is declared between this push and the pop at the end of the
 * header is exported from it, and nothing else (scripts/check_exports.sh
 * verifies both directions). This pair is the one place where the export
 * rule lives; a Windows DLL's dllexport/dllimport belongs here too. */
#if defined(__GNUC__) && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility push(default)
#endif

#define HKS_VERSION_MAJOR 0
#define HKS_VERSION_MINOR 1
#define HKS_VERSION_PATCH 0
#define HKS_VERSION_STRING "0.1.0"

/* ====================================================================== */
/* === SECTION: core (results, errors, allocator, limits) =============== */
/* ====================================================================== */

typedef enum hks_result {
	HKS_OK = 0,
	HKS_E_ARGUMENT = 1,        /* invalid argument from the caller */
	HKS_E_NOMEM = 2,           /* the allocator returned NULL */
	HKS_E_TRUNCATED = 3,       /* the input ends before a structure it declares */
	HKS_E_MALFORMED = 4,       /* the input violates the format */
	HKS_E_UNSUPPORTED = 5,     /* valid but not supported (e.g. DCX KRAK, endian 1) */
	HKS_E_LIMIT = 6,           /* a caller limit (hks_limits) would be exceeded */
	HKS_E_COMPENDIUM = 7,      /* a referenced compendium ID was not found */
	HKS_E_IO = 8,              /* file system error */
	HKS_E_NOT_FOUND = 9,       /* a requested object/member/entry does not exist */
	HKS_E_MISMATCH = 10,       /* a round trip / verification did not reproduce the input */
	HKS_E_INTERNAL = 11        /* a bug: an internal invariant failed */
} hks_result;

/* Short stable name of a result code ("ok", "truncated", ...). */
const char *hks_result_name(hks_result r);

/* Which part of a transform track (or a float track) an error concerns. */
typedef enum hks_part {
	HKS_PART_NONE = 0,
	HKS_PART_TRANSLATION = 'T',
	HKS_PART_ROTATION = 'R',
	HKS_PART_SCALE = 'S',
	HKS_PART_FLOAT = 'F'
} hks_part;

/*
 * The error record. Filled by the first failure of a call (later failures on
 * the unwinding path do not overwrite it). Unused fields are "" or -1.
 */
typedef struct hks_error {
	hks_result code;
	char message[512];
	char file[512];     /* path, "binder.anibnd.dcx:member.hkx", or the name given in options */
	char object[128];   /* e.g. "hkaSplineCompressedAnimation (item 3)", "section DATA", "BND4 entry 12" */
	char member[96];    /* e.g. "blockOffsets", "TBDY" */
	int64_t offset;     /* byte offset in the file (or in the buffer given), -1 when unknown */
	int32_t animation;  /* animation index in the file, -1 when n/a */
	int32_t block;      /* spline block, -1 when n/a */
	int32_t track;      /* transform or float track, -1 when n/a */
	hks_part part;      /* HKS_PART_NONE when n/a */
} hks_error;

/* Reset an error record to "no error" (code HKS_OK, fields empty / -1). */
void hks_error_clear(hks_error *err);

/*
 * One line describing the error: "file: object: member: at byte N: block B
 * track T part R: message". Returns the number of characters that the full
 * text needs (like snprintf).
 */
size_t hks_error_format(const hks_error *err, char *buf, size_t size);

/*
 * Allocator hook. All three functions or none (all NULL = the C library).
 * `free` receives the size that was allocated; `realloc` the old size.
 */
typedef struct hks_allocator {
	void *(*alloc)(void *user, size_t size);
	void *(*realloc)(void *user, void *ptr, size_t old_size, size_t new_size);
	void (*free)(void *user, void *ptr, size_t size);
	void *user;
} hks_allocator;

/*
 * Limits, checked before allocating. Zero means the default, which admits
 * every file of the retail games.
 */
typedef struct hks_limits {
	uint64_t max_memory;        /* bytes one call may hold at once; default 16 x input + 64 MiB */
	uint32_t max_frames;        /* frames per animation; default 1,000,000 */
	uint32_t max_tracks;        /* transform + float tracks per animation; default 65,535 */
	uint32_t max_blocks;        /* blocks per animation; default 65,536 */
	uint64_t max_output_bytes;  /* decompressed / decoded / written bytes; default 4 GiB */
	uint32_t max_objects;       /* items / objects per container; default 4,000,000 */
	uint32_t max_depth;         /* nesting of containers (binder in DCX ...); default 8 */
} hks_limits;

#define HKS_DEFAULT_MAX_FRAMES 1000000u
#define HKS_DEFAULT_MAX_TRACKS 65535u
#define HKS_DEFAULT_MAX_BLOCKS 65536u
#define HKS_DEFAULT_MAX_OUTPUT_BYTES (UINT64_C(4) << 30)
#define HKS_DEFAULT_MAX_OBJECTS 4000000u
#define HKS_DEFAULT_MAX_DEPTH 8u

/* Common options carried by every call (zero = defaults). */
typedef struct hks_options {
	hks_allocator allocator;
	hks_limits limits;
	const char *name;   /* file name used in error messages; may be NULL */
	const struct hks_dcx_codec *dcx_codec; /* KRAK (Oodle) codec; NULL = none (see its section) */
} hks_options;

/* Free memory the library returned as a plain buffer (hks_dcx_decompress ...),
 * with the allocator of the options it was created with. */
void hks_buffer_free(const hks_options *opts, void *ptr, size_t size);

/* ====================================================================== */
/* === SECTION: object model (what the container readers produce) ======= */
/* ====================================================================== */

typedef enum hks_container {
	HKS_CONTAINER_UNKNOWN = 0,
	HKS_CONTAINER_TAGFILE = 1,     /* TAG0, SDK 2015.1 ... 2019.1 */
	HKS_CONTAINER_COMPENDIUM = 2,  /* TCM0: types only, no objects */
	HKS_CONTAINER_PACKFILE = 3,    /* binary hk_2010.2 / hk_2014.1 */
	HKS_CONTAINER_XML = 4,         /* Havok XML (hkpackfile / hktagfile) */
	HKS_CONTAINER_BND4 = 5,        /* binder (see hks_bnd4_read) */
	HKS_CONTAINER_DCX = 6          /* compressed wrapper (see hks_dcx_decompress) */
} hks_container;

const char *hks_container_name(hks_container c);

/* Sniff the container kind from the first bytes (size may be small). */
hks_container hks_detect_container(const void *data, size_t size);

/* hkQsTransform: translation (x,y,z,w), rotation quaternion (x,y,z,w), scale (x,y,z,w). */
typedef struct hks_qs_transform {
	float translation[4];
	float rotation[4];
	float scale[4];
} hks_qs_transform;

typedef enum hks_animation_kind {
	HKS_ANIMATION_OTHER = 0,        /* some other hkaAnimation subclass: header only */
	HKS_ANIMATION_SPLINE = 1,       /* hkaSplineCompressedAnimation */
	HKS_ANIMATION_INTERLEAVED = 2   /* hkaInterleavedUncompressedAnimation */
} hks_animation_kind;

/* The members of hkaSplineCompressedAnimation (FORMAT.md §1). Floats are the
 * stored values, bit for bit. */
typedef struct hks_spline_header {
	int32_t num_frames;
	int32_t num_blocks;
	int32_t max_frames_per_block;
	int32_t mask_and_quantization_size;
	float block_duration;
	float block_inverse_duration;
	float frame_duration;
	int32_t endian;
	const uint32_t *block_offsets;
	uint32_t num_block_offsets;
	const uint32_t *float_block_offsets;
	uint32_t num_float_block_offsets;
	const uint32_t *transform_offsets;
	uint32_t num_transform_offsets;
	const uint32_t *float_offsets;
	uint32_t num_float_offsets;
	const uint8_t *data;
	uint32_t data_size;
} hks_spline_header;

typedef struct hks_animation {
	hks_animation_kind kind;
	const char *class_name;            /* concrete class, e.g. "hkaSplineCompressedAnimation" */
	/* hkaAnimation */
	int32_t type;                      /* stored enum (3 or 5 for spline; see CONTAINERS.md §3.3) */
	float duration;
	int32_t number_of_transform_tracks;
	int32_t number_of_float_tracks;
	int32_t reference_frame;           /* index into hks_file.reference_frames, -1 when none */
	const char *const *annotation_track_names; /* trackName of each annotation track (NULL entries allowed) */
	uint32_t num_annotation_tracks;
	/* kind == HKS_ANIMATION_SPLINE */
	hks_spline_header spline;
	/* kind == HKS_ANIMATION_INTERLEAVED: frames x tracks, frame-major */
	const hks_qs_transform *transforms;
	uint32_t num_transforms;
	const float *floats;
	uint32_t num_floats;
	/* where it is */
	int64_t object_offset;             /* byte offset of the object in the file, -1 unknown */
	int64_t data_offset;               /* byte offset of spline data in the file, -1 unknown */
} hks_animation;

typedef struct hks_binding {
	const char *original_skeleton_name;
	int32_t animation;                 /* index into hks_file.animations, -1 when null */
	const int16_t *transform_track_to_bone_indices;
	uint32_t num_transform_track_to_bone_indices;
	const int16_t *float_track_to_float_slot_indices;
	uint32_t num_float_track_to_float_slot_indices;
	const int16_t *partition_indices;
	uint32_t num_partition_indices;
	int8_t blend_hint;                 /* 0 normal, 1 additive (deprecated), 2 additive */
} hks_binding;

typedef struct hks_skeleton {
	const char *name;
	uint32_t num_bones;
	const char *const *bone_names;     /* num_bones entries (NULL allowed) */
	const uint8_t *lock_translation;   /* num_bones entries */
	const int16_t *parent_indices;
	uint32_t num_parent_indices;
	const hks_qs_transform *reference_pose;
	uint32_t num_reference_pose;
	const char *const *float_slots;
	uint32_t num_float_slots;
	const float *reference_floats;
	uint32_t num_reference_floats;
} hks_skeleton;

typedef struct hks_reference_frame {
	const char *class_name;            /* "hkaDefaultAnimatedReferenceFrame" */
	float up[4];
	float forward[4];
	float duration;
	const float (*samples)[4];         /* referenceFrameSamples, one hkVector4 per frame */
	uint32_t num_samples;
} hks_reference_frame;

typedef struct hks_file_internal hks_file_internal;

/* A parsed Havok file (tagfile, compendium, packfile or XML). All pointers
 * stay valid until hks_file_free. */
typedef struct hks_file {
	hks_container container;
	char sdk[32];                      /* "20160200", "hk_2010.2.0-r1", ... */
	uint32_t pointer_size;             /* 4 or 8; 0 for XML (not a property of the text) */
	uint32_t file_version;             /* packfile fileVersion, else 0 */
	int has_compendium_reference;      /* TCRF present */
	uint8_t compendium_id[8];          /* TCRF ID, file byte order */
	uint32_t num_compendium_ids;       /* container == COMPENDIUM: the TCID list */
	const uint8_t (*compendium_ids)[8];
	hks_animation *animations;
	uint32_t num_animations;
	hks_binding *bindings;
	uint32_t num_bindings;
	hks_skeleton *skeletons;
	uint32_t num_skeletons;
	hks_reference_frame *reference_frames;
	uint32_t num_reference_frames;
	hks_file_internal *internal;       /* the raw model the writers need */
} hks_file;

/* A set of compendiums (TCM0) indexed by their 64-bit IDs. */
typedef struct hks_compendium_set hks_compendium_set;

hks_result hks_compendium_set_create(const hks_options *opts, hks_compendium_set **out, hks_error *err);
/* Index a compendium; the bytes are copied. `name` is used in messages. When an
 * ID is already present with different TYPE bytes, *conflict (if given) is set
 * and the first table stays, unless the new one extends it (the same types
 * under the same indices, plus more), which then serves that ID. */
hks_result hks_compendium_set_add(hks_compendium_set *set, const void *data, size_t size,
                                  const char *name, int *conflict, hks_error *err);
int hks_compendium_set_contains(const hks_compendium_set *set, const uint8_t id[8]);
size_t hks_compendium_set_count(const hks_compendium_set *set);
void hks_compendium_set_free(hks_compendium_set *set);

/* Write an 8-byte ID as 16 lower-case hex digits in file order (buf >= 17). */
void hks_format_id(const uint8_t id[8], char buf[17]);

typedef struct hks_read_options {
	hks_options base;
	const hks_compendium_set *compendiums; /* for TCRF tagfiles; may be NULL */
} hks_read_options;

/* Parse a Havok file from memory. The bytes are copied where needed: the
 * caller's buffer may be freed after the call. */
hks_result hks_file_read(const void *data, size_t size, const hks_read_options *opts,
                         hks_file **out, hks_error *err);
void hks_file_free(hks_file *file);

/* ---- writing a file back (tagfile / packfile writers) ---- */

typedef struct hks_write_options {
	hks_options base;
} hks_write_options;

/*
 * Serialize a file read with hks_file_read (possibly modified with
 * hks_file_replace_spline). An unmodified file gives back its input bytes.
 * *out is freed with hks_buffer_free(&opts->base, *out, *out_size).
 */
hks_result hks_file_write(const hks_file *file, const hks_write_options *opts, uint8_t **out,
                          size_t *out_size, hks_error *err);

/*
 * Replace the spline members of animation `animation` (which must be a spline
 * animation): every scalar field and the four arrays and `data` of `spline`
 * are copied into the file (pointers may alias the file's own arrays).
 * `duration` sets hkaAnimation::duration. The file's other objects are kept.
 */
hks_result hks_file_replace_spline(hks_file *file, uint32_t animation, float duration,
                                   const hks_spline_header *spline, hks_error *err);

/* ====================================================================== */
/* === SECTION: binders and DCX (owner: src/decode/bnd4.c, dcx.c) ======= */
/* ====================================================================== */

/*
 * DCX (CONTAINERS.md §7): a 0x4C-byte big-endian header ("DCX\0" ... "DCS\0"
 * sizes, "DCP\0" + compression tag + level, "DCA\0") followed by the payload.
 * Only DFLT (zlib) is decompressed; KRAK (Oodle Kraken) and ZSTD are reported
 * as HKS_E_UNSUPPORTED with a message naming them (§7.3).
 */
#define HKS_DCX_HEADER_SIZE 0x4C

typedef struct hks_dcx_info {
	char compression[5];            /* "DFLT", "KRAK", "ZSTD", ... (non-printable bytes shown as '?') */
	uint32_t version;               /* 0x00011000 (Sekiro/ER), 0x00010000 (DS1-DS3) */
	uint32_t uncompressed_size;     /* DCS */
	uint32_t compressed_size;       /* DCS */
	uint8_t level;                  /* DCP byte at 0x30 (DFLT 8 or 9, KRAK 6 or 9) */
	uint32_t header_size;           /* bytes before the payload (HKS_DCX_HEADER_SIZE) */
	uint8_t header[HKS_DCX_HEADER_SIZE]; /* the raw header, kept for rewriting */
	uint8_t deflate_level;          /* writing only: zlib effort 1..9; 0 = the level byte. The
	                                   zlib header (78 DA for 9) always follows the level byte */
} hks_dcx_info;

/* Parse and validate the DCX header only (any compression tag). The payload
 * must be present (compressed_size bytes after the header). */
hks_result hks_dcx_read_info(const void *data, size_t size, hks_dcx_info *info, hks_error *err);

/*
 * Decompress a DCX. DFLT only; KRAK, ZSTD and other tags give HKS_E_UNSUPPORTED
 * with an actionable message. The output size must equal the header's
 * uncompressedSize and stay within limits.max_output_bytes (checked before
 * allocating). *out is freed with hks_buffer_free(opts, *out, *out_size).
 * `info` (may be NULL) receives the header.
 */
hks_result hks_dcx_decompress(const void *data, size_t size, const hks_options *opts, uint8_t **out,
                              size_t *out_size, hks_dcx_info *info, hks_error *err);

/*
 * Compress `data` into a DFLT DCX with zlib. The header is taken from `like`
 * (sizes updated; zlib level from its level byte) when `like` is a DFLT
 * header; otherwise (NULL, KRAK, ZSTD ...) a DFLT header of version 0x11000,
 * level 9 is written (CONTAINERS.md §7.3 point 3).
 * *out is freed with hks_buffer_free(opts, *out, *out_size).
 */
hks_result hks_dcx_compress(const void *data, size_t size, const hks_dcx_info *like, const hks_options *opts,
                            uint8_t **out, size_t *out_size, hks_error *err);

/* ---- DCX deflate matching (owner: src/encode/dcx_match.c; `bnd pack`, `bnd replace`) ---- */

/*
 * The zlib level (1-9) at which hks_dcx_compress(raw, like = the DCX's header)
 * reproduces the DFLT DCX `dcx` byte for byte, `raw` being its decompressed
 * content; 0 when no level does (another deflate implementation, or not DFLT).
 * The header's level byte is tried first, then 9 down to 1; zlib's default
 * strategy and memory level are the writer's.
 */
int hks_dcx_match_level(const void *raw, size_t raw_size, const void *dcx, size_t dcx_size);

/*
 * BND4 binders (CONTAINERS.md §6). hks_bnd4_read copies the input: entries
 * point into memory owned by the binder (its arena) until hks_bnd4_free.
 * hks_bnd4_write lays the binder out as §6.3 describes (file headers, names,
 * hash table, 16-aligned data), so an unmodified, conforming binder is written
 * back byte for byte.
 */
#define HKS_BND4_HEADER_SIZE 0x40
/* Logical file-entry flags (after the bit reversal of §6.2). */
#define HKS_BND4_ENTRY_COMPRESSED 0x01u   /* the stored bytes are themselves a DCX */

typedef struct hks_bnd4_entry {
	const char *name;           /* UTF-8 from UTF-16LE (lone surrogates as WTF-8); when the
	                               binder is not unicode: the stored bytes (Shift-JIS) as is */
	int32_t id;                 /* -1 (as stored) when the format has no IDs */
	uint8_t flags;              /* logical flags (bit reversal undone); HKS_BND4_ENTRY_* */
	const uint8_t *data;        /* the stored bytes (a DCX when flags & COMPRESSED) */
	uint64_t size;              /* stored size (compressedSize) */
	uint64_t uncompressed_size; /* as stored; equals size for entries stored raw */
	uint64_t data_offset;       /* where the data was read (0 for added entries) */
	uint8_t *header;            /* the raw file header (hks_bnd4.file_header_size bytes); the
	                               writer rewrites flags, sizes, offset, id and name offset and
	                               keeps every other byte */
} hks_bnd4_entry;

typedef struct hks_bnd4 {
	hks_bnd4_entry *entries;
	uint32_t num_entries;
	uint8_t header[HKS_BND4_HEADER_SIZE]; /* raw header; the writer updates fileCount,
	                                         headersEnd and hashTableOffset only */
	char version[9];            /* 8 bytes at 0x18, NUL-terminated */
	uint8_t raw_format;         /* byte 0x31 as stored */
	uint8_t format;             /* logical format (bit reversal undone): 0x02 IDs, 0x04/0x08
	                               names, 0x10 long offsets, 0x20 compression fields */
	uint8_t unicode;            /* 1: UTF-16LE names */
	uint8_t extended;           /* 4: hash table present */
	uint64_t file_header_size;  /* per-entry header size (0x24 for format 0x2E) */
	uint64_t headers_end;
	uint64_t hash_table_offset; /* 0 when there is no hash table */
	uint32_t bucket_count;      /* of the stored hash table (0 when none) */
	int hash_table_conforms;    /* 1 when the stored table equals the one §6.3 computes,
	                               0 when it differs, -1 when there is none */
	uint32_t capacity;          /* allocated entries */
	struct hks_arena *arena;    /* owns the binder and everything it points to */
	void *internal;             /* allocator, limits: private */
} hks_bnd4;

/* Parse a BND4 binder (not a DCX: decompress first). Validates offsets, sizes,
 * names and counts against the file; reads and checks the hash table. */
hks_result hks_bnd4_read(const void *data, size_t size, const hks_options *opts, hks_bnd4 **out, hks_error *err);

/* An empty binder. `header` (may be NULL) is a raw 0x40-byte header to keep
 * (version, format, flags...); NULL gives the Sekiro / Elden Ring header:
 * version "07D7R6", format 0x2E (raw 0x74), unicode, extended 4. */
hks_result hks_bnd4_create(const uint8_t *header, const hks_options *opts, hks_bnd4 **out, hks_error *err);

/* Find an entry by its full name (exact, then case-insensitive) or by its
 * basename (last component after '\' or '/', case-insensitive).
 * HKS_E_NOT_FOUND when none; HKS_E_ARGUMENT when a basename is ambiguous. */
hks_result hks_bnd4_find(const hks_bnd4 *bnd, const char *name_or_basename, uint32_t *index, hks_error *err);

/* Replace the stored bytes of entry `index` (copied). When the entry is flagged
 * COMPRESSED and the bytes are a DCX, uncompressed_size is taken from its
 * header; otherwise it becomes `size`. Name, ID, flags are kept, except that
 * an entry flagged COMPRESSED given bytes that are no DCX loses the flag (it
 * is stored plain; compress with hks_dcx_compress first to keep it packed). */
hks_result hks_bnd4_replace(hks_bnd4 *bnd, uint32_t index, const void *data, size_t size, hks_error *err);

/* Append an entry (name UTF-8, bytes copied) with a default file header
 * (zero unknowns, -1 at byte 4). */
hks_result hks_bnd4_add(hks_bnd4 *bnd, const char *name, int32_t id, uint8_t flags, const void *data,
                        size_t size, hks_error *err);

/* Append a member named NAME the way the binder's other `.hkx` members are (docs/BINDERS.md "Adding a
 * member"): the folder prefix of the last `.hkx` member when NAME has none, its flags (without
 * COMPRESSED), and an ID by the animation-binder rule when the binder follows it (aXXX_YYYYYY.hkx ->
 * base + XXX·10^6 + YYYYYY, e.g. 1000000710 for a000_000710), else one past the largest ID. The
 * CLI's `encode --into`, the Python binding's Binder.replace and the Blender add-on add through it. */
hks_result hks_bnd4_add_like(hks_bnd4 *bnd, const char *name, const void *data, size_t size, hks_error *err);

/* The hash table of §6.3 for the binder's current names, as it is stored at
 * file offset `offset` (16 + 8 x buckets + 8 x entries bytes). The reader
 * compares the stored table with it (hash_table_conforms); the writer emits it.
 * *out is freed with hks_buffer_free(opts, ...). */
hks_result hks_bnd4_hash_table(const hks_bnd4 *bnd, uint64_t offset, const hks_options *opts, uint8_t **out,
                               size_t *out_size, hks_error *err);

/* Serialize (CONTAINERS.md §6.3/§6.4). *out is freed with hks_buffer_free(opts, ...). */
hks_result hks_bnd4_write(const hks_bnd4 *bnd, const hks_options *opts, uint8_t **out, size_t *out_size,
                          hks_error *err);

void hks_bnd4_free(hks_bnd4 *bnd);

/* The BND4 name hash of §6.3 over a UTF-8 name: lower-case (ASCII), '\' -> '/',
 * prefix '/' when missing, then h = h*37 + c over the UTF-16 code units (u32). */
uint32_t hks_bnd4_name_hash(const char *name);
/* Bucket count of §6.3: the first prime >= num_entries / 7 (integer division; so 2 below 21 entries). */
uint32_t hks_bnd4_bucket_count(uint32_t num_entries);

/* ====================================================================== */
/* === SECTION: stored structure (owner: src/decode/spline_walk.c) ====== */
/* ====================================================================== */

/*
 * The stored structure: exactly what the bytes of a spline animation's data
 * say, as plain data (FORMAT.md §2). The decoder produces it from the bytes,
 * the fitter and quantizers produce it from frames, the block packer writes it.
 * Floats are stored values, bit for bit.
 */

/* Rotation selectors (FORMAT.md §3.2). */
enum {
	HKS_ROT_POLAR32 = 0,
	HKS_ROT_THREECOMP40 = 1,
	HKS_ROT_THREECOMP48 = 2,
	HKS_ROT_THREECOMP24 = 3,
	HKS_ROT_STRAIGHT16 = 4,
	HKS_ROT_UNCOMPRESSED = 5
};

/* Size in bytes and alignment of one packed quaternion of a selector (0 for an invalid one). */
uint32_t hks_rotation_size(unsigned selector);
uint32_t hks_rotation_alignment(unsigned selector);

/*
 * One part (translation, rotation, scale or float) of one track in one block.
 * For T/S/F: lanes x, y, z (float tracks: x only). For R: the quaternion whole.
 */
typedef struct hks_stored_part {
	uint8_t flags;             /* T/S/R: the mask byte (static bits 0-3, spline bits 4-7);
	                              F: the float mask byte with bits 1-2 cleared (& 0xF9) */
	uint8_t quantization;      /* T/S/F: 0 = 8-bit, 1 = 16-bit; R: selector 0..5 */
	uint8_t degree;            /* spline: 1..3; else 0 */
	uint8_t is_spline;         /* 1 when a spline is stored */
	uint16_t num_control_points; /* spline: stored u16 + 1; R static: 1; else 0 */
	uint16_t num_knots;        /* num_control_points + degree + 1 */
	const uint8_t *knots;      /* knot bytes as stored */
	float static_value[4];     /* T/S/F static lanes (only flagged lanes meaningful) */
	float min[4], max[4];      /* T/S/F spline lanes' bounds */
	uint8_t spline_lanes;      /* T/S/F: number of lanes in each control point (0..3) */
	const uint16_t *control_points; /* T/S/F: num_control_points x spline_lanes integers (8-bit widened) */
	const uint8_t *packed;     /* R: num_control_points x hks_rotation_size(selector) bytes */
	uint32_t offset;           /* where the part starts, relative to the block start */
	uint32_t end;              /* where its last stored byte ends (before the align 4) */
} hks_stored_part;

typedef struct hks_stored_track {
	uint8_t mask[4];           /* the 4 mask bytes as stored */
	hks_stored_part part[3];   /* translation, rotation, scale */
} hks_stored_track;

typedef struct hks_stored_block {
	uint32_t offset;           /* blockOffsets[b] */
	uint32_t float_offset;     /* floatBlockOffsets[b] (relative) */
	uint32_t size;             /* bytes to the next block / end (guard excluded) */
	uint32_t first_frame;      /* b * (maxFramesPerBlock - 1) */
	uint32_t num_frames;       /* F_b */
	hks_stored_track *tracks;  /* T */
	uint8_t *float_masks;      /* F mask bytes as stored */
	hks_stored_part *floats;   /* F */
} hks_stored_block;

typedef struct hks_stored_animation {
	int32_t num_transform_tracks;
	int32_t num_float_tracks;
	int32_t num_frames;
	int32_t max_frames_per_block;
	int32_t mask_and_quantization_size;
	float duration;
	float frame_duration;
	float block_duration;
	float block_inverse_duration;
	uint32_t num_blocks;
	hks_stored_block *blocks;
	uint32_t guard_bytes;      /* trailing bytes after the last padded block (Elden Ring guard: 16) */
	uint32_t data_size;
	int64_t data_offset;       /* file offset of the data's first byte (for messages), -1 unknown */
	struct hks_arena *arena;   /* owns everything above */
	/* Conformance (FORMAT.md §6 rules B8-B12: clamped knots, n + 1 <= F_b, zero
	 * padding, min <= max, ThreeComp40 fields): violations found by the walk when
	 * not strict. Retail data has none. Producers (fitter, tests) leave them 0. */
	uint32_t conformance_issues;
	hks_error conformance;     /* the first violation, located like an error */
} hks_stored_animation;

/*
 * Walk: bytes -> stored structure (src/decode/spline_walk.c).
 * Pointers of the result (knots, packed quaternions, and 16-bit control points
 * on little-endian hosts when 2-aligned in memory) point into anim->spline.data:
 * keep the animation alive while the stored structure is used. Everything
 * else lives in the result's arena. Hard rules of FORMAT.md §6 are errors;
 * conformance rules are counted in the result, or are errors when `strict`.
 */
typedef struct hks_walk_options {
	hks_options base;
	int32_t animation_index;   /* for messages (hks_error.animation) */
	int strict;                /* nonzero: conformance violations are errors too */
} hks_walk_options;

hks_result hks_stored_read(const hks_animation *anim, const hks_walk_options *opts,
                           hks_stored_animation **out, hks_error *err);
void hks_stored_free(hks_stored_animation *stored);

/* Frames in block b (FORMAT.md §2.2): min(mfpb, numFrames - b·(mfpb - 1)). */
uint32_t hks_block_frames(int32_t num_frames, int32_t max_frames_per_block, uint32_t block);

/*
 * The Elden Ring trailing guard rule (FORMAT.md §2.8): 1 when 16 zero bytes
 * follow the final block. `last_rotation_selector` = bits 2-5 of the last
 * transform track's mask byte 0; `rotation_end` = where that rotation part ends
 * before its align 4 (where it would start when absent), and
 * `padded_block_end` = the 16-aligned end of the block, both relative to the
 * block start.
 */
int hks_guard_rule(unsigned last_rotation_selector, uint32_t rotation_end, uint32_t padded_block_end);
/* Whether the writer of SDK `sdk` applies the guard: 1 for "20180100", else 0. */
int hks_guard_for_sdk(const char *sdk);

/*
 * Pack: stored structure -> bytes (src/encode/block_pack.c). Uses the stored
 * masks, knots, bounds, static values, control points and packed quaternions;
 * the block offsets, float block offsets and header fields are computed
 * (ENCODER.md §5.1, §10): frameDuration = duration / (numFrames - 1),
 * blockDuration = frameDuration · (mfpb - 1), blockInverseDuration =
 * 1 / blockDuration, in f32; numBlocks; maskAndQuantizationSize =
 * (4T + F + 3) & ~3. Stored parts' offset/end fields are ignored.
 */
typedef struct hks_pack_options {
	hks_options base;
	int guard;                 /* 0: never; 1: the Elden Ring rule (hks_guard_for_sdk) */
	/* Nonzero: a block without float tracks gets its stored float_offset as
	 * floatBlockOffsets[b] instead of the computed end of its transform data.
	 * Nothing reads that value when there are no float tracks, and files from
	 * third-party tools store other values there (docs/STORED.md); a repack of
	 * a walked structure keeps it. Structures made by the encoder leave it 0. */
	int keep_float_offsets;
} hks_pack_options;

typedef struct hks_packed_spline {
	hks_spline_header header;  /* arrays point into this object's memory; offsets arrays empty */
	float duration;            /* hkaAnimation::duration (copied from the stored structure) */
	int32_t num_transform_tracks;
	int32_t num_float_tracks;
	struct hks_arena *arena;   /* owns everything */
} hks_packed_spline;

hks_result hks_stored_pack(const hks_stored_animation *stored, const hks_pack_options *opts,
                           hks_packed_spline **out, hks_error *err);
void hks_packed_spline_free(hks_packed_spline *packed);

/*
 * Walk then pack animation `anim` and compare with its stored data,
 * blockOffsets and floatBlockOffsets. HKS_OK when identical; HKS_E_MISMATCH
 * with the first differing byte offset (in data) and what lies there
 * (block / track / part) in err; walk errors as hks_stored_read.
 */
hks_result hks_spline_repack_compare(const hks_animation *anim, int guard, hks_error *err);

/*
 * Header relations of spline animation `animation` (FORMAT.md §1.1, §6.1),
 * src/decode/spline_header.c. FromSoftware tagfiles (SDK 20150100 ... 20190100):
 * the f32 durations bit for bit, numBlocks, maskAndQuantizationSize,
 * blockOffsets (first 0, strictly ascending, 16-aligned), endian 0,
 * floatBlockOffsets count, empty per-track offsets. Packfiles and XML: the
 * structural relations, durations to a relative 1e-4. The message names the
 * relation and both values.
 */
hks_result hks_spline_check_header(const hks_file *file, uint32_t animation, hks_error *err);

/* ---- graded conformance (owner: src/decode/spline_header.c; `hkspline check`) ---- */

/*
 * An error: the animation cannot be read, walked or sampled as stored (a
 * structural relation is broken, or the durations are off by more than a
 * relative 1e-4). A warning: it decodes, but breaks a producer rule that
 * FromSoftware's writer always follows (FromSoftware tagfiles only: the f32
 * durations bit for bit while within a relative 1e-4, maskAndQuantizationSize
 * larger than (4T + F + 3) & ~3, non-empty transformOffsets / floatOffsets).
 * The walk's conformance issues (hks_stored_animation.conformance_issues) are
 * warnings too.
 */
typedef enum hks_level {
	HKS_LEVEL_NONE = 0,
	HKS_LEVEL_WARNING = 1,
	HKS_LEVEL_ERROR = 2
} hks_level;

/* hks_spline_check_header, graded: the worst level found. `warning` (may be
 * NULL) gets the first producer-rule violation, `error` (may be NULL) the
 * first structural one; each is cleared first. HKS_LEVEL_NONE exactly when
 * hks_spline_check_header passes. */
hks_level hks_spline_grade_header(const hks_file *file, uint32_t animation, hks_error *warning, hks_error *error);

/* ====================================================================== */
/* === SECTION: sampling (owner: src/decode/sample.c) =================== */
/* ====================================================================== */

/*
 * Dequantization (src/decode/quantization.c, FORMAT.md §3) and sampling
 * (src/decode/sample.c, FORMAT.md §4). Reference arithmetic: every f32
 * operation rounded individually in the spec's order; constants are bit
 * patterns. Results are bit-identical on every IEEE-754 machine (sinf/cosf
 * of Polar32 excepted: they come from the C library).
 */

/*
 * One scalar control point (FORMAT.md §3.1): ((f32)v · C) · (max − min) + min,
 * C = 1/65535 (0x37800080) when quantization = 1, 1/255 (0x3B808081) when 0.
 */
float hks_dequantize_scalar(unsigned quantization, uint32_t value, float min, float max);

/*
 * One packed quaternion of `selector` (HKS_ROT_*) from hks_rotation_size(selector)
 * bytes, as (x, y, z, w). Not normalized (except Straight16, which the format
 * defines as normalized). Uncompressed keeps NaN bit patterns. An invalid
 * selector gives four NaNs. Straight16's constants are provisional
 * (FORMAT.md §3.8 [U]): see hks_selector_verified().
 */
void hks_unpack_quaternion(unsigned selector, const uint8_t *bytes, float out[4]);
/* `count` consecutive packed quaternions (count × hks_rotation_size bytes) to
 * count × 4 floats; the same values as hks_unpack_quaternion, faster. */
void hks_unpack_quaternions(unsigned selector, const uint8_t *bytes, size_t count, float *out);
/* 1 when the decoding of `selector` is established; 0 for Straight16 (provisional
 * constants) and invalid selectors. */
int hks_selector_verified(unsigned selector);

/* Evaluation paths (hks_sample_options.path). All give the same bits: the
 * SSE2 and AVX2 paths perform the reference's f32 operations in the same
 * order per lane, four or eight lanes or frames per instruction
 * (docs/DECODE.md "Evaluation paths"). */
enum {
	HKS_SAMPLE_PATH_AUTO = 0,      /* AVX2 where the build and the CPU have it, else SSE2 where
	                                  the build has it; the environment variable
	                                  HKS_SAMPLE_PATH=reference|sse2 selects the reference or
	                                  SSE2 (tests, benchmarks) */
	HKS_SAMPLE_PATH_REFERENCE = 1, /* the portable scalar reference */
	HKS_SAMPLE_PATH_SSE2 = 2,      /* x86 builds with SSE2 (baseline x86-64); elsewhere the reference */
	HKS_SAMPLE_PATH_AVX2 = 3       /* x86 builds with gcc or clang on a CPU with AVX2 (checked at run
	                                  time); else SSE2 as above */
};

typedef struct hks_sample_options {
	hks_options base;
	int normalize_rotations;   /* 0 (default): raw components, as Havok returns them (FORMAT.md §4.6) */
	int path;                  /* HKS_SAMPLE_PATH_*; 0 = AUTO */
} hks_sample_options;

/* The path `requested` (HKS_SAMPLE_PATH_*, AUTO resolved through the
 * environment) resolves to on this build. */
int hks_sample_path_resolve(int requested);
/* "reference", "sse2" or "avx2" ("auto" for 0). */
const char *hks_sample_path_name(int path);

/* Floats per transform track-sample: translation xyz, rotation xyzw, scale xyz
 * (40 bytes, the convention of the Animation Compression Library). */
#define HKS_TRACK_SAMPLE_FLOATS 10

/*
 * Frame mode (FORMAT.md §4.2): global frames first_frame .. first_frame +
 * num_frames − 1. A block-boundary frame is taken from the later block, the
 * last frame from the last block. Output, frame-major:
 *   transforms[(f·T + t)·10 + k]   (T·10 floats per frame)
 *   floats[f·F + i]                (may be NULL when F = 0)
 * A track whose spline cannot be evaluated (degree out of 1..3, knots
 * decreasing, not clamped, or an empty boundary span) is an error naming
 * block, track and part; nothing divides by zero and nothing loops.
 */
hks_result hks_sample_frames(const hks_stored_animation *s, const hks_sample_options *opts,
                             uint32_t first_frame, uint32_t num_frames,
                             float *transforms, float *floats, hks_error *err);

/*
 * Time mode (FORMAT.md §4.3): the engine's time → frame/delta mapping with the
 * end clamp, qTime span search, knots scaled by frameDuration. `time` is
 * clamped to [0, duration] (NaN gives 0). Output: one frame (T·10 and F floats).
 */
hks_result hks_sample_time(const hks_stored_animation *s, float time, const hks_sample_options *opts,
                           float *transforms, float *floats, hks_error *err);

/*
 * Local frame `local_frame` (0 .. F_b − 1) of block `block`, whatever block
 * frame mode would choose: both sides of a block seam can be compared.
 */
hks_result hks_sample_block_frame(const hks_stored_animation *s, uint32_t block, uint32_t local_frame,
                                  const hks_sample_options *opts, float *transforms, float *floats,
                                  hks_error *err);

/* ====================================================================== */
/* === SECTION: runtime pose (owner: src/decode/sample.c, issue 16) ===== */
/* ====================================================================== */

/*
 * "The pose at time t of every track", as a runtime calls it every frame:
 * the animation is checked once (every knot vector, as sampling would), the
 * scratch memory is kept, and each call samples one pose in time mode with
 * exactly the values of hks_sample_time (same path, same bits). The stored
 * structure (and the animation bytes it points into) must outlive the
 * sampler. A sampler is not shared between threads; make one per thread.
 */
typedef struct hks_pose_sampler hks_pose_sampler;

/* Errors: those of hks_sample_time for any time (a spline that cannot be
 * evaluated is reported here, naming block, track and part). */
hks_result hks_pose_sampler_create(const hks_stored_animation *s, const hks_sample_options *opts,
                                   hks_pose_sampler **out, hks_error *err);
/* One pose: transforms T·10 floats, floats F floats (may be NULL when F = 0). */
hks_result hks_pose_at(hks_pose_sampler *sampler, float time, float *transforms, float *floats, hks_error *err);
void hks_pose_sampler_free(hks_pose_sampler *sampler);

/* ====================================================================== */
/* === SECTION: encoder (owner: src/encode/encoder.c) =================== */
/* ====================================================================== */

/*
 * The Havok-faithful encoder (ENCODER.md §2-§10, docs/ENCODE.md): frames ->
 * stored structure (lane classification, the error-bounded fit, knot bytes,
 * bounds over the fitted control points, truncating quantizers, quaternion
 * packers) -> bytes (hks_stored_pack). All arithmetic f32 in the spec's
 * operation order: the output is identical on every machine for a given
 * CPU model (except HKS_CPU_NATIVE, by design).
 */

/* Which 12-bit rcpss / rsqrtss estimate the encoder models (ENCODER.md §11). */
typedef enum hks_cpu_model {
	HKS_CPU_AUTO = 0,     /* encoder: by SDK (2018.1 and later -> AMD_ZEN, else INTEL);
	                         detection: per file from stored data (ENCODER.md §11.4) */
	HKS_CPU_INTEL = 1,    /* closed-form tables of §11.2 (Sekiro) */
	HKS_CPU_AMD_ZEN = 2,  /* tables measured on AMD Zen 5, §11.3 (Elden Ring) */
	HKS_CPU_NATIVE = 3,   /* the host's rcpss / rsqrtss (x86 only) */
	HKS_CPU_EXACT = 4     /* true division and 1 / sqrtf */
} hks_cpu_model;

/* "auto", "intel", "amd-zen", "native", "exact" ("?" for unknown ids). */
const char *hks_cpu_model_name(hks_cpu_model id);
/* Parse one of the names above; 0 on success, -1 when unknown. */
int hks_cpu_model_parse(const char *name, hks_cpu_model *out);

/*
 * Quantization fields of hks_track_params hold the stored value + 1, so that
 * 0 means "the default": rotations HKS_ENC_ROT_QUANT(HKS_ROT_THREECOMP40)
 * (the default), ..._THREECOMP48, ..._UNCOMPRESSED etc.; translation, scale
 * and float HKS_ENC_SCALAR_16BIT (the default) or HKS_ENC_SCALAR_8BIT.
 */
#define HKS_ENC_QUANT_DEFAULT 0u
#define HKS_ENC_ROT_QUANT(selector) ((uint8_t)((selector) + 1u))
#define HKS_ENC_SCALAR_8BIT 1u
#define HKS_ENC_SCALAR_16BIT 2u

/* Havok's TrackCompressionParams (ENCODER.md §3.1). Zero fields = the
 * fallback (per-track entry -> hks_encode_options.defaults -> Havok's
 * defaults: tolerances 0.001, degree 3, ThreeComp40, 16-bit). */
typedef struct hks_track_params {
	float rotation_tolerance, translation_tolerance, scale_tolerance, float_tolerance; /* > 0, finite */
	uint8_t rotation_degree, translation_degree, scale_degree, float_degree;           /* 1..3 */
	uint8_t rotation_quantization;                                                     /* HKS_ENC_ROT_QUANT(sel) */
	uint8_t translation_quantization, scale_quantization, float_quantization;          /* HKS_ENC_SCALAR_* */
} hks_track_params;

typedef enum hks_encode_solver {
	HKS_SOLVER_HAVOK = 0,   /* the f32 conjugate-gradient refit, operation by operation (ENCODER.md §7.6) */
	HKS_SOLVER_QUALITY = 1  /* double-precision banded Cholesky refits, strict acceptance (§14); not Havok's bytes */
} hks_encode_solver;

/* What the encoder did (summed over blocks and tracks), when asked for. */
typedef struct hks_encode_stats {
	uint64_t parts[4];           /* per part type T, R, S, F (indices 0..3) */
	uint64_t spline_parts[4];
	uint64_t static_parts[4];    /* static lanes only */
	uint64_t absent_parts[4];    /* mask 0 (never for floats) */
	uint64_t control_points[4];  /* stored control points of spline parts */
	uint64_t degree1_parts;      /* spline parts stored at degree 1 */
	uint64_t degree1_fallbacks;  /* degree-3 fits refitted at degree 1 (ENCODER.md §7.9) */
	uint64_t refit_attempts, refit_accepted, exact_elevations; /* ENCODER.md §7.6, §16 */
	/* Largest | |P| − 1 | over the fitted rotation control points. §9.3 writes
	 * normU(P): the stored curve moves by at most this much per component
	 * (a partition of unity of the moves P/|P| − P), on top of the fit's error. */
	double rotation_renormalization;
	/* The tolerance guard (docs/ENCODE.md "Tolerance guarantee"): spline parts whose
	 * Havok fit left the tolerance at a sample (per component, before quantization)
	 * and were refitted, per part type T, R, S, F; the ladder rung that ended each
	 * (0 KEPT_POINT odd bound, 1 strict 1.0·E acceptance, 2 degree-1 fit, 3 the
	 * polyline through every frame); parts not checked because a sample is NaN or
	 * infinite; the largest per-component error of a guarded Havok fit. */
	uint64_t guarded_parts[4];
	uint64_t guard_rungs[4];
	uint64_t guard_unchecked_parts;
	double guard_worst_havok_error;
	uint64_t guarded_degree[4];  /* guarded parts by the degree of Havok's fit (index 1..3) */
	uint64_t guard_static_lanes; /* lanes §5.4 leaves absent (identity) although a sample is farther
	                                than E from it: the guard stores them static (their mean) */
} hks_encode_stats;

typedef struct hks_encode_options {
	hks_options base;
	hks_track_params defaults;               /* zero fields: Havok's defaults */
	const hks_track_params *per_track;       /* NULL, or one entry per transform track (zero fields: defaults) */
	uint32_t num_per_track;                  /* 0 or num_transform_tracks */
	const hks_track_params *per_float_track; /* NULL, or one entry per float track (float_* fields) */
	uint32_t num_per_float_track;            /* 0 or num_float_tracks */
	uint32_t max_frames_per_block;           /* 0 -> 256; else 2..256 */
	hks_cpu_model cpu;                       /* AUTO -> by SDK; NATIVE only on x86 builds */
	const char *sdk;                         /* target SDK: "20180100" adds the trailing guard (FORMAT.md §2.8)
	                                            and selects the AMD_ZEN model under AUTO; NULL = "20160200" */
	hks_encode_solver solver;
	int rotation_continuity;                 /* nonzero: flip a frame's quaternion when its dot product with
	                                            the previous frame's is negative (the §2 pre-pass; off by
	                                            default so decoded frames are encoded as given) */
	hks_encode_stats *stats;                 /* optional output, filled by the call */
	int havok_unguarded;                     /* nonzero: no tolerance guard, Havok's fit as is even where it
	                                            leaves the tolerance (ENCODER.md §7.3, docs/ENCODE.md
	                                            "Tolerance guarantee"); zero = guarded */
	const struct hks_error_control *control; /* NULL: today's behaviour; else per-bone tolerances, the
	                                            object-space bound and/or size optimization (section
	                                            "error control" below, docs/ENCODE.md) */
} hks_encode_options;

/* The frames to encode. Every frame must be given; the frame step is
 * duration / (num_frames - 1). */
typedef struct hks_frames_in {
	uint32_t num_frames;            /* >= 2 */
	uint32_t num_transform_tracks;
	uint32_t num_float_tracks;
	float duration;                 /* > 0, finite */
	const float *transforms;        /* frame-major, HKS_TRACK_SAMPLE_FLOATS per track-sample (t xyz,
	                                   r xyzw, s xyz): transforms[(f·T + t)·10 + k], as hks_sample_frames
	                                   writes; NULL when T = 0 */
	const float *floats;            /* floats[f·F + i]; NULL when F = 0 */
} hks_frames_in;

/* Frames -> stored structure (free with hks_stored_free). Non-finite sample
 * values are encoded as Havok would (NaN lanes become spline lanes, ENCODER.md
 * §5.4, §9.6); they never crash. */
hks_result hks_encode_stored(const hks_frames_in *in, const hks_encode_options *opts, hks_stored_animation **out,
                             hks_error *err);
/* Frames -> bytes: hks_encode_stored, then hks_stored_pack with the SDK's guard
 * rule (free with hks_packed_spline_free). */
hks_result hks_encode_spline(const hks_frames_in *in, const hks_encode_options *opts, hks_packed_spline **out,
                             hks_error *err);

/* ====================================================================== */
/* === SECTION: metrics (owner: src/metrics/) =========================== */
/* ====================================================================== */

/*
 * Compression error and compression statistics (docs/METRICS.md). Two frame
 * arrays (hks_frames_in, the layout hks_sample_frames writes; `duration` is
 * not used) are compared at every frame and track. All metric arithmetic is
 * in double. Non-finite samples are counted and excluded, never averaged.
 */
#define HKS_DEFAULT_SHELL_DISTANCE 0.03    /* metres (ACL's default shell) */
#define HKS_DEFAULT_ERROR_THRESHOLD 0.0001 /* metres (ACL's default precision, 0.01 cm) */

typedef enum hks_metric {
	HKS_METRIC_TRANSLATION = 0,        /* |ta - tb| (m), per transform track-sample */
	HKS_METRIC_ROTATION_DEG = 1,       /* angle between the normalized quaternions (degrees, sign-blind) */
	HKS_METRIC_ROTATION_COMPONENT = 2, /* |qa - qb| over the raw 4 components (Havok's tolerance metric) */
	HKS_METRIC_SCALE = 3,              /* largest |sa_k - sb_k| over x, y, z */
	HKS_METRIC_LOCAL_VERTEX = 4,       /* virtual-vertex error of the track's local transform alone (m) */
	HKS_METRIC_OBJECT_SPACE = 5,       /* virtual-vertex error after composing the hierarchy (m), per bone */
	HKS_METRIC_FLOAT = 6,              /* |fa - fb|, per float track-sample */
	HKS_METRIC_COUNT = 7
} hks_metric;

/* "translation", "rotation_deg", "rotation_component", "scale", "local_vertex", "object_space", "float". */
const char *hks_metric_name(hks_metric m);

typedef struct hks_shell_override {
	const char *pattern;   /* glob over bone names: '*' any run, '?' one character, case-sensitive */
	double distance;       /* shell distance in metres (> 0) */
} hks_shell_override;

typedef struct hks_compare_options {
	hks_options base;
	const hks_skeleton *skeleton;       /* NULL: no object-space metric */
	const int16_t *track_to_bone;       /* binding.transformTrackToBoneIndices; NULL / 0 entries: identity */
	uint32_t num_track_to_bone;
	double shell_distance;              /* 0: HKS_DEFAULT_SHELL_DISTANCE */
	const hks_shell_override *shell_overrides; /* the last matching pattern wins */
	uint32_t num_shell_overrides;
	double threshold;                   /* 0: HKS_DEFAULT_ERROR_THRESHOLD */
} hks_compare_options;

typedef struct hks_metric_summary {
	double max, mean, p99;    /* over finite samples; p99 by nearest rank; 0 when there are none */
	int32_t worst_index;      /* track (float track for FLOAT, bone for OBJECT_SPACE) of the max; -1 if none */
	int32_t worst_frame;      /* -1 if none */
	uint64_t samples;         /* finite samples */
	uint64_t nan_samples;     /* excluded (a non-finite value in A or B, or in a composed ancestor) */
	uint64_t under_threshold; /* finite samples <= threshold */
} hks_metric_summary;

typedef struct hks_compare_result {
	uint32_t num_frames, num_transform_tracks, num_float_tracks, num_bones; /* num_bones 0 without skeleton */
	int has_object_space;
	hks_metric_summary metric[HKS_METRIC_COUNT];
	/* Per-sample values, frame-major: values[m][f·W + i] with W = transform tracks (bones for
	 * OBJECT_SPACE, float tracks for FLOAT); NaN marks an excluded sample. NULL when absent. */
	const double *values[HKS_METRIC_COUNT];
	const int32_t *track_bone;     /* per transform track: bone index, -1 when none */
	const int32_t *bone_track;     /* per bone: the driving track, -1 when undriven (reference pose) */
	const double *bone_shell;      /* per bone: the shell distance used */
	/* Headline: the primary metric is OBJECT_SPACE with a skeleton, LOCAL_VERTEX without. */
	hks_metric primary;
	int32_t worst_track;           /* track of the primary max (object space: the track driving the worst
	                                  bone, else its nearest driven ancestor's); -1 when none */
	int32_t worst_bone;            /* bone of the primary max (without skeleton: the mapped bone); -1 */
	int32_t worst_frame;
	double under_threshold;        /* share (0..1) of primary finite samples <= threshold */
	uint64_t nan_samples;          /* transform + float track-samples with a non-finite value in A or B */
	struct hks_arena *arena;       /* owns everything above */
} hks_compare_result;

/* Compare B against A (same frame and track counts, else HKS_E_MISMATCH). */
hks_result hks_compare_frames(const hks_frames_in *a, const hks_frames_in *b, const hks_compare_options *opts,
                              hks_compare_result **out, hks_error *err);
void hks_compare_result_free(hks_compare_result *r);

/* Nearest-rank percentile (p in 0..100) of the finite entries of values[0..n): sorts them to the
 * front in place and returns the value of rank ceil(p/100 · m) among the m finite ones (0 when m = 0). */
double hks_percentile(double *values, size_t n, double p);
/* Glob match: '*' any run (also empty), '?' one character, everything else literal. */
int hks_glob_match(const char *pattern, const char *text);

/* Block-seam disagreement (FORMAT.md §4.7): the last local frame of block b against local
 * frame 0 of block b + 1, for every seam, with the local metrics above. */
typedef struct hks_seam_report {
	uint32_t seams;                /* numBlocks - 1 */
	double max_translation, max_rotation_deg, max_rotation_component, max_scale, max_float;
	int32_t worst_seam;            /* b of the seam with the largest local-vertex disagreement; -1 */
	int32_t worst_track;
	uint64_t nan_samples;
} hks_seam_report;

hks_result hks_seam_disagreement(const hks_stored_animation *s, const hks_options *opts, hks_seam_report *out,
                                 hks_error *err);

/*
 * Compression statistics of one stored spline animation. The byte categories
 * are computed from the stored structure by laying it out again (FORMAT.md
 * §2): they add up to data_size when the layout agrees (`unaccounted` = 0).
 */
enum { HKS_STAT_T = 0, HKS_STAT_R = 1, HKS_STAT_S = 2, HKS_STAT_F = 3 };

typedef struct hks_spline_stats {
	uint32_t frames, transform_tracks, float_tracks, blocks;
	uint64_t raw_size;         /* 40 bytes per transform track-frame + 4 per float track-frame */
	uint64_t compressed_size;  /* the data bytes (data_size; the laid-out sum when data_size is 0) */
	double ratio;              /* raw_size / compressed_size (0 when compressed_size is 0) */
	/* bytes per category */
	uint64_t masks;            /* 4 per transform track + 1 per float track, per block */
	uint64_t knots;            /* knot headers (u16 n, u8 degree) and knot bytes */
	uint64_t bounds;           /* f32 min / max of spline lanes */
	uint64_t static_values;    /* f32 static lanes (T, S, F) */
	uint64_t control_points;   /* T / S / F control points */
	uint64_t packed_quaternions; /* rotation control points and static quaternions */
	uint64_t padding;          /* mask-area fill, alignments, block end fill */
	uint64_t guard;            /* trailing guard (FORMAT.md §2.8) */
	int64_t unaccounted;       /* compressed_size minus the sum of the categories (0 when consistent) */
	/* per part type (HKS_STAT_T, _R, _S, _F), summed over blocks and tracks */
	uint64_t spline_parts[4], static_parts[4], absent_parts[4];
	uint64_t spline_lanes[4], static_lanes[4], absent_lanes[4]; /* T, S: 3 lanes; F: 1; R: the part */
	uint64_t degrees[4][4];    /* [part][degree 0..3] of spline parts */
	uint64_t selectors[16];    /* rotation selector codes of stored rotations (spline or static) */
	uint64_t quantization_8bit[4], quantization_16bit[4]; /* T, S, F parts with a spline */
	uint64_t control_point_count[4];
} hks_spline_stats;

void hks_spline_stats_compute(const hks_stored_animation *s, hks_spline_stats *out);
/* Add b's counts and sizes into a (ratio recomputed from the sums). */
void hks_spline_stats_add(hks_spline_stats *a, const hks_spline_stats *b);

/*
 * The one-line summary `encode` / `recompress` print per file (snprintf-like:
 * returns the length the full line needs). `stats` and `skeleton` may be NULL:
 *   "ratio 12.75 (449440 -> 35248 B); max translation 0.948 mm, rotation 0.153 deg,
 *    scale 0; object space 8.84 mm at bone back_low_03 #17 (track 15) frame 63"
 * Without object space the worst is the local-vertex error's track.
 */
size_t hks_compare_summary_line(const hks_compare_result *r, const hks_spline_stats *stats,
                                const hks_skeleton *skeleton, char *buf, size_t size);

/* ====================================================================== */
/* === SECTION: error control (owner: src/encode/error_control.c) ======= */
/* ====================================================================== */

/*
 * Error control beyond Havok's local tolerances (docs/ENCODE.md "Error
 * control"). Set hks_encode_options.control; hks_encode_stored and
 * hks_encode_spline then run the controlled encode:
 *  - per-bone tolerances: glob rules over bone names (hks_glob_match) set the
 *    tolerances of the tracks bound to matching bones; later rules win; they
 *    override hks_encode_options.defaults and .per_track;
 *  - the object-space bound (object_tolerance > 0): every bone's virtual-vertex
 *    error after composing the hierarchy (the OBJECT_SPACE metric of
 *    hks_compare_frames, as `hkspline error` measures it) stays at most
 *    object_tolerance at every frame. Per-bone local tolerances and each
 *    track's rotation quantization are derived from the hierarchy and the
 *    shell; the encode is measured and the tracks above every bone that
 *    exceeds are tightened, until the bound holds;
 *  - optimize = SIZE: the bound of the Havok mode (every component within the
 *    tolerance plus one quantization step of the stored lane) with fewer
 *    bytes: per track and part the smallest of several verified candidate
 *    fits (degree 1 or 3, looser fit tolerances whose decoded result still
 *    meets the bound).
 * The result is an ordinary Havok spline for the target SDK.
 */
enum {
	HKS_BONE_PART_TRANSLATION = 1,
	HKS_BONE_PART_ROTATION = 2,
	HKS_BONE_PART_SCALE = 4,
	HKS_BONE_PART_ALL = 7
};

typedef struct hks_bone_tolerance {
	const char *pattern;  /* glob over bone names: '*' any run, '?' one character */
	unsigned parts;       /* HKS_BONE_PART_* bits; 0 = all three */
	float tolerance;      /* > 0, finite (the encoder's component tolerance) */
} hks_bone_tolerance;

typedef enum hks_encode_optimize {
	HKS_OPTIMIZE_HAVOK = 0, /* Havok's fit (today's behaviour) */
	HKS_OPTIMIZE_SIZE = 1   /* the Havok mode's bound, fewer bytes */
} hks_encode_optimize;

/* What the controlled encode chose and measured (hks_error_control.report). */
typedef struct hks_error_control_report {
	uint32_t iterations;           /* encodes run (object bound: measure-and-tighten rounds) */
	uint32_t num_tracks;           /* entries of per_track */
	hks_track_params *per_track;   /* the parameters of the final encode, per transform track
	                                  (free with hks_error_control_report_free) */
	double object_error;           /* the result's largest object-space error (m); -1 without skeleton */
	int32_t worst_bone, worst_frame; /* where it is; -1 when none */
	int bound_met;                 /* object bound: 1 when object_error <= object_tolerance; size: 1 when
	                                  every component is within the Havok bound; else 0 */
	uint32_t rotation_quantization[6]; /* tracks per chosen rotation selector (HKS_ROT_*) */
	uint64_t havok_size;           /* optimize = SIZE: spline data bytes of the Havok-mode encode */
	uint64_t size;                 /* spline data bytes of the result */
	hks_allocator allocator_;      /* internal: how per_track was allocated */
} hks_error_control_report;

typedef struct hks_error_control {
	const hks_skeleton *skeleton;   /* bone names and hierarchy: needed by bone_tolerances and the bound */
	const int16_t *track_to_bone;   /* the binding; NULL / 0 entries: identity */
	uint32_t num_track_to_bone;
	const hks_bone_tolerance *bone_tolerances; /* applied in order, later entries win */
	uint32_t num_bone_tolerances;
	double object_tolerance;        /* metres; 0 = no object-space bound */
	double shell_distance;          /* 0: HKS_DEFAULT_SHELL_DISTANCE */
	const struct hks_shell_override *shell_overrides; /* the last matching pattern wins */
	uint32_t num_shell_overrides;
	uint32_t max_iterations;        /* object bound: 0 -> 16 */
	hks_encode_optimize optimize;
	hks_error_control_report *report; /* optional output */
} hks_error_control;

void hks_error_control_report_free(hks_error_control_report *report);

/* Resolve the per-bone tolerance rules into one hks_track_params per transform
 * track (out[0..num_tracks)), starting from base (NULL: zero entries) whose
 * tolerance fields are replaced where a rule matches the track's bone. */
hks_result hks_bone_tolerances_resolve(const hks_error_control *control, uint32_t num_tracks,
                                       const hks_track_params *base, hks_track_params *out, hks_error *err);

/* Parse a --bone-tolerance argument "GLOB=T" or "GLOB:translation=T" /
 * ":rotation=T" / ":scale=T" (also "GLOB:t,r=T"). The pattern is written into
 * pattern_buf (NUL-terminated, at most buf_size bytes) and out->pattern points
 * to it. Returns 0, or -1 for a malformed argument. */
int hks_bone_tolerance_parse(const char *arg, char *pattern_buf, size_t buf_size, hks_bone_tolerance *out);

/* ====================================================================== */
/* === SECTION: authoring (owner: src/author/) ========================== */
/* ====================================================================== */

/*
 * glTF 2.0 export and import (docs/GLTF.md). The skeleton becomes one glTF
 * node per bone (name, parent, reference pose as TRS) under a scene root node
 * named HKS_GLTF_ROOT_MOTION_NODE that carries the root motion
 * (hkaDefaultAnimatedReferenceFrame), plus a skin whose inverse bind matrices
 * are the inverses of the reference pose in model space. Each clip becomes one
 * glTF animation: translation / rotation / scale channels per bound bone at
 * the clip's frame times (f · frameDuration), LINEAR samplers; float tracks
 * (e.g. camera FOV) go to the animation's extras with their slot names.
 * Rotations are normalized and made sign-continuous for the export only
 * (glTF requires unit quaternions); non-finite samples are replaced by the
 * previous frame's value (the reference pose at frame 0) and counted.
 */
#define HKS_GLTF_ROOT_MOTION_NODE "hks_root_motion"

typedef struct hks_gltf_clip {
	const char *name;                   /* glTF animation name; NULL: "animation N" */
	uint32_t num_frames;                /* >= 1 */
	float frame_duration;               /* > 0 when num_frames > 1 */
	float duration;                     /* hkaAnimation::duration (kept in extras) */
	uint32_t num_transform_tracks;
	uint32_t num_float_tracks;
	const float *transforms;            /* transforms[(f·T + t)·HKS_TRACK_SAMPLE_FLOATS + k] */
	const float *floats;                /* floats[f·F + i] */
	const int16_t *track_to_bone;       /* per transform track (binding); NULL: identity */
	const int16_t *float_track_to_slot; /* per float track; NULL: identity */
	const hks_reference_frame *root_motion; /* NULL: none; else one sample per frame */
	int8_t blend_hint;
} hks_gltf_clip;

typedef struct hks_gltf_write_options {
	hks_options base;
	int binary;                         /* 1: GLB; 0: .gltf JSON with the buffer as a data: URI */
} hks_gltf_write_options;

typedef struct hks_gltf_write_report {
	uint32_t channels;                  /* animation channels written */
	uint32_t unbound_tracks;            /* tracks whose bone is out of range (not exported) */
	uint32_t duplicate_tracks;          /* tracks on a bone an earlier track already drives */
	uint64_t nonfinite_samples;         /* samples replaced (see above) */
	uint64_t sign_flips;                /* quaternions negated for continuity */
} hks_gltf_write_report;

/* Skeleton + clips -> a .glb / .gltf file (free *out with hks_buffer_free(&opts->base, ...)).
 * `report` may be NULL. */
hks_result hks_gltf_write(const hks_skeleton *skeleton, const hks_gltf_clip *clips, uint32_t num_clips,
                          const hks_gltf_write_options *opts, uint8_t **out, size_t *out_size,
                          hks_gltf_write_report *report, hks_error *err);

/*
 * External buffer files of a .gltf ("glTF Separate" export: x.gltf + x.bin).
 * `open` supplies the bytes of the file at `path` (the buffer's uri,
 * percent-decoded, relative, behind the folder of `source_path` when that is
 * set); `byte_length` is the buffer's declared byteLength. It returns HKS_OK
 * with *data / *size (valid until `close`; at least byte_length bytes, else
 * the import fails with HKS_E_TRUNCATED), or an error code (HKS_E_NOT_FOUND,
 * HKS_E_IO, ...). `close` (may be NULL) is called once per successful open,
 * before hks_gltf_read returns. The model is ufbx's open-file callback: the
 * caller decides where bytes come from (memory, archive, sandbox).
 */
typedef struct hks_gltf_file_loader {
	hks_result (*open)(void *user, const char *path, uint64_t byte_length, const void **data, size_t *size);
	void (*close)(void *user, const void *data, size_t size);
	void *user;
} hks_gltf_file_loader;

typedef struct hks_gltf_read_options {
	hks_options base;
	int32_t animation;                  /* glTF animation index (>= 0); -1: the first */
	const char *animation_name;         /* when not NULL: select by name instead */
	float frame_duration;               /* target frame step; 0: 1/30 s (the games' rate) */
	float duration;                     /* > 0: use this duration when the frame count it gives
	                                       (duration / frame_duration + 1, rounded) equals the
	                                       resampled one (keeps an original's bits) */
	const int16_t *track_to_bone;       /* the track order; NULL: every skeleton bone in order */
	uint32_t num_tracks;
	const char *const *float_slot_names;/* per float track: the slot looked up in the extras */
	uint32_t num_float_tracks;
	const float *reference_floats;      /* per float track: value when the extras lack it (NULL: 0) */
	/* Where external buffers come from (docs/GLTF.md "Buffers"). With both
	 * zero, a buffer uri that is not a data: URI is HKS_E_UNSUPPORTED and no
	 * file is opened. `source_path`: the path of the .gltf / .glb being read;
	 * relative uris resolve against its folder and, without `loader.open`, the
	 * library reads them with stdio. Absolute paths, other schemes and ".."
	 * segments are refused (a downloaded .gltf reads only below its folder). */
	const char *source_path;
	hks_gltf_file_loader loader;
	/* Rest poses (docs/GLTF.md "Rest poses"): nonzero keeps the glTF's local
	 * values as they are; zero (default) converts bones whose glTF rest pose is
	 * the skeleton's reference pose in other local axes (Blender's bone
	 * directions) back to the skeleton's bone frames. */
	int keep_bone_axes;
} hks_gltf_read_options;

typedef struct hks_gltf_animation {
	char name[128];
	uint32_t num_gltf_animations;       /* animations in the file */
	uint32_t num_frames;
	float frame_duration, duration;
	uint32_t num_transform_tracks, num_float_tracks;
	float *transforms;                  /* frame-major, HKS_TRACK_SAMPLE_FLOATS per track-sample */
	float *floats;                      /* floats[f·F + i] */
	int has_root_motion;                /* the root motion node is animated */
	float up[4], forward[4];            /* from the extras, else (0,1,0,0) / (0,0,1,0) */
	float (*root_motion)[4];            /* num_frames samples (x, y, z, heading about up) */
	/* matching report */
	const char *const *unmatched_nodes; /* named nodes that are no skeleton bone (root node excluded) */
	uint32_t num_unmatched_nodes;
	const int32_t *missing_bones;       /* bones of tracks without a node: their reference pose is used */
	uint32_t num_missing_bones;
	const int32_t *static_bones;        /* bones of tracks with a node but no channel: node TRS used */
	uint32_t num_static_bones;
	const char *const *missing_float_slots; /* float tracks not found in the extras */
	uint32_t num_missing_float_slots;
	uint64_t sign_flips;                /* quaternions negated for continuity */
	struct hks_arena *arena;            /* owns everything */
	/* rest poses (docs/GLTF.md "Rest poses") */
	const int32_t *axis_bones;          /* bones whose glTF rest pose is the skeleton's in other local
	                                       axes: converted to the skeleton's bone frames */
	uint32_t num_axis_bones;
	double max_axis_angle;              /* the largest of those changes of axes (radians) */
	const int32_t *rest_bones;          /* bones whose glTF rest pose differs otherwise */
	const float *rest_translation;      /* per rest_bones entry: translation difference (m) */
	const float *rest_scale;            /* ... largest scale difference */
	const uint8_t *rest_hierarchy;      /* ... nonzero: the glTF parent is not the skeleton's parent */
	uint32_t num_rest_bones;
	const uint8_t *rest_unit_scale;     /* ... nonzero: the glTF rest scale is 1 (a client without rest
	                                       scales, e.g. Blender's bones) */
	/* key-time grid (docs/GLTF.md "Frame grid") */
	double key_step;                    /* the keys' time step (s); 0: no channel has two keys */
	int off_grid;                       /* the key step is not the target frame step: resampled */
	double key_span;                    /* last key time - first key time (s) */
	int end_snapped;                    /* the last key was within half a frame of the target duration */
} hks_gltf_animation;

/* A .glb / .gltf (GLB BIN chunk, data: URIs, external files through
 * `source_path` / `loader`; sparse accessors; matrix nodes decomposed to TRS)
 * -> frames of one animation resampled at the target rate, in the track order
 * of the options, matched to `skeleton` by bone name. */
hks_result hks_gltf_read(const void *data, size_t size, const hks_skeleton *skeleton,
                         const hks_gltf_read_options *opts, hks_gltf_animation **out, hks_error *err);
void hks_gltf_animation_free(hks_gltf_animation *anim);

/* ====================================================================== */
/* === SECTION: re-compressor (owner: src/encode/recompress.c) ========== */
/* ====================================================================== */

/*
 * Exact re-compression (ENCODER.md §13, docs/RECORD.md): the encoder run on
 * an animation's decoded frames is the predictor; a reconstruction record
 * holds only what the prediction got wrong, per (block, track, part), each
 * entry keyed by a hash of that part's decoded frames, or, where the part it
 * rebuilds can be checked, by that part decoding to the frames (docs/RECORD.md
 * "Hash").
 * Applying the record to the same frames gives the original data,
 * blockOffsets and floatBlockOffsets byte for byte; applied to edited frames,
 * every part whose frames are unchanged gets its original bytes, the others
 * are fitted afresh.
 */
#define HKS_RECORD_VERSION 21
#define HKS_RECORD_VERSION_MIN 8 /* the oldest record version this build reads (docs/RECORD.md) */
#define HKS_RECORD_LADDER_MAX 12  /* predictor candidates (tolerance steps, docs/RECORD.md) */

/* First differing field of a predicted part against the original (check --reencode). */
typedef enum hks_diff_category {
	HKS_DIFF_NONE = 0,
	HKS_DIFF_HEADER = 1,     /* animation header / block layout */
	HKS_DIFF_MASK = 2,       /* mask byte (flags or quantization) */
	HKS_DIFF_DEGREE = 3,
	HKS_DIFF_KNOT_COUNT = 4,
	HKS_DIFF_KNOT = 5,
	HKS_DIFF_BOUND = 6,
	HKS_DIFF_STATIC = 7,     /* static value */
	HKS_DIFF_CONTROL_POINT = 8,
	HKS_DIFF_PACKED_QUATERNION = 9,
	HKS_DIFF_PADDING = 10,
	HKS_DIFF_GUARD = 11,
	HKS_DIFF_COUNT = 12
} hks_diff_category;

/* "none", "header", "mask", "degree", "knot count", "knot", "bound", "static value",
 * "control point", "packed quaternion", "padding", "guard". */
const char *hks_diff_category_name(hks_diff_category c);

typedef struct hks_recompress_options {
	hks_options base;
	hks_cpu_model cpu;          /* AUTO: detected from the stored 16-bit lanes (ENCODER.md §11.4) */
	const char *sdk;            /* the file's SDK: detection default; NULL = "20160200" */
	uint32_t ladder;            /* predictor candidates (tolerance steps) per part, 1..HKS_RECORD_LADDER_MAX;
	                               0 = the default (docs/RECORD.md). Step 0 encodes every part, each
	                               later step only the parts no earlier step reproduced */
	int no_zlib;                /* nonzero: leave the record body uncompressed */
	int32_t animation_index;    /* for messages */
} hks_recompress_options;

typedef struct hks_recompress_report {
	hks_cpu_model cpu;                 /* the model the predictor used */
	uint64_t parts;                    /* (block, track, part) units, float tracks included */
	uint64_t spline_parts[4];          /* original spline parts per type T, R, S, F */
	uint64_t spline_parts_exact[4];    /* ... reproduced by the prediction alone (the selected candidate) */
	uint64_t spline_parts_exact_step[HKS_RECORD_LADDER_MAX]; /* ... of those, by the selected step */
	uint64_t parts_exact;              /* all parts the selected candidate reproduces */
	uint64_t self_exact_wrong;         /* parts whose selected candidate decodes to their frames bit for
	                                      bit but differs from the original */
	uint64_t first_diff[HKS_DIFF_COUNT]; /* per differing part (selected candidate): first differing field */
	uint64_t entries;                  /* record entries (parts with corrections or another ladder step) */
	uint64_t verbatim_parts;           /* entries that store the part whole */
	uint64_t refit_parts;              /* entries that store header, knots and bounds; control points
	                                      solved from the frames (docs/RECORD.md) */
	int prediction_exact;              /* the prediction alone equals the original data */
	int verbatim_animation;            /* the record stores the data whole (prediction unusable) */
	uint64_t data_bytes;               /* original spline data size */
	uint64_t record_bytes;             /* the record's size */
	/* inversion (docs/RECORD.md "Inversion"), tried on every part the selected candidate misses:
	 * parts whose inversion (the stored part recovered from its frames, verified by decoding) equals the
	 * original (an entry without payload); of those, spline parts; inversions that decode to the frames
	 * but differ from the original (ambiguities), by first differing field; parts inverted at all */
	uint64_t inverted_parts;
	uint64_t inverted_spline_parts;
	uint64_t inverted_wrong;
	uint64_t inverted_ambiguity[HKS_DIFF_COUNT];
	uint64_t inverted_units;
	uint64_t inverted_bound_parts;     /* bound ambiguities resolved by an inverted entry with the original
	                                      bounds' f32 bit offsets (a few bits per lane) */
	uint64_t inverted_mask_parts;      /* rotation mask bits (not visible in the frames) resolved by an
	                                      inverted entry with the original mask byte */
	uint64_t refit_inv_parts;          /* refit entries whose knots are edits of a knot vector the inverter
	                                      tried (record v4; counted in refit_parts too) */
	/* invisible control points (docs/RECORD.md "Invisible control points"): points of the original's spline
	 * parts that the block's own frames do not determine (a basis that vanishes at every frame, or a column
	 * that depends on the others there); parts with at least one, and of those the parts reproduced without
	 * a record all the same */
	uint64_t hidden_points;
	uint64_t hidden_point_parts;
	uint64_t hidden_point_parts_exact;
	uint64_t refit_inv_smooth_parts; /* record v11: refit_inv_parts whose solve takes the smooth prior instead of
	                                    the polyline (docs/RECORD.md "Version 11") */
	uint64_t refit_inv_hybrid_parts; /* record v16: refit_inv_parts whose knot edits are against a hybrid try
	                                    (docs/RECORD.md "Hybrid tries since version 16") */
} hks_recompress_report;

/*
 * Animation (a spline animation) -> record. `record` (may be NULL) receives
 * the record (free with hks_buffer_free(&opts->base, ...)); `prediction` (may
 * be NULL) the predictor's own re-encode (free with hks_packed_spline_free);
 * `report` (may be NULL) the figures above. The record is verified before it
 * is returned (predict, correct, pack, compare): when the corrected prediction
 * does not reproduce the data, the record holds the data whole.
 */
hks_result hks_recompress(const hks_animation *anim, const hks_recompress_options *opts, uint8_t **record,
                          size_t *record_size, hks_packed_spline **prediction, hks_recompress_report *report,
                          hks_error *err);

typedef struct hks_record_apply_report {
	uint64_t entries;          /* entries in the record */
	uint64_t applied;          /* entries whose unit's frames are unchanged (corrections applied) */
	uint64_t refitted;         /* entries whose frames changed (the hash differs, or the rebuilt part
	                              does not decode to them): the part is the fresh prediction */
	int data_matches;          /* the output's data hash and size equal the recorded original's */
} hks_record_apply_report;

/*
 * Frames + record -> bytes. The frames are those hks_sample_frames gives for
 * the original (raw rotations), or an edit of them with the same frame and
 * track counts. `opts` supplies the allocator and limits (cpu and ladder come
 * from the record). Malformed or truncated records are HKS_E_MALFORMED /
 * HKS_E_TRUNCATED with the byte offset in the record, except inside an entry
 * without a hash (docs/RECORD.md "Hash"): one that cannot be built counts as
 * an edited unit (refitted), and data_matches then tells whether the output
 * is the original.
 */
hks_result hks_recompress_apply(const hks_frames_in *frames, const void *record, size_t record_size,
                                const hks_recompress_options *opts, hks_packed_spline **out,
                                hks_record_apply_report *report, hks_error *err);

/* FNV-1a 64 (docs/RECORD.md): the record's part and data hash. */
uint64_t hks_record_hash(uint64_t seed, const void *data, size_t size);
#define HKS_RECORD_HASH_SEED UINT64_C(0xcbf29ce484222325)

/*
 * A record file (`hkspline recompress --record`): magic "HKSF", version,
 * then per spline animation its index in the file and its record.
 */
typedef struct hks_record_file_entry {
	uint32_t animation;
	const uint8_t *record;
	size_t size;
} hks_record_file_entry;

/* Serialize entries (free *out with hks_buffer_free(opts, ...)). */
hks_result hks_record_file_write(const hks_record_file_entry *entries, uint32_t count, const hks_options *opts,
                                 uint8_t **out, size_t *out_size, hks_error *err);
/* Parse: *entries (free with hks_buffer_free(opts, *entries, *count * sizeof **entries)) point into `data`. */
hks_result hks_record_file_read(const void *data, size_t size, const hks_options *opts,
                                hks_record_file_entry **entries, uint32_t *count, hks_error *err);

/* ====================================================================== */
/* === SECTION: loading paths (owner: src/io/) ========================== */
/* ====================================================================== */

/*
 * The loader turns user paths into Havok files: loose .hkx / .compendium files,
 * folders (recursively: .hkx in any case, .anibnd, .dcx, .compendium), BND4
 * binders and DCX archives (each binder member is one unit). Compendiums are
 * resolved by ID through: every compendium path of the options (an explicit
 * choice wins), the unit's own binder, its folder, and last every compendium
 * under the paths added to the loader (CONTAINERS.md §2.11). Two compendiums
 * of the unit's binder or folder holding its ID with different types make the
 * load fail with HKS_E_COMPENDIUM naming one (unless a path of the options
 * holds the ID). Compressed binder members storing one range are inflated
 * once; all inflation of one binder counts against limits.max_output_bytes.
 *
 * Details (docs/CLI.md, "Paths"): a file named explicitly is sniffed by
 * content; folders are walked in byte-wise sorted order, dot files skipped,
 * symlink loops cut. Binder members that are Havok files by content or by
 * name (.hkx, .compendium) are units, shown as "binder:basename" (the full
 * member name when two members share a basename). A DCX around one Havok
 * file is one unit. A binder or DCX that cannot be opened (e.g. KRAK) is one
 * unit whose load reports the error. Decompressed binders are cached (bounded)
 * and every location's compendium set is built once, on first use.
 */
typedef struct hks_loader hks_loader;

typedef struct hks_load_options {
	hks_options base;
	const char *const *compendium_paths;  /* --compendium FILE|DIR (binders and DCX accepted) */
	size_t num_compendium_paths;
} hks_load_options;

/* One Havok file found under a path. */
typedef struct hks_loaded {
	const char *path;            /* display path: "dir/a.hkx" or "dir/c1060.anibnd.dcx:a000_000000.hkx" */
	const char *container_path;  /* the file on disk */
	const char *member;          /* binder member name, NULL for a loose file */
	const uint8_t *bytes;        /* the Havok file's bytes (after DCX / binder extraction) */
	size_t size;
	hks_file *file;              /* parsed file; NULL when status != HKS_OK */
	hks_result status;
	hks_error error;             /* the parse error when status != HKS_OK */
	hks_container container;     /* sniffed from the bytes (also when parsing failed) */
	char sdk[32];                /* the parsed file's SDK; when parsing failed, the SDKV /
	                                packfile contentsVersion read from the header; else "" */
} hks_loaded;

hks_result hks_loader_create(const hks_load_options *opts, hks_loader **out, hks_error *err);
/* Add a file or folder. Binders and DCX archives are opened here to list their
 * members; a folder is walked in sorted order. Errors on unreadable paths. */
hks_result hks_loader_add_path(hks_loader *loader, const char *path, hks_error *err);
size_t hks_loader_count(const hks_loader *loader);
const char *hks_loader_path(const hks_loader *loader, size_t index);
/* Read and parse unit `index`. Safe to call from several threads for
 * different indices once all paths are added. *out is never NULL on return
 * unless the result is HKS_E_NOMEM / HKS_E_ARGUMENT; its status says whether
 * parsing succeeded. */
hks_result hks_loader_load(hks_loader *loader, size_t index, hks_loaded **out);
/* Loading while paths are added (streaming: the folder walk and the opening of
 * binders overlap the work). After hks_loader_begin_adding, one thread may call
 * hks_loader_add_path while others call hks_loader_load, hks_loader_path and
 * hks_loader_find_skeleton for units already counted; hks_loader_wait_count
 * blocks until more than `known` units exist or adding has ended, and returns
 * the count. hks_loader_end_adding ends it (the adding thread, once done).
 * `paths` (NULL for none): every path that will be added; the last compendium
 * location is then the compendiums under these paths (also those that fail to
 * add) and is built when first needed. Without them a load that needs that
 * location waits for the end, so units load the same whatever the timing.
 * HKS_E_ARGUMENT / HKS_E_NOMEM / HKS_E_INTERNAL (no condition variable). */
hks_result hks_loader_begin_adding(hks_loader *loader, const char *const *paths, size_t num_paths);
/* The units in the order of the walk (paths in the order added, folders in sorted
 * order, a binder's members in entry order): order[k] is the index of the k-th unit.
 * Unit indices follow the walk, except while adding overlaps loading: a binder met
 * in a folder walk is then opened when the whole walk of the path given to
 * hks_loader_add_path is done (its inflation would hold up the loading threads),
 * so its members come after every file of that walk; a caller that
 * reports units in path order sorts by this. After adding has ended; `count` must
 * be hks_loader_count (else HKS_E_ARGUMENT); HKS_E_NOMEM. */
hks_result hks_loader_walk_order(const hks_loader *loader, size_t *order, size_t count);
void hks_loader_end_adding(hks_loader *loader);
size_t hks_loader_wait_count(hks_loader *loader, size_t known);
/* Find the skeleton (a file with an hkaSkeleton) for unit `index`: in the same
 * binder first, then the same folder (Skeleton.HKX / skeleton.hkx any case).
 * HKS_E_NOT_FOUND when there is none. */
hks_result hks_loader_find_skeleton(hks_loader *loader, size_t index, hks_loaded **out);
void hks_loaded_free(hks_loaded *loaded);
void hks_loader_free(hks_loader *loader);

/* ====================================================================== */
/* === SECTION: tool support: decoded frames, skeletons, donors,       == */
/* ===          comparisons (owner: src/io/frames_json.c, decoded.c,   == */
/* ===          skeleton.c, donor.c, src/metrics/compare_inputs.c,     == */
/* ===          compare_dirs.c; docs/CLI.md, docs/DECODE.md)           == */
/* ====================================================================== */

/*
 * What the `hkspline` tool does beyond parsing arguments and printing, as
 * library calls that any program (the Python binding, a Blender add-on) can
 * make: decoded frames of an animation, the decoded-frames JSON of
 * `hkspline decode` (docs/DECODE.md) read and written, the skeleton of an
 * animation, the donor container of `encode --skeleton / --into`, and the
 * comparison of two animations or two folders (`hkspline error`). Results
 * are plain data owned by one object with one free function.
 */

/* The hkaAnimation view of a packed spline (the encoder's or the
 * re-compressor's output), for hks_stored_read: kind SPLINE, type 3, the
 * packed header, duration and track counts, no reference frame, offsets -1.
 * The result points into `packed`: keep it alive while the view is used. */
hks_animation hks_animation_of_packed(const hks_packed_spline *packed);

/* The binding of animation `anim` of `file` (binding.animation == anim; the
 * single binding of a single-animation file counts too), or NULL. */
const hks_binding *hks_file_binding_for(const hks_file *file, uint32_t anim);

/* The skeleton a binding names (originalSkeletonName) in `own`, then `ext`;
 * else the first skeleton of `own`, then of `ext`. Either file and `bind` may
 * be NULL. NULL when neither file holds a skeleton. */
const hks_skeleton *hks_file_pick_skeleton(const hks_file *own, const hks_file *ext, const hks_binding *bind);

/*
 * Add `in` to `loader` and find its one unit: `in` itself when it holds one
 * Havok file, or BINDER:MEMBER (the member by full or base name,
 * case-insensitive). HKS_E_NOT_FOUND when the member is missing,
 * HKS_E_ARGUMENT when `in` holds several Havok files and names none.
 */
hks_result hks_loader_open_unit(hks_loader *loader, const char *in, size_t *unit, hks_error *err);

/*
 * The skeleton file of a path (`encode --skeleton`, `error --skeleton`): the
 * file itself or BINDER:MEMBER when that is one unit; else the first unit
 * under the binder or folder that holds an hkaSkeleton, units whose path
 * contains "skel" (any case) first, each group in the loader's order. On
 * success *loader and *out are set (free both: hks_loaded_free, then
 * hks_loader_free); HKS_E_NOT_FOUND when no skeleton is there.
 */
hks_result hks_skeleton_load(const hks_load_options *lo, const char *path, hks_loader **loader, hks_loaded **out,
                             hks_error *err);

/* ---- decoded frames ---- */

/* One animation's frames as `hkspline decode` writes them (frame mode). */
typedef struct hks_decoded {
	uint32_t index;                 /* the animation's index in its file */
	uint32_t num_frames, num_transform_tracks, num_float_tracks;
	float duration, frame_duration; /* stored values (interleaved: duration / (frames - 1)) */
	float *transforms;              /* frame-major, HKS_TRACK_SAMPLE_FLOATS per track-sample */
	float *floats;                  /* floats[f·F + i] */
	float *times;                   /* time mode only (JSON "times"); else NULL */
	const char **bone_names;        /* per transform track: the bone name, NULL when unknown */
	hks_stored_animation *stored;   /* spline animations: the walk (block seams ...); else NULL */
	hks_frames_in frames;           /* view of the above, for hks_encode_* and hks_compare_frames */
	struct hks_arena *arena;        /* owns everything above but `stored` */
} hks_decoded;

typedef struct hks_decode_options {
	hks_options base;
	const hks_file *skeleton_file;  /* bone names: the file's own skeleton, else this file's; may be NULL */
	int keep_stored;                /* nonzero: keep the stored structure in hks_decoded.stored */
} hks_decode_options;

/* Animation `anim` of `file` (spline: walked and sampled at every frame, raw
 * values; interleaved: as stored) -> frames and bone names through the binding
 * and the skeleton (hks_file_pick_skeleton). Other kinds: HKS_E_UNSUPPORTED. */
hks_result hks_decode_animation(const hks_file *file, uint32_t anim, const hks_decode_options *opts,
                                hks_decoded **out, hks_error *err);
void hks_decoded_free(hks_decoded *d);

/* ---- decoded-frames JSON (docs/DECODE.md) ---- */

/* A decoded-frames JSON document: "source" and "animations". */
typedef struct hks_frames_doc {
	const char *source_path;        /* source.path (NULL when absent) */
	const char *source_container;   /* source.container */
	const char *source_sdk;         /* source.sdk */
	const char *source_skeleton;    /* source.skeleton */
	const char *mode;               /* "frame" or "time"; NULL when absent (read as frame mode) */
	double time_step;               /* time mode */
	int hex;                        /* floats as 8-hex-digit bit patterns */
	hks_decoded *animations;        /* arena-owned entries (their `arena` and `stored` are NULL) */
	uint32_t num_animations;
	struct hks_arena *arena;        /* owns everything */
} hks_frames_doc;

/* Parse (jansson). Floats: numbers, "nan" / "inf" / "-inf", or an 8-hex-digit
 * bit pattern (any document: NaN payloads kept). Every animation needs an
 * integer "index" in 0 .. INT32_MAX (else HKS_E_MALFORMED), "frames" (0 ..
 * limits.max_frames), "duration", "tracks" (each with translation / rotation
 * / scale rows of 3 / 4 / 3 values per frame; "bone" a string or null) and
 * optionally "float_tracks" (one value per frame each) and "times". Sizes are
 * checked against limits before allocating. Errors name the animation, track
 * and frame, with the byte offset of the JSON parse error when there is one. */
hks_result hks_frames_json_read(const void *data, size_t size, const hks_options *opts, hks_frames_doc **out,
                                hks_error *err);
/* The animation with JSON "index" `index` (index < 0: the first), or NULL. */
const hks_decoded *hks_frames_doc_find(const hks_frames_doc *doc, int64_t index);
void hks_frames_doc_free(hks_frames_doc *doc);

/* Serialize as `hkspline decode -o OUT.json` does, byte for byte (compact,
 * one line per transform track, floats %.9g or hex). Animations are written
 * with their own index, frames, duration, frame_duration, times (when not
 * NULL), tracks and float tracks. Free *out with hks_buffer_free(opts, ...). */
hks_result hks_frames_json_write(const hks_frames_doc *doc, const hks_options *opts, uint8_t **out,
                                 size_t *out_size, hks_error *err);

/* ---- donor containers (`encode --skeleton S`, `--into BINDER`) ---- */

/*
 * A new clip is written into an existing tagfile of the same game (the
 * writer keeps its type table, CONTAINERS.md §4.1): the donor. Selection is
 * deterministic and depends only on the candidates themselves:
 *   - where: the binder or folder `where` names (BINDER:MEMBER: that binder;
 *     a loose file: its folder), every unit in the loader's order (byte-wise
 *     sorted paths, binder members in binder order);
 *   - a candidate must parse, be a tagfile (of SDK `sdk` when given), have a
 *     spline animation with a binding, and, when `skeleton_name` is given, a
 *     binding whose originalSkeletonName equals it; units whose path contains
 *     "skel" (any case) and the path `exclude` (the output) are skipped;
 *   - the first candidate whose animation has an
 *     hkaDefaultAnimatedReferenceFrame wins; else the first candidate.
 * There is no cap on the units opened, so unrelated or unreadable files never
 * change which donor is chosen, only the time taken.
 */
typedef struct hks_donor_options {
	hks_load_options load;
	const char *sdk;            /* NULL: any tagfile SDK */
	const char *skeleton_name;  /* NULL: any binding */
	const char *exclude;        /* a display path never taken (e.g. the output file); may be NULL */
} hks_donor_options;

/* HKS_OK with *loader, *out (free both) and *anim; HKS_E_NOT_FOUND when no
 * unit qualifies (the message says what was looked at). */
hks_result hks_donor_find(const char *where, const hks_donor_options *opts, hks_loader **loader,
                          hks_loaded **out, uint32_t *anim, hks_error *err);

/* ---- comparisons (`hkspline error`, docs/METRICS.md, docs/CLI.md) ---- */

typedef struct hks_comparison_options {
	hks_load_options load;          /* compendium paths for Havok inputs */
	const char *skeleton;           /* skeleton path (--skeleton); NULL: resolved (see hks_compare_paths) */
	uint32_t animation;             /* the animation index in both inputs */
	double shell_distance;          /* 0: HKS_DEFAULT_SHELL_DISTANCE */
	const hks_shell_override *shell_overrides;
	uint32_t num_shell_overrides;
	double threshold;               /* 0: HKS_DEFAULT_ERROR_THRESHOLD */
	int no_seams;                   /* nonzero: no block-seam reports */
} hks_comparison_options;

typedef struct hks_comparison {
	const char *a, *b;              /* the inputs as given */
	uint32_t animation;
	const char *skeleton_path;      /* the skeleton's display path; NULL when none */
	const hks_skeleton *skeleton;   /* NULL when none */
	hks_compare_result *result;     /* over the compared frames and tracks */
	int has_seams[2];
	hks_seam_report seams[2];       /* block seams of A and B (spline inputs) */
	/* what was compared (issue "error across tools") */
	uint32_t frames[2];             /* frames of A and B */
	uint32_t transform_tracks[2], float_tracks[2];
	uint32_t frames_compared;       /* the common frames 0 .. min - 1 */
	int matched_by_name;            /* tracks matched by bone name (the track sets differ) */
	const int32_t *track_in[2];     /* per compared track: its index in A and in B */
	const char *const *only_in[2];  /* bone names of tracks only in A / only in B */
	uint32_t num_only_in[2];
	int complete;                   /* same frames and tracks: nothing was left out */
	const char *const *track_names; /* per compared track: a bone name from the inputs (NULL allowed) */
	double shell_distance, threshold; /* as used (defaults filled in) */
	struct hks_arena *arena;        /* owns everything */
	void *internal;                 /* the inputs (private) */
} hks_comparison;

/*
 * Compare animation opts->animation of B against A. Inputs: Havok files (or
 * BINDER:MEMBER, or a binder / DCX holding one file) or decoded-frames JSON
 * (a name ending in .json). The skeleton: opts->skeleton, else one in A's or
 * B's file, else the one the loader finds beside them, else a JSON's
 * source.skeleton, else none (local metrics only). Tracks are matched by
 * index when both inputs have the same tracks, else by bone name (names from
 * the JSON "bone" or the binding and skeleton; HKS_E_MISMATCH when a name is
 * unknown); frames 0 .. min(frames) - 1 are compared. `complete` says
 * whether anything was left out.
 */
hks_result hks_compare_paths(const char *a, const char *b, const hks_comparison_options *opts,
                             hks_comparison **out, hks_error *err);
/* The same for two loaded files (folder mode, no seams): `skeleton` (kept
 * by the caller; NULL: the one A's file holds, else none), shown as
 * `skeleton_path`. opts->skeleton is not used. */
hks_result hks_compare_loaded(const hks_loaded *a, const hks_loaded *b, const hks_comparison_options *opts,
                              const hks_skeleton *skeleton, const char *skeleton_path, hks_comparison **out,
                              hks_error *err);
void hks_comparison_free(hks_comparison *c);

/* The bone name of bone `bone` (the skeleton's), else of compared track
 * `track` (the inputs' names); NULL when unknown (-1 for none). */
const char *hks_comparison_bone_name(const hks_comparison *c, int32_t bone, int32_t track);

typedef enum hks_comparison_detail {
	HKS_COMPARISON_SUMMARY = 0,
	HKS_COMPARISON_DETAILED = 1,    /* + per_track, per_bone */
	HKS_COMPARISON_EXHAUSTIVE = 2   /* + matrices (frames x tracks) */
} hks_comparison_detail;

/* The JSON object of `hkspline error --json` (keys in docs/CLI.md), byte for
 * byte; `pretty` indents (the CLI's single-pair output; never for
 * EXHAUSTIVE). Free *out with hks_buffer_free(NULL, ...). */
hks_result hks_comparison_json(const hks_comparison *c, hks_comparison_detail detail, int pretty, uint8_t **out,
                               size_t *out_size, hks_error *err);

/* ---- folder comparison (`hkspline error DIR_A DIR_B`) ---- */

/* One animation of one pair of files: compared, or why not. */
typedef struct hks_dir_item {
	int64_t animation;              /* -1: the files themselves failed to load */
	const hks_comparison *comparison; /* NULL when failed */
	const char *error;              /* the formatted error when failed */
} hks_dir_item;

typedef struct hks_dir_pair {
	const char *a, *b;              /* display paths */
	const hks_dir_item *items;
	uint32_t num_items;
} hks_dir_pair;

typedef struct hks_dir_options {
	hks_comparison_options compare; /* compendiums, shell, threshold; `skeleton`: one for every pair */
	uint32_t threads;               /* 0: 1 */
	/* Called once per pair, from worker threads (several at once for
	 * different pairs), with the pair's index in A's order; the pair and
	 * its items are valid during the call only. */
	void (*on_pair)(void *user, size_t index, const hks_dir_pair *pair);
	/* Called after each pair, serialized, with the pairs done so far. */
	void (*on_progress)(void *user, size_t done, size_t total);
	void *user;
} hks_dir_options;

typedef struct hks_dir_summary {
	size_t files_a;                 /* units under A */
	size_t pairs;                   /* units of A with a unit at the same relative path under B */
	size_t unmatched;               /* units of A without one */
	uint64_t compared, failed;      /* animations */
} hks_dir_summary;

/* Every unit below `dir_a` against the unit at the same relative path below
 * `dir_b`, every spline or interleaved animation of A's file. Errors only when
 * a folder cannot be read; per-pair failures are items. */
hks_result hks_compare_dirs(const char *dir_a, const char *dir_b, const hks_dir_options *opts,
                            hks_dir_summary *summary, hks_error *err);

/* ---- encoding into an existing file (`encode --like`), re-compressing a file ---- */

/*
 * The options of `hkspline encode IN.json --like ORIGINAL` (docs/CLI.md),
 * zero = the CLI's defaults: tolerances and degree Havok's (0.001, 3);
 * quantization per track from the original's first block (mask byte 0: T, R,
 * S; float mask: F) unless `rotation_quantization` (HKS_ENC_ROT_QUANT(sel))
 * overrides every rotation; maxFramesPerBlock the original's; SDK the
 * file's (guard rule, CPU model under AUTO).
 */
typedef struct hks_encode_like_options {
	hks_options base;
	float translation_tolerance, rotation_tolerance, scale_tolerance, float_tolerance; /* 0: 0.001 */
	uint8_t degree;                  /* 0: 3; else 1..3 for every part */
	uint8_t rotation_quantization;   /* 0: the original's; else HKS_ENC_ROT_QUANT(selector) */
	uint32_t max_frames_per_block;   /* 0: the original's (2..256), else 256 */
	hks_cpu_model cpu;
	hks_encode_solver solver;
	const char *sdk;                 /* NULL: the file's */
	int rotation_continuity;         /* --continuity */
	int havok_unguarded;             /* --no-guard */
	const void *record;              /* a record file (`recompress --record`); NULL: encode */
	size_t record_size;
} hks_encode_like_options;

/* The per-track quantizations `encode --like` keeps from an original: mask byte 0 and the
 * float masks of its first block (docs/FORMAT.md §2.3, §2.7) as encoder parameters, for
 * per_track[0 .. num_per_track) and per_float_track[0 .. num_per_float_track); entries past
 * the original's tracks, and values it does not tell, are left as they are (0: Havok's
 * default). A nonzero rotation_quantization (HKS_ENC_ROT_QUANT(sel)) overrides every rotation.
 * orig may be NULL (only the override is applied). */
void hks_track_params_like(const hks_stored_animation *orig, uint8_t rotation_quantization,
                           hks_track_params *per_track, uint32_t num_per_track, hks_track_params *per_float_track,
                           uint32_t num_per_float_track);

typedef struct hks_encode_like_report {
	hks_encode_stats stats;          /* encode only */
	hks_record_apply_report record;  /* with a record */
	uint32_t num_blocks, data_size;  /* of the new spline */
	char sdk[32];                    /* the SDK encoded for */
} hks_encode_like_report;

/* Frames -> spline animation `animation` of `file` replaced (the frames must
 * have its transform and float track counts) -> the file's bytes (free with
 * hks_buffer_free(&opts->base, ...)). `file` is modified. `report` may be NULL.
 * The same bytes as the CLI's `encode --like` with the same options. */
hks_result hks_encode_like(hks_file *file, uint32_t animation, const hks_frames_in *frames,
                           const hks_encode_like_options *opts, uint8_t **out, size_t *out_size,
                           hks_encode_like_report *report, hks_error *err);

/* Every spline animation of `file` re-compressed (hks_recompress, SDK the
 * file's unless opts->sdk): *out the file with each animation replaced by the
 * predictor's re-encode (`recompress -o`), *record the record file
 * (`recompress --record`). Either output may be NULL. `file` is modified. */
hks_result hks_recompress_file(hks_file *file, const hks_recompress_options *opts, uint8_t **out, size_t *out_size,
                               uint8_t **record, size_t *record_size, hks_error *err);
/* === SECTION: DCX codecs, Oodle through the user's library ============ */
/* === (owner: src/io/oodle.c; issue 14) ================================ */
/* ====================================================================== */

/*
 * hkspline decompresses DCX DFLT itself. KRAK (Oodle Kraken) needs a codec:
 * either the embedder's own callbacks, or the user's copy of the Oodle library
 * that ships with the games (oo2core_6_win64.dll next to eldenring.exe and
 * sekiro.exe), loaded at run time; hkspline never ships Oodle.
 *
 * The codec used for a DCX is hks_options.dcx_codec, else the process default
 * (hks_dcx_set_default_codec), else none: reading KRAK then fails with
 * HKS_E_UNSUPPORTED and a message naming --oodle and where the games keep the
 * library; writing a KRAK-headed DCX falls back to DFLT (and calls `note`).
 * Every answer of a codec is checked (the size it reports must be the
 * header's uncompressedSize; the output buffer is exactly that size) and a
 * failing or lying codec gives a clean error, never a crash of hkspline's own
 * making (a library that crashes by itself cannot be contained in-process).
 */
#define HKS_DCX_CODEC_UNAVAILABLE (-2)
typedef struct hks_dcx_codec {
	/* Decompress `src` (the payload after the DCX header; `tag` "KRAK") into
	 * exactly `dst_size` bytes at `dst`. Return the number of bytes written
	 * (anything but dst_size is an error), or a negative value after writing a
	 * message into msg: HKS_DCX_CODEC_UNAVAILABLE when there is no library to
	 * decompress with (the error then advises --oodle), -1 for a failure.
	 * `name` is the DCX's name for messages and library searches (may be NULL). */
	int64_t (*decompress)(void *user, const char *tag, const char *name, const uint8_t *src, size_t src_size,
	                      uint8_t *dst, size_t dst_size, char *msg, size_t msg_size);
	/* Compress `src` with the tag's method at `level` (the DCX level byte) into
	 * `dst` (capacity dst_cap). Return the bytes written (<= dst_cap) or a
	 * negative value (msg written). NULL: this codec cannot compress. */
	int64_t (*compress)(void *user, const char *tag, int level, const char *name, const uint8_t *src,
	                    size_t src_size, uint8_t *dst, size_t dst_cap, char *msg, size_t msg_size);
	/* Told when a KRAK DCX is written as DFLT instead (may be NULL). */
	void (*note)(void *user, const char *message);
	void *user;
} hks_dcx_codec;

/* The codec used when hks_options.dcx_codec is NULL (process-wide; NULL = none).
 * The structure must stay valid while it is set. Not synchronised: set it
 * before starting threads. */
void hks_dcx_set_default_codec(const hks_dcx_codec *codec);

/* A loaded Oodle library (LoadLibrary / dlopen). It must export
 * OodleLZ_Decompress; OodleLZ_Compress is used for writing KRAK when present. */
typedef struct hks_oodle hks_oodle;
hks_result hks_oodle_open(const char *path, hks_oodle **out, hks_error *err);
void hks_oodle_close(hks_oodle *oodle);
const char *hks_oodle_path(const hks_oodle *oodle);
int hks_oodle_can_compress(const hks_oodle *oodle);
/* A codec that decompresses (and compresses) KRAK with `oodle`. */
void hks_oodle_codec(hks_oodle *oodle, hks_dcx_codec *out);

/* Search the folder of the file `near` (or `near` itself when it is a folder)
 * and each of its parents for the library: oo2core_*_win64.dll on Windows,
 * liboo2core*.so on Linux (the first name in sorted order of the nearest
 * folder that has one). 1 with the path in out, else 0. */
int hks_oodle_find(const char *near, char *out, size_t out_size);

/* The command-line tool's codec: the library is loaded on the first KRAK
 * payload, from `explicit_path` (--oodle) if given, else the environment
 * variable HKSPLINE_OODLE, else hks_oodle_find(the DCX's name); once loaded it
 * stays for every later DCX. Thread-safe. */
typedef struct hks_oodle_auto hks_oodle_auto;
hks_result hks_oodle_auto_create(const char *explicit_path, hks_oodle_auto **out, hks_error *err);
const hks_dcx_codec *hks_oodle_auto_codec(hks_oodle_auto *a);
/* KRAK payloads that could not be decompressed because no usable library was
 * found (the CLI exits with status 2 when there were any). */
size_t hks_oodle_auto_missing(const hks_oodle_auto *a);
void hks_oodle_auto_free(hks_oodle_auto *a);
/* === SECTION: atomic file output and locks (owner: src/io/atomic.c) === */
/* ====================================================================== */

/*
 * Writing a file so that a failure cannot destroy it: the bytes go to a
 * temporary file ".NAME.tmp-XXXXXX" in the target's folder, which is flushed
 * and fsynced, then renamed over the target (Windows: MoveFileExW with
 * replace) only when every byte was written. On any failure the target is
 * byte for byte what it was and the temporary file is removed. Writing over
 * the file that was read works (the reader's bytes are in memory). A target
 * that is a symlink is written through: the file it names is replaced. An
 * existing target that is not a regular file (/dev/null, /dev/stdout, a FIFO)
 * is written in place (a rename would replace the device); a folder is
 * HKS_E_IO.
 */
typedef struct hks_atomic_file hks_atomic_file;

#define HKS_ATOMIC_BACKUP 1u  /* keep the replaced target as TARGET.bak, unless one exists (the first stays) */

typedef struct hks_atomic_options {
	hks_options base;  /* allocator (the handle and paths), name for messages */
	uint32_t flags;    /* HKS_ATOMIC_* */
	/* Test hook, called before each chunk (at most 64 KiB) is written to the
	 * temporary file with its offset and size; a nonzero return (an errno
	 * value, e.g. ENOSPC) fails the write there, as a full disk would. */
	int (*write_hook)(void *user, uint64_t offset, size_t size);
	void *write_hook_user;
} hks_atomic_options;

/* The whole file at once: open, write, commit (or abort on failure). */
hks_result hks_write_file_atomic(const char *path, const void *bytes, size_t size, const hks_atomic_options *opts,
                                 hks_error *err);

/* Streaming: open the temporary file, write with hks_atomic_write or through
 * the stdio stream, then hks_atomic_commit (flush, fsync, rename; a stream
 * error found then fails it) or hks_atomic_abort (remove). Both free `f`. */
hks_result hks_atomic_open(const char *path, const hks_atomic_options *opts, hks_atomic_file **out, hks_error *err);
FILE *hks_atomic_stream(hks_atomic_file *f);
hks_result hks_atomic_write(hks_atomic_file *f, const void *bytes, size_t size, hks_error *err);
hks_result hks_atomic_commit(hks_atomic_file *f, hks_error *err);
void hks_atomic_abort(hks_atomic_file *f);
/* Remove the temporary file of every atomic write still open in this process,
 * leaving their targets as they were: for a signal handler (SIGINT, SIGTERM)
 * before the process ends. Async-signal-safe on POSIX (unlink only); on
 * Windows, for a console control handler (its own thread). The atomic files
 * themselves stay open; end the process afterwards. */
void hks_atomic_remove_temporaries(void);

/*
 * An exclusive advisory lock on an existing file for a read-modify-write
 * (flock; Windows: LockFileEx), blocking until it is granted. A process that
 * waited while another replaced the file by rename locks the new file.
 * HKS_E_NOT_FOUND when the file does not exist.
 */
typedef struct hks_file_lock hks_file_lock;
hks_result hks_lock_file(const char *path, const hks_options *opts, hks_file_lock **out, hks_error *err);
void hks_unlock_file(hks_file_lock *lock);

/* End of the exported declarations (keep this block last; see the push above). */
#if defined(__GNUC__) && !defined(_WIN32) && !defined(__CYGWIN__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* HKSPLINE_H */
