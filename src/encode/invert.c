/*
 * The inverter's frame analysis (invert.h, docs/RECORD.md "Inversion").
 */
#include "invert.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static uint32_t bits_of(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static float from_bits(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

float hks_invert_ulp_step(float x, int dir)
{
	if (!isfinite(x))
		return x;
	uint32_t u = bits_of(x);
	if ((u & 0x7FFFFFFFu) == 0) /* ±0 */
		return from_bits(dir > 0 ? 0x00000001u : 0x80000001u);
	int up = (dir > 0) == !(u >> 31); /* away from zero */
	return from_bits(up ? u + 1 : u - 1);
}

uint8_t hks_invert_classify(const float *v, uint32_t owned, unsigned lanes, float identity, uint8_t cls[3],
                            float static_value[3])
{
	uint8_t mask = 0;
	uint32_t id = bits_of(identity);
	for (unsigned l = 0; l < lanes; l++) {
		uint32_t first = bits_of(v[l]);
		int same = 1;
		for (uint32_t f = 1; f < owned && same; f++)
			same = bits_of(v[(size_t)f * lanes + l]) == first;
		static_value[l] = v[l];
		if (same && first == id) {
			cls[l] = HKS_INV_ABSENT;
		} else if (same) {
			cls[l] = HKS_INV_STATIC;
			mask |= (uint8_t)(1u << l);
		} else {
			cls[l] = HKS_INV_SPLINE;
			mask |= (uint8_t)(0x10u << l);
		}
	}
	return mask;
}

/* One f32 ulp of lane l's largest finite magnitude over nf frames (2^(e − 24) for a magnitude in
 * [2^(e−1), 2^e)); a lane of zeros counts as 1e-30. */
static double lane_ulp(const float *v, uint32_t nf, unsigned lanes, unsigned l)
{
	float big = 0.0f;
	for (uint32_t f = 0; f < nf; f++) {
		float a = fabsf(v[(size_t)f * lanes + l]);
		if (a > big && isfinite(a))
			big = a;
	}
	int e;
	frexpf(big > 0.0f ? big : 1e-30f, &e);
	return ldexp(1.0, e - 24);
}

unsigned hks_invert_knots1(const float *v, uint32_t nf, uint32_t owned, unsigned lanes, const uint8_t *active,
                           float ulps, const float *edge, uint8_t *knots)
{
	if (nf < 2 || nf > HKS_INVERT_MAX_FRAMES)
		return 0;
	float thr[4] = {0, 0, 0, 0};
	for (unsigned l = 0; l < lanes; l++)
		thr[l] = ulps * (float)lane_ulp(v, nf, lanes, l);
	unsigned n = 0;
	knots[n++] = 0;
	knots[n++] = 0;
	for (uint32_t f = 1; f + 1 < nf; f++) {
		int knot = 0;
		for (unsigned l = 0; l < lanes && !knot; l++) {
			if (!active[l])
				continue;
			double a = v[(size_t)(f - 1) * lanes + l], b = v[(size_t)f * lanes + l], c = v[(size_t)(f + 1) * lanes + l];
			double d2 = fabs(a - 2.0 * b + c);
			if (!(d2 <= (double)thr[l]))
				knot = 1; /* NaN too */
			if (knot && f + 1 >= owned && owned < nf && edge && !(d2 > (double)edge[l]))
				knot = 0;
		}
		if (knot)
			knots[n++] = (uint8_t)f;
	}
	knots[n++] = (uint8_t)(nf - 1);
	knots[n++] = (uint8_t)(nf - 1);
	return n - 2;
}

unsigned hks_invert_refine_knots1(const float *v, uint32_t nf, unsigned lanes, const uint8_t *active,
                                  const uint8_t *bad, uint8_t *knots, unsigned *n1)
{
	if (nf < 3 || nf > HKS_INVERT_MAX_FRAMES || *n1 < 2)
		return 0;
	double unit[4] = {1, 1, 1, 1};
	for (unsigned l = 0; l < lanes; l++)
		unit[l] = lane_ulp(v, nf, lanes, l);
	uint8_t out[HKS_INVERT_MAX_FRAMES + 2];
	unsigned n = 0, added = 0, count = *n1 + 2; /* knots: n1 + 2 for degree 1 */
	out[n++] = knots[0];
	for (unsigned i = 1; i < count; i++) {
		unsigned a = knots[i - 1], b = knots[i];
		int missed = 0;
		for (unsigned f = a; f <= b && f < nf; f++)
			missed |= bad[f] != 0;
		if (missed && b > a + 1) {
			unsigned best = 0;
			double bd = -1.0;
			for (unsigned f = a + 1; f < b; f++) {
				double d = 0.0;
				for (unsigned l = 0; l < lanes; l++) {
					if (!active[l])
						continue;
					double x = v[(size_t)(f - 1) * lanes + l], y = v[(size_t)f * lanes + l], z = v[(size_t)(f + 1) * lanes + l];
					double r = fabs(x - 2.0 * y + z) / unit[l];
					if (r != r)
						r = 1e300; /* NaN: a knot for sure */
					if (r > d)
						d = r;
				}
				if (d > bd) {
					bd = d;
					best = f;
				}
			}
			if (n + 1 < HKS_INVERT_MAX_FRAMES + 2) {
				out[n++] = (uint8_t)best;
				added++;
			}
		}
		out[n++] = (uint8_t)b;
	}
	if (!added)
		return 0;
	memcpy(knots, out, n);
	*n1 = n - 2;
	return added;
}

/* ---- degree 3 (docs/RECORD.md "Inversion", degree 3) --------------------- */

/* Span s (U[s] <= u < U[s+1]; the last non-empty span at the clamped end) and the deg + 1 non-zero basis
 * functions N[0..deg] of points s − deg .. s (Cox-de Boor, The NURBS Book A2.1/A2.2), in double. */
int hks_invert_basis(const uint8_t *U, unsigned n1, unsigned deg, double u, double N[4])
{
	return hks_invert_basis_from(U, n1, deg, u, N, (int)deg);
}

