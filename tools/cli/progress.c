/* Progress bar on stderr (see progress.h). */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <stdio.h>
#include <time.h>

#include "platform.h"

double cli_now(void)
{
	return hks_platform_monotonic_seconds();
}

void cli_progress_start(cli_progress *p, bool wanted, size_t total, const char *label)
{
	p->enabled = wanted && hks_platform_is_terminal(stderr);
	p->total = total;
	p->last_drawn = (size_t)-1;
	p->start_time = cli_now();
	p->last_time = 0;
	p->label = label;
	cli_progress_update(p, 0);
}

void cli_progress_update(cli_progress *p, size_t done)
{
	if (!p->enabled || done == p->last_drawn)
		return;
	double now = cli_now();
	if (done != p->total && now - p->last_time < 0.1)
		return;
	p->last_time = now;
	p->last_drawn = done;
	enum { WIDTH = 30 };
	size_t filled = p->total ? done * WIDTH / p->total : WIDTH;
	char bar[WIDTH + 1];
	for (size_t i = 0; i < WIDTH; i++)
		bar[i] = i < filled ? '#' : '.';
	bar[WIDTH] = '\0';
	fprintf(stderr, "\r[%s] %zu/%zu %s  %.1f s", bar, done, p->total, p->label, now - p->start_time);
	fflush(stderr);
}

void cli_progress_finish(cli_progress *p)
{
	if (!p->enabled)
		return;
	fprintf(stderr, "\r\033[K");
	fflush(stderr);
}
