/* SPDX-License-Identifier: MIT */
/*
 * The device process's own configuration (main_devpolicy.h). It holds the
 * configuration read at start and reads the file again when the daemon says
 * it got SIGHUP (DEV_OP_CONFIGURE, which carries nothing else). From it come
 * the options of its backend (wake_sleeping, device_timeout) and the
 * raw-namespace policy (probe_nspolicy.h) that every DEV_OP_OPEN_NS meets
 * before anything is opened. A write open also meets the file as it is at
 * that moment: a namespace taken out of the configuration is refused at once,
 * before any reload (when in doubt, it refuses).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmond/core/log.h"
#include "nvmond/probe/probe_nsopen.h"
#include "nvmond/probe/probe_nspolicy.h"

#include "nvmond/main/main_devpolicy.h"

struct devpolicy {
	const struct opts *opts; /* the command line's: which file, which overrides */
	pthread_mutex_t lock;	 /* channels' threads open while one reloads */
	struct cfg *held;	 /* the last configuration read whole */
};

static void log_writable(const char *when, const struct cfg *c)
{
	size_t n = probe_ns_policy_writable(c);

	log_info("device process: configuration %s: %zu [device] section%s let%s a raw namespace "
		 "be written (destructive = yes)",
		 when, n, n == 1 ? "" : "s", n == 1 ? "s" : "");
}

static int reload(void *ctx, struct dev_opts *ret)
{
	struct devpolicy *p = ctx;
	struct cfg *c = malloc(sizeof(*c)), *old;
	int r;

	if (!c)
		return -ENOMEM;
	r = load_config(p->opts, c); /* prints what is wrong */
	if (r < 0) {
		log_error("device process: %s not read again: it keeps the configuration it holds",
			  p->opts->config);
		free(c);
		return r;
	}
	pthread_mutex_lock(&p->lock);
	old = p->held;
	p->held = c;
	pthread_mutex_unlock(&p->lock);
	free(old);
	log_writable("read again", c);
	*ret = (struct dev_opts){.wake_sleeping = c->wake_sleeping,
				 .device_timeout_ms = c->device_timeout_ms};
	return 0;
}

/* DEV_NS_WRITE: the file as it is now must allow it too. */
static int check_now(struct devpolicy *p, const struct dev_ident *who, uint32_t nsid,
		     char ret_reason[DEV_NS_REASON_MAX])
{
	char why[DEV_NS_REASON_MAX];
	struct cfg *c = malloc(sizeof(*c));
	int r;

	if (!c)
		return -ENOMEM;
	r = load_config(p->opts, c);
	if (r < 0)
		snprintf(ret_reason, DEV_NS_REASON_MAX,
			 "%.120s cannot be read now (%s): a raw namespace is not written: refused",
			 p->opts->config, strerror(-r));
	else if ((r = probe_ns_policy(c, who, nsid, DEV_NS_WRITE, why)) < 0)
		snprintf(ret_reason, DEV_NS_REASON_MAX, "%.60s as it is now: %.180s",
			 p->opts->config, why);
	free(c);
	return r < 0 ? -EPERM : 0;
}

static int open_ns(void *ctx, const char *ns, const struct dev_ident *who, uint32_t nsid,
		   enum dev_ns_mode mode, char ret_reason[DEV_NS_REASON_MAX])
{
	struct devpolicy *p = ctx;
	int r;

	pthread_mutex_lock(&p->lock);
	r = probe_ns_policy(p->held, who, nsid, mode, ret_reason);
	pthread_mutex_unlock(&p->lock);
	if (r == 0 && mode == DEV_NS_WRITE)
		r = check_now(p, who, nsid, ret_reason);
	if (r < 0) {
		log_warn("device process: /dev/%s (namespace %u of drive %s) not opened: %s", ns,
			 nsid, who && who->serial ? who->serial : "?", ret_reason);
		return r;
	}
	return probe_ns_open(ns, who, nsid, mode, ret_reason);
}

int devpolicy_new(const struct opts *o, const struct cfg *c, struct dev_serve_policy *ret)
{
	struct devpolicy *p = calloc(1, sizeof(*p));

	if (!p || !(p->held = malloc(sizeof(*p->held)))) {
		free(p);
		return -ENOMEM;
	}
	*p->held = *c;
	p->opts = o;
	pthread_mutex_init(&p->lock, NULL);
	log_writable("at start", c);
	*ret = (struct dev_serve_policy){.ctx = p, .reload = reload, .open_ns = open_ns};
	return 0;
}
