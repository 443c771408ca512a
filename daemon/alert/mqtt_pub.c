/* SPDX-License-Identifier: MIT */
/*
 * The MQTT publisher: libmosquitto's own network thread (mosquitto_loop_start:
 * connect, keepalive, reconnect with exponential backoff) and our publisher
 * thread, which waits on a condition variable for a snapshot, an event, a
 * (re)connection or the stop, builds the messages (mqtt_ha.c) and hands them
 * to the library. Callers only copy under the lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mosquitto.h>

#include "nvmond/alert/mqtt_pub.h"
#include "nvmond/util/mono_cond.h"

struct mqtt_pub {
	/* settings, owned copies */
	char *host, *username, *password, *ca_file, *client_id, *topic_prefix, *discovery_prefix,
		*node, *sw_version;
	uint16_t port;
	bool tls, discovery;
	int keepalive_s;
	uint32_t queue;
	struct mqtt_ha_cfg ha;
	char status_topic[512];

	struct mosquitto *mosq;
	pthread_t thread;
	bool thread_started;
	bool loop_started; /* written by the publisher thread only, read after joining it */
	unsigned retry_min_s, retry_max_s;

	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	bool connected;		       /* CONNACK accepted, not lost since */
	bool announce;		       /* a new connection: status, discovery, states again */
	struct mqtt_drive_state *snap; /* latest snapshot, owned */
	size_t n_snap;
	bool snap_new;
	struct alert_note *events; /* ring of queue entries */
	size_t ev_head, ev_len;
	int last_mid; /* of the "offline" publish at shutdown */
	bool last_mid_done;
	struct mqtt_pub_stats st;
};

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;
static void lib_init(void)
{
	mosquitto_lib_init();
}

static char *dup_or_null(const char *s)
{
	return s && s[0] ? strdup(s) : NULL;
}

static void set_error(struct mqtt_pub *p, const char *what, int rc)
{
	snprintf(p->st.last_error, sizeof(p->st.last_error), "mqtt: %s: %s", what,
		 rc == MOSQ_ERR_ERRNO ? strerror(errno) : mosquitto_strerror(rc));
}

static void on_connect(struct mosquitto *m, void *arg, int rc)
{
	struct mqtt_pub *p = arg;

	(void)m;
	pthread_mutex_lock(&p->lock);
	if (rc == 0) {
		p->connected = true;
		p->announce = true;
		p->st.connects++;
	} else {
		p->st.disconnects++;
		snprintf(p->st.last_error, sizeof(p->st.last_error), "mqtt: connection refused: %s",
			 mosquitto_connack_string(rc));
	}
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static void on_disconnect(struct mosquitto *m, void *arg, int rc)
{
	struct mqtt_pub *p = arg;

	(void)m;
	pthread_mutex_lock(&p->lock);
	if (p->connected) {
		p->st.disconnects++;
		if (rc != 0)
			set_error(p, "connection lost", rc);
	}
	p->connected = false;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static void on_publish(struct mosquitto *m, void *arg, int mid)
{
	struct mqtt_pub *p = arg;

	(void)m;
	pthread_mutex_lock(&p->lock);
	if (mid == p->last_mid) {
		p->last_mid_done = true;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
}

/* Publish @m (called without the lock). Return: 0 or a MOSQ_ERR_*. */
static int send_msgs(struct mqtt_pub *p, struct mqtt_msgs *m)
{
	int rc = MOSQ_ERR_SUCCESS;
	uint64_t sent = 0;

	for (size_t i = 0; i < m->n && rc == MOSQ_ERR_SUCCESS; i++) {
		rc = mosquitto_publish(p->mosq, NULL, m->v[i].topic, (int)strlen(m->v[i].payload),
				       m->v[i].payload, 1, m->v[i].retain);
		if (rc == MOSQ_ERR_SUCCESS)
			sent++;
	}
	pthread_mutex_lock(&p->lock);
	p->st.published += sent;
	if (rc != MOSQ_ERR_SUCCESS)
		set_error(p, "publish", rc);
	pthread_mutex_unlock(&p->lock);
	mqtt_msgs_clear(m);
	return rc;
}

/* The drives whose discovery configs went out on this connection. */
struct announced {
	char (*id)[32];
	size_t n, cap;
};

/* Add @d's id to @a. Return: true if it was not there (or no memory: announce again). */
static bool announced_add(struct announced *a, const struct mqtt_drive_state *d)
{
	char id[32];

	mqtt_ha_drive_id(d, id, sizeof(id));
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->id[i], id) == 0)
			return false;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 8;
		char(*v)[32] = realloc(a->id, cap * sizeof(*v));
		if (!v)
			return true;
		a->id = v;
		a->cap = cap;
	}
	memcpy(a->id[a->n++], id, sizeof(id));
	return true;
}

