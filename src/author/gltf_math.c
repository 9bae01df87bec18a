/* Small math and encoding helpers of the glTF writer and reader (author.h). */
#include "author.h"

#include <math.h>

void author_trs_matrix(const author_trs *x, double m[16])
{
	double qx = x->r[0], qy = x->r[1], qz = x->r[2], qw = x->r[3];
	/* rotation matrix of a unit quaternion, columns scaled by S (glTF §3.5.3: M = T·R·S) */
	double r[9] = {1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy + qz * qw),     2 * (qx * qz - qy * qw),
	               2 * (qx * qy - qz * qw),     1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz + qx * qw),
	               2 * (qx * qz + qy * qw),     2 * (qy * qz - qx * qw),     1 - 2 * (qx * qx + qy * qy)};
	for (int c = 0; c < 3; c++) {
		for (int k = 0; k < 3; k++)
			m[c * 4 + k] = r[c * 3 + k] * x->s[c];
		m[c * 4 + 3] = 0;
	}
	m[12] = x->t[0];
	m[13] = x->t[1];
	m[14] = x->t[2];
	m[15] = 1;
}

void author_mat_mul(const double a[16], const double b[16], double out[16])
{
	double r[16];
	for (int c = 0; c < 4; c++)
		for (int k = 0; k < 4; k++) {
			double s = 0;
			for (int i = 0; i < 4; i++)
				s += a[i * 4 + k] * b[c * 4 + i];
			r[c * 4 + k] = s;
		}
	memcpy(out, r, sizeof(r));
}

int author_mat_inverse_affine(const double m[16], double out[16])
{
	/* 3x3 part A (column-major: A[row][col] = m[col*4+row]) inverted by cofactors */
	double a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
	double A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
	double det = a * A + b * B + c * C;
	if (!(fabs(det) > 1e-300) || !isfinite(det))
		return 0;
	double inv[9] = {A / det, -(b * i - c * h) / det, (b * f - c * e) / det,
	                 B / det, (a * i - c * g) / det,  -(a * f - c * d) / det,
	                 C / det, -(a * h - b * g) / det, (a * e - b * d) / det}; /* row-major */
	for (int col = 0; col < 3; col++) {
		for (int row = 0; row < 3; row++)
			out[col * 4 + row] = inv[row * 3 + col];
		out[col * 4 + 3] = 0;
	}
	for (int row = 0; row < 3; row++)
		out[12 + row] = -(inv[row * 3 + 0] * m[12] + inv[row * 3 + 1] * m[13] + inv[row * 3 + 2] * m[14]);
	out[15] = 1;
	return 1;
}

int author_quat_normalize(float q[4])
{
	double n = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
	if (!(n > 0) || !isfinite(n))
		return 0;
	for (int k = 0; k < 4; k++)
		q[k] = (float)(q[k] / n);
	return 1;
}

void author_quat_slerp(const float a[4], const float b[4], float u, float out[4])
{
	double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3];
	double sign = d < 0 ? -1.0 : 1.0;
	d = fabs(d);
	double wa, wb;
	if (d > 0.9995) { /* nearly parallel: linear blend, then normalize */
		wa = 1 - u;
		wb = u;
	} else {
		double th = acos(d), st = sin(th);
		wa = sin((1 - u) * th) / st;
		wb = sin(u * th) / st;
	}
	for (int k = 0; k < 4; k++)
		out[k] = (float)(wa * a[k] + sign * wb * b[k]);
	author_quat_normalize(out);
}

int author_finite(const float *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

hks_result author_base64_encode(hks_bytebuf *out, const uint8_t *data, size_t size)
{
	HKS_TRY(hks_bytebuf_reserve(out, (size + 2) / 3 * 4));
	for (size_t i = 0; i < size; i += 3) {
		uint32_t v = (uint32_t)data[i] << 16;
		if (i + 1 < size)
			v |= (uint32_t)data[i + 1] << 8;
		if (i + 2 < size)
			v |= data[i + 2];
		char q[4] = {b64[v >> 18], b64[(v >> 12) & 63], i + 1 < size ? b64[(v >> 6) & 63] : '=',
		             i + 2 < size ? b64[v & 63] : '='};
		HKS_TRY(hks_bytebuf_append(out, q, 4));
	}
	return HKS_OK;
}

static int b64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

hks_result author_base64_decode(hks_ctx *ctx, hks_arena *arena, const char *text, size_t len, uint8_t **out,
                                size_t *out_size)
{
	*out = NULL;
	*out_size = 0;
	while (len && text[len - 1] == '=')
		len--;
	if (len % 4 == 1)
		return hks_fail(ctx, HKS_E_MALFORMED, -1, "base64 data has a dangling character");
	size_t n = len / 4 * 3 + (len % 4 ? len % 4 - 1 : 0);
	uint8_t *p = (uint8_t *)hks_arena_alloc(arena, n + 1);
	if (!p)
		return ctx->err && ctx->err->code ? ctx->err->code : HKS_E_NOMEM;
	size_t o = 0;
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < len; i++) {
		int v = b64_value(text[i]);
		if (v < 0)
			return hks_fail(ctx, HKS_E_MALFORMED, -1, "base64 data: invalid character at position %zu", i);
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o < n)
				p[o++] = (uint8_t)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	*out = p;
	*out_size = o;
	return HKS_OK;
}
