/*
 * A small JSON writer into a byte buffer (internal), the output twin of the
 * CLI's streaming writer: the same separators, indentation (pretty: two
 * spaces per level, "key": value) and number formats (%.9g for f32, %.17g for
 * f64, non-finite as "nan" / "inf" / "-inf"), so that library and CLI produce
 * the same bytes.
 */
#ifndef HKS_JSON_WRITE_H
#define HKS_JSON_WRITE_H

#include "internal.h"

typedef struct hks_jw {
	hks_bytebuf buf;
	int depth;
	bool need_comma[64];
	bool after_key;
	bool pretty;
	hks_result status;   /* first failure (HKS_E_NOMEM); writes stop after it */
} hks_jw;

void hks_jw_init(hks_jw *j, hks_ctx *ctx, bool pretty);
void hks_jw_begin_object(hks_jw *j);
void hks_jw_end_object(hks_jw *j);
void hks_jw_begin_array(hks_jw *j);
void hks_jw_end_array(hks_jw *j);
void hks_jw_key(hks_jw *j, const char *key);
void hks_jw_string(hks_jw *j, const char *s); /* NULL: null */
void hks_jw_int(hks_jw *j, long long v);
void hks_jw_uint(hks_jw *j, unsigned long long v);
void hks_jw_bool(hks_jw *j, bool v);
void hks_jw_null(hks_jw *j);
void hks_jw_f32(hks_jw *j, float v);
void hks_jw_f64(hks_jw *j, double v);
void hks_jw_raw(hks_jw *j, const char *token);   /* a pre-formatted value */
void hks_jw_text(hks_jw *j, const char *text);   /* bytes outside the value grammar (a newline) */
/* The buffer to the caller (hks_bytebuf_finish), or the first failure. */
hks_result hks_jw_finish(hks_jw *j, uint8_t **out, size_t *size);

#endif