int hks_invert_basis_from(const uint8_t *U, unsigned n1, unsigned deg, double u, double N[4], int from)
{
	int n = (int)n1 - 1, p = (int)deg, s = n;
	if (u < (double)U[n + 1]) {
		/* the first span s >= p with u < U[s + 1]; the caller's `from` is at most that span */
		s = from > p ? from : p;
		while (s < n && !(u < (double)U[s + 1]))
			s++;
	}
	double left[4], right[4];
	N[0] = 1.0;
	for (int j = 1; j <= p; j++) {
		left[j] = u - (double)U[s + 1 - j];
		right[j] = (double)U[s + j] - u;
		double saved = 0.0;
		for (int r = 0; r < j; r++) {
			double den = right[r + 1] + left[j - r];
			double t = den != 0.0 ? N[r] / den : 0.0;
			N[r] = saved + right[r + 1] * t;
			saved = left[j - r] * t;
		}
		N[j] = saved;
	}
	return s;
}

int hks_invert_third_derivative(const uint8_t *U, unsigned s, double r[4])
{
	if (s < 3 || !(U[s + 1] > U[s]))
		return 0;
	/* the derivative control points of The NURBS Book eq. 3.8 (degree 3, 2, 1), as combinations of
	 * points s - 3 .. s; every denominator spans span s, so none is zero */
	double d1[3][4], d2[2][4];
	memset(d1, 0, sizeof(d1));
	for (unsigned j = 0; j < 3; j++) {
		double den = (double)U[s + j + 1] - (double)U[s + j - 2];
		d1[j][j + 1] = 3.0 / den;
		d1[j][j] = -3.0 / den;
	}
	for (unsigned j = 0; j < 2; j++) {
		double den = (double)U[s + j + 1] - (double)U[s + j - 1];
		for (unsigned k = 0; k < 4; k++)
			d2[j][k] = 2.0 * (d1[j + 1][k] - d1[j][k]) / den;
	}
	double h = (double)U[s + 1] - (double)U[s];
	for (unsigned k = 0; k < 4; k++)
		r[k] = (d2[1][k] - d2[0][k]) / h;
	return 1;
}

/* The span and basis values of the frames f0 .. f1 − 1 (index f − f0), exactly as hks_invert_basis_from gives
 * them one frame after the other (each span search starting from the previous frame's). With SSE2, two
 * frames go through Cox-de Boor side by side: per frame the same IEEE operations in the same order (a lane
 * of a packed division, product or sum is the scalar one, and the mask gives the scalar's +0 where a
 * denominator vanishes), so the values are bit for bit those of the scalar code, while the two frames'
 * chains of dependent divisions overlap; those chains are most of the knot search's basis time. */
static void basis_run(const uint8_t *U, unsigned n1, unsigned deg, uint32_t f0, uint32_t f1, double (*Nf)[4], int *sf)
{
	uint32_t f = f0;
	int s = (int)deg;
#if defined(__SSE2__)
	int n = (int)n1 - 1, p = (int)deg;
	const __m128d zero = _mm_setzero_pd();
	double Ud[HKS_INVERT_MAX_POINTS + 4]; /* the knots as doubles, converted once (exact: small integers) */
	for (int k = 0; f + 1 < f1 && k <= n + p; k++) /* the knots the loop below reads: U[0 .. n + p] */
		Ud[k] = (double)U[k];
	for (; f + 1 < f1; f += 2) {
		double lo[2][4], ro[2][4];
		for (unsigned k = 0; k < 2; k++) {
			double u = (double)(f + k);
			if (u < Ud[n + 1]) {
				s = s > p ? s : p;
				while (s < n && !(u < Ud[s + 1]))
					s++;
			} else {
				s = n;
			}
			sf[f + k - f0] = s;
			for (int j = 1; j <= p; j++) {
				lo[k][j] = u - Ud[s + 1 - j];
				ro[k][j] = Ud[s + j] - u;
			}
		}
		__m128d N[4], left[4], right[4];
		for (int j = 1; j <= p; j++) {
			left[j] = _mm_set_pd(lo[1][j], lo[0][j]);
			right[j] = _mm_set_pd(ro[1][j], ro[0][j]);
		}
		N[0] = _mm_set1_pd(1.0);
		for (int j = 1; j <= p; j++) {
			__m128d saved = zero;
			for (int r = 0; r < j; r++) {
				__m128d den = _mm_add_pd(right[r + 1], left[j - r]);
				__m128d t = _mm_and_pd(_mm_cmpneq_pd(den, zero), _mm_div_pd(N[r], den));
				N[r] = _mm_add_pd(saved, _mm_mul_pd(right[r + 1], t));
				saved = _mm_mul_pd(left[j - r], t);
			}
			N[j] = saved;
		}
		for (int a = 0; a <= p; a++) {
			_mm_storel_pd(&Nf[f - f0][a], N[a]);
			_mm_storeh_pd(&Nf[f + 1 - f0][a], N[a]);
		}
	}
#endif
	for (; f < f1; f++) {
		s = hks_invert_basis_from(U, n1, deg, (double)f, Nf[f - f0], s);
		sf[f - f0] = s;
	}
}

/* hks_invert_solve; when Nf / sf are given, the basis values and span of every frame f0 .. f1 − 1 are left
 * there (index f − f0) for the caller's residuals; when vd is given, it holds every frame's lanes as doubles
 * (vd[f], lanes past `lanes` 0), which the solve then reads instead of converting v's floats */
static int invert_solve(const uint8_t *U, unsigned n1, unsigned deg, const float *v, unsigned lanes, uint32_t f0,
                        uint32_t f1, double (*P)[4], uint8_t *visible, unsigned mode, double ridge, double (*Nf)[4],
                        int *sf, const double (*vd)[4]);

int hks_invert_solve(const uint8_t *U, unsigned n1, unsigned deg, const float *v, unsigned lanes, uint32_t f0,
                     uint32_t f1, double (*P)[4], uint8_t *visible, unsigned mode, double ridge)
{
	return invert_solve(U, n1, deg, v, lanes, f0, f1, P, visible, mode, ridge, NULL, NULL, NULL);
}

