/* SPDX-License-Identifier: MIT */
/*
 * The configuration file, whole: cfg_load() of any bytes, read from a memfd
 * through /proc/self/fd/N exactly as the daemon reads /etc/nvmond/nvmond.conf
 * (libinih, the line reader, every key's value parser). A file either applies
 * whole or leaves the configuration as it was, with a FILE:LINE message.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "nvmond/core/cfg.h"
#include "nvmond/main/main_cfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	static struct cfg before, c;
	char err[CFG_ERR_MAX];

	if (fd < 0) {
		fd = memfd_create("nvmond-fuzz.conf", MFD_CLOEXEC);
		FUZZ_CHECK(fd >= 0);
		/* A memfd is 0777: cfg_load() refuses a file others can write (fperm.h). */
		FUZZ_CHECK(fchmod(fd, 0600) == 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		FUZZ_CHECK(main_cfg_sections() == 0); /* the subsystems' sections too */
		cfg_defaults(&before);
		c = before;
		FUZZ_CHECK(cfg_load(&c, path, err) == 0); /* an empty file is read, not refused */
	}
	FUZZ_CHECK(ftruncate(fd, 0) == 0);
	FUZZ_CHECK(pwrite(fd, data, size, 0) == (ssize_t)size);
	c = before;
	err[0] = '\0';
	if (cfg_load(&c, path, err) < 0) {
		FUZZ_CHECK(memcmp(&c, &before, sizeof(c)) == 0); /* all or nothing */
		FUZZ_CHECK(strnlen(err, sizeof(err)) < sizeof(err));
		FUZZ_CHECK(strncmp(err, path, strlen(path)) == 0); /* names the file */
	}
	return 0;
}
