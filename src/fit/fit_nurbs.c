/*
 * The NURBS Book (Piegl & Tiller, 2nd ed.) algorithms the fitter needs, in f32
 * with the operation order of ENCODER.md §4 / §7: A2.1 span search, A2.2 and
 * A2.4 basis functions, curve point, A9.8 removal bound, A5.8 knot removal,
 * A5.9 degree elevation, and the knot-vector raise / lower of §7.5.
 *
 * Written from the book's pseudo-code and ENCODER.md; the variable names
 * follow the book so the two can be read side by side.
 */
#include "fit.h"

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

/* ---- A2.1 ---------------------------------------------------------------- */

int hks_nurbs_find_span(int n, int p, float u, const float *U)
{
	/* ENCODER.md §7.8 / FORMAT.md §4.4: both end guards, then the book's search. */
	if (u >= U[n + 1])
		return n;
	if (u <= U[p])
		return p;
	int low = p, high = n + 1;
	int mid = (low + high) / 2;
	/* Invariant low <= mid < high; every step shrinks [low, high), so the loop ends even
	 * for NaN (the condition is then false at once, as in the book) or unsorted knots. */
	while (u < U[mid] || u >= U[mid + 1]) {
		if (u < U[mid])
			high = mid;
		else
			low = mid;
		int next = (low + high) / 2;
		if (next == mid)
			break;
		mid = next;
	}
	return mid;
}

bool hks_nurbs_span_knots_sorted(int n, int p, const float *U)
{
	for (int k = p; k <= n + 1; k++)
		if (!(U[k] == U[k]) || (k > p && !(U[k] >= U[k - 1])))
			return false;
	return true;
}

int hks_nurbs_find_span_near(int n, int p, float u, const float *U, int hint, bool sorted)
{
	if (!sorted || u != u)
		return hks_nurbs_find_span(n, p, u, U);
	if (u >= U[n + 1])
		return n;
	if (u <= U[p])
		return p;
	/* U[p] < u < U[n + 1] with sorted knots: the one s in [p, n] with U[s] <= u < U[s + 1] */
	int s = hint < p ? p : hint > n ? n : hint;
	while (u < U[s])
		s--;
	while (u >= U[s + 1])
		s++;
	return s;
}

/* ---- A2.2 ---------------------------------------------------------------- */

void hks_nurbs_basis_funs(int span, float u, int p, const float *U, float *N)
{
	/* FORMAT.md §4.5: the Cox–de Boor triangle with true division. */
	float left[HKS_FIT_MAX_DEGREE + 1], right[HKS_FIT_MAX_DEGREE + 1];
	N[0] = 1.0f;
	for (int j = 1; j <= p; j++) {
		left[j] = u - U[span + 1 - j];
		right[j] = U[span + j] - u;
		float saved = 0.0f;
		for (int r = 0; r < j; r++) {
			float temp = N[r] / (right[r + 1] + left[j - r]);
			N[r] = saved + right[r + 1] * temp;
			saved = left[j - r] * temp;
		}
		N[j] = saved;
	}
}

/* ---- A2.4 ---------------------------------------------------------------- */

float hks_nurbs_one_basis(int p, int K, const float *U, int i, float u)
{
	/* The two end special cases and the half-open support test (ENCODER.md §7.3). */
	if ((i == 0 && u == U[0]) || (i == K - p - 1 && u == U[K]))
		return 1.0f;
	if (u < U[i] || u >= U[i + p + 1])
		return 0.0f;
	float N[HKS_FIT_MAX_DEGREE + 1] = {0};
	for (int j = 0; j <= p; j++)
		N[j] = (u >= U[i + j] && u < U[i + j + 1]) ? 1.0f : 0.0f;
	for (int k = 1; k <= p; k++) {
		float saved;
		if (N[0] == 0.0f)
			saved = 0.0f;
		else
			saved = ((u - U[i]) * N[0]) / (U[i + k] - U[i]);
		for (int j = 0; j < p - k + 1; j++) {
			float Uleft = U[i + j + 1];
			float Uright = U[i + j + k + 1];
			if (N[j + 1] == 0.0f) {
				N[j] = saved;
				saved = 0.0f;
			} else {
				float temp = N[j + 1] / (Uright - Uleft);
				N[j] = saved + (Uright - u) * temp;
				saved = (u - Uleft) * temp;
			}
		}
	}
	return N[0];
}