static int invert_solve(const uint8_t *U, unsigned n1, unsigned deg, const float *v, unsigned lanes, uint32_t f0,
                        uint32_t f1, double (*P)[4], uint8_t *visible, unsigned mode, double ridge, double (*Nf)[4],
                        int *sf, const double (*vd)[4])
{
#if !defined(__SSE2__)
	(void)vd; /* the converted frames serve the SSE2 sums only */
#endif
	if (n1 < deg + 1 || n1 > HKS_INVERT_MAX_POINTS || deg < 1 || deg > 3 || lanes > 4 || f1 <= f0 ||
	    f1 - f0 > HKS_INVERT_MAX_FRAMES)
		return 0;
	/* normal equations, band deg: A[i][d] = (NᵀN)[i][i + d] */
	static const double zero4[4] = {0, 0, 0, 0};
	double A[HKS_INVERT_MAX_POINTS][4], B[HKS_INVERT_MAX_POINTS][4], D[HKS_INVERT_MAX_POINTS];
	for (unsigned i = 0; i < n1; i++) {
		memcpy(A[i], zero4, sizeof(zero4));
		memcpy(B[i], zero4, sizeof(zero4));
		if (mode == 0)
			visible[i] = 1;
	}
	/* every frame's basis values and span first (frames ascend: so do their spans), into the caller's
	 * Nf / sf when given; then their sums */
	double own_N[HKS_INVERT_MAX_FRAMES][4];
	int own_s[HKS_INVERT_MAX_FRAMES];
	double (*NN)[4] = Nf ? Nf : own_N;
	int *ss = Nf ? sf : own_s;
	basis_run(U, n1, deg, f0, f1, NN, ss);
	for (uint32_t f = f0; f < f1; f++) {
		const double *N = NN[f - f0];
		int s = ss[f - f0];
#if defined(__SSE2__)
		/* two sums per instruction, each the scalar product then the scalar sum: the padding (basis values
		 * past deg, lanes past `lanes`) adds +0 to entries that are never read, and A and B hold no −0 for
		 * a +0 to change (A sums products of non-negative basis values; a sum is −0 only from two −0).
		 * The vectors are built in registers: a vector load of scalars just stored would wait for the
		 * stores (no store forwarding across them). The right-hand side r, lane by lane as below: the frame,
		 * less the fixed points' shares in order (lanes past `lanes` are never read). */
		const float *vf = v + (size_t)f * lanes;
		__m128d r01, r23;
		if (vd) { /* converted once by the caller, long before: loads that wait for no store */
			r01 = _mm_loadu_pd(vd[f]);
			r23 = _mm_loadu_pd(vd[f] + 2);
		} else {
			r01 = _mm_set_pd(lanes > 1 ? (double)vf[1] : 0.0, lanes > 0 ? (double)vf[0] : 0.0);
			r23 = _mm_set_pd(lanes > 3 ? (double)vf[3] : 0.0, lanes > 2 ? (double)vf[2] : 0.0);
		}
		for (unsigned a = 0; mode && a <= deg; a++)
			if (!visible[(unsigned)s - deg + a]) {
				const double *Pa = P[(unsigned)s - deg + a];
				__m128d na = _mm_set1_pd(N[a]);
				r01 = _mm_sub_pd(r01, _mm_mul_pd(na, _mm_loadu_pd(Pa)));
				r23 = _mm_sub_pd(r23, _mm_mul_pd(na, _mm_loadu_pd(Pa + 2)));
			}
		double Np[7];
		for (unsigned a = 0; a < 7; a++)
			Np[a] = a <= deg ? N[a] : 0.0;
		for (unsigned a = 0; a <= deg; a++) {
			unsigned i = (unsigned)s - deg + a;
			if (Np[a] == 0.0)
				continue;
			__m128d na = _mm_set1_pd(Np[a]);
			_mm_storeu_pd(A[i], _mm_add_pd(_mm_loadu_pd(A[i]), _mm_mul_pd(na, _mm_set_pd(Np[a + 1], Np[a]))));
			_mm_storeu_pd(A[i] + 2,
			              _mm_add_pd(_mm_loadu_pd(A[i] + 2), _mm_mul_pd(na, _mm_set_pd(Np[a + 3], Np[a + 2]))));
			_mm_storeu_pd(B[i], _mm_add_pd(_mm_loadu_pd(B[i]), _mm_mul_pd(na, r01)));
			_mm_storeu_pd(B[i] + 2, _mm_add_pd(_mm_loadu_pd(B[i] + 2), _mm_mul_pd(na, r23)));
		}
#else
		double r[4];
		for (unsigned l = 0; l < lanes; l++) {
			r[l] = (double)v[(size_t)f * lanes + l];
			for (unsigned a = 0; mode && a <= deg; a++)
				if (!visible[(unsigned)s - deg + a])
					r[l] -= N[a] * P[(unsigned)s - deg + a][l]; /* fixed points' share */
		}
		for (unsigned a = 0; a <= deg; a++) {
			unsigned i = (unsigned)s - deg + a;
			if (N[a] == 0.0)
				continue;
			for (unsigned b = a; b <= deg; b++)
				A[i][b - a] += N[a] * N[b];
			for (unsigned l = 0; l < lanes; l++)
				B[i][l] += N[a] * r[l];
		}
#endif
	}
	for (unsigned i = 0; i < n1; i++) {
		D[i] = A[i][0];
		A[i][0] += ridge;
		if (mode == 0 && !(D[i] > 0.0))
			visible[i] = 0; /* no fitted frame sees it */
	}
	/* banded Cholesky, A = LLᵀ, L(i, i − d) stored in A[i − d][d]. A fixed point's row and column are the
	 * identity; in mode 0 a point whose pivot vanishes (its column depends on the earlier ones at these
	 * frames) becomes fixed too, at 0 */
	for (unsigned i = 0; i < n1; i++) {
		if (!visible[i]) {
			for (unsigned d = 1; d <= deg && d <= i; d++)
				A[i - d][d] = 0.0;
			for (unsigned d = 1; d <= deg; d++)
				A[i][d] = 0.0;
			A[i][0] = 1.0;
			for (unsigned l = 0; l < 4; l++)
				B[i][l] = mode ? P[i][l] : 0.0;
			continue;
		}
		for (unsigned d = deg; d >= 1; d--) {
			if (d > i)
				continue;
			unsigned j = i - d; /* L(i, j) */
			double s = A[j][d];
			for (unsigned k = 1; k + d <= deg && k <= j; k++)
				s -= A[j - k][d + k] * A[j - k][k]; /* L(i, j−k) L(j, j−k) */
			A[j][d] = s / A[j][0];
		}
		double s = A[i][0];
		for (unsigned d = 1; d <= deg && d <= i; d++)
			s -= A[i - d][d] * A[i - d][d];
		if (!(s > 1e-9 * D[i] + ridge * 0.5)) {
			if (mode != 0 || ridge > 0.0)
				return 0;
			/* dependent: restart this row as fixed */
			visible[i] = 0;
			for (unsigned d = 1; d <= deg && d <= i; d++)
				A[i - d][d] = 0.0;
			for (unsigned d = 1; d <= deg; d++)
				A[i][d] = 0.0;
			A[i][0] = 1.0;
			for (unsigned l = 0; l < 4; l++)
				B[i][l] = 0.0;
			continue;
		}
		A[i][0] = sqrt(s);
	}
	/* forward and back substitution, the lanes side by side: each lane's operations are those of a
	 * lane-by-lane solve, in the same order, but the lanes' division chains overlap. The forward
	 * pass leaves y in B (row i is read only before it is overwritten). */
	int finite = 1;
#if defined(__SSE2__)
	/* two lanes per instruction (a packed operation's lane is the scalar operation); a pair's second lane
	 * past `lanes` computes garbage that is never stored or read */
	for (unsigned i = 0; i < n1; i++)
		for (unsigned l = 0; l < lanes; l += 2) {
			__m128d s = _mm_loadu_pd(&B[i][l]);
			for (unsigned d = 1; d <= deg && d <= i; d++)
				s = _mm_sub_pd(s, _mm_mul_pd(_mm_set1_pd(A[i - d][d]), _mm_loadu_pd(&B[i - d][l])));
			s = _mm_div_pd(s, _mm_set1_pd(A[i][0]));
			if (l + 1 < lanes)
				_mm_storeu_pd(&B[i][l], s);
			else
				_mm_storel_pd(&B[i][l], s);
		}
	for (unsigned i = n1; i-- > 0;)
		for (unsigned l = 0; l < lanes; l += 2) {
			__m128d s = _mm_loadu_pd(&B[i][l]);
			for (unsigned d = 1; d <= deg && i + d < n1; d++)
				s = _mm_sub_pd(s, _mm_mul_pd(_mm_set1_pd(A[i][d]), _mm_loadu_pd(&P[i + d][l])));
			s = _mm_div_pd(s, _mm_set1_pd(A[i][0]));
			_mm_storel_pd(&P[i][l], s);
			finite &= isfinite(P[i][l]) != 0;
			if (l + 1 < lanes) {
				_mm_storeh_pd(&P[i][l + 1], s);
				finite &= isfinite(P[i][l + 1]) != 0;
			}
		}
#else
	for (unsigned i = 0; i < n1; i++) {
		for (unsigned l = 0; l < lanes; l++) {
			double s = B[i][l];
			for (unsigned d = 1; d <= deg && d <= i; d++)
				s -= A[i - d][d] * B[i - d][l];
			B[i][l] = s / A[i][0];
		}
	}
	for (unsigned i = n1; i-- > 0;) {
		for (unsigned l = 0; l < lanes; l++) {
			double s = B[i][l];
			for (unsigned d = 1; d <= deg && i + d < n1; d++)
				s -= A[i][d] * P[i + d][l];
			P[i][l] = s / A[i][0];
			finite &= isfinite(P[i][l]) != 0;
		}
	}
#endif
	return finite;
}

