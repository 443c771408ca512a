/* SPDX-License-Identifier: MIT */
/*
 * nvmond-test-swap: an LD_PRELOAD shim that makes nvmond lose the hard-link
 * race on purpose, for tests/vm/test_probe_attacks.sh.
 *
 * With NVMOND_TEST_SWAP=NAME:VICTIM in the environment, the first open of a
 * path whose last component is NAME - through open, open64, openat, openat64
 * or syscall(SYS_openat2, ...), which is how nvmond calls openat2 - first
 * replaces NAME by a hard link to VICTIM (same filesystem), lets the open
 * happen, then unlinks VICTIM's own name: the file opened is VICTIM's inode,
 * with one link, under the probe file's name. That is the swap an attacker
 * who can write the directory would race against a check-then-open. The
 * shim acts once and says what it did on stderr ("nvmond-test-swap: ...").
 * Without the variable it only passes calls through.
 */
#undef _FORTIFY_SOURCE
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static bool swap_done;

/* The last component of @path. */
static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/*
 * Before the open of @path (relative to @dfd): when it is the first one that
 * names NAME, replace NAME by a hard link to VICTIM. Return: true when the
 * name was swapped (then swap_after() must run once the open returned).
 */
static bool swap_before(int dfd, const char *path, char victim[PATH_MAX])
{
	const char *spec = getenv("NVMOND_TEST_SWAP"), *colon;
	char name[NAME_MAX + 1];

	if (swap_done || !spec || !path || !(colon = strchr(spec, ':')))
		return false;
	if ((size_t)(colon - spec) > NAME_MAX || strlen(colon + 1) >= PATH_MAX)
		return false;
	snprintf(name, sizeof(name), "%.*s", (int)(colon - spec), spec);
	if (strcmp(base_of(path), name) != 0)
		return false;
	swap_done = true;
	snprintf(victim, PATH_MAX, "%s", colon + 1);
	int saved = errno;
	if (unlinkat(dfd, path, 0) < 0 && errno != ENOENT)
		fprintf(stderr, "nvmond-test-swap: cannot unlink %s: %s\n", path, strerror(errno));
	if (linkat(AT_FDCWD, victim, dfd, path, 0) < 0) {
		fprintf(stderr, "nvmond-test-swap: cannot link %s to %s: %s\n", path, victim,
			strerror(errno));
		errno = saved;
		return false;
	}
	fprintf(stderr, "nvmond-test-swap: %s is now a hard link to %s\n", path, victim);
	errno = saved;
	return true;
}

/* After the open: VICTIM's own name goes, so the opened file has one link. */
static void swap_after(const char *victim)
{
	int saved = errno;

	if (unlink(victim) < 0)
		fprintf(stderr, "nvmond-test-swap: cannot unlink %s: %s\n", victim,
			strerror(errno));
	else
		fprintf(stderr, "nvmond-test-swap: unlinked %s: the file has one link\n", victim);
	errno = saved;
}

static void *next(const char *sym)
{
	void *f = dlsym(RTLD_NEXT, sym);

	if (!f) {
		fprintf(stderr, "nvmond-test-swap: no %s: %s\n", sym, dlerror());
		abort();
	}
	return f;
}

/* open(2)-style calls: mode is there only with O_CREAT or O_TMPFILE. */
static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

static int openat_via(const char *sym, int dfd, const char *path, int flags, mode_t mode)
{
	int (*real)(int, const char *, int, ...) = next(sym);
	char victim[PATH_MAX];
	bool swapped = swap_before(dfd, path, victim);
	int fd = real(dfd, path, flags, mode);

	if (swapped)
		swap_after(victim);
	return fd;
}

static int open_via(const char *sym, const char *path, int flags, mode_t mode)
{
	int (*real)(const char *, int, ...) = next(sym);
	char victim[PATH_MAX];
	bool swapped = swap_before(AT_FDCWD, path, victim);
	int fd = real(path, flags, mode);

	if (swapped)
		swap_after(victim);
	return fd;
}

int open(const char *path, int flags, ...)
{
	va_list ap;

	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	return open_via("open", path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	va_list ap;

	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	return open_via("open64", path, flags, mode);
}

int openat(int dfd, const char *path, int flags, ...)
{
	va_list ap;

	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	return openat_via("openat", dfd, path, flags, mode);
}

int openat64(int dfd, const char *path, int flags, ...)
{
	va_list ap;

	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	return openat_via("openat64", dfd, path, flags, mode);
}

/*
 * syscall(2): every call passes through with six arguments (as glibc's own
 * syscall() reads them); SYS_openat2 (dfd, path, how, size) gets the swap.
 */
long syscall(long number, ...)
{
	long (*real)(long, ...) = next("syscall");
	char victim[PATH_MAX];
	bool swapped = false;
	long a[6];
	va_list ap;

	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
#ifdef SYS_openat2
	if (number == SYS_openat2)
		swapped = swap_before((int)a[0], (const char *)a[1], victim);
#endif
	long r = real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (swapped)
		swap_after(victim);
	return r;
}
