/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/alert/alert_sink.h"
#include "nvmond/alert/mqtt_ha.h"

/*
 * The MQTT publisher: one libmosquitto client with its network thread
 * (connects, keeps alive, reconnects with exponential backoff) and one
 * publisher thread that turns what the callers hand over into messages
 * (mqtt_ha.c). The callers never wait on the network: states are a
 * latest-wins snapshot, events a bounded queue (more are dropped and counted).
 *
 * On each connection: "online" on the status topic (the last will says
 * "offline"), the discovery configs of every known drive (if enabled), the last
 * states, then the waiting events. Everything but events is retained.
 */
struct mqtt_cfg {
	const char *host;     /* broker */
	uint16_t port;	      /* 0: 1883, or 8883 with tls */
	const char *username; /* NULL or "": none */
	const char *password; /* already read from password_file if configured */
	bool tls;
	const char *ca_file;	      /* with tls; NULL or "": the system's CAs */
	const char *client_id;	      /* NULL or "": "nvmond-<node>" */
	const char *topic_prefix;     /* NULL: "nvmond" */
	bool discovery;		      /* Home Assistant discovery configs */
	const char *discovery_prefix; /* NULL: "homeassistant" */
	int keepalive_s;	      /* 0: 60 */
	const char *node;	      /* this machine in topics; NULL: gethostname() */
	const char *sw_version;	      /* nvmond's version, for discovery */
	uint32_t queue;		      /* events waiting; 0: 64 */
	unsigned retry_min_s;	      /* first reconnect delay; 0: 1 */
	unsigned retry_max_s;	      /* longest; 0: 60 */
};

struct mqtt_pub_stats {
	bool connected;
	uint64_t connects;	 /* CONNACKs accepted */
	uint64_t disconnects;	 /* connections lost or refused */
	uint64_t published;	 /* messages handed to the client library */
	uint64_t events_queued;	 /* accepted by mqtt_pub_event() */
	uint64_t events_sent;	 /* events handed to the client library on a connection */
	uint64_t events_failed;	 /* events the library refused (not for want of a connection) */
	uint64_t events_dropped; /* refused: queue full */
	uint64_t snapshots;	 /* mqtt_pub_states() calls */
	size_t pending;		 /* events waiting */
	char last_error[160];
};

struct mqtt_pub;

/**
 * mqtt_pub_new() - Copy @c and start connecting (in the background: a broker
 * that is down is retried, never an error here).
 * Return: 0 or negative errno (-EINVAL: no host; -ENOMEM; the library's setup).
 */
int mqtt_pub_new(const struct mqtt_cfg *c, struct mqtt_pub **ret);

/** mqtt_pub_states() - Hand over the states of all @n drives (copied; replaces an unsent snapshot). Never blocks on the network. */
void mqtt_pub_states(struct mqtt_pub *p, const struct mqtt_drive_state *d, size_t n);

/** mqtt_pub_event() - Queue @note as an event. Return: 0, or -ENOBUFS (queue full: dropped, counted). */
int mqtt_pub_event(struct mqtt_pub *p, const struct alert_note *note);

/** mqtt_pub_stats() - A consistent copy of the counters. */
void mqtt_pub_stats(struct mqtt_pub *p, struct mqtt_pub_stats *ret);

/**
 * mqtt_pub_free() - Publish "offline", disconnect cleanly (waiting at most about
 * a second for the broker) and stop the threads. Accepts NULL. Return: NULL.
 */
struct mqtt_pub *mqtt_pub_free(struct mqtt_pub *p);
