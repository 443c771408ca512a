/* SPDX-License-Identifier: MIT */
/*
 * The alerts service's side of the notification outbox (store_outbox): each
 * notification of an alert is kept with the alert row, queued for the sinks, and
 * forgotten once every sink is done with it. Kept notifications still pending at
 * start (the daemon died, or stopped with some still queued) are sent again.
 * The sinks report "done" on their threads; the store is written on the main
 * loop only, so those reports wait in a small locked list that the main loop
 * drains (woken by mainq_post(), and once more when the sinks stop).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "nvmond/core/log.h"
#include "nvmond/store/store_outbox.h"
#include "nvmond/util/timefmt.h"
#include "alert_svc_internal.h"

/* Kept notifications older than this are not sent again (nor kept). */
#define OUTBOX_KEEP_MS (7 * 86400 * 1000LL)
/* At most this many are queued again at start (a sink's queue holds 256 by default). */
#define OUTBOX_REPLAY_MAX 1000

struct outbox_done {
	int64_t id;
};

struct alert_outbox {
	pthread_mutex_t lock;
	struct outbox_done *v;
	size_t n, cap;
};

static char *note_dump(const struct alert_note *n)
{
	json_t *j =
		json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I}",
			  "device_id", (json_int_t)n->device_id, "device", n->device, "model",
			  n->model, "serial", n->serial, "label", n->label, "location", n->location,
			  "host", n->host, "rule", n->rule, "severity", n->severity, "state",
			  n->state, "message", n->message, "started_ms", (json_int_t)n->started_ms,
			  "resolved_ms", (json_int_t)n->resolved_ms, "ts_ms", (json_int_t)n->ts_ms);
	char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;

	json_decref(j);
	return s;
}

static void copy_str(char *dst, size_t size, json_t *j, const char *key)
{
	const char *v = json_string_value(json_object_get(j, key));

	snprintf(dst, size, "%s", v ? v : "");
}

/* Return: 0, or -EINVAL for a note that is not ours. */
static int note_load(const struct outbox_row *o, struct alert_note *ret)
{
	json_t *j = json_loads(o->note, 0, NULL);

	if (!json_is_object(j)) {
		json_decref(j);
		return -EINVAL;
	}
	*ret = (struct alert_note){
		.alert_id = o->alert_id,
		.note_id = o->id,
		.device_id = json_integer_value(json_object_get(j, "device_id")),
		.started_ms = json_integer_value(json_object_get(j, "started_ms")),
		.resolved_ms = json_integer_value(json_object_get(j, "resolved_ms")),
		.ts_ms = json_integer_value(json_object_get(j, "ts_ms")),
	};
	copy_str(ret->device, sizeof(ret->device), j, "device");
	copy_str(ret->model, sizeof(ret->model), j, "model");
	copy_str(ret->serial, sizeof(ret->serial), j, "serial");
	/* Kept since issue 24; "" in a note an older nvmond kept. */
	copy_str(ret->label, sizeof(ret->label), j, "label");
	copy_str(ret->location, sizeof(ret->location), j, "location");
	copy_str(ret->host, sizeof(ret->host), j, "host");
	copy_str(ret->rule, sizeof(ret->rule), j, "rule");
	copy_str(ret->severity, sizeof(ret->severity), j, "severity");
	copy_str(ret->state, sizeof(ret->state), j, "state");
	copy_str(ret->message, sizeof(ret->message), j, "message");
	json_decref(j);
	return 0;
}

/* Main loop: clear the bits the sinks reported. */
void alert_outbox_drain(struct alert_svc *a)
{
	struct alert_outbox *o = a->outbox;
	struct outbox_done *v;
	size_t n;

	if (!o)
		return;
	pthread_mutex_lock(&o->lock);
	v = o->v;
	n = o->n;
	o->v = NULL;
	o->n = o->cap = 0;
	pthread_mutex_unlock(&o->lock);
	for (size_t i = 0; i < n; i++) {
		int r = store_outbox_done(a->store, v[i].id);
		if (r < 0)
			log_warn("alerts: cannot clear notification %" PRId64
				 " from the outbox (it may be sent again after a restart): %s",
				 v[i].id, store_strerror(a->store));
	}
	free(v);
}

