/* SPDX-License-Identifier: MIT */
/*
 * The sink types: one entry each. A type names its own keys (beside the common
 * ones of sink_conf.c), which of them are required, a checker of their values
 * and its deliver(); see struct sink_type.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "sink_internal.h"

#define HTTP_TYPE(tname, req, resend)                                                              \
	{                                                                                          \
		.name = tname, .required = req, .check_key = sink_http_check_key,                  \
		.deliver = sink_http_deliver, .attempts = 6, .resend_ms = resend,                  \
		.check_conf = sink_http_check_conf                                                 \
	}

static const char *const req_url[] = {"url|url_file", NULL};
static const char *const req_gotify[] = {"url", "token|token_file", NULL};
static const char *const req_telegram[] = {"token|token_file", "chat_id", NULL};
static const char *const req_exec[] = {"path", NULL};
static const char *const req_email[] = {"url", "from", "to", NULL};
static const char *const req_mqtt[] = {"host", NULL};

static const struct sink_type sink_types[] = {
	{.name = "exec",
	 .required = req_exec,
	 .check_key = sink_exec_check_key,
	 .deliver = sink_exec_deliver,
	 .attempts = 1},
	HTTP_TYPE("webhook", req_url, 0),
	HTTP_TYPE("ntfy", req_url, 0),
	HTTP_TYPE("gotify", req_gotify, 0),
	HTTP_TYPE("slack", req_url, 0),
	HTTP_TYPE("discord", req_url, 0),
	HTTP_TYPE("telegram", req_telegram, 0),
	/* Like Prometheus: a firing alert is sent again until it resolves. */
	HTTP_TYPE("alertmanager", req_url, 60000),
	/* One mail per notification; an SMTP transaction may take a while. */
	{.name = "email",
	 .required = req_email,
	 .check_key = sink_email_check_key,
	 .deliver = sink_email_deliver,
	 .attempts = 6,
	 .timeout_ms = 30000,
	 .check_conf = sink_email_check_conf},
	/* A held connection: events through the sink, the drives' states beside it. */
	{.name = "mqtt",
	 .required = req_mqtt,
	 .check_key = sink_mqtt_check_key,
	 .deliver = sink_mqtt_deliver,
	 .attempts = 6,
	 .start = sink_mqtt_start,
	 .stop = sink_mqtt_stop,
	 .states = sink_mqtt_states,
	 .status = sink_mqtt_status},
};

const struct sink_type *sink_type_find(const char *name)
{
	for (size_t i = 0; i < sizeof(sink_types) / sizeof(sink_types[0]); i++)
		if (strcmp(sink_types[i].name, name) == 0)
			return &sink_types[i];
	return NULL;
}

static char type_names[160];

/* "exec, webhook, … email or mqtt" from the table, once. */
static void type_names_init(void)
{
	const size_t n = sizeof(sink_types) / sizeof(sink_types[0]);
	size_t at = 0;

	for (size_t i = 0; i < n && at < sizeof(type_names); i++) {
		const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
		int w = snprintf(type_names + at, sizeof(type_names) - at, "%s%s", sep,
				 sink_types[i].name);
		at += w > 0 ? (size_t)w : 0;
	}
}

const char *sink_type_names(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, type_names_init);
	return type_names;
}