/* N_i (degree p) is non-zero at the integer frame t (clamped integer knots, the sampler's conventions:
 * half-open spans, the last point is 1 at the last knot) */
static int basis_nonzero(const uint8_t *U, unsigned n1, unsigned p, unsigned i, uint32_t t)
{
	uint32_t a = U[i], b = U[i + p + 1];
	if (a < t && t < b)
		return 1;
	if (t == a && U[i + p] == a && a < b)
		return 1; /* the point at a C0 knot of full multiplicity p + 1 at the start: the clamped start */
	return t == b && i + 1 == n1 && a < b; /* the clamped end */
}

unsigned hks_invert_undetermined(const uint8_t *U, unsigned n1, unsigned deg, uint32_t owned)
{
	if (n1 < deg + 1 || n1 > HKS_INVERT_MAX_POINTS || deg < 1 || deg > 3 || owned > HKS_INVERT_MAX_FRAMES)
		return 0;
	/* B-spline collocation matrices are totally positive, so the rank at the frames is the largest number
	 * of points that can be given distinct frames in increasing order, each where its basis is non-zero
	 * (Schoenberg-Whitney). The supports' ends never decrease with i, so taking for each point the first
	 * free frame of its support finds that number. */
	unsigned matched = 0;
	uint32_t next = 0;
	for (unsigned i = 0; i < n1; i++) {
		uint32_t t = next > U[i] ? next : U[i];
		uint32_t end = U[i + deg + 1] < owned ? U[i + deg + 1] : owned - 1;
		for (; t <= end && t < owned; t++)
			if (basis_nonzero(U, n1, deg, i, t))
				break;
		if (t <= end && t < owned) {
			matched++;
			next = t + 1;
		}
	}
	return n1 - matched;
}

void hks_invert_hidden_points(const uint8_t *U, unsigned n1, unsigned deg, uint32_t frames, uint8_t *hidden)
{
	for (unsigned i = 0; i < n1; i++) {
		/* N_i is non-zero only at frames U[i] .. U[i + deg + 1] */
		uint32_t end = U[i + deg + 1] < frames ? U[i + deg + 1] : frames - 1, t = U[i];
		while (t <= end && !basis_nonzero(U, n1, deg, i, t))
			t++;
		hidden[i] = t > end;
	}
}

void hks_invert_fill(unsigned n1, unsigned lanes, const uint8_t *visible, const float *end_value,
                     double (*P)[4])
{
	unsigned i = 0;
	while (i < n1) {
		if (visible[i]) {
			i++;
			continue;
		}
		unsigned j = i;
		while (j < n1 && !visible[j])
			j++;
		/* run i .. j − 1 of invisible points, visible neighbours i − 1 and j (when they exist) */
		double a[4], z[4];
		unsigned steps = j - i + 1;
		for (unsigned l = 0; l < lanes; l++) {
			if (j == n1) { /* at the end: the next block's frame is the best guess of the last point */
				z[l] = end_value ? (double)end_value[l] : (i > 0 ? P[i - 1][l] : 0.0);
				a[l] = i > 0 ? P[i - 1][l] : z[l];
			} else {
				z[l] = P[j][l];
				a[l] = i > 0 ? P[i - 1][l] : z[l];
			}
		}
		if (j == n1)
			steps = j - i; /* the last point itself takes z */
		for (unsigned k = i; k < j; k++)
			for (unsigned l = 0; l < lanes; l++)
				P[k][l] = a[l] + (z[l] - a[l]) * (double)(k - i + 1) / (double)steps;
		i = j;
	}
}

