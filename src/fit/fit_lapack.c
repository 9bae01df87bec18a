/*
 * The double-precision least-squares solve (ENCODER.md §14): the normal
 * equations NᵀN x = B of the system hks_fit_lsq_build made, as a symmetric
 * band matrix (half-bandwidth p: one row of N touches at most p + 1
 * consecutive unknowns), factored by LAPACK's banded Cholesky (dpbtrf, then
 * dpbtrs: what dpbsv does), with the condition estimate dpbcon for diagnostics.
 *
 * It serves the quality mode and the cross-check of the f32 CG emulation; it
 * cannot reproduce Havok's bytes (§14).
 *
 * LAPACK is loaded at run time, on the first solve (HKS_LAPACKE_LIBRARY, the
 * library the build found): linked, OpenBLAS starts its worker threads when the
 * program starts, and they spin for about a tenth of a second of CPU in every
 * process, every `hkspline info`, every Python `import`, although only the
 * quality mode ever solves (docs/BENCHMARKS.md, session 7). When the library
 * cannot be loaded, and without LAPACK (HKS_WITH_LAPACK 0: the Windows build),
 * the same band is factored by the project's own banded Cholesky (fit_band.c)
 * and the condition estimated by Hager's method; the results agree with
 * LAPACK's to rounding.
 */
#include "fit_workspace.h"
#include "fit_band.h"
#include "platform.h"

#ifndef HKS_WITH_LAPACK
#define HKS_WITH_LAPACK 0
#endif
#if HKS_WITH_LAPACK
#include <lapacke.h> /* the types of the three entry points; nothing is linked */
#ifndef HKS_LAPACKE_LIBRARY
#define HKS_LAPACKE_LIBRARY "liblapacke.so.3"
#endif

typedef lapack_int (*pbtrf_fn)(int layout, char uplo, lapack_int n, lapack_int kd, double *ab, lapack_int ldab);
typedef lapack_int (*pbcon_fn)(int layout, char uplo, lapack_int n, lapack_int kd, const double *ab,
                               lapack_int ldab, double anorm, double *rcond);
typedef lapack_int (*pbtrs_fn)(int layout, char uplo, lapack_int n, lapack_int kd, lapack_int nrhs,
                               const double *ab, lapack_int ldab, double *b, lapack_int ldb);

static struct {
	pbtrf_fn pbtrf;
	pbcon_fn pbcon;
	pbtrs_fn pbtrs;
	bool loaded; /* all three found */
} g_lapack;
static hks_once g_lapack_once = HKS_ONCE_INIT;

/* Object and function pointers: dlsym's result converted through memcpy (ISO C
 * has no cast between them; POSIX guarantees the representation). */
static void *entry(void *lib, const char *name, void *fn, size_t fn_size)
{
	void *p = hks_platform_dlsym(lib, name);
	if (p)
		memcpy(fn, &p, fn_size < sizeof(p) ? fn_size : sizeof(p));
	return p;
}

static void load_lapack(void)
{
	void *lib = hks_platform_dlopen(HKS_LAPACKE_LIBRARY);
	if (!lib)
		return;
	if (entry(lib, "LAPACKE_dpbtrf", &g_lapack.pbtrf, sizeof(g_lapack.pbtrf)) &&
	    entry(lib, "LAPACKE_dpbcon", &g_lapack.pbcon, sizeof(g_lapack.pbcon)) &&
	    entry(lib, "LAPACKE_dpbtrs", &g_lapack.pbtrs, sizeof(g_lapack.pbtrs)))
		g_lapack.loaded = true;
	else
		hks_platform_dlclose(lib);
	/* kept open for the process's life when loaded: the pointers point into it */
}
#endif

bool hks_fit_lapack_loaded(void)
{
#if HKS_WITH_LAPACK
	hks_platform_once(&g_lapack_once, load_lapack);
	return g_lapack.loaded;
#else
	return false;
#endif
}

/* Assemble NᵀN (upper band, column-major: A(i, j), i <= j, at ab[kd + i − j + j·ldab]).
 * Returns the 1-norm of the symmetric matrix, or −1 when a row's columns are farther
 * apart than kd (impossible for a clamped knot vector). */
static double assemble_band(hks_fit_workspace *ws, int kd, int ldab)
{
	int N = ws->cols;
	double *ab = ws->band;
	memset(ab, 0, (size_t)ldab * (size_t)N * sizeof(double));
	for (int r = 0; r < ws->rows; r++) {
		for (int a = ws->row_start[r]; a < ws->row_start[r + 1]; a++) {
			for (int b = a; b < ws->row_start[r + 1]; b++) {
				int i = ws->trip_col[a], j = ws->trip_col[b];
				if (i > j) {
					int t = i;
					i = j;
					j = t;
				}
				if (j - i > kd)
					return -1.0;
				ab[kd + i - j + j * ldab] += (double)ws->trip_val[a] * (double)ws->trip_val[b];
			}
		}
	}
	/* 1-norm: largest column sum of |A| over the full symmetric matrix. */
	double norm = 0.0;
	for (int j = 0; j < N; j++) {
		double sum = 0.0;
		for (int i = (j - kd > 0 ? j - kd : 0); i < N && i <= j + kd; i++) {
			int lo = i < j ? i : j, hi = i < j ? j : i;
			sum += fabs(ab[kd + lo - hi + hi * ldab]);
		}
		if (sum > norm)
			norm = sum;
	}
	return norm;
}

