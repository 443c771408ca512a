/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/store/store.h"

/*
 * The notification outbox (migrations/0014_notify_outbox.sql): a notification
 * is stored with the alert row it reports, in one transaction, and stays until
 * every sink it was meant for delivered it or gave up. The store does not read
 * the note: it is the alert service's JSON.
 */
struct outbox_row {
	int64_t id;
	int64_t alert_id;
	char sink[64]; /* the sink's name */
	char *note;    /* malloc()ed */
};

/**
 * store_outbox_add() - Record @note (JSON) about @alert_id for the sink named
 * @sink. Call it in the transaction that writes the alert row.
 * Return: 0 with *ret_id, or negative errno.
 */
int store_outbox_add(struct store *s, int64_t alert_id, const char *sink, int64_t now_ms,
		     const char *note, int64_t *ret_id);

/**
 * store_outbox_done() - Its sink is done with notification @id (delivered or
 * gave up): the row goes.
 * Return: 0 (also when @id is gone), or negative errno.
 */
int store_outbox_done(struct store *s, int64_t id);

/**
 * store_outbox_pending() - The notifications still pending, oldest first, at
 * most @max. Free with store_outbox_free().
 * Return: 0, or negative errno.
 */
int store_outbox_pending(struct store *s, size_t max, struct outbox_row **ret, size_t *ret_n);

/** store_outbox_free() - Free @n rows of @v. Accepts NULL. */
void store_outbox_free(struct outbox_row *v, size_t n);

/** store_outbox_prune() - Forget notifications made before @before_ms. Return: 0 or -errno. */
int store_outbox_prune(struct store *s, int64_t before_ms);