/* one ulp of the largest finite magnitude of lane l, times ulps */
static double lane_thr(const float *v, uint32_t nf, unsigned lanes, unsigned l, float ulps)
{
	return (double)ulps * lane_ulp(v, nf, lanes, l);
}

#define KNOTS3_WINDOW 40
#define KNOTS3_CAP (3 * HKS_INVERT_MAX_FRAMES + 8)

typedef struct knots3_state {
	const float *v;
	uint32_t nf, nfit;
	unsigned lanes;
	const uint8_t *active;
	double thr[4];
	uint8_t mult[HKS_INVERT_MAX_FRAMES];
	uint32_t L; /* the last frame at which the curve is only C0 (a triple knot, or the start, or the window) */
	hks_invert_memo *memo;
	double vd[HKS_INVERT_MAX_FRAMES][4]; /* the frames' lanes as doubles, lanes past `lanes` 0 (last: not cleared) */
} knots3_state;

/* ---- the memo of window fits (invert.h) ---- */

/* Sizes: the largest unit of sekiro/c1050 and the binders used 1,336 windows and 11.8 KB of keys
 * (session 13); a full memo only stops taking windows. */
#define MEMO_SLOTS 4096u      /* a power of two; at most half of them filled */
#define MEMO_POOL (1u << 16)  /* key bytes */

typedef struct memo_entry {
	uint32_t gen, hash, key_at;
	uint16_t key_len;
	uint8_t solved;
	double res[4];
} memo_entry;

struct hks_invert_memo {
	uint32_t gen, count, pool_used;
	memo_entry e[MEMO_SLOTS];
	uint8_t pool[MEMO_POOL];
};

hks_invert_memo *hks_invert_memo_create(hks_ctx *ctx)
{
	hks_invert_memo *m = (hks_invert_memo *)hks_calloc(ctx, 1, sizeof(hks_invert_memo));
	if (m)
		m->gen = 1;
	return m;
}

void hks_invert_memo_free(hks_ctx *ctx, hks_invert_memo *m)
{
	if (m)
		hks_free(ctx, m, sizeof(*m));
}

void hks_invert_memo_reset(hks_invert_memo *m)
{
	if (!m)
		return;
	if (++m->gen == 0) { /* after 2^32 resets: clear the stale generations for real */
		memset(m->e, 0, sizeof(m->e));
		m->gen = 1;
	}
	m->count = 0;
	m->pool_used = 0;
}

/* The window's key: L, j, nfit − 1, lanes, then (k − L, multiplicity) of every knot strictly between L and
 * j: everything the window's solve and residuals depend on besides the frames (one unit's, per reset). */
static unsigned knots3_key(const knots3_state *st, uint32_t j, uint8_t *key)
{
	unsigned n = 0;
	key[n++] = (uint8_t)st->L;
	key[n++] = (uint8_t)j;
	key[n++] = (uint8_t)(st->nfit - 1);
	key[n++] = (uint8_t)st->lanes;
	for (uint32_t k = st->L + 1; k < j; k++)
		if (st->mult[k]) {
			key[n++] = (uint8_t)(k - st->L);
			key[n++] = st->mult[k];
		}
	return n;
}

/* The least squares fit of the frames L .. last on the window's knots (clamped at L and j, the decided
 * knots between) and, per lane, the largest |fit − frame| over those frames (NaN when any is NaN); 0 when
 * the solve fails. */
static int knots3_residuals(const knots3_state *st, uint32_t j, uint32_t last, double res[4])
{
	uint32_t L = st->L;
	uint8_t U[KNOTS3_CAP];
	double P[KNOTS3_CAP][4];
	uint8_t vis[KNOTS3_CAP];
	unsigned n = 0;
	for (unsigned c = 0; c < 4; c++)
		U[n++] = (uint8_t)L;
	for (uint32_t k = L + 1; k < j; k++)
		for (unsigned c = 0; c < st->mult[k]; c++)
			U[n++] = (uint8_t)k;
	for (unsigned c = 0; c < 4; c++)
		U[n++] = (uint8_t)j;
	unsigned n1 = n - 4;
	/* a short window can have fewer frames than points: a faint ridge gives the fit through them */
	double Nf[HKS_INVERT_MAX_FRAMES][4]; /* the solve's basis values, reused for the residuals */
	int sf[HKS_INVERT_MAX_FRAMES];
	for (unsigned l = 0; l < 4; l++)
		res[l] = 0.0;
	if (!invert_solve(U, n1, 3, st->v, st->lanes, L, last + 1, P, vis, 0, 1e-10, Nf, sf, st->vd))
		return 0;
#if defined(__SSE2__)
	/* two lanes per instruction: the scalar code's sums in its order (x = 0, then + N[a]·P[a] for a = 0..3),
	 * |x − v| by clearing the sign, the largest by maxpd (which keeps its second operand when the first is
	 * NaN) beside a NaN flag. Lanes past `lanes` compute garbage that nobody reads. */
	const __m128d zero = _mm_setzero_pd(), sign = _mm_set1_pd(-0.0);
	__m128d m01 = zero, m23 = zero, nan01 = zero, nan23 = zero;
	for (uint32_t f = L; f <= last; f++) {
		const double *N = Nf[f - L];
		unsigned s = (unsigned)sf[f - L];
		__m128d x01 = zero, x23 = zero;
		for (unsigned a = 0; a < 4; a++) {
			__m128d na = _mm_set1_pd(N[a]);
			x01 = _mm_add_pd(x01, _mm_mul_pd(na, _mm_loadu_pd(P[s - 3 + a])));
			x23 = _mm_add_pd(x23, _mm_mul_pd(na, _mm_loadu_pd(P[s - 3 + a] + 2)));
		}
		/* the frame's lanes as doubles (converted once per search, knots3_init) */
		__m128d w01 = _mm_loadu_pd(st->vd[f]), w23 = _mm_loadu_pd(st->vd[f] + 2);
		__m128d d01 = _mm_andnot_pd(sign, _mm_sub_pd(x01, w01));
		__m128d d23 = _mm_andnot_pd(sign, _mm_sub_pd(x23, w23));
		nan01 = _mm_or_pd(nan01, _mm_cmpunord_pd(d01, d01));
		nan23 = _mm_or_pd(nan23, _mm_cmpunord_pd(d23, d23));
		m01 = _mm_max_pd(d01, m01);
		m23 = _mm_max_pd(d23, m23);
	}
	double mx[4], nan[4];
	_mm_storeu_pd(mx, m01);
	_mm_storeu_pd(mx + 2, m23);
	_mm_storeu_pd(nan, nan01);
	_mm_storeu_pd(nan + 2, nan23);
	for (unsigned l = 0; l < st->lanes; l++) {
		uint64_t flag;
		memcpy(&flag, &nan[l], 8);
		res[l] = flag ? NAN : mx[l];
	}
#else
	for (uint32_t f = L; f <= last; f++) {
		const double *N = Nf[f - L];
		int s = sf[f - L];
		for (unsigned l = 0; l < st->lanes; l++) {
			double x = 0.0;
			for (unsigned a = 0; a < 4; a++)
				x += N[a] * P[(unsigned)s - 3 + a][l];
			double d = fabs(x - (double)st->v[(size_t)f * st->lanes + l]);
			if (res[l] == res[l] && !(d <= res[l])) /* a NaN stays */
				res[l] = d;
		}
	}
#endif
	return 1;
}

