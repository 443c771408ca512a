/* SPDX-License-Identifier: MIT */
/*
 * nvmond-test-chan: a daemon taken over (issue 23 §1). It starts the device
 * process exactly as nvmond does (privsep_start(): the same fork, seccomp
 * filter and configuration of its own; with [daemon] user it then becomes
 * that user without a capability), and then, where nvmond would serve HTTP,
 * sends on the channel what an attacker holding the unprivileged process
 * would: one command per line of standard input, one answer line each on
 * standard output (flushed at once, so a script can wait for it):
 *
 *   open|MODE|NS|SERIAL|MODEL|NSID  MODE write, read or sig: DEV_OP_OPEN_NS
 *       -> "N granted: O_RDWR" / "N granted: O_RDONLY" (the descriptor's
 *          access mode; nothing is written through it) or "N refused: REASON"
 *   reload                          DEV_OP_CONFIGURE, as after SIGHUP
 *       -> "N reloaded"
 *
 * N counts the commands from 1. It lives in tests/, never in the daemon.
 * Usage: nvmond-test-chan CONFIG  (as root; exits at the end of input)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvmond/core/log.h"
#include "nvmond/dev/dev.h"

#include "nvmond/main/main_cfg.h"
#include "nvmond/main/main_cli.h"
#include "nvmond/main/main_privsep.h"

static int mode_of(const char *s, enum dev_ns_mode *ret)
{
	if (strcmp(s, "write") == 0)
		*ret = DEV_NS_WRITE;
	else if (strcmp(s, "read") == 0)
		*ret = DEV_NS_READ;
	else if (strcmp(s, "sig") == 0)
		*ret = DEV_NS_SIG;
	else
		return -EINVAL;
	return 0;
}

static void open_cmd(struct dev_backend *b, int n, char *args)
{
	char *f[5], *t, why[DEV_NS_REASON_MAX] = "";
	enum dev_ns_mode mode;
	size_t k = 0;

	args[strcspn(args, "\n")] = '\0';
	while ((t = strsep(&args, "|")) && k < 5)
		f[k++] = t; /* empty fields stay: a drive without a model */
	if (k != 5 || mode_of(f[0], &mode) < 0) {
		printf("%d bad command\n", n);
		return;
	}
	int fd = dev_open_ns(b, f[1], &(struct dev_ident){.serial = f[2], .model = f[3]},
			     (uint32_t)strtoul(f[4], NULL, 10), mode, why);
	if (fd < 0) {
		printf("%d refused: %s\n", n, why[0] ? why : strerror(-fd));
		return;
	}
	int fl = fcntl(fd, F_GETFL);
	printf("%d granted: %s\n", n, (fl & O_ACCMODE) == O_RDWR ? "O_RDWR" : "O_RDONLY");
	close(fd);
}

int main(int argc, char **argv)
{
	struct opts o = {.config = argc > 1 ? argv[1] : "", .config_given = true};
	struct dev_backend *b = NULL;
	struct privsep ps;
	struct cfg *c = malloc(sizeof(*c));
	char line[512];
	int n = 0;

	if (argc != 2 || !c) {
		fprintf(stderr, "usage: nvmond-test-chan CONFIG\n");
		return 2;
	}
	/* As main() does: the subsystems' sections ([probes], [http], …) are known. */
	if (main_cfg_sections() < 0)
		return 1;
	if (load_config(&o, c) < 0)
		return 2;
	if (privsep_start(c, &o, &b, &ps) < 0)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("0 uid %u euid %u\n", (unsigned)getuid(), (unsigned)geteuid());
	while (fgets(line, sizeof(line), stdin)) {
		n++;
		if (strncmp(line, "open|", 5) == 0) {
			open_cmd(b, n, line + 5);
		} else if (strncmp(line, "reload", 6) == 0) {
			dev_configure(b, &(struct dev_opts){0});
			printf("%d reloaded\n", n);
		} else {
			printf("%d bad command\n", n);
		}
	}
	dev_backend_free(b);
	privsep_reap(&ps);
	free(c);
	return 0;
}
