/*
 * The worker pool of the commands that walk many units (cli_units.h).
 *
 * Threads take the next task index from one atomic counter; each task writes
 * only its own result slot. The calling thread waits on a condition variable,
 * hands finished tasks to `deliver` strictly in index order (so the output
 * never depends on scheduling or on -j) and redraws the progress bar. The
 * mutex that guards the per-task "done" flags also orders each task's
 * result writes before the delivery that reads them.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_units.h"
#include "progress.h"

#include "platform.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How often the waiting thread wakes to redraw the bar when no task finishes. */
#define POOL_WAKE_MS 100u

typedef struct pool_state {
	const cli_pool *pool;
	atomic_size_t next;
	hks_mutex lock;
	hks_cond finished;
	unsigned char *done; /* per task, under lock */
	size_t num_done;     /* under lock */
	size_t awaited;      /* under lock: the task the calling thread waits for */
} pool_state;

typedef struct pool_worker {
	pool_state *state;
	size_t id;
	hks_thread thread;
} pool_worker;

static void *worker_main(void *arg)
{
	pool_worker *w = (pool_worker *)arg;
	pool_state *st = w->state;
	const cli_pool *p = st->pool;
	for (;;) {
		size_t i = atomic_fetch_add(&st->next, 1);
		if (i >= p->count)
			break;
		p->work(p->ctx, w->id, i);
		hks_mutex_lock(&st->lock);
		st->done[i] = 1;
		st->num_done++;
		/* only the task delivery waits for wakes the calling thread (one wake-up
		 * per file cost a context switch each; the bar redraws on its timeout) */
		if (i == st->awaited)
			hks_cond_signal(&st->finished);
		hks_mutex_unlock(&st->lock);
	}
	return NULL;
}

/* No thread (none could start, or no memory for the bookkeeping): every task
 * here, in order, each delivered as soon as it is done. */
static void run_inline(const cli_pool *p, cli_progress *bar)
{
	for (size_t i = 0; i < p->count; i++) {
		p->work(p->ctx, 0, i);
		if (p->deliver)
			p->deliver(p->ctx, i);
		cli_progress_update(bar, i + 1);
	}
}

/* Deliver in index order while the workers run; returns when all are delivered. */
static void deliver_in_order(pool_state *st, cli_progress *bar)
{
	const cli_pool *p = st->pool;
	size_t delivered = 0;
	hks_mutex_lock(&st->lock);
	while (delivered < p->count) {
		while (delivered < p->count && st->done[delivered]) {
			hks_mutex_unlock(&st->lock);
			if (p->deliver)
				p->deliver(p->ctx, delivered);
			delivered++;
			hks_mutex_lock(&st->lock);
		}
		size_t num_done = st->num_done;
		if (delivered == p->count)
			break;
		hks_mutex_unlock(&st->lock);
		cli_progress_update(bar, num_done);
		hks_mutex_lock(&st->lock);
		if (!st->done[delivered]) {
			st->awaited = delivered;
			hks_cond_wait_ms(&st->finished, &st->lock, POOL_WAKE_MS);
		}
	}
	hks_mutex_unlock(&st->lock);
}

void cli_pool_run(const cli_pool *p)
{
	cli_progress bar;
	cli_progress_start(&bar, p->progress, p->count, p->label ? p->label : "tasks");
	size_t threads = p->threads < p->count ? p->threads : p->count;
	pool_state st;
	memset(&st, 0, sizeof(st));
	st.pool = p;
	atomic_init(&st.next, 0);
	st.done = (unsigned char *)calloc(p->count + 1, 1);
	pool_worker *workers = (pool_worker *)calloc(threads + 1, sizeof(pool_worker));
	size_t started = 0;
	bool sync_ok = false;
	if (st.done && workers && hks_mutex_init(&st.lock) == 0) {
		if (hks_cond_init(&st.finished) == 0)
			sync_ok = true;
		else
			hks_mutex_destroy(&st.lock);
	}
	for (size_t t = 0; sync_ok && t < threads; t++) {
		workers[t].state = &st;
		workers[t].id = t;
		if (hks_thread_create(&workers[t].thread, worker_main, &workers[t]) != 0)
			break;
		started++;
	}
	if (started == 0) {
		run_inline(p, &bar);
	} else {
		deliver_in_order(&st, &bar);
		for (size_t t = 0; t < started; t++)
			hks_thread_join(&workers[t].thread);
	}
	if (sync_ok) {
		hks_cond_destroy(&st.finished);
		hks_mutex_destroy(&st.lock);
	}
	cli_progress_update(&bar, p->count);
	cli_progress_finish(&bar);
	free(workers);
	free(st.done);
}