/* hks_nurbs_one_basis at u[0 .. 3]: with SSE2 the four parameters go through A2.4 side by side, every lane
 * with the scalar code's f32 operations in its order; its branches become masks (a lane the scalar code
 * would not compute takes the scalar result, +0 or 1, and the value computed there is dropped). */
void hks_nurbs_one_basis4(int p, int K, const float *U, int i, const float *u4, float *out)
{
#if defined(__SSE2__)
	const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
	__m128 u = _mm_loadu_ps(u4);
	__m128 end = zero; /* the two end special cases */
	if (i == 0)
		end = _mm_cmpeq_ps(u, _mm_set1_ps(U[0]));
	if (i == K - p - 1)
		end = _mm_or_ps(end, _mm_cmpeq_ps(u, _mm_set1_ps(U[K])));
	__m128 outside = _mm_or_ps(_mm_cmplt_ps(u, _mm_set1_ps(U[i])), _mm_cmpge_ps(u, _mm_set1_ps(U[i + p + 1])));
	__m128 N[HKS_FIT_MAX_DEGREE + 1] = {zero, zero, zero, zero};
	for (int j = 0; j <= p; j++)
		N[j] = _mm_and_ps(_mm_and_ps(_mm_cmpge_ps(u, _mm_set1_ps(U[i + j])), _mm_cmplt_ps(u, _mm_set1_ps(U[i + j + 1]))),
		                  one);
	for (int k = 1; k <= p; k++) {
		__m128 sv = _mm_div_ps(_mm_mul_ps(_mm_sub_ps(u, _mm_set1_ps(U[i])), N[0]), _mm_set1_ps(U[i + k] - U[i]));
		__m128 saved = _mm_andnot_ps(_mm_cmpeq_ps(N[0], zero), sv);
		for (int j = 0; j < p - k + 1; j++) {
			float Uleft = U[i + j + 1];
			float Uright = U[i + j + k + 1];
			__m128 temp = _mm_div_ps(N[j + 1], _mm_set1_ps(Uright - Uleft));
			__m128 nj = _mm_add_ps(saved, _mm_mul_ps(_mm_sub_ps(_mm_set1_ps(Uright), u), temp));
			__m128 sj = _mm_mul_ps(_mm_sub_ps(u, _mm_set1_ps(Uleft)), temp);
			__m128 z = _mm_cmpeq_ps(N[j + 1], zero);
			N[j] = _mm_or_ps(_mm_and_ps(z, saved), _mm_andnot_ps(z, nj));
			saved = _mm_andnot_ps(z, sj);
		}
	}
	__m128 r = _mm_andnot_ps(outside, N[0]);
	r = _mm_or_ps(_mm_and_ps(end, one), _mm_andnot_ps(end, r));
	_mm_storeu_ps(out, r);
#else
	for (int k = 0; k < 4; k++)
		out[k] = hks_nurbs_one_basis(p, K, U, i, u4[k]);
#endif
}

/* ---- curve point (ENCODER.md §7.8) ---------------------------------------- */

hks_fit_v4 hks_nurbs_curve_point(int n, int p, const float *U, const hks_fit_v4 *P, float u)
{
	return hks_nurbs_curve_point_in(p, U, P, u, hks_nurbs_find_span(n, p, u, U));
}

