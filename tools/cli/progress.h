/* A one-line progress bar on stderr, only drawn when stderr is a terminal. */
#ifndef HKS_CLI_PROGRESS_H
#define HKS_CLI_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cli_progress {
	bool enabled;
	size_t total;
	size_t last_drawn;
	double last_time;
	double start_time;
	const char *label;
} cli_progress;

/* `wanted` false (--no-progress) or stderr not a terminal: every call is a no-op. */
void cli_progress_start(cli_progress *p, bool wanted, size_t total, const char *label);
/* Redraw when at least 0.1 s passed since the last redraw (or done == total). */
void cli_progress_update(cli_progress *p, size_t done);
/* Erase the bar. */
void cli_progress_finish(cli_progress *p);

/* Monotonic seconds. */
double cli_now(void);

#endif
