/*
 * RemoveKnotsBoundCurve: The NURBS Book A9.9 with Havok's details
 * (ENCODER.md §7.3): bounds per knot slot, first smallest bound wins, the
 * accumulated error e[k] per sample, removal at the current degree.
 */
#include "fit_workspace.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The first index >= x that ends its run of equal knots (r == K or U[r+1] != U[r]). */
static int run_end_at_or_after(int K, const float *U, int x)
{
	int r = x;
	while (r < K && U[r + 1] == U[r])
		r++;
	return r;
}

static void compute_bounds(float *Br, int lo, int hi, int n, int p, const float *U, const hks_fit_v4 *P,
                           const hks_fit_config *cfg)
{
	int K = n + p + 1;
	for (int r = lo; r <= hi; r++) {
		Br[r] = FLT_MAX;
		if (r == K || U[r + 1] != U[r]) {
			int s = hks_nurbs_multiplicity(K, U, r);
			/* A knot of multiplicity > p is a break in the curve, which strictly increasing
			 * sample parameters never produce (hks_fit_curve_run checks them); skipping it
			 * keeps A9.8's window inside P for any input. */
			if (s <= p)
				Br[r] = hks_nurbs_removal_bound(n, p, U, P, r, s, cfg->removal_alpha_reciprocal);
		}
	}
}

/* First sample index with ub[k] >= x (m + 1 when none; a NaN x gives m + 1). The parameters are
 * strictly increasing (hks_fit_curve_run checks them), so "ub[k] >= x" is false up to some k and
 * true from there on: a bisection finds the same index as a scan from 0. */
static int first_at_or_above(int m, const float *ub, float x)
{
	if (x != x)
		return m + 1;
	if (m < 0)
		return 0;
	/* a branch-free lower bound over ub[0 .. m] (the comparisons' outcomes are data, so branches on them
	 * are mispredicted about half the time): the first k with !(ub[k] < x), which for the non-NaN
	 * parameters is the first with ub[k] >= x */
	const float *b = ub;
	int n = m + 1;
	while (n > 1) {
		int half = n / 2;
		b = b[half] < x ? b + half : b;
		n -= half;
	}
	return (int)(b - ub) + (*b < x);
}

/* The knot slot Havok removes next: the first index in lo .. hi with the smallest bound, as a scan
 * with a strict "<" from Br[lo] (or from FLT_MAX, starting at lo) finds it: NaN bounds never win,
 * a NaN Br[lo] (without from_max) keeps lo, equal bounds go to the lowest index (+0 and −0 are
 * equal). Done in one pass over blocks of 16: a block whose minimum (NaN never taken) is strictly
 * below the smallest so far becomes the block to search, so the block last chosen holds the first
 * occurrence of the minimum; then a search of that block alone. The same index as the scan, without
 * its chain of dependent comparisons (most of the fit's time on long blocks). */
int hks_fit_first_smallest_bound(const float *Br, int lo, int hi, bool from_max)
{
	float start = from_max ? FLT_MAX : Br[lo];
	if (start != start)
		return lo;
	float cur = start;
	int idx = lo, block = -1, at = -1; /* the chosen block's start, or the chosen index past the blocks */
#if defined(__SSE2__)
	__m128 m = _mm_set1_ps(cur);
	for (; idx + 15 <= hi; idx += 16) {
		/* minps(x, m) is "x < m ? x : m": a NaN x keeps m, so no NaN enters the accumulator (cur is
		 * not NaN); the order in which values meet does not matter (only a zero's sign could differ,
		 * and "<" and the search below do not see it). The block's minimum across lanes only when
		 * some lane is below cur. */
		__m128 a = _mm_min_ps(_mm_loadu_ps(Br + idx), m), b = _mm_min_ps(_mm_loadu_ps(Br + idx + 4), m);
		a = _mm_min_ps(_mm_loadu_ps(Br + idx + 8), a);
		b = _mm_min_ps(_mm_loadu_ps(Br + idx + 12), b);
		a = _mm_min_ps(a, b);
		if (_mm_movemask_ps(_mm_cmplt_ps(a, m))) {
			a = _mm_min_ps(a, _mm_movehl_ps(a, a));
			a = _mm_min_ss(a, _mm_shuffle_ps(a, a, 1));
			cur = _mm_cvtss_f32(a);
			m = _mm_set1_ps(cur);
			block = idx;
		}
	}
#endif
	for (; idx <= hi; idx++)
		if (Br[idx] < cur) { /* NaN compares false */
			cur = Br[idx];
			at = idx;
		}
	if (at >= 0)
		return at;
	if (block < 0)
		return lo;
	idx = block;
	while (!(Br[idx] == cur))
		idx++;
	return idx;
}