hks_fit_v4 hks_nurbs_curve_point_in(int p, const float *U, const hks_fit_v4 *P, float u, int span)
{
	float N[HKS_FIT_MAX_DEGREE + 1];
	hks_nurbs_basis_funs(span, u, p, U, N);
	hks_fit_v4 C = hks_fit_v4_scale(N[0], P[span - p]);
	for (int j = 1; j <= p; j++)
		C = hks_fit_v4_add(C, hks_fit_v4_scale(N[j], P[span - p + j]));
	return C;
}

int hks_nurbs_multiplicity(int K, const float *U, int r)
{
	int s = 1;
	for (int k = r - 1; k >= 0 && U[k] == U[r]; k--)
		s++;
	for (int k = r + 1; k <= K && U[k] == U[r]; k++)
		s++;
	return s;
}

/* α = a / b, as a true division or as a · (1/b): ENCODER.md §7.3 leaves it open [U]. */
static inline float alpha_div(float a, float b, bool reciprocal)
{
	if (reciprocal) {
		float inv = 1.0f / b;
		return a * inv;
	}
	return a / b;
}

/* (X − c·Y) ÷ d with ÷ as multiplication by 1/d (ENCODER.md §7.4). */
static inline hks_fit_v4 sub_scaled_div(hks_fit_v4 X, float c, hks_fit_v4 Y, float d)
{
	return hks_fit_v4_div(hks_fit_v4_sub(X, hks_fit_v4_scale(c, Y)), d);
}

/* ---- A9.8 ---------------------------------------------------------------- */

float hks_nurbs_removal_bound(int n, int p, const float *U, const hks_fit_v4 *P, int r, int s,
                              bool alpha_reciprocal)
{
	(void)n;
	hks_fit_v4 temp[2 * HKS_FIT_MAX_DEGREE + 3];
	float u = U[r];
	int first = r - p, last = r - s, off = first - 1;
	temp[0] = P[off];
	temp[last + 1 - off] = P[last + 1];
	int i = first, j = last, ii = 1, jj = last - off;
	while (j - i > 0) {
		float ai = alpha_div(u - U[i], U[i + p + 1] - U[i], alpha_reciprocal);
		float aj = alpha_div(u - U[j], U[j + p + 1] - U[j], alpha_reciprocal);
		temp[ii] = sub_scaled_div(P[i], 1.0f - ai, temp[ii - 1], ai);
		temp[jj] = sub_scaled_div(P[j], aj, temp[jj + 1], 1.0f - aj);
		i++;
		ii++;
		j--;
		jj--;
	}
	if (j - i < 0)
		return hks_fit_dist(temp[ii - 1], temp[jj + 1]);
	float ai = alpha_div(u - U[i], U[i + p + 1] - U[i], alpha_reciprocal);
	return hks_fit_dist(P[i], hks_fit_v4_mix(ai, temp[ii + 1], temp[ii - 1]));
}

/* ---- A5.8 ---------------------------------------------------------------- */