static void *pub_main(void *arg)
{
	struct mqtt_pub *p = arg;
	struct mqtt_msgs m = {0};
	struct announced announced = {0};
	struct mqtt_drive_state *snap = NULL;
	size_t n_snap = 0;

	(void)pthread_setname_np(pthread_self(), "mqtt-pub");
	/*
	 * The first connection is ours to retry: libmosquitto's thread takes over
	 * (keepalive, reconnects with backoff) only once a connect has started.
	 */
	unsigned delay_s = p->retry_min_s;
	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		pthread_mutex_unlock(&p->lock);
		int rc = mosquitto_connect_async(p->mosq, p->host, p->port, p->keepalive_s);
		if (rc == MOSQ_ERR_SUCCESS)
			rc = mosquitto_loop_start(p->mosq);
		pthread_mutex_lock(&p->lock);
		if (rc == MOSQ_ERR_SUCCESS) {
			p->loop_started = true;
			break;
		}
		set_error(p, "connect", rc);
		struct timespec dl;
		clock_gettime(CLOCK_MONOTONIC, &dl);
		dl.tv_sec += delay_s;
		while (!p->stop && pthread_cond_timedwait(&p->cond, &p->lock, &dl) != ETIMEDOUT)
			;
		delay_s = delay_s * 2 > p->retry_max_s ? p->retry_max_s : delay_s * 2;
	}
	for (;;) {
		while (!p->stop && !(p->connected && (p->announce || p->snap_new || p->ev_len > 0)))
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->stop)
			break;
		bool online = p->announce; /* a new connection */
		bool announce = online;
		p->announce = false;
		if (p->snap_new) {
			free(snap);
			snap = p->snap;
			n_snap = p->n_snap;
			p->snap = NULL;
			p->n_snap = 0;
			p->snap_new = false;
			announce = true; /* states, and discovery for a drive new here */
		}
		struct alert_note ev;
		bool have_ev = false;
		if (!announce && p->ev_len > 0) {
			ev = p->events[p->ev_head];
			have_ev = true;
		}
		pthread_mutex_unlock(&p->lock);

		int rc = 0;
		if (online)
			rc = mosquitto_publish(p->mosq, NULL, p->status_topic, 6, "online", 1,
					       true);
		if (online)
			announced.n = 0;
		if (announce && rc == 0) {
			for (size_t i = 0; rc == 0 && i < n_snap; i++) {
				/* Discovery once per connection and drive: it is retained. */
				if (p->discovery && announced_add(&announced, &snap[i]) &&
				    mqtt_ha_discovery(&p->ha, &snap[i], &m) < 0)
					rc = MOSQ_ERR_NOMEM;
				if (rc == 0 && mqtt_ha_states(&p->ha, &snap[i], &m) < 0)
					rc = MOSQ_ERR_NOMEM;
			}
			if (rc == 0)
				rc = send_msgs(p, &m);
		} else if (have_ev) {
			rc = mqtt_ha_event(&p->ha, &ev, &m) < 0 ? MOSQ_ERR_NOMEM : send_msgs(p, &m);
		}
		mqtt_msgs_clear(&m);

		pthread_mutex_lock(&p->lock);
		if (have_ev && rc == MOSQ_ERR_SUCCESS)
			p->st.events_sent++;
		else if (have_ev && rc != MOSQ_ERR_NO_CONN)
			p->st.events_failed++;
		if (have_ev && rc != MOSQ_ERR_NO_CONN && p->ev_len > 0) {
			/* sent, or failed for good (too big, no memory): either way its turn is over */
			p->ev_head = (p->ev_head + 1) % p->queue;
			p->ev_len--;
		}
		if (rc == MOSQ_ERR_NO_CONN) {
			/* lost under our feet: everything again on the next connection */
			p->connected = false;
			p->announce = true;
		}
	}
	pthread_mutex_unlock(&p->lock);
	free(snap);
	free(m.v);
	free(announced.id);
	return NULL;
}