static int drain_cb(void *arg)
{
	alert_outbox_drain(arg);
	return 0;
}

/* A sink's thread: remember, and wake the main loop when the list was empty. */
static void on_done(void *ctx, const char *sink, int64_t note_id)
{
	(void)sink;
	struct alert_svc *a = ctx;
	struct alert_outbox *o = a->outbox;
	bool wake;

	pthread_mutex_lock(&o->lock);
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 16;
		struct outbox_done *v = realloc(o->v, cap * sizeof(*v));
		if (!v) {
			pthread_mutex_unlock(&o->lock);
			return; /* sent again after a restart: a duplicate, never a loss */
		}
		o->v = v;
		o->cap = cap;
	}
	o->v[o->n++] = (struct outbox_done){note_id};
	wake = o->n == 1;
	pthread_mutex_unlock(&o->lock);
	if (wake && a->mainq)
		(void)mainq_post(a->mainq, drain_cb, a);
}

int alert_outbox_keep(struct alert_svc *a, struct alert_note *n, struct alert_outbox_kept *ret)
{
	char *note;
	int r = 0;

	ret->n = 0;
	n->note_id = 0;
	if (!a->sinks || !n->alert_id)
		return 0;
	size_t k = alert_sinks_targets(a->sinks, n, ret->sink);
	if (!k)
		return 0;
	note = note_dump(n);
	if (!note)
		return -ENOMEM;
	for (size_t i = 0; i < k && r == 0; i++)
		r = store_outbox_add(a->store, n->alert_id, ret->sink[i], n->ts_ms, note,
				     &ret->id[i]);
	free(note);
	if (r == 0)
		ret->n = k;
	return r;
}

void alert_outbox_send(struct alert_svc *a, const struct alert_note *n,
		       const struct alert_outbox_kept *kept)
{
	if (!a->sinks)
		return; /* stopping: a kept note goes at the next start */
	if (!kept || !kept->n) {
		alert_sinks_send(a->sinks, n);
		return;
	}
	/* A sink that refuses it (queue full) keeps its row: sent at the next start. */
	for (size_t i = 0; i < kept->n; i++) {
		struct alert_note copy = *n;
		copy.note_id = kept->id[i];
		(void)alert_sinks_send_to(a->sinks, kept->sink[i], &copy);
	}
}

int alert_outbox_start(struct alert_svc *a, int64_t now_ms)
{
	struct outbox_row *v = NULL;
	size_t n = 0, sent = 0;
	int r;

	a->outbox = calloc(1, sizeof(*a->outbox));
	if (!a->outbox)
		return -ENOMEM;
	pthread_mutex_init(&a->outbox->lock, NULL);
	alert_sinks_on_done(a->sinks, on_done, a);
	r = store_outbox_prune(a->store, now_ms - OUTBOX_KEEP_MS);
	if (r == 0)
		r = store_outbox_pending(a->store, OUTBOX_REPLAY_MAX, &v, &n);
	if (r < 0) {
		log_warn("alerts: cannot read the notification outbox: %s",
			 store_strerror(a->store));
		return 0; /* the daemon runs; notifications made from now on are kept */
	}
	for (size_t i = 0; i < n; i++) {
		struct alert_note note;

		/* A sink no longer configured will never deliver it. */
		if (!alert_sinks_has(a->sinks, v[i].sink) || note_load(&v[i], &note) < 0) {
			(void)store_outbox_done(a->store, v[i].id);
			continue;
		}
		(void)alert_sinks_send_to(a->sinks, v[i].sink, &note);
		sent++;
	}
	if (sent)
		log_info("alerts: %zu notification(s) made before the restart but not yet "
			 "delivered are queued again",
			 sent);
	store_outbox_free(v, n);
	return 0;
}

void alert_outbox_stop(struct alert_svc *a)
{
	a->sinks = alert_sinks_free(a->sinks); /* joins the threads: no report after this */
	alert_outbox_drain(a);
	if (a->outbox) {
		free(a->outbox->v);
		pthread_mutex_destroy(&a->outbox->lock);
		free(a->outbox);
		a->outbox = NULL;
	}
}