int hks_nurbs_remove_knot(int n, int p, float *U, hks_fit_v4 *P, int r, int s, int num, float tol,
                          bool alpha_reciprocal)
{
	hks_fit_v4 temp[2 * HKS_FIT_MAX_DEGREE + 3];
	float u = U[r];
	int m = n + p + 1, ord = p + 1;
	int fout = (2 * r - s - p) / 2; /* first control point out */
	int last = r - s, first = r - p;
	int t;
	/* The book's loop never removes more copies than the knot has; nor may we, for memory. */
	if (num > s)
		num = s;
	for (t = 0; t < num; t++) {
		/* The book assumes the removal window stays inside P; keep it so for any input. */
		if (first - 1 < 0 || last + 1 > n)
			break;
		int off = first - 1;
		temp[0] = P[off];
		temp[last + 1 - off] = P[last + 1];
		int i = first, j = last, ii = 1, jj = last - off;
		bool remflag = false;
		while (j - i > t) {
			float ai = alpha_div(u - U[i], U[i + ord + t] - U[i], alpha_reciprocal);
			float aj = alpha_div(u - U[j - t], U[j + ord] - U[j - t], alpha_reciprocal);
			temp[ii] = sub_scaled_div(P[i], 1.0f - ai, temp[ii - 1], ai);
			temp[jj] = sub_scaled_div(P[j], aj, temp[jj + 1], 1.0f - aj);
			i++;
			ii++;
			j--;
			jj--;
		}
		if (j - i < t) {
			if (hks_fit_dist(temp[ii - 1], temp[jj + 1]) <= tol)
				remflag = true;
		} else {
			float ai = alpha_div(u - U[i], U[i + ord + t] - U[i], alpha_reciprocal);
			if (hks_fit_dist(P[i], hks_fit_v4_mix(ai, temp[ii + t + 1], temp[ii - 1])) <= tol)
				remflag = true;
		}
		if (!remflag)
			break;
		i = first;
		j = last;
		while (j - i > t) {
			P[i] = temp[i - off];
			P[j] = temp[j - off];
			i++;
			j--;
		}
		first--;
		last++;
	}
	if (t == 0)
		return 0;
	for (int k = r + 1; k <= m; k++)
		U[k - t] = U[k];
	int j = fout, i = j;
	for (int k = 1; k < t; k++) {
		if (k % 2 == 1)
			i++;
		else
			j--;
	}
	for (int k = i + 1; k <= n; k++) {
		P[j] = P[k];
		j++;
	}
	return t;
}

/* ---- A5.9 ---------------------------------------------------------------- */

static int binomial(int a, int b)
{
	if (b < 0 || b > a)
		return 0;
	int c = 1;
	for (int k = 1; k <= b; k++)
		c = c * (a - b + k) / k;
	return c;
}

