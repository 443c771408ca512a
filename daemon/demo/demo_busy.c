/* SPDX-License-Identifier: MIT */
/*
 * A test hook of the demo backend: foreground I/O on a demo drive. The demo
 * drives have no block device, so nothing else can make one busy; a test
 * names the file NVMOND_DEMO_BUSY in the daemon's environment and writes
 * "demo1 5000 200" lines in it (IO/s, MB/s) for as long as it wants the
 * drive busy. See demo.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/demo/demo.h"
#include "nvmond/dev/dev.h"

int dev_demo_foreground(struct dev_backend *b, const char *name, double *ret_iops, double *ret_bps)
{
	const char *path = getenv(DEV_DEMO_BUSY_ENV);
	char line[128], who[32];
	double iops, mbps;
	FILE *f;

	if (!dev_has(b, DEV_CAP_SIM_BUSY))
		return -EOPNOTSUPP;
	if (!path || !*path)
		return -ENOENT;
	*ret_iops = 0;
	*ret_bps = 0;
	f = fopen(path, "re");
	if (!f)
		return 0; /* no file: no drive is busy */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %lf %lf", who, &iops, &mbps) == 3 && !strcmp(who, name)) {
			*ret_iops = iops;
			*ret_bps = mbps * 1e6;
		}
	fclose(f);
	return 0;
}
