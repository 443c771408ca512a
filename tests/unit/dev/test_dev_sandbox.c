/* SPDX-License-Identifier: MIT */
/*
 * The device process's seccomp filter (dev_sandbox.h), applied in the test's
 * own process (Criterion runs each test in a child of its own): issue 15 §1,
 * "the device process cannot create an AF_INET socket".
 */
#include <errno.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <linux/io_uring.h>

#include "nvmond/dev/dev_sandbox.h"

static void applied(void)
{
	cr_assert_eq(dev_sandbox_apply(), 0);
}

TestSuite(dev_sandbox, .init = applied);

/* Rule: no socket of a network family (AF_INET, AF_INET6, AF_PACKET, AF_NETLINK). */
Test(dev_sandbox, network_families_refused)
{
	const int families[] = {AF_INET, AF_INET6, AF_PACKET, AF_NETLINK};

	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		errno = 0;
		cr_expect_eq(socket(families[i], SOCK_STREAM, 0), -1, "family %d", families[i]);
		cr_expect_eq(errno, EAFNOSUPPORT, "family %d: errno %d", families[i], errno);
	}
	int sv[2];
	errno = 0;
	cr_expect_eq(socketpair(AF_INET, SOCK_STREAM, 0, sv), -1);
	cr_expect_eq(errno, EAFNOSUPPORT);
}

/* Rule: AF_UNIX stays: the channel to the daemon and the journal. */
Test(dev_sandbox, unix_sockets_allowed)
{
	int sv[2], fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	cr_expect_geq(fd, 0, "errno %d", errno);
	cr_expect_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
}

/* Rule: io_uring_setup() refused (IORING_OP_SOCKET would bypass the socket() rule). */
Test(dev_sandbox, io_uring_refused)
{
	struct io_uring_params p = {0};

	errno = 0;
	cr_expect_eq(syscall(SYS_io_uring_setup, 4, &p), -1);
	cr_expect_eq(errno, EPERM);
}

/* Rule: no program started from the device process; no_new_privs set. */
Test(dev_sandbox, exec_refused_and_no_new_privs)
{
	char *argv[] = {"/bin/true", NULL};
	char *envp[] = {NULL};

	errno = 0;
	cr_expect_eq(execve("/bin/true", argv, envp), -1);
	cr_expect_eq(errno, EPERM);
	cr_expect_eq(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), 1);
}
