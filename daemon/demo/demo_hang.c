/* SPDX-License-Identifier: MIT */
/*
 * A test hook of the demo backend: a demo controller that stops answering. A
 * test names a file in NVMOND_DEMO_HANG in the daemon's environment and
 * writes a drive's name ("demo1") on a line of it; every command to that
 * drive then blocks, as an admin command to a hung controller blocks in the
 * kernel, until the line (or the file) is gone. Only tests set the variable.
 * See demo.h.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvmond/demo/demo.h"

static bool hang_named(const char *path, const char *name)
{
	char line[128], who[32];
	bool hang = false;
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	while (!hang && fgets(line, sizeof(line), f))
		hang = sscanf(line, "%31s", who) == 1 && strcmp(who, name) == 0;
	fclose(f);
	return hang;
}

void dev_demo_hang_wait(const char *name)
{
	const char *path = getenv(DEV_DEMO_HANG_ENV);
	const struct timespec tick = {.tv_nsec = 50 * 1000 * 1000};

	if (!path || !*path)
		return;
	while (hang_named(path, name))
		nanosleep(&tick, NULL);
}
