/* SPDX-License-Identifier: MIT */
/*
 * Logging, at the edges only (main, loop callbacks, HTTP handlers): to the journal
 * with PRIORITY=, SYSLOG_IDENTIFIER= and per-device fields when stderr is the
 * journal stream, else to stderr as "nvmond: level: message".
 */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "nvmond/core/log.h"

#define LOG_LINE_MAX 2048

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

/* systemd sets $JOURNAL_STREAM to "dev:ino" of the stream it connected stderr to. */
static bool stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

static void log_write(enum log_level lvl, const char *device, const char *serial, const char *event,
		      const char *msg)
{
	/* syslog priorities: err, warning, info, debug */
	static const int prio[] = {3, 4, 6, 7};
	static const char *const name[] = {"error", "warning", "info", "debug"};

	if (stderr_is_journal()) {
		char f[6][LOG_LINE_MAX + 32];
		struct iovec iov[6];
		size_t n = 0;
		const struct {
			const char *key, *value;
		} fields[] = {
			{"DEVICE", device},
			{"SERIAL", serial},
			{"EVENT", event},
		};

		snprintf(f[n], sizeof(f[n]), "MESSAGE=%s", msg);
		n++;
		snprintf(f[n], sizeof(f[n]), "PRIORITY=%d", prio[lvl]);
		n++;
		snprintf(f[n], sizeof(f[n]), "SYSLOG_IDENTIFIER=nvmond");
		n++;
		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
			if (!fields[i].value || !fields[i].value[0])
				continue;
			snprintf(f[n], sizeof(f[n]), "%s=%s", fields[i].key, fields[i].value);
			n++;
		}
		for (size_t i = 0; i < n; i++)
			iov[i] = (struct iovec){.iov_base = f[i], .iov_len = strlen(f[i])};
		if (sd_journal_sendv(iov, (int)n) >= 0)
			return;
		/* No journal socket after all: the stream still reads "<N>" prefixes. */
		fprintf(stderr, "<%d>%s\n", prio[lvl], msg);
		return;
	}
	fprintf(stderr, "nvmond: %s: %s\n", name[lvl], msg);
}

static void log_vwrite(enum log_level lvl, const char *device, const char *serial,
		       const char *event, const char *fmt, va_list ap)
{
	char buf[LOG_LINE_MAX];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	log_write(lvl, device, serial, event, buf);
}

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	va_list ap;

	if (lvl > current)
		return;
	va_start(ap, fmt);
	log_vwrite(lvl, NULL, NULL, NULL, fmt, ap);
	va_end(ap);
}

void log_errno(enum log_level lvl, int err, const char *fmt, ...)
{
	char buf[LOG_LINE_MAX];
	va_list ap;
	int n;

	if (lvl > current)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* Cut where log_msg() would cut the whole line. */
	if (n >= 0 && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - (size_t)n, ": %s", strerror(err));
	log_write(lvl, NULL, NULL, NULL, buf);
}

void log_event(enum log_level lvl, const char *device, const char *serial, const char *event,
	       const char *fmt, ...)
{
	va_list ap;

	if (lvl > current)
		return;
	va_start(ap, fmt);
	log_vwrite(lvl, device, serial, event, fmt, ap);
	va_end(ap);
}
