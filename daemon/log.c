/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "nvmond/log.h"

/* The log level is one of the two globals the style allows (with parsed options). */
static enum log_level current = LOG_LVL_INFO;

void log_set_level(enum log_level lvl)
{
	current = lvl;
}

enum log_level log_get_level(void)
{
	return current;
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	/* sd-daemon(3) prefixes: the journal reads the priority from "<N>". */
	static const int prio[] = {3, 4, 6, 7};
	char buf[2048];
	va_list ap;

	if (lvl > current)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	static const char *const name[] = {"error", "warning", "info", "debug"};
	/* Under systemd stderr goes to the journal, which reads the "<N>" prefix. */
	if (getenv("JOURNAL_STREAM"))
		fprintf(stderr, "<%d>%s\n", prio[lvl], buf);
	else
		fprintf(stderr, "nvmond: %s: %s\n", name[lvl], buf);
}