/* Do the frames L .. j (at most nfit − 1) fit a curve with the decided knots before j, clamped at L and j?
 * Every residual within the lane's bound, for each active lane (a NaN residual fails): the largest residual
 * decides it, so a window solved once answers every bound (the memo: the tries at 4 and 16 ulps and the
 * reduction go through many of the same windows). */
static int knots3_fits(const knots3_state *st, uint32_t j)
{
	uint32_t L = st->L, last = j < st->nfit - 1 ? j : st->nfit - 1;
	if (last <= L + 1)
		return 1;
	double res[4];
	int solved;
	hks_invert_memo *m = st->memo;
	if (m) {
		uint8_t key[4 + 2 * HKS_INVERT_MAX_FRAMES];
		unsigned n = knots3_key(st, j, key);
		uint32_t h = 2166136261u;
		for (unsigned i = 0; i < n; i++)
			h = (h ^ key[i]) * 16777619u;
		uint32_t slot = h & (MEMO_SLOTS - 1);
		memo_entry *e = NULL;
		for (;; slot = (slot + 1) & (MEMO_SLOTS - 1)) {
			e = &m->e[slot];
			if (e->gen != m->gen)
				break; /* empty: not known */
			if (e->hash == h && e->key_len == n && !memcmp(m->pool + e->key_at, key, n)) {
				if (!e->solved)
					return 0;
				for (unsigned l = 0; l < st->lanes; l++)
					if (st->active[l] && !(e->res[l] <= st->thr[l]))
						return 0;
				return 1;
			}
		}
		solved = knots3_residuals(st, j, last, res);
		if (m->count < MEMO_SLOTS / 2 && m->pool_used + n <= MEMO_POOL) {
			e->gen = m->gen;
			e->hash = h;
			e->key_at = m->pool_used;
			e->key_len = (uint16_t)n;
			e->solved = (uint8_t)solved;
			memcpy(e->res, res, sizeof(res));
			memcpy(m->pool + m->pool_used, key, n);
			m->pool_used += n;
			m->count++;
		}
	} else {
		solved = knots3_residuals(st, j, last, res);
	}
	if (!solved)
		return 0;
	for (unsigned l = 0; l < st->lanes; l++)
		if (st->active[l] && !(res[l] <= st->thr[l]))
			return 0;
	return 1;
}

/* The largest j >= j0 (at most nf − 1) with knots3_fits (fitting is monotone in j); j0 − 1 when none.
 * `known`: knots3_fits(j0) is already known to hold. */
static uint32_t knots3_extend_from(const knots3_state *st, uint32_t j0, int known)
{
	uint32_t top = st->nf - 1;
	if (j0 > top || (!known && !knots3_fits(st, j0)))
		return j0 - 1;
	uint32_t good = j0, step = 1;
	for (;;) { /* gallop */
		uint32_t t = good + step > top ? top : good + step;
		if (t == good)
			return good;
		if (!knots3_fits(st, t)) {
			uint32_t bad = t; /* bisect (good, bad) */
			while (bad - good > 1) {
				uint32_t mid = good + (bad - good) / 2;
				if (knots3_fits(st, mid))
					good = mid;
				else
					bad = mid;
			}
			return good;
		}
		good = t;
		step *= 2;
	}
}

static uint32_t knots3_extend(const knots3_state *st, uint32_t j0)
{
	return knots3_extend_from(st, j0, 0);
}

static void knots3_init(knots3_state *st, const float *v, uint32_t nf, uint32_t nfit, unsigned lanes,
                        const uint8_t *active, float ulps, hks_invert_memo *memo)
{
	memset(st, 0, offsetof(knots3_state, vd));
	for (uint32_t f = 0; f < nf; f++)
		for (unsigned l = 0; l < 4; l++)
			st->vd[f][l] = l < lanes ? (double)v[(size_t)f * lanes + l] : 0.0;
	st->memo = memo;
	st->v = v;
	st->nf = nf;
	st->nfit = nfit;
	st->lanes = lanes;
	st->active = active;
	for (unsigned l = 0; l < lanes; l++)
		st->thr[l] = lane_thr(v, nfit, lanes, l, ulps);
}

/* The clamped knot bytes of st's multiplicities (0 x4, each interior frame mult times, nf − 1 x4); returns
 * the control point count. */
static unsigned knots3_write(const knots3_state *st, uint8_t *knots)
{
	unsigned n = 0;
	for (unsigned c = 0; c < 4; c++)
		knots[n++] = 0;
	for (uint32_t j = 1; j + 1 < st->nf; j++)
		for (unsigned c = 0; c < st->mult[j]; c++)
			knots[n++] = (uint8_t)j;
	for (unsigned c = 0; c < 4; c++)
		knots[n++] = (uint8_t)(st->nf - 1);
	return n - 4;
}

