/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * Shared by the fleet view's merge (fleetview.c) and its hosts and drives
 * (fleetview_drive.c): pure, no I/O. Nothing outside daemon/fleetview includes this.
 */
#include <stdbool.h>
#include <stddef.h>

#include "nvmond/fleetview/fleetview.h"
#include "nvmond/fleetview/promq.h"

/* What merging keeps about a host beyond struct fv_host. */
struct hwork {
	const struct promq_sample *info; /* its newest nvmond_host_info (now, else known) */
	bool in_now;			 /* any sample in the instant query */
	bool info_now;			 /* its nvmond_host_info in the instant query */
	double gone_seen;		 /* the newest last sample of its drives (gone query) */
};

/* A label of @s, or @def when it has none. */
const char *fv_label_or(const struct promq_sample *s, const char *name, const char *def);

char *fv_dup(const char *s);

void fv_drive_free(struct fv_drive *d);

void fv_host_free(struct fv_host *h);

/* The identity and host labels of @h from nvmond_host_info sample @s. */
int fv_host_take_info(struct fv_host *h, const struct promq_sample *s);

int fv_drive_copy(struct fv_drive *to, const struct fv_drive *from);

void fv_drive_init(struct fv_drive *d);

int fv_host_key_cmp(const struct fv_host *x, const char *job, const char *instance);

/* @h's host in the previous view: a binary search of its key index. */
const struct fv_host *fv_prev_host(const struct fv_view *prev, const struct fv_host *h);

enum fv_verdict fv_verdict_derived(const struct fv_drive *d, bool has_data);

/* One value part of the instant query onto its drive. */
int fv_drive_apply(struct fv_drive *d, enum fv_part p, const struct promq_sample *s);

int fv_alert_cmp(const void *a, const void *b);

int fv_drive_cmp(const void *a, const void *b);

int fv_host_cmp(const void *a, const void *b);
