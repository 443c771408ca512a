/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The device process and the daemon's end of its channel (docs/security.md).
 * dev_serve() runs in the device process and answers device commands on a
 * backend; dev_remote_open() gives the daemon a backend whose commands go
 * over the channel. The channel is a connected SOCK_STREAM unix socket.
 */
#include "nvmond/dev/dev.h"

/**
 * dev_serve() - Serve backend @b on @fd: send the hello, then take the new
 * channels the daemon sends (one per controller, DEV_WIRE_CHANNEL) until it
 * closes @fd (return 0) or sends a broken frame (-EPROTO). Each channel has a
 * thread of its own (at most DEV_SERVE_THREADS) that answers its requests one
 * after the other, so a command stuck in the kernel holds only its channel.
 * @open_err < 0 sends it as a failed hello (the backend did not open) and
 * returns.
 */
int dev_serve(int fd, struct dev_backend *b, int open_err);

#define DEV_SERVE_THREADS 1024

/*
 * What the device process holds itself, never taken from the daemon
 * (docs/security.md#privilege-separation): its options, read from its own
 * configuration, and the write policy of raw namespaces.
 */
struct dev_serve_policy {
	void *ctx;
	/*
	 * DEV_OP_CONFIGURE: read the configuration again (the daemon's request
	 * carries nothing it takes) and fill @ret with the options it sets
	 * ([daemon] wake_sleeping and device_timeout). Return: 0, or negative
	 * errno (logged by the callee): the options in effect stay.
	 */
	int (*reload)(void *ctx, struct dev_opts *ret);
	/*
	 * DEV_OP_OPEN_NS (NULL: not served): open block device /dev/@ns,
	 * namespace @nsid of drive @who, in @mode, when the configuration lets
	 * it be opened so and it is that namespace (probe_nsopen.h). Return: the
	 * descriptor, or negative errno with @ret_reason.
	 */
	int (*open_ns)(void *ctx, const char *ns, const struct dev_ident *who, uint32_t nsid,
		       enum dev_ns_mode mode, char ret_reason[DEV_NS_REASON_MAX]);
};

/**
 * dev_serve_policy() - dev_serve() with @p (may be NULL: DEV_OP_CONFIGURE
 * then changes nothing, DEV_OP_OPEN_NS is not served). DEV_OP_CONFIGURE
 * applies what @p->reload read, whatever the request carries; a descriptor
 * @p->open_ns opens goes to the daemon with the answer and is closed here.
 * The daemon, without privilege, can then read or write that namespace and
 * nothing else (docs/security.md).
 */
int dev_serve_policy(int fd, struct dev_backend *b, int open_err, const struct dev_serve_policy *p);

/**
 * dev_remote_open() - A backend whose commands go to the device process at
 * the other end of @fd (taken over: closed by dev_backend_free()). Waits for
 * the hello. When the device process goes away, every waiting and later
 * command fails with -EPIPE.
 * Return: 0, or the device process's error opening its backend, -EPROTO, -ENOMEM.
 */
int dev_remote_open(int fd, struct dev_backend **ret);
