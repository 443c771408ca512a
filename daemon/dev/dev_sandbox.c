/* SPDX-License-Identifier: MIT */
/*
 * The device process's seccomp filter (dev_sandbox.h): it talks to
 * controllers and to the daemon over a unix socket, and to nothing on a
 * network (issue 15 §1, docs/security.md).
 */
#include <errno.h>
#include <sys/socket.h>

#include <seccomp.h>

#include "nvmond/dev/dev_sandbox.h"

int dev_sandbox_apply(void)
{
	scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
	int r;

	if (!f)
		return -ENOMEM;
	r = seccomp_attr_set(f, SCMP_FLTATR_CTL_NNP, 1);
	if (r == 0)
		r = seccomp_rule_add(f, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
				     SCMP_A0(SCMP_CMP_NE, AF_UNIX));
	if (r == 0)
		r = seccomp_rule_add(f, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socketpair), 1,
				     SCMP_A0(SCMP_CMP_NE, AF_UNIX));
	if (r == 0)
		r = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(io_uring_setup), 0);
	if (r == 0)
		r = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(execve), 0);
	if (r == 0)
		r = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(execveat), 0);
	if (r == 0)
		r = seccomp_load(f);
	seccomp_release(f);
	return r;
}