/* ---- a task per loader unit ---- */

typedef struct unit_task {
	hks_loader *loader;
	void *ctx;
	cli_unit_fn fn;
	void (*deliver)(void *ctx, size_t index);
} unit_task;

static void unit_work(void *ctx, size_t worker, size_t index)
{
	(void)worker;
	unit_task *t = (unit_task *)ctx;
	hks_loaded *ld = NULL;
	hks_result r = hks_loader_load(t->loader, index, &ld);
	if (r != HKS_OK && ld) {
		hks_loaded_free(ld);
		ld = NULL;
	}
	t->fn(t->ctx, index, hks_loader_path(t->loader, index), r, ld);
	if (ld)
		hks_loaded_free(ld);
}

static void unit_deliver(void *ctx, size_t index)
{
	unit_task *t = (unit_task *)ctx;
	t->deliver(t->ctx, index);
}

void cli_units_run(hks_loader *loader, const cli_unit_args *a, void *ctx, cli_unit_fn fn,
                   void (*deliver)(void *ctx, size_t index))
{
	unit_task t = {loader, ctx, fn, deliver};
	cli_pool p;
	memset(&p, 0, sizeof(p));
	p.count = hks_loader_count(loader);
	p.threads = a->jobs > 0 ? (size_t)a->jobs : 1;
	p.progress = a->progress;
	p.label = "files";
	p.ctx = &t;
	p.work = unit_work;
	p.deliver = deliver ? unit_deliver : NULL;
	cli_pool_run(&p);
}

/* ---- streaming: paths added while the units found so far are processed ---- */

typedef struct stream_state {
	hks_loader *loader;
	void *ctx;
	cli_unit_result_fn fn;
	atomic_size_t next;
	hks_mutex lock;
	void **results;      /* under lock: one per unit, grown by doubling */
	size_t cap;          /* under lock */
	size_t num_done;     /* under lock */
	cli_progress *bar;   /* drawn by the calling thread only */
} stream_state;

typedef struct stream_worker {
	stream_state *state;
	hks_thread thread;
} stream_worker;

/* Take unit indices in order until every unit is taken (waiting for the
 * adding thread when it has not found the next one yet). */
static void stream_loop(stream_state *st, bool draw)
{
	for (;;) {
		size_t i = atomic_fetch_add(&st->next, 1);
		size_t n = hks_loader_wait_count(st->loader, i);
		if (i >= n)
			break;
		hks_loaded *ld = NULL;
		hks_result r = hks_loader_load(st->loader, i, &ld);
		if (r != HKS_OK && ld) {
			hks_loaded_free(ld);
			ld = NULL;
		}
		const char *path = ld ? ld->path : hks_loader_path(st->loader, i);
		void *res = st->fn(st->ctx, i, path, r, ld);
		if (ld)
			hks_loaded_free(ld);
		hks_mutex_lock(&st->lock);
		if (i >= st->cap) {
			size_t ncap = st->cap ? st->cap : 1024;
			while (ncap <= i)
				ncap *= 2;
			void **p = (void **)realloc(st->results, ncap * sizeof(void *));
			if (p) {
				memset(p + st->cap, 0, (ncap - st->cap) * sizeof(void *));
				st->results = p;
				st->cap = ncap;
			}
		}
		if (i < st->cap)
			st->results[i] = res;  /* (else lost: out of memory, the slot stays NULL) */
		size_t done = ++st->num_done;
		hks_mutex_unlock(&st->lock);
		if (draw)
			cli_progress_update(st->bar, done);
	}
}

