/*
 * What the commands that walk many units share (check, stats, info): their
 * common options parsed once (cli_args.c) and one worker pool that runs a
 * task per unit on N threads and hands the results back in loader order
 * (cli_pool.c), so every command's output is the same for every -j.
 */
#ifndef HKS_CLI_UNITS_H
#define HKS_CLI_UNITS_H

#include "cli.h"

/* ---- common options (cli_args.c) ---- */

/* The options check, stats and info share (docs/CLI.md). */
typedef struct cli_unit_args {
	bool json;                /* --json */
	bool progress;            /* cleared by --no-progress */
	long jobs;                /* -j N, -jN, --jobs N (1-1024); the online cores when not given */
	const char **compendiums; /* --compendium FILE|DIR, repeatable */
	size_t num_compendiums;
	const char **paths;       /* PATH..., and everything after "--" */
	size_t num_paths;
} cli_unit_args;

/* A command's own switch (e.g. check --repack): its spelling and the bool it sets. */
typedef struct cli_flag {
	const char *name;
	bool *set;
} cli_flag;

/*
 * Parse argv[1..argc-1] of command `cmd`: --help / -h, --json, --no-progress,
 * the thread count, --compendium, "--", the command's own `flags` (an array
 * ending with a NULL name; NULL for none) and PATHs (at least one).
 * Returns -1 when the command goes on; otherwise the exit status to return
 * at once: 0 after printing the usage on stdout for --help, 2 after a usage
 * error (a message and/or the usage on stderr). Always release `a` with
 * cli_unit_args_free.
 */
int cli_unit_args_parse(cli_unit_args *a, int argc, char **argv, const char *cmd, const cli_flag *flags,
                        void (*usage)(FILE *out));
void cli_unit_args_free(cli_unit_args *a);

/* A loader that searches the --compendium locations; NULL after printing why. */
hks_loader *cli_unit_loader(const cli_unit_args *a);

/* ---- the worker pool (cli_pool.c) ---- */

typedef struct cli_pool {
	size_t count;         /* tasks 0 .. count-1 */
	size_t threads;       /* at most this many worker threads (no more than count are started) */
	bool progress;        /* draw a progress bar (only when stderr is a terminal) */
	const char *label;    /* what the bar counts ("files", "pairs") */
	void *ctx;
	/* On a worker thread, once per task. `worker` (0 .. threads-1) names the
	 * thread, for state a thread keeps from one task to the next. Results go to
	 * the task's own slot in ctx: tasks run concurrently and in any order. */
	void (*work)(void *ctx, size_t worker, size_t index);
	/* Optional, on the calling thread, in index order, as soon as task `index`
	 * and every task before it are done: output can stream while the rest runs. */
	void (*deliver)(void *ctx, size_t index);
} cli_pool;

/* Run every task; returns when all are done and delivered. Falls back to the
 * calling thread when no thread can be started. */
void cli_pool_run(const cli_pool *pool);

/* A task per loader unit: `fn` gets hks_loader_load's result for the unit
 * (`ld` NULL when r is not HKS_OK) and its display path; the pool frees `ld`
 * after `fn` returns. */
typedef void (*cli_unit_fn)(void *ctx, size_t index, const char *path, hks_result r, const hks_loaded *ld);

/* Load and process every unit of `loader` with a->jobs threads (bar: a->progress). */
void cli_units_run(hks_loader *loader, const cli_unit_args *a, void *ctx, cli_unit_fn fn,
                   void (*deliver)(void *ctx, size_t index));

/*
 * Streaming (issue 16): the paths are added on the calling thread while the
 * units found so far are processed, so the folder walk and the opening of
 * binders overlap the work; -j N runs N threads in all (the calling thread
 * joins the workers once every path is in; -j 1 adds every path first and
 * then processes the units in order, on the calling thread alone).
 * `path_failed` (calling thread, in path order) gets a path that cannot be
 * added; it returns false to stop adding (out of memory). `fn` returns the
 * unit's result (NULL only when out of memory); the results come back in the
 * walk's order (hks_loader_walk_order: the binders met in a path's walk are opened
 * after the rest of that walk, so unit indices differ from it; when memory for the
 * permutation runs out, in unit order), *count of them, in an array to free() (NULL
 * when out of memory); a NULL slot is a unit without a result (out of memory, or
 * adding stopped).
 * *stopped: adding was stopped by `path_failed`.
 */
/* A `path_failed` for commands that stop at the first path that cannot be added: prints the error. */
bool cli_stop_on_path_error(void *ctx, const char *path, const hks_error *err);
typedef void *(*cli_unit_result_fn)(void *ctx, size_t index, const char *path, hks_result r, const hks_loaded *ld);
void **cli_units_stream(hks_loader *loader, const cli_unit_args *a, void *ctx, cli_unit_result_fn fn,
                        bool (*path_failed)(void *ctx, const char *path, const hks_error *err), size_t *count,
                        bool *stopped);

#endif