static bool factor_and_solve(hks_fit_workspace *ws, double (*X)[4], double *rcond)
{
	int N = ws->cols;
	if (rcond)
		*rcond = 1.0;
	if (N <= 0)
		return true;
	int kd = ws->lsq_p;
	if (kd > N - 1)
		kd = N - 1;
	int ldab = kd + 1;
	double anorm = assemble_band(ws, kd, ldab);
	if (!(anorm >= 0.0)) {
		if (rcond)
			*rcond = 0.0;
		return false;
	}
	double *rhs = ws->rhs;
#if HKS_WITH_LAPACK
	if (hks_fit_lapack_loaded()) {
		if (g_lapack.pbtrf(LAPACK_COL_MAJOR, 'U', N, kd, ws->band, ldab) != 0) {
			if (rcond)
				*rcond = 0.0;
			return false;
		}
		if (rcond && g_lapack.pbcon(LAPACK_COL_MAJOR, 'U', N, kd, ws->band, ldab, anorm, rcond) != 0)
			*rcond = 0.0;
		for (int c = 0; c < 4; c++)
			for (int i = 0; i < N; i++)
				rhs[i + c * N] = ws->Bd[i][c];
		if (g_lapack.pbtrs(LAPACK_COL_MAJOR, 'U', N, kd, 4, ws->band, ldab, rhs, N) != 0)
			return false;
		for (int i = 0; i < N; i++)
			for (int c = 0; c < 4; c++)
				X[i][c] = rhs[i + c * N];
		return true;
	}
#endif
	if (hks_band_cholesky(N, kd, ws->band, ldab) != 0) {
		if (rcond)
			*rcond = 0.0;
		return false;
	}
	if (rcond)
		*rcond = hks_band_rcond(N, kd, ws->band, ldab, anorm, rhs); /* rhs: 4N >= 3N scratch */
	for (int c = 0; c < 4; c++) {
		for (int i = 0; i < N; i++)
			rhs[i + c * N] = ws->Bd[i][c];
		hks_band_solve(N, kd, ws->band, ldab, rhs + c * N);
	}
	for (int i = 0; i < N; i++)
		for (int c = 0; c < 4; c++)
			X[i][c] = rhs[i + c * N];
	return true;
}

/* Largest sample distance of the curve (n, p, U, P); a NaN distance makes it NaN. */
static float curve_max_error(int n, int p, const float *U, const hks_fit_v4 *P, int m, const hks_fit_v4 *Q,
                             const float *ub)
{
	float worst = 0.0f;
	for (int k = 0; k <= m; k++) {
		float d = hks_fit_dist(Q[k], hks_nurbs_curve_point(n, p, U, P, ub[k]));
		if (isnan(d))
			return d;
		if (d > worst)
			worst = d;
	}
	return worst;
}

bool hks_fit_lapack_solve(hks_fit_workspace *ws, double (*X)[4])
{
	return factor_and_solve(ws, X, NULL);
}

void hks_fit_lsq_diagnose(hks_fit_workspace *ws, int n, int p, const float *U, int m, const hks_fit_v4 *Q,
                          const float *ub, float E, const hks_fit_config *cfg, hks_fit_lsq_diagnosis *out)
{
	memset(out, 0, sizeof(*out));
	out->double_max_error = NAN;
	if (n > m || n < 1) {
		out->status = HKS_FIT_LSQ_N_GT_M;
		return;
	}
	out->well_posed = hks_fit_is_well_posed(n, p, U, m, ub, cfg->wellposed_margin);
	hks_fit_lsq_build(ws, n, p, U, m, Q, ub, cfg->lsq_basis);
	/* The f32 CG, lane by lane, as the Havok refit would run it (all four, for the record). */
	hks_fit_v4 *Pn = ws->Pnew;
	out->cg_converged = true;
	for (int c = 0; c < 4; c++) {
		for (int i = 1; i <= n - 1; i++)
			ws->cg_x[i - 1] = Q[i].v[c];
		bool ok = hks_fit_cg_solve(ws, c, ws->cg_x, cfg, &out->cg_iterations[c]);
		out->cg_converged = out->cg_converged && ok;
		for (int i = 1; i <= n - 1; i++)
			Pn[i].v[c] = ws->cg_x[i - 1];
	}
	Pn[0] = Q[0];
	Pn[n] = Q[m];
	out->cg_max_error = curve_max_error(n, p, U, Pn, m, Q, ub);
	/* The same problem in double. */
	out->double_solved = factor_and_solve(ws, ws->X, &out->rcond);
	if (out->double_solved) {
		for (int i = 1; i <= n - 1; i++)
			for (int c = 0; c < 4; c++)
				Pn[i].v[c] = (float)ws->X[i - 1][c];
		out->double_max_error = curve_max_error(n, p, U, Pn, m, Q, ub);
	}
	/* The Havok verdict, in its order of tests. */
	float limit = E * cfg->accept_factor;
	if (cfg->wellposed_test && !out->well_posed)
		out->status = HKS_FIT_LSQ_NOT_WELLPOSED;
	else if (!out->cg_converged)
		out->status = HKS_FIT_LSQ_NOT_CONVERGED;
	else if (out->cg_max_error > limit)
		out->status = HKS_FIT_LSQ_TOLERANCE;
	else
		out->status = HKS_FIT_LSQ_OK;
}
