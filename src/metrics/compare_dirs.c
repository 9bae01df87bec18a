/*
 * Folder comparison (`hkspline error DIR_A DIR_B`, hks_compare_dirs): every
 * unit below A paired with the unit at the same relative path below B (a
 * sorted index of B: n log n), every spline or interleaved animation of the
 * pair compared with hks_compare_loaded, on `threads` worker threads that
 * take pairs from one counter. The skeleton of a pair: opts->compare.skeleton
 * (loaded once), else the one A's file holds, else the one the loader finds
 * beside A's unit (cached per folder and thread).
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include "platform.h"
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct dir_pair {
	size_t a, b;
} dir_pair;

typedef struct skel_cache {
	hks_loaded *loaded;
	char dir[1024];
	bool valid;
} skel_cache;

typedef struct dir_job {
	const hks_dir_options *o;
	hks_loader *la, *lb;
	dir_pair *pairs;
	size_t count;
	const hks_skeleton *skeleton;
	atomic_size_t next;
	hks_mutex lock;
	size_t done;
	uint64_t compared, failed;
} dir_job;

/* The part of a loader display path below the folder given. */
static const char *below(const char *path, const char *root)
{
	size_t n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (path && !strncmp(path, root, n)) {
		path += n;
		while (*path == '/')
			path++;
	}
	return path ? path : "";
}

typedef struct rel {
	const char *path;
	size_t index;
} rel;

static int rel_cmp(const void *x, const void *y)
{
	const rel *a = (const rel *)x, *b = (const rel *)y;
	int c = strcmp(a->path, b->path);
	return c ? c : (a->index > b->index) - (a->index < b->index);
}

static const hks_skeleton *cached_skeleton(dir_job *J, size_t u, skel_cache *c, const hks_binding *bind)
{
	const char *path = hks_loader_path(J->la, u);
	const char *slash = path ? strrchr(path, '/') : NULL;
	size_t dlen = slash ? (size_t)(slash - path) : 0;
	if (!c->valid || dlen >= sizeof(c->dir) || strncmp(c->dir, path, dlen) || c->dir[dlen]) {
		if (c->loaded)
			hks_loaded_free(c->loaded);
		c->loaded = NULL;
		if (hks_loader_find_skeleton(J->la, u, &c->loaded) != HKS_OK || (c->loaded && c->loaded->status != HKS_OK)) {
			if (c->loaded)
				hks_loaded_free(c->loaded);
			c->loaded = NULL;
		}
		snprintf(c->dir, sizeof(c->dir), "%.*s", (int)dlen, path ? path : "");
		c->valid = true;
	}
	return c->loaded ? hks_file_pick_skeleton(c->loaded->file, NULL, bind) : NULL;
}

static void compare_pair(dir_job *J, size_t k, skel_cache *cache)
{
	const dir_pair *p = &J->pairs[k];
	hks_dir_pair out;
	memset(&out, 0, sizeof(out));
	out.a = hks_loader_path(J->la, p->a);
	out.b = hks_loader_path(J->lb, p->b);
	hks_loaded *la = NULL, *lb = NULL;
	hks_loader_load(J->la, p->a, &la);
	hks_loader_load(J->lb, p->b, &lb);
	uint64_t compared = 0, failed = 0;
	const hks_loaded *bad = !la || la->status != HKS_OK ? la : (!lb || lb->status != HKS_OK ? lb : NULL);
	uint32_t na = la && !bad && lb ? la->file->num_animations : 0;
	hks_dir_item *items = (hks_dir_item *)calloc((size_t)na + 1, sizeof(hks_dir_item));
	char **msgs = (char **)calloc((size_t)na + 1, sizeof(char *)); /* per failed item */
	hks_comparison **cs = (hks_comparison **)calloc((size_t)na + 1, sizeof(*cs));
	char msg[1024];
	if (!items || !msgs || !cs) {
		failed++;
	} else if (!la || !lb || bad) {
		snprintf(msg, sizeof(msg), "cannot load");
		if (bad)
			hks_error_format(&bad->error, msg, sizeof(msg));
		msgs[0] = strdup(msg);
		items[0].animation = -1;
		items[0].error = msgs[0] ? msgs[0] : "cannot load";
		out.num_items = 1;
		failed++;
	} else {
		for (uint32_t ai = 0; ai < na; ai++) {
			hks_animation_kind kind = la->file->animations[ai].kind;
			if (kind != HKS_ANIMATION_SPLINE && kind != HKS_ANIMATION_INTERLEAVED)
				continue;
			hks_dir_item *it = &items[out.num_items++];
			it->animation = ai;
			const hks_binding *bind = hks_file_binding_for(la->file, ai);
			if (!bind)
				bind = hks_file_binding_for(lb->file, ai);
			const hks_skeleton *sk = J->skeleton ? J->skeleton : hks_file_pick_skeleton(la->file, NULL, bind);
			if (!sk)
				sk = cached_skeleton(J, p->a, cache, bind);
			hks_comparison_options co = J->o->compare;
			co.animation = ai;
			co.no_seams = 1;
			hks_error err;
			if (hks_compare_loaded(la, lb, &co, sk, NULL, &cs[ai], &err) != HKS_OK) {
				hks_error_format(&err, msg, sizeof(msg));
				msgs[ai] = strdup(msg);
				it->error = msgs[ai] ? msgs[ai] : "out of memory";
				failed++;
			} else {
				it->comparison = cs[ai];
				compared++;
			}
		}
		/* B's animations past A's count have no counterpart: a failure of the pair (a B with
		 * more animations than A, a skeleton in A, was left out in silence: exit 0) */
		uint32_t nb = lb->file->num_animations;
		if (nb > na) {
			snprintf(msg, sizeof(msg), "%s holds %u animation(s), %s %u: animation %u onward not compared",
			         out.b ? out.b : "B", (unsigned)nb, out.a ? out.a : "A", (unsigned)na, (unsigned)na);
			msgs[na] = strdup(msg);
			hks_dir_item *it = &items[out.num_items++];
			it->animation = na;
			it->error = msgs[na] ? msgs[na] : "out of memory";
			failed++;
		}
	}
	out.items = items;
	if (J->o->on_pair && items && msgs && cs)
		J->o->on_pair(J->o->user, k, &out);
	for (uint32_t ai = 0; cs && ai < na; ai++)
		hks_comparison_free(cs[ai]);
	for (uint32_t ai = 0; msgs && ai <= na; ai++)
		free(msgs[ai]);
	free(cs);
	free(msgs);
	free(items);
	if (la)
		hks_loaded_free(la);
	if (lb)
		hks_loaded_free(lb);
	hks_mutex_lock(&J->lock);
	J->compared += compared;
	J->failed += failed;
	J->done++;
	if (J->o->on_progress)
		J->o->on_progress(J->o->user, J->done, J->count);
	hks_mutex_unlock(&J->lock);
}