static void *stream_worker_main(void *arg)
{
	stream_worker *w = (stream_worker *)arg;
	stream_loop(w->state, false);
	return NULL;
}

void **cli_units_stream(hks_loader *loader, const cli_unit_args *a, void *ctx, cli_unit_result_fn fn,
                        bool (*path_failed)(void *ctx, const char *path, const hks_error *err), size_t *count,
                        bool *stopped)
{
	*count = 0;
	*stopped = false;
	stream_state st;
	memset(&st, 0, sizeof(st));
	st.loader = loader;
	st.ctx = ctx;
	st.fn = fn;
	atomic_init(&st.next, 0);
	if (hks_mutex_init(&st.lock) != 0)
		return NULL;
	size_t threads = a->jobs > 0 ? (size_t)a->jobs : 1;
	/* before any worker asks for a unit: until the end, "no unit yet" means wait.
	 * The paths are declared for every -j, so the last compendium location is
	 * the same set whether or not loads overlap the adding. */
	bool adding = hks_loader_begin_adding(loader, a->paths, a->num_paths) == HKS_OK;
	if (!adding)
		threads = 1;
	stream_worker *workers = threads > 1 ? (stream_worker *)calloc(threads - 1, sizeof(stream_worker)) : NULL;
	size_t started = 0;
	for (size_t t = 0; workers && t + 1 < threads; t++) {
		workers[t].state = &st;
		if (hks_thread_create(&workers[t].thread, stream_worker_main, &workers[t]) != 0)
			break;
		started++;
	}
	/* with no other thread, every path is added before the first load */
	hks_error err;
	for (size_t i = 0; i < a->num_paths; i++) {
		if (hks_loader_add_path(loader, a->paths[i], &err) != HKS_OK && !path_failed(ctx, a->paths[i], &err)) {
			*stopped = true;
			break;
		}
	}
	if (adding)
		hks_loader_end_adding(loader);
	size_t total = hks_loader_count(loader);
	cli_progress bar;
	cli_progress_start(&bar, a->progress, total, "files");
	st.bar = &bar;
	if (!*stopped)
		stream_loop(&st, true);
	else
		atomic_store(&st.next, total); /* the workers stop at their next unit */
	for (size_t t = 0; t < started; t++)
		hks_thread_join(&workers[t].thread);
	cli_progress_update(&bar, total);
	cli_progress_finish(&bar);
	free(workers);
	hks_mutex_destroy(&st.lock);
	/* out of memory: the slots that have a result are returned (the caller frees them) */
	if (total >= st.cap) {
		void **p = (void **)realloc(st.results, (total + 1) * sizeof(void *));
		if (!p) {
			free(st.results);  /* (leaks the results it held: out of memory anyway) */
			return NULL;
		}
		memset(p + st.cap, 0, (total + 1 - st.cap) * sizeof(void *));
		st.results = p;
		st.cap = total + 1;
	}
	/* in the walk's order (the loader opened the binders of each folder after its
	 * other files: hks_loader_walk_order), so the output does not depend on that */
	size_t *order = total ? (size_t *)malloc(total * sizeof(size_t)) : NULL;
	void **sorted = total ? (void **)calloc(total + 1, sizeof(void *)) : NULL;
	if (order && sorted && hks_loader_walk_order(loader, order, total) == HKS_OK) {
		for (size_t k = 0; k < total; k++)
			sorted[k] = st.results[order[k]];
		free(st.results);
		st.results = sorted;
		sorted = NULL;
	}
	/* else (out of memory for the permutation) the results stay in the order the units were
	 * added: every one is reported, binders met in a walk after the rest of that walk */
	free(sorted);
	free(order);
	*count = total;
	return st.results;
}

bool cli_stop_on_path_error(void *ctx, const char *path, const hks_error *err)
{
	(void)ctx;
	(void)path;
	cli_print_error(err);
	return false;
}