int hks_nurbs_elevate(int n, int p, const float *U, const hks_fit_v4 *P, int t, float *Uh, hks_fit_v4 *Qw)
{
	enum { D = HKS_FIT_MAX_DEGREE + 1 };
	float bezalfs[D][D];
	hks_fit_v4 bpts[D], ebpts[D], Nextbpts[D];
	float alfs[D];
	int m = n + p + 1, ph = p + t, ph2 = ph / 2;

	/* Bézier elevation coefficients, ENCODER.md §7.7: (C(p,j) · (1/C(ph,i))) · C(t,i−j). */
	for (int i = 0; i < D; i++)
		for (int j = 0; j < D; j++)
			bezalfs[i][j] = 0.0f;
	bezalfs[0][0] = 1.0f;
	bezalfs[ph][p] = 1.0f;
	for (int i = 1; i <= ph2; i++) {
		float inv = 1.0f / (float)binomial(ph, i);
		int mpi = p < i ? p : i;
		for (int j = (i - t > 0 ? i - t : 0); j <= mpi; j++)
			bezalfs[i][j] = ((float)binomial(p, j) * inv) * (float)binomial(t, i - j);
	}
	for (int i = ph2 + 1; i <= ph - 1; i++) {
		int mpi = p < i ? p : i;
		for (int j = (i - t > 0 ? i - t : 0); j <= mpi; j++)
			bezalfs[i][j] = bezalfs[ph - i][p - j];
	}

	int mh = ph, kind = ph + 1;
	int r = -1, a = p, b = p + 1, cind = 1;
	float ua = U[0];
	Qw[0] = P[0];
	for (int i = 0; i <= ph; i++)
		Uh[i] = ua;
	for (int i = 0; i <= p; i++)
		bpts[i] = P[i];
	while (b < m) {
		int i = b;
		while (b < m && U[b] == U[b + 1])
			b++;
		int mul = b - i + 1;
		mh = mh + mul + t;
		float ubv = U[b];
		int oldr = r;
		r = p - mul;
		int lbz = oldr > 0 ? (oldr + 2) / 2 : 1;
		int rbz = r > 0 ? ph - (r + 1) / 2 : ph;
		if (r > 0) {
			/* Insert knot ubv r times; alfs by true division (§7.7). */
			float numer = ubv - ua;
			for (int k = p; k > mul; k--)
				alfs[k - mul - 1] = numer / (U[a + k] - ua);
			for (int j = 1; j <= r; j++) {
				int save = r - j, s = mul + j;
				for (int k = p; k >= s; k--)
					bpts[k] = hks_fit_v4_mix(alfs[k - s], bpts[k], bpts[k - 1]);
				Nextbpts[save] = bpts[p];
			}
		}
		for (int ei = lbz; ei <= ph; ei++) {
			/* Elevated Bézier points accumulated from zero in j order (§7.7). */
			ebpts[ei] = hks_fit_v4_zero();
			int mpi = p < ei ? p : ei;
			for (int j = (ei - t > 0 ? ei - t : 0); j <= mpi; j++)
				ebpts[ei] = hks_fit_v4_add(ebpts[ei], hks_fit_v4_scale(bezalfs[ei][j], bpts[j]));
		}
		if (oldr > 1) {
			/* Remove knot ua oldr − 1 times. Only reachable from degree >= 3 (§7.7):
			 * 1/(ub − ua) computed once and multiplied, for bet and gam. */
			int first = kind - 2, last = kind;
			float inv_den = 1.0f / (ubv - ua);
			float bet = (ubv - Uh[kind - 1]) * inv_den;
			for (int tr = 1; tr < oldr; tr++) {
				int ri = first, rj = last, kj = rj - kind + 1;
				while (rj - ri > tr) {
					if (ri < cind) {
						float alf = (ubv - Uh[ri]) / (ua - Uh[ri]);
						Qw[ri] = hks_fit_v4_mix(alf, Qw[ri], Qw[ri - 1]);
					}
					if (rj >= lbz) {
						if (rj - tr <= kind - ph + oldr) {
							float gam = (ubv - Uh[rj - tr]) * inv_den;
							ebpts[kj] = hks_fit_v4_mix(gam, ebpts[kj], ebpts[kj + 1]);
						} else {
							ebpts[kj] = hks_fit_v4_mix(bet, ebpts[kj], ebpts[kj + 1]);
						}
					}
					ri++;
					rj--;
					kj--;
				}
				first--;
				last++;
			}
		}
		if (a != p)
			for (int k = 0; k < ph - oldr; k++) {
				Uh[kind] = ua;
				kind++;
			}
		for (int j = lbz; j <= rbz; j++) {
			Qw[cind] = ebpts[j];
			cind++;
		}
		if (b < m) {
			for (int j = 0; j < r; j++)
				bpts[j] = Nextbpts[j];
			for (int j = r; j <= p; j++)
				bpts[j] = P[b - p + j];
			a = b;
			b++;
			ua = ubv;
		} else {
			for (int k = 0; k <= ph; k++)
				Uh[kind + k] = ubv;
		}
	}
	/* mh is the last index of Uh, so the last control point index is mh − ph − 1. */
	return mh - ph - 1;
}

/* ---- §7.5 ------------------------------------------------------------------ */

int hks_nurbs_distinct(int K, const float *U)
{
	int d = K >= 0 ? 1 : 0;
	for (int k = 1; k <= K; k++)
		if (U[k] != U[k - 1])
			d++;
	return d;
}

int hks_nurbs_raise_knot_vector(int K, float *U)
{
	/* Working from the back: every run gains one copy. */
	int d = hks_nurbs_distinct(K, U);
	int dst = K + d; /* new last index */
	for (int k = K; k >= 0; k--) {
		bool run_end = (k == K) || (U[k + 1] != U[k]);
		U[dst--] = U[k];
		if (run_end)
			U[dst--] = U[k];
	}
	return K + d;
}

int hks_nurbs_lower_knot_vector(int K, float *U)
{
	int dst = 0;
	for (int k = 0; k <= K; k++) {
		bool run_end = (k == K) || (U[k + 1] != U[k]);
		if (!run_end) /* a run of length L keeps L − 1 copies; a single value vanishes */
			U[dst++] = U[k];
	}
	return dst - 1;
}