int mqtt_pub_new(const struct mqtt_cfg *c, struct mqtt_pub **ret)
{
	if (!c->host || !c->host[0])
		return -EINVAL;
	pthread_once(&lib_once, lib_init);

	struct mqtt_pub *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->lock, NULL);
	(void)mono_cond_init(&p->cond); /* timed waits immune to clock steps */
	p->last_mid = -1;

	char node[256];
	if (c->node && c->node[0])
		snprintf(node, sizeof(node), "%s", c->node);
	else if (gethostname(node, sizeof(node)) != 0 || !node[0])
		snprintf(node, sizeof(node), "localhost");
	node[sizeof(node) - 1] = '\0';

	p->host = strdup(c->host);
	p->username = dup_or_null(c->username);
	p->password = dup_or_null(c->password);
	p->ca_file = dup_or_null(c->ca_file);
	p->topic_prefix =
		strdup(c->topic_prefix && c->topic_prefix[0] ? c->topic_prefix : "nvmond");
	p->discovery_prefix =
		strdup(c->discovery_prefix && c->discovery_prefix[0] ? c->discovery_prefix
								     : "homeassistant");
	p->node = strdup(node);
	p->sw_version = strdup(c->sw_version ? c->sw_version : "");
	if (c->client_id && c->client_id[0])
		p->client_id = strdup(c->client_id);
	else if (asprintf(&p->client_id, "nvmond-%s", node) < 0)
		p->client_id = NULL;
	p->tls = c->tls;
	p->port = c->port ? c->port : c->tls ? 8883 : 1883;
	p->discovery = c->discovery;
	p->keepalive_s = c->keepalive_s > 0 ? c->keepalive_s : 60;
	p->queue = c->queue ? c->queue : 64;
	p->events = calloc(p->queue, sizeof(*p->events));
	int r = -ENOMEM;
	if (!p->host || !p->topic_prefix || !p->discovery_prefix || !p->node || !p->sw_version ||
	    !p->client_id || !p->events || (c->username && c->username[0] && !p->username) ||
	    (c->password && c->password[0] && !p->password))
		goto fail;
	p->ha = (struct mqtt_ha_cfg){.topic_prefix = p->topic_prefix,
				     .discovery_prefix = p->discovery_prefix,
				     .host = p->node,
				     .sw_version = p->sw_version};
	r = -ENAMETOOLONG;
	if (mqtt_ha_status_topic(&p->ha, p->status_topic, sizeof(p->status_topic)) < 0)
		goto fail;

	r = -ENOMEM;
	p->mosq = mosquitto_new(p->client_id, true, p);
	if (!p->mosq)
		goto fail;
	r = -EINVAL;
	if (mosquitto_int_option(p->mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311) ||
	    mosquitto_will_set(p->mosq, p->status_topic, 7, "offline", 1, true) ||
	    mosquitto_reconnect_delay_set(p->mosq, c->retry_min_s ? c->retry_min_s : 1,
					  c->retry_max_s ? c->retry_max_s : 60, true) != 0)
		goto fail;
	if (p->username && mosquitto_username_pw_set(p->mosq, p->username, p->password))
		goto fail;
	if (p->tls) {
		int rc = p->ca_file ? mosquitto_tls_set(p->mosq, p->ca_file, NULL, NULL, NULL, NULL)
				    : mosquitto_int_option(p->mosq, MOSQ_OPT_TLS_USE_OS_CERTS, 1);
		if (rc) {
			set_error(p, "tls", rc);
			goto fail;
		}
	}
	mosquitto_connect_callback_set(p->mosq, on_connect);
	mosquitto_disconnect_callback_set(p->mosq, on_disconnect);
	mosquitto_publish_callback_set(p->mosq, on_publish);

	p->retry_min_s = c->retry_min_s ? c->retry_min_s : 1;
	p->retry_max_s = c->retry_max_s ? c->retry_max_s : 60;
	r = -pthread_create(&p->thread, NULL, pub_main, p);
	if (r < 0)
		goto fail;
	p->thread_started = true;
	*ret = p;
	return 0;
