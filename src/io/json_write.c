/* The internal JSON writer (json_write.h). */
#include "json_write.h"

#include <math.h>
#include <stdio.h>

void hks_jw_init(hks_jw *j, hks_ctx *ctx, bool pretty)
{
	memset(j, 0, sizeof(*j));
	hks_bytebuf_init(&j->buf, ctx);
	j->pretty = pretty;
	j->status = HKS_OK;
}

static void put(hks_jw *j, const char *s, size_t n)
{
	if (j->status == HKS_OK)
		j->status = hks_bytebuf_append(&j->buf, s, n);
}

static void puts_(hks_jw *j, const char *s) { put(j, s, strlen(s)); }

static void putc_(hks_jw *j, char c) { put(j, &c, 1); }

void hks_jw_text(hks_jw *j, const char *text) { puts_(j, text); }

static void newline(hks_jw *j)
{
	if (!j->pretty)
		return;
	putc_(j, '\n');
	for (int i = 0; i < j->depth; i++)
		puts_(j, "  ");
}

static void before_value(hks_jw *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth > 0) {
		if (j->need_comma[j->depth])
			putc_(j, ',');
		newline(j);
		j->need_comma[j->depth] = true;
	}
}

static void begin(hks_jw *j, char c)
{
	before_value(j);
	putc_(j, c);
	if (j->depth < 63)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void end(hks_jw *j, char c)
{
	bool had = j->need_comma[j->depth];
	if (j->depth > 0)
		j->depth--;
	if (had)
		newline(j);
	putc_(j, c);
	if (j->depth == 0)
		putc_(j, '\n');
}

void hks_jw_begin_object(hks_jw *j) { begin(j, '{'); }
void hks_jw_end_object(hks_jw *j) { end(j, '}'); }
void hks_jw_begin_array(hks_jw *j) { begin(j, '['); }
void hks_jw_end_array(hks_jw *j) { end(j, ']'); }

static void write_string(hks_jw *j, const char *s)
{
	putc_(j, '"');
	const unsigned char *p = (const unsigned char *)s, *run = p;
	for (; *p; p++) {
		const char *esc = NULL;
		char u[8];
		switch (*p) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		default:
			if (*p < 0x20) {
				snprintf(u, sizeof(u), "\\u%04x", *p);
				esc = u;
			}
		}
		if (esc) {
			put(j, (const char *)run, (size_t)(p - run));
			puts_(j, esc);
			run = p + 1;
		}
	}
	put(j, (const char *)run, (size_t)(p - run));
	putc_(j, '"');
}

void hks_jw_key(hks_jw *j, const char *key)
{
	before_value(j);
	write_string(j, key);
	putc_(j, ':');
	if (j->pretty)
		putc_(j, ' ');
	j->after_key = true;
}

void hks_jw_string(hks_jw *j, const char *s)
{
	before_value(j);
	if (s)
		write_string(j, s);
	else
		puts_(j, "null");
}

void hks_jw_int(hks_jw *j, long long v)
{
	char b[32];
	snprintf(b, sizeof(b), "%lld", v);
	hks_jw_raw(j, b);
}

void hks_jw_uint(hks_jw *j, unsigned long long v)
{
	char b[32];
	snprintf(b, sizeof(b), "%llu", v);
	hks_jw_raw(j, b);
}

void hks_jw_bool(hks_jw *j, bool v) { hks_jw_raw(j, v ? "true" : "false"); }

void hks_jw_null(hks_jw *j) { hks_jw_raw(j, "null"); }

static const char *nonfinite(double v)
{
	if (isnan(v))
		return "\"nan\"";
	if (isinf(v))
		return v > 0 ? "\"inf\"" : "\"-inf\"";
	return NULL;
}

void hks_jw_f32(hks_jw *j, float v)
{
	const char *nf = nonfinite(v);
	char b[40];
	if (!nf)
		snprintf(b, sizeof(b), "%.9g", (double)v);
	hks_jw_raw(j, nf ? nf : b);
}

void hks_jw_f64(hks_jw *j, double v)
{
	const char *nf = nonfinite(v);
	char b[40];
	if (!nf)
		snprintf(b, sizeof(b), "%.17g", v);
	hks_jw_raw(j, nf ? nf : b);
}

void hks_jw_raw(hks_jw *j, const char *token)
{
	before_value(j);
	puts_(j, token);
}

hks_result hks_jw_finish(hks_jw *j, uint8_t **out, size_t *size)
{
	*out = NULL;
	*size = 0;
	if (j->status != HKS_OK) {
		hks_bytebuf_free(&j->buf);
		return j->status;
	}
	return hks_bytebuf_finish(&j->buf, out, size);
}
