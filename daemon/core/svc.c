/* SPDX-License-Identifier: MIT */
/*
 * The service manager: readiness, status and the watchdog through sd_notify(3);
 * no-ops when not running under systemd.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <systemd/sd-daemon.h>

#include "nvmond/core/svc.h"

int svc_notify(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return sd_notify(0, buf);
}

bool svc_managed(void)
{
	const char *e = getenv("NOTIFY_SOCKET");

	return e && e[0];
}

int64_t svc_watchdog_ms(void)
{
	uint64_t usec = 0;

	if (sd_watchdog_enabled(0, &usec) <= 0)
		return 0;
	return (int64_t)(usec / 1000);
}
