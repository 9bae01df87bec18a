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

const char *author_mat_decompose(const double m[16], author_trs *out)
{
	/* glTF 2.0 §3.5.2: a node matrix is T·R·S, so it is affine and its 3x3
	 * part has orthogonal columns (no shear, §3.5.2 "MUST be decomposable").
	 * The tolerances absorb the f32 rounding of a written matrix (relative
	 * column errors ~1e-7); 1e-4 between unit columns is 0.006 degrees of shear. */
	for (int k = 0; k < 16; k++)
		if (!isfinite(m[k]))
			return "the matrix holds a non-finite number";
	if (fabs(m[3]) > 1e-6 || fabs(m[7]) > 1e-6 || fabs(m[11]) > 1e-6 || fabs(m[15] - 1) > 1e-6)
		return "the matrix is not affine (its last row is not 0 0 0 1)";
	double col[3][3], len[3];
	for (int c = 0; c < 3; c++) {
		for (int k = 0; k < 3; k++)
			col[c][k] = m[c * 4 + k];
		len[c] = sqrt(col[c][0] * col[c][0] + col[c][1] * col[c][1] + col[c][2] * col[c][2]);
		if (!(len[c] > 1e-20))
			return "the matrix is singular (a zero scale has no rotation)";
		for (int k = 0; k < 3; k++)
			col[c][k] /= len[c];
	}
	for (int a = 0; a < 3; a++)
		for (int b = a + 1; b < 3; b++)
			if (fabs(col[a][0] * col[b][0] + col[a][1] * col[b][1] + col[a][2] * col[b][2]) > 1e-4)
				return "the matrix has shear (its columns are not orthogonal)";
	double det = col[0][0] * (col[1][1] * col[2][2] - col[1][2] * col[2][1]) -
	             col[1][0] * (col[0][1] * col[2][2] - col[0][2] * col[2][1]) +
	             col[2][0] * (col[0][1] * col[1][2] - col[0][2] * col[1][1]);
	double sign = det < 0 ? -1.0 : 1.0; /* a mirror: negate every scale, keep R proper */
	for (int c = 0; c < 3; c++) {
		out->s[c] = sign * len[c];
		for (int k = 0; k < 3; k++)
			col[c][k] *= sign;
	}
	out->t[0] = m[12];
	out->t[1] = m[13];
	out->t[2] = m[14];
	/* quaternion of the rotation R (R[row][c] = col[c][row]), branch on the
	 * largest of trace and diagonal for accuracy (Shepperd's method) */
	double r00 = col[0][0], r11 = col[1][1], r22 = col[2][2], tr = r00 + r11 + r22, q[4];
	if (tr > 0) {
		double w4 = 2 * sqrt(tr + 1);
		q[3] = w4 / 4;
		q[0] = (col[1][2] - col[2][1]) / w4;
		q[1] = (col[2][0] - col[0][2]) / w4;
		q[2] = (col[0][1] - col[1][0]) / w4;
	} else if (r00 > r11 && r00 > r22) {
		double x4 = 2 * sqrt(1 + r00 - r11 - r22);
		q[3] = (col[1][2] - col[2][1]) / x4;
		q[0] = x4 / 4;
		q[1] = (col[1][0] + col[0][1]) / x4;
		q[2] = (col[2][0] + col[0][2]) / x4;
	} else if (r11 > r22) {
		double y4 = 2 * sqrt(1 + r11 - r00 - r22);
		q[3] = (col[2][0] - col[0][2]) / y4;
		q[0] = (col[1][0] + col[0][1]) / y4;
		q[1] = y4 / 4;
		q[2] = (col[2][1] + col[1][2]) / y4;
	} else {
		double z4 = 2 * sqrt(1 + r22 - r00 - r11);
		q[3] = (col[0][1] - col[1][0]) / z4;
		q[0] = (col[2][0] + col[0][2]) / z4;
		q[1] = (col[2][1] + col[1][2]) / z4;
		q[2] = z4 / 4;
	}
	double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	double qs = q[3] < 0 ? -1.0 / n : 1.0 / n; /* w >= 0: one of the two equal quaternions, always the same */
	for (int k = 0; k < 4; k++)
		out->r[k] = q[k] * qs;
	return NULL;
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
	/* Strict RFC 4648 §4: groups of 4 characters of the standard alphabet,
	 * '=' padding only at the very end (0-2 characters), no whitespace, and
	 * the bits a padded group leaves unused must be zero (§3.5 canonical
	 * encoding). Anything else is a damaged or non-base64 payload. */
	*out = NULL;
	*out_size = 0;
	if (len % 4 != 0)
		return hks_fail(ctx, HKS_E_MALFORMED, -1, "base64 data of %zu characters (a multiple of 4 with padding is required)",
		                len);
	size_t pad = 0;
	while (pad < len && pad < 3 && text[len - 1 - pad] == '=')
		pad++;
	if (pad > 2)
		return hks_fail(ctx, HKS_E_MALFORMED, -1, "base64 data ends in more than 2 padding characters");
	size_t n = len / 4 * 3 - pad;
	uint8_t *p = (uint8_t *)hks_arena_alloc(arena, n + 1);
	if (!p)
		return ctx->err && ctx->err->code ? ctx->err->code : HKS_E_NOMEM;
	size_t o = 0, chars = len - pad;
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < chars; i++) {
		int v = b64_value(text[i]);
		if (v < 0)
			return hks_fail(ctx, HKS_E_MALFORMED, -1, "base64 data: invalid character 0x%02x at position %zu",
			                (unsigned)(unsigned char)text[i], i);
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			p[o++] = (uint8_t)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	if (acc != 0)
		return hks_fail(ctx, HKS_E_MALFORMED, -1, "base64 data: the padding bits of the last group are not zero");
	*out = p;
	*out_size = o;
	return HKS_OK;
}