int hks_fit_remove_knots_bound(hks_fit_workspace *ws, int *pn, int p, float *U, hks_fit_v4 *P, int m,
                               const float *ub, float *e, float E, const hks_fit_config *cfg,
                               hks_fit_stats *stats)
{
	int n = *pn;
	int K = n + p + 1;
	float *Br = ws->Br;
	float *temp = ws->temp_err;
	int *ks = ws->knot_sample;
	int removed = 0;

	/* The sample range of a basis function's support comes from its end knots; knots only leave U (A5.8
	 * shifts the ones after a removed knot down by one), so each knot's first sample is found once and
	 * shifted with it. */
	int k_at = 0;
	bool ascending = true;
	for (int r = 0; r <= K; r++) {
		Br[r] = FLT_MAX;
		float x = U[r];
		if (ascending && x == x && (r == 0 || x >= U[r - 1])) {
			/* knots in order: a walk along the samples gives first_at_or_above's index (every sample
			 * before the previous knot's index is below that knot, so below this one) */
			while (k_at <= m && ub[k_at] < x)
				k_at++;
			ks[r] = k_at;
		} else {
			ascending = false;
			ks[r] = first_at_or_above(m, ub, x);
		}
	}
	compute_bounds(Br, p + 1, K - p - 1, n, p, U, P, cfg);

	while (n > p) {
		/* The first index with the smallest bound: strict "<", ties to the lowest index. */
		int r = hks_fit_first_smallest_bound(Br, p + 1, K - p - 1, cfg->removal_scan_from_max);
		if (Br[r] == FLT_MAX)
			break;

		int s = hks_nurbs_multiplicity(K, U, r);
		int i;
		float alpha;
		float f;
		if ((s + p) % 2 == 1) {
			int k = (s + p + 1) / 2;
			/* SPEC: the book's i = r − k + 1 with (1 − α); KEPT_POINT: the point A5.8 really
			 * replaces, i = r − k, with α (docs/FIT.md, "Departures and interpretations"). */
			bool kept = cfg->removal_odd_bound == HKS_FIT_ODD_BOUND_KEPT_POINT;
			i = kept ? r - k : r - k + 1;
			if (cfg->removal_alpha_reciprocal) {
				float inv = 1.0f / (U[i + p + 1] - U[i]);
				alpha = (U[r] - U[i]) * inv;
			} else {
				alpha = (U[r] - U[i]) / (U[i + p + 1] - U[i]);
			}
			f = kept ? alpha * Br[r] : (1.0f - alpha) * Br[r]; /* this product first */
		} else {
			i = r - (s + p) / 2;
			alpha = 0.0f;
			f = (1.0f - alpha) * Br[r];
		}
		/* The samples in N_{i,p}'s half-open support [U[i], U[i+p+1]). */
		int lo_k = ks[i];
		int hi_k = ks[i + p + 1] - 1;
		float max_err = 0.0f;
		int k = lo_k;
		for (; k + 3 <= hi_k; k += 4) { /* four samples at a time, the same values */
			float nb[4];
			hks_nurbs_one_basis4(p, K, U, i, ub + k, nb);
			for (int q = 0; q < 4; q++) {
				temp[k + q] = nb[q] * f + e[k + q];
				max_err = hks_fit_maxss(max_err, temp[k + q]);
			}
		}
		for (; k <= hi_k; k++) {
			temp[k] = hks_nurbs_one_basis(p, K, U, i, ub[k]) * f + e[k];
			max_err = hks_fit_maxss(max_err, temp[k]);
		}
		if (max_err > E) { /* NaN compares false: accepted, as in Havok */
			Br[r] = FLT_MAX;
			continue;
		}
		for (int k = lo_k; k <= hi_k; k++)
			e[k] = temp[k];
		/* A5.8 with num = 1, TOL = FLT_MAX: no tolerance test for finite data. */
		int t = hks_nurbs_remove_knot(n, p, U, P, r, s, 1, FLT_MAX, cfg->removal_alpha_reciprocal);
		if (t == 0) {
			/* Only NaN data get here. Havok decrements n regardless (ENCODER.md §7.4, [R],
			 * unverified); we keep the curve consistent instead and retire the knot. */
			if (stats)
				stats->removal_refused++;
			Br[r] = FLT_MAX;
			continue;
		}
		n--;
		K--;
		removed++;
		memmove(&ks[r], &ks[r + 1], (size_t)(K - r + 1) * sizeof(int));
		if (n == p) /* only p + 1 control points: no interior knot left */
			break;
		memmove(&Br[r], &Br[r + 1], (size_t)(K - r + 1) * sizeof(float));
		int lo = run_end_at_or_after(K, U, (r - p > p + 1) ? r - p : p + 1);
		int hi = run_end_at_or_after(K, U, (r + p - s < n) ? r + p - s : n);
		compute_bounds(Br, lo, hi, n, p, U, P, cfg);
	}
	if (stats)
		stats->knots_removed += (uint32_t)removed;
	*pn = n;
	return removed;
}