static void *worker(void *arg)
{
	dir_job *J = (dir_job *)arg;
	skel_cache cache;
	memset(&cache, 0, sizeof(cache));
	for (;;) {
		size_t i = atomic_fetch_add(&J->next, 1);
		if (i >= J->count)
			break;
		compare_pair(J, i, &cache);
	}
	if (cache.loaded)
		hks_loaded_free(cache.loaded);
	return NULL;
}

hks_result hks_compare_dirs(const char *dir_a, const char *dir_b, const hks_dir_options *opts,
                            hks_dir_summary *summary, hks_error *err)
{
	hks_error local;
	if (!err)
		err = &local;
	hks_dir_options zero;
	memset(&zero, 0, sizeof(zero));
	const hks_dir_options *o = opts ? opts : &zero;
	hks_ctx ctx;
	hks_ctx_init(&ctx, &o->compare.load.base, 0, err);
	if (!dir_a || !dir_b)
		return hks_fail(&ctx, HKS_E_ARGUMENT, -1, "two folders are needed");
	dir_job J;
	memset(&J, 0, sizeof(J));
	J.o = o;
	hks_loader *skl = NULL;
	hks_loaded *skd = NULL;
	rel *sorted = NULL;
	hks_result r = HKS_OK;
	if ((r = hks_loader_create(&o->compare.load, &J.la, err)) != HKS_OK ||
	    (r = hks_loader_add_path(J.la, dir_a, err)) != HKS_OK ||
	    (r = hks_loader_create(&o->compare.load, &J.lb, err)) != HKS_OK ||
	    (r = hks_loader_add_path(J.lb, dir_b, err)) != HKS_OK)
		goto done;
	if (o->compare.skeleton) {
		if ((r = hks_skeleton_load(&o->compare.load, o->compare.skeleton, &skl, &skd, err)) != HKS_OK)
			goto done;
		J.skeleton = hks_file_pick_skeleton(skd->file, NULL, NULL);
	}
	size_t na = hks_loader_count(J.la), nb = hks_loader_count(J.lb);
	J.pairs = (dir_pair *)calloc(na + 1, sizeof(dir_pair));
	sorted = (rel *)calloc(nb + 1, sizeof(rel));
	if (!J.pairs || !sorted) {
		r = hks_fail_nomem(&ctx, (na + nb) * sizeof(rel));
		goto done;
	}
	for (size_t k = 0; k < nb; k++)
		sorted[k] = (rel){below(hks_loader_path(J.lb, k), dir_b), k};
	qsort(sorted, nb, sizeof(rel), rel_cmp);
	size_t unmatched = 0;
	for (size_t i = 0; i < na; i++) {
		const char *ra = below(hks_loader_path(J.la, i), dir_a);
		size_t lo = 0, hi = nb;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (strcmp(sorted[mid].path, ra) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == nb || strcmp(sorted[lo].path, ra) != 0) {
			unmatched++;
			continue;
		}
		J.pairs[J.count].a = i;
		J.pairs[J.count].b = sorted[lo].index;
		J.count++;
	}
	if (summary) {
		memset(summary, 0, sizeof(*summary));
		summary->files_a = na;
		summary->pairs = J.count;
		summary->unmatched = unmatched;
	}
	hks_mutex_init(&J.lock);
	atomic_init(&J.next, 0);
	size_t threads = o->threads > 1 ? o->threads : 1;
	if (threads > J.count)
		threads = J.count ? J.count : 1;
	hks_thread *tids = threads > 1 ? (hks_thread *)calloc(threads, sizeof(hks_thread)) : NULL;
	size_t started = 0;
	for (size_t t = 0; tids && t < threads; t++) {
		if (hks_thread_create(&tids[t], worker, &J) != 0)
			break;
		started++;
	}
	if (!started)
		worker(&J); /* no thread: every pair here */
	for (size_t t = 0; t < started; t++)
		hks_thread_join(&tids[t]);
	free(tids);
	hks_mutex_destroy(&J.lock);
	if (summary) {
		summary->compared = J.compared;
		summary->failed = J.failed;
	}
done:
	free(sorted);
	free(J.pairs);
	if (skd)
		hks_loaded_free(skd);
	hks_loader_free(skl);
	hks_loader_free(J.la);
	hks_loader_free(J.lb);
	return r;
}