unsigned hks_invert_knots3(const float *v, uint32_t nf, uint32_t nfit, unsigned lanes, const uint8_t *active,
                           float ulps, hks_invert_memo *memo, uint8_t *knots)
{
	if (nf < 4 || nf > HKS_INVERT_MAX_FRAMES || nfit < 2 || nfit > nf || lanes > 4)
		return 0;
	knots3_state st;
	knots3_init(&st, v, nf, nfit, lanes, active, ulps, memo);
	/* Segments: from the last knot K, the curve extends without a knot to the last frame J that still fits;
	 * the next knot sits at J, J − 1 or J − 2 with the multiplicity that then extends furthest (fewest
	 * copies among equals, then the latest position). */
	/* Fitting is monotone in the last frame, so a candidate that does not fit one frame beyond the
	 * best extension so far cannot win (ties go to the earlier candidate): one fit decides it, and
	 * only a candidate that beats the best is extended further. The winner's extension is the next
	 * segment's end when the window did not move: the same state, the same frames. */
	uint32_t K = 0, next_J = 0;
	int have_next = 0;
	for (;;) {
		uint32_t L_before = st.L;
		if (K - st.L > KNOTS3_WINDOW)
			st.L = K - KNOTS3_WINDOW;
		uint32_t J = have_next && st.L == L_before ? next_J : knots3_extend(&st, K + 1);
		have_next = 0;
		if (J >= nf - 1)
			break;
		uint32_t best_q = J, best_e = 0;
		unsigned best_m = 3;
		int have = 0;
		for (unsigned m = 1; m <= 3; m++)
			for (uint32_t q = J + 1; q-- > J - (J >= 2 ? 2 : J) && q > K;) {
				st.mult[q] = (uint8_t)m;
				uint32_t L0 = st.L;
				if (m == 3)
					st.L = q;
				uint32_t e;
				if (!have)
					e = knots3_extend(&st, J + 1);
				else if (best_e + 1 > nf - 1 || !knots3_fits(&st, best_e + 1))
					e = best_e; /* cannot beat the best */
				else
					e = knots3_extend_from(&st, best_e + 1, 1);
				st.L = L0;
				st.mult[q] = 0;
				if (!have || e > best_e) {
					have = 1;
					best_e = e;
					best_q = q;
					best_m = m;
				}
			}
		if (!have || best_q <= K)
			break;
		st.mult[best_q] = (uint8_t)best_m;
		if (best_m == 3)
			st.L = best_q;
		K = best_q;
		if (best_e > J) {
			next_J = best_e;
			have_next = 1;
		}
	}
	return knots3_write(&st, knots);
}

unsigned hks_invert_reduce_knots3(const float *v, uint32_t nf, uint32_t nfit, unsigned lanes, const uint8_t *active,
                                  float ulps, hks_invert_memo *memo, uint8_t *knots, unsigned *n1)
{
	if (nf < 4 || nf > HKS_INVERT_MAX_FRAMES || nfit < 2 || nfit > nf || lanes > 4 || *n1 < 4 ||
	    *n1 > HKS_INVERT_MAX_POINTS)
		return 0;
	knots3_state st;
	knots3_init(&st, v, nf, nfit, lanes, active, ulps, memo);
	for (unsigned k = 4; k < *n1; k++) { /* the interior knots */
		if (knots[k] == 0 || knots[k] >= nf - 1)
			return 0;
		st.mult[knots[k]]++;
	}
	/* each triple knot in turn (left to right) takes the fewest copies with which the frames from the
	 * C0 point before it to the C0 point after it still fit */
	unsigned reduced = 0;
	uint32_t L = 0;
	for (uint32_t f = 1; f + 1 < nf; f++) {
		if (st.mult[f] != 3)
			continue;
		uint32_t R = f + 1;
		while (R < nf - 1 && st.mult[R] != 3)
			R++;
		int kept = 0;
		for (uint8_t m = 1; m < 3 && !kept; m++) {
			st.mult[f] = m;
			st.L = L;
			kept = knots3_fits(&st, R);
		}
		if (kept) {
			reduced++;
		} else {
			st.mult[f] = 3;
			L = f;
		}
	}
	if (!reduced)
		return 0;
	*n1 = knots3_write(&st, knots);
	return reduced;
}

/* ---- one lane through the sampler's arithmetic ---------------------------- */

int hks_invert_lane_matches(const hks_stored_part *p, unsigned l, unsigned slot, const float *v, unsigned lanes,
                            uint32_t owned)
{
	unsigned n1 = p->num_control_points, deg = p->degree, n = n1 - 1;
	if (deg < 1 || deg > 3 || n1 < deg + 1 || n1 > HKS_INVERT_MAX_POINTS || !p->spline_lanes)
		return 1; /* not this lane search's parts: leave it to the sampler */
	float Uf[HKS_INVERT_MAX_POINTS + 4];
	for (unsigned k = 0; k < n1 + deg + 1; k++)
		Uf[k] = (float)p->knots[k];
	unsigned span = deg, done = 0; /* points dequantized so far */
	float P[HKS_INVERT_MAX_POINTS];
	for (uint32_t f = 0; f < owned; f++) {
		while (span < n && f >= p->knots[span + 1])
			span++;
		for (; done <= span; done++)
			P[done] = hks_dequantize_scalar_inline(p->quantization, p->control_points[(size_t)done * p->spline_lanes + slot],
			                                p->min[l], p->max[l]);
		float N[4];
		hks_sample_basis(deg, span, (float)f, Uf, N);
		const float *Q = P + span - deg;
		float c = N[0] * Q[0];
		for (unsigned j = 1; j <= deg; j++)
			c = c + N[j] * Q[j];
		if (hks_f32_bits(c) != hks_f32_bits(v[(size_t)f * lanes + l]))
			return 0;
	}
	return 1;
}

/* ---- lane integers (docs/RECORD.md "Inversion", lane search) ---------- */

