/* SPDX-License-Identifier: MIT */
/*
 * The mqtt sink type: its keys checked at load; start() makes the publisher
 * (mqtt_pub.c: a held connection with a last will), stop() frees it; deliver()
 * hands an alert over as an event; states() hands over the drives' states.
 * Neither waits on the network. A reload makes a new publisher (start() again).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "nvmond/alert/mqtt_pub.h"
#include "nvmond/config.h"
#include "sink_internal.h"

static const char *const mqtt_keys[] = {
	"host",	   "port",	"username",	"password",  "password_file",	 "tls",
	"ca_file", "client_id", "topic_prefix", "discovery", "discovery_prefix", "keepalive",
};

static int port_parse(const char *s, uint16_t *ret)
{
	uint32_t v;

	if (sink_uint_parse(s, 1, 65535, &v) < 0)
		return -EINVAL;
	*ret = (uint16_t)v;
	return 0;
}

/* keepalive: a duration, whole seconds in 5 s .. 1 h (what MQTT's 16-bit field and brokers take). */
static int keepalive_parse(const char *s, int *ret)
{
	int64_t ms;

	if (cfg_parse_duration_ms(s, &ms) < 0 || ms < 5000 || ms > 3600000 || ms % 1000)
		return -EINVAL;
	*ret = (int)(ms / 1000);
	return 0;
}

/* A topic prefix: levels of printable characters, no wildcard, no empty level. */
static bool prefix_valid(const char *s)
{
	size_t len = strlen(s);

	if (!len || s[0] == '/' || s[len - 1] == '/' || strstr(s, "//") || strpbrk(s, "+#"))
		return false;
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x21 || *p == 0x7f)
			return false;
	return true;
}

int sink_mqtt_check_key(const struct sink_type *t, const char *key, const char *value, char *err,
			size_t errsize)
{
	uint16_t port;
	bool b;
	int k;

	(void)t;
	if (sink_key_listed(mqtt_keys, sizeof(mqtt_keys) / sizeof(mqtt_keys[0]), "mqtt", key, value,
			    err, errsize) < 0)
		return -EINVAL;
	if (!strcmp(key, "port") && port_parse(value, &port) < 0) {
		snprintf(err, errsize, "port: '%.40s' is not a number in 1 .. 65535", value);
		return -EINVAL;
	}
	if ((!strcmp(key, "tls") || !strcmp(key, "discovery")) && sink_bool_parse(value, &b) < 0) {
		snprintf(err, errsize, "%s: '%.40s' is not yes or no", key, value);
		return -EINVAL;
	}
	if (!strcmp(key, "keepalive") && keepalive_parse(value, &k) < 0) {
		snprintf(err, errsize, "keepalive: '%.40s' is not whole seconds in 5s .. 1h",
			 value);
		return -EINVAL;
	}
	if ((!strcmp(key, "topic_prefix") || !strcmp(key, "discovery_prefix")) &&
	    !prefix_valid(value)) {
		snprintf(err, errsize,
			 "%s: '%.100s' is not a topic (no +, #, spaces or empty levels)", key,
			 value);
		return -EINVAL;
	}
	if (!strcmp(key, "client_id") && strlen(value) > 200) {
		snprintf(err, errsize, "client_id: longer than 200 characters");
		return -EINVAL;
	}
	return 0;
}

int sink_mqtt_start(const struct sink_conf *c, void **ret_state)
{
	const char *v;
	struct mqtt_cfg m = {
		.host = sink_conf_get(c, "host"),
		.username = sink_conf_get(c, "username"),
		.password = sink_conf_get(c, "password"),
		.ca_file = sink_conf_get(c, "ca_file"),
		.client_id = sink_conf_get(c, "client_id"),
		.topic_prefix = sink_conf_get(c, "topic_prefix"),
		.discovery = true,
		.discovery_prefix = sink_conf_get(c, "discovery_prefix"),
		.sw_version = NVMOND_VERSION,
		.queue = c->queue,
		.retry_min_s = c->retry_min_ms >= 1000 ? (unsigned)(c->retry_min_ms / 1000) : 1,
		.retry_max_s = c->retry_max_ms >= 1000 ? (unsigned)(c->retry_max_ms / 1000) : 1,
	};
	struct mqtt_pub *p;
	int r;

	/* Checked at load: these parse. */
	if ((v = sink_conf_get(c, "port")))
		(void)port_parse(v, &m.port);
	if ((v = sink_conf_get(c, "tls")))
		(void)sink_bool_parse(v, &m.tls);
	if ((v = sink_conf_get(c, "discovery")))
		(void)sink_bool_parse(v, &m.discovery);
	if ((v = sink_conf_get(c, "keepalive")))
		(void)keepalive_parse(v, &m.keepalive_s);
	r = mqtt_pub_new(&m, &p);
	if (r < 0)
		return r;
	*ret_state = p;
	return 0;
}

void sink_mqtt_stop(void *state)
{
	mqtt_pub_free(state);
}

int sink_mqtt_deliver(const struct sink_conf *c, const struct alert_note *n, char *err,
		      size_t errsize)
{
	int r = mqtt_pub_event(c->state, n);

	if (r < 0)
		snprintf(err, errsize, "mqtt: the publisher's event queue is full");
	return r;
}

void sink_mqtt_states(void *state, const struct mqtt_drive_state *d, size_t n)
{
	mqtt_pub_states(state, d, n);
}

bool sink_mqtt_status(void *state, char *err, size_t errsize)
{
	struct mqtt_pub_stats st;

	mqtt_pub_stats(state, &st);
	snprintf(err, errsize, "%s", st.connected ? "" : st.last_error);
	return st.connected;
}