fail:
	mqtt_pub_free(p);
	return r;
}

void mqtt_pub_states(struct mqtt_pub *p, const struct mqtt_drive_state *d, size_t n)
{
	struct mqtt_drive_state *copy = n ? malloc(n * sizeof(*d)) : NULL;

	if (n && !copy)
		return;
	if (n)
		memcpy(copy, d, n * sizeof(*d));
	pthread_mutex_lock(&p->lock);
	free(p->snap);
	p->snap = copy;
	p->n_snap = n;
	p->snap_new = true;
	p->st.snapshots++;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

int mqtt_pub_event(struct mqtt_pub *p, const struct alert_note *note)
{
	int r = 0;

	pthread_mutex_lock(&p->lock);
	if (p->ev_len == p->queue) {
		p->st.events_dropped++;
		r = -ENOBUFS;
	} else {
		p->events[(p->ev_head + p->ev_len) % p->queue] = *note;
		p->ev_len++;
		p->st.events_queued++;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return r;
}

void mqtt_pub_stats(struct mqtt_pub *p, struct mqtt_pub_stats *ret)
{
	pthread_mutex_lock(&p->lock);
	*ret = p->st;
	ret->connected = p->connected;
	ret->pending = p->ev_len;
	pthread_mutex_unlock(&p->lock);
}

struct mqtt_pub *mqtt_pub_free(struct mqtt_pub *p)
{
	if (!p)
		return NULL;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	if (p->thread_started)
		pthread_join(p->thread, NULL);

	if (p->loop_started) {
		pthread_mutex_lock(&p->lock);
		bool connected = p->connected;
		pthread_mutex_unlock(&p->lock);
		int mid = -1;
		/* A clean disconnect sends no will: say "offline" ourselves, wait ~1 s for the ack. */
		if (connected) {
			struct timespec dl;
			clock_gettime(CLOCK_MONOTONIC, &dl);
			dl.tv_sec += 1;
			/* Under the lock, so that on_publish cannot miss the mid. */
			pthread_mutex_lock(&p->lock);
			if (mosquitto_publish(p->mosq, &mid, p->status_topic, 7, "offline", 1,
					      true) == 0) {
				p->last_mid = mid;
				while (!p->last_mid_done &&
				       pthread_cond_timedwait(&p->cond, &p->lock, &dl) != ETIMEDOUT)
					;
			}
			pthread_mutex_unlock(&p->lock);
		}
		mosquitto_disconnect(p->mosq);
		/* Connected: the loop ends with the DISCONNECT. Not: it may sit in a
		 * connect or a backoff sleep, both cancellation points. */
		mosquitto_loop_stop(p->mosq, !connected);
	}
	mosquitto_destroy(p->mosq);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p->events);
	free(p->snap);
	free(p->host);
	free(p->username);
	if (p->password)
		explicit_bzero(p->password, strlen(p->password));
	free(p->password);
	free(p->ca_file);
	free(p->client_id);
	free(p->topic_prefix);
	free(p->discovery_prefix);
	free(p->node);
	free(p->sw_version);
	free(p);
	return NULL;
}