#define LANE_DP_W 5
hks_result hks_invert_lane_integers(hks_ctx *ctx, const hks_stored_part *p, const float *v, unsigned lanes,
                                   uint32_t owned, unsigned l, unsigned slot, uint16_t *cp, int *found)
{
	static const int off[LANE_DP_W] = {0, -1, 1, -2, 2};
	static const uint8_t dist[LANE_DP_W] = {0, 1, 1, 2, 2};
	*found = 0;
	unsigned n1 = p->num_control_points, deg = p->degree, n = n1 - 1, top = p->quantization ? 65535u : 255u;
	if (deg < 1 || deg > 3 || n1 < deg + 1 || n1 > HKS_INVERT_MAX_POINTS || owned < 1 || owned > HKS_INVERT_MAX_FRAMES)
		return HKS_OK;
	float Uf[HKS_INVERT_MAX_POINTS + 4];
	for (unsigned k = 0; k < n1 + deg + 1; k++)
		Uf[k] = (float)p->knots[k];
	/* A point the frames show (all deg copies of its knot at one owned frame, where its basis is the only
	 * non-zero one) gives that frame by itself: with none of its candidates it does, no path exists. Most
	 * wrong bounds end here, before anything is allocated. */
	for (unsigned i = 0, s = deg; i < n1; i++) {
		uint32_t f = p->knots[i + 1];
		if (p->knots[i + deg] != f || f >= owned)
			continue;
		while (s < n && f >= p->knots[s + 1])
			s++;
		float want = v[(size_t)f * lanes + l], N[4];
		if (i > s || i + deg < s || want == 0.0f || !isfinite(want))
			continue;
		hks_sample_basis(deg, s, (float)f, Uf, N);
		unsigned k = i + deg - s;
		int only = 1;
		for (unsigned j = 0; j <= deg; j++)
			only &= j == k || N[j] == 0.0f;
		if (!only)
			continue;
		int any = 0;
		for (unsigned w = 0; w < LANE_DP_W && !any; w++) {
			int q = (int)cp[(size_t)i * p->spline_lanes + slot] + off[w];
			any = q >= 0 && q <= (int)top &&
			      hks_f32_bits(N[k] * hks_dequantize_scalar_inline(p->quantization, (uint32_t)q, p->min[l], p->max[l])) ==
			          hks_f32_bits(want);
		}
		if (!any)
			return HKS_OK;
	}
	unsigned S = 1;
	for (unsigned k = 0; k < deg; k++)
		S *= LANE_DP_W; /* states: the last deg points' candidates */
	unsigned hi_div = S / LANE_DP_W; /* weight of the oldest digit */
	size_t cells = (size_t)n1 * S;
	uint32_t *cost = (uint32_t *)hks_malloc(ctx, cells * sizeof(uint32_t));
	uint16_t *back = (uint16_t *)hks_malloc(ctx, cells * sizeof(uint16_t));
	float *val = (float *)hks_malloc(ctx, (size_t)n1 * LANE_DP_W * sizeof(float));
	if (!cost || !back || !val) {
		hks_free(ctx, cost, cells * sizeof(uint32_t));
		hks_free(ctx, back, cells * sizeof(uint16_t));
		hks_free(ctx, val, (size_t)n1 * LANE_DP_W * sizeof(float));
		return hks_fail_nomem(ctx, 0);
	}
	const uint32_t NONE = UINT32_MAX;
	for (unsigned i = 0; i < n1; i++)
		for (unsigned w = 0; w < LANE_DP_W; w++) {
			int q = (int)cp[(size_t)i * p->spline_lanes + slot] + off[w];
			val[(size_t)i * LANE_DP_W + w] = q < 0 || q > (int)top ? NAN
			                                 : hks_dequantize_scalar_inline(p->quantization, (uint32_t)q, p->min[l], p->max[l]);
		}
	/* the first deg points: every candidate combination (no span is complete yet) */
	for (unsigned st = 0; st < S; st++) {
		uint32_t c = 0;
		unsigned x = st;
		for (unsigned k = 0; k < deg; k++, x /= LANE_DP_W) {
			unsigned w = x % LANE_DP_W;
			if (val[(size_t)(deg - 1 - k) * LANE_DP_W + w] != val[(size_t)(deg - 1 - k) * LANE_DP_W + w])
				c = NONE; /* off the grid */
			else if (c != NONE)
				c += dist[w];
		}
		cost[(size_t)(deg - 1) * S + st] = c;
	}
	uint32_t f = 0;
	for (unsigned i = deg; i < n1; i++) {
		/* the owned frames of span i: U[i] <= f < U[i + 1] (the last span also takes f = U[n + 1]) */
		uint32_t f0 = f, f1 = f;
		while (f1 < owned && (i == n ? 1 : f1 < p->knots[i + 1]))
			f1++;
		f = f1;
		float N[HKS_INVERT_MAX_FRAMES][4];
		for (uint32_t g = f0; g < f1; g++)
			hks_sample_basis(deg, i, (float)g, Uf, N[g - f0]);
		uint32_t *cur = cost + (size_t)i * S, *prev = cost + (size_t)(i - 1) * S;
		uint16_t *bk = back + (size_t)i * S;
		for (unsigned st = 0; st < S; st++)
			cur[st] = NONE;
		for (unsigned os = 0; os < S; os++) {
			if (prev[os] == NONE)
				continue;
			float P[4];
			unsigned x = os;
			for (unsigned k = 0; k < deg; k++, x /= LANE_DP_W) /* digits: newest last */
				P[deg - 1 - k] = val[(size_t)(i - 1 - k) * LANE_DP_W + x % LANE_DP_W];
			for (unsigned w = 0; w < LANE_DP_W; w++) {
				P[deg] = val[(size_t)i * LANE_DP_W + w];
				if (P[deg] != P[deg])
					continue;
				int ok = 1;
				for (uint32_t g = f0; g < f1 && ok; g++) {
					const float *Ng = N[g - f0];
					float c = Ng[0] * P[0];
					for (unsigned j = 1; j <= deg; j++)
						c = c + Ng[j] * P[j];
					ok = hks_f32_bits(c) == hks_f32_bits(v[(size_t)g * lanes + l]);
				}
				if (!ok)
					continue;
				unsigned ns = (os % hi_div) * LANE_DP_W + w;
				uint32_t c = prev[os] + dist[w];
				if (c < cur[ns]) {
					cur[ns] = c;
					bk[ns] = (uint16_t)os;
				}
			}
		}
	}
	uint32_t best = NONE;
	unsigned bs = 0;
	for (unsigned st = 0; st < S; st++)
		if (cost[(size_t)n * S + st] < best) {
			best = cost[(size_t)n * S + st];
			bs = st;
		}
	if (best != NONE) {
		unsigned st = bs;
		for (unsigned i = n; i >= deg; i--) { /* the newest digit is point i; back gives the state at i − 1 */
			cp[(size_t)i * p->spline_lanes + slot] = (uint16_t)((int)cp[(size_t)i * p->spline_lanes + slot] + off[st % LANE_DP_W]);
			st = back[(size_t)i * S + st];
		}
		for (unsigned k = 0; k < deg; k++, st /= LANE_DP_W) { /* the state at point deg − 1: points deg − 1 .. 0 */
			uint16_t *q = &cp[(size_t)(deg - 1 - k) * p->spline_lanes + slot];
			*q = (uint16_t)((int)*q + off[st % LANE_DP_W]);
		}
		*found = 1;
	}
	hks_free(ctx, cost, cells * sizeof(uint32_t));
	hks_free(ctx, back, cells * sizeof(uint16_t));
	hks_free(ctx, val, (size_t)n1 * LANE_DP_W * sizeof(float));
	return HKS_OK;
}