/* ---- double quaternions (x, y, z, w), for the rest-pose correction ---- */

void author_qmul(const double a[4], const double b[4], double out[4])
{
	double r[4];
	r[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
	r[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
	r[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
	r[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
	memcpy(out, r, sizeof(r));
}

void author_qconj(const double a[4], double out[4])
{
	out[0] = -a[0];
	out[1] = -a[1];
	out[2] = -a[2];
	out[3] = a[3];
}

void author_qnormalize(double q[4])
{
	double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	if (!(n > 0) || !isfinite(n)) {
		q[0] = q[1] = q[2] = 0;
		q[3] = 1;
		return;
	}
	for (int k = 0; k < 4; k++)
		q[k] /= n;
}

void author_qrotate(const double q[4], const double v[3], double out[3])
{
	/* v' = v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z) */
	double cx = q[1] * v[2] - q[2] * v[1], cy = q[2] * v[0] - q[0] * v[2], cz = q[0] * v[1] - q[1] * v[0];
	double r[3] = {v[0] + 2 * (q[3] * cx + q[1] * cz - q[2] * cy), v[1] + 2 * (q[3] * cy + q[2] * cx - q[0] * cz),
	               v[2] + 2 * (q[3] * cz + q[0] * cy - q[1] * cx)};
	memcpy(out, r, sizeof(r));
}

void author_qmatrix(const double q[4], double m[3][3])
{
	double x = q[0], y = q[1], z = q[2], w = q[3];
	m[0][0] = 1 - 2 * (y * y + z * z);
	m[0][1] = 2 * (x * y - z * w);
	m[0][2] = 2 * (x * z + y * w);
	m[1][0] = 2 * (x * y + z * w);
	m[1][1] = 1 - 2 * (x * x + z * z);
	m[1][2] = 2 * (y * z - x * w);
	m[2][0] = 2 * (x * z - y * w);
	m[2][1] = 2 * (y * z + x * w);
	m[2][2] = 1 - 2 * (x * x + y * y);
}

double author_qangle(const double q[4])
{
	double v = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
	return 2 * atan2(v, fabs(q[3]));
}
