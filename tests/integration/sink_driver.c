/* SPDX-License-Identifier: MIT */
/*
 * nvmond-test-sink: drives the email and MQTT deliveries alone, against a real
 * SMTP server and a real broker (tests/integration/test_sink_email.sh,
 * test_sink_mqtt.sh), beside the daemon's [sink] sections that the same
 * tests drive: here the cases a daemon cannot easily stage (bad addresses,
 * TLS refusals, a broker that starts late).
 *
 *   nvmond-test-sink email URL FROM TO[,TO…] [starttls] [username] [password]
 *       Sends one notification (NVMOND_TEST_MODEL, NVMOND_TEST_RULE,
 *       NVMOND_TEST_STATE override the note); exit 0, or 1 with the error.
 *       NVMOND_TEST_CA: the CA file (email: ca_file; mqtt: tls = yes with it).
 *       NVMOND_TEST_ALLOW_PLAINTEXT=1: email: allow_plaintext_password.
 *   nvmond-test-sink mqtt HOST PORT NODE [username] [password]
 *       Publishes two drives' states; prints "ready" once they are handed to
 *       the broker; SIGUSR1 queues an alert event; SIGUSR2 hands over a new
 *       snapshot (the first drive 1 °C warmer); "published N" each time the count
 *       of messages handed to the broker changes, "events N" of the events;
 *       SIGTERM frees the publisher cleanly (status "offline") and exits 0.
 *       Each connection lost or refused is printed: "lost N <last error>".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "nvmond/alert/mqtt_pub.h"
#include "nvmond/alert/sink_email.h"

static struct alert_note test_note(void)
{
	struct alert_note n = {.alert_id = 42, .device_id = 3};
	struct timespec ts;
	const char *e;

	clock_gettime(CLOCK_REALTIME, &ts);
	n.ts_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	n.started_ms = n.ts_ms - 60000;
	snprintf(n.device, sizeof(n.device), "nvme0");
	snprintf(n.model, sizeof(n.model), "%s",
		 (e = getenv("NVMOND_TEST_MODEL")) ? e : "Samsung SSD 980 1TB");
	snprintf(n.serial, sizeof(n.serial), "S64D/NF0 R12");
	snprintf(n.rule, sizeof(n.rule), "%s",
		 (e = getenv("NVMOND_TEST_RULE")) ? e : "temperature_critical");
	snprintf(n.severity, sizeof(n.severity), "critical");
	snprintf(n.state, sizeof(n.state), "%s", (e = getenv("NVMOND_TEST_STATE")) ? e : "firing");
	snprintf(n.message, sizeof(n.message),
		 "composite temperature 85 C above the critical threshold 84 C");
	return n;
}

static int cmd_email(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: email URL FROM TO[,TO...] [starttls] [user] [password]\n");
		return 2;
	}
	const char *to[8];
	size_t n_to = 0;
	for (char *save = NULL, *t = strtok_r(argv[4], ",", &save); t && n_to < 8;
	     t = strtok_r(NULL, ",", &save))
		to[n_to++] = t;
	struct sink_email_cfg c = {.url = argv[2],
				   .from = argv[3],
				   .to = to,
				   .n_to = n_to,
				   .username = argc > 6 ? argv[6] : NULL,
				   .password = argc > 7 ? argv[7] : NULL,
				   .timeout_ms = 10000,
				   .ca_file = getenv("NVMOND_TEST_CA"),
				   .base_url = "http://nas:9841",
				   .host = "nas",
				   .allow_plaintext_password =
					   getenv("NVMOND_TEST_ALLOW_PLAINTEXT") != NULL};
	if (argc > 5 && sink_email_starttls_parse(argv[5], &c.starttls) < 0) {
		fprintf(stderr, "starttls: no, try or required\n");
		return 2;
	}
	struct alert_note n = test_note();
	char err[256];
	curl_global_init(CURL_GLOBAL_DEFAULT);
	int r = sink_email_send(&c, &n, err, sizeof(err));
	if (r < 0) {
		printf("%s\n", err);
		return 1;
	}
	return 0;
}

static struct mqtt_drive_state drive(const char *serial, const char *model, int temp)
{
	struct mqtt_drive_state d = {.has_sample = true,
				     .temperature_c = temp,
				     .percentage_used = 3,
				     .data_units_written = 23437500,
				     .available_spare = 100,
				     .throttling = temp > 80};
	snprintf(d.device, sizeof(d.device), "nvme0");
	snprintf(d.model, sizeof(d.model), "%s", model);
	snprintf(d.serial, sizeof(d.serial), "%s", serial);
	snprintf(d.firmware, sizeof(d.firmware), "3B4QFXO7");
	snprintf(d.vendor, sizeof(d.vendor), "Samsung");
	return d;
}

static int cmd_mqtt(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: mqtt HOST PORT NODE [user] [password]\n");
		return 2;
	}
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* before the threads start: they inherit it */

	struct mqtt_cfg c = {.host = argv[2],
			     .port = (uint16_t)atoi(argv[3]),
			     .node = argv[4],
			     .username = argc > 5 ? argv[5] : NULL,
			     .password = argc > 6 ? argv[6] : NULL,
			     .discovery = true,
			     .keepalive_s = 5,
			     .sw_version = "test",
			     .tls = getenv("NVMOND_TEST_CA") != NULL,
			     .ca_file = getenv("NVMOND_TEST_CA"),
			     .retry_min_s = 1,
			     .retry_max_s = 2};
	struct mqtt_pub *p = NULL;
	int r = mqtt_pub_new(&c, &p);
	if (r < 0) {
		fprintf(stderr, "mqtt_pub_new: %s\n", strerror(-r));
		return 1;
	}
	struct mqtt_drive_state d[2] = {drive("S64D/NF0 R12        ", "Samsung SSD 980 1TB", 41),
					drive("PHBT1234+#", "INTEL SSDPEKNW010T8", 85)};
	mqtt_pub_states(p, d, 2);

	/* "ready": all 26 state and discovery messages handed over on a connection. */
	struct mqtt_pub_stats st;
	bool ready = false;
	uint64_t published = 0, disconnects = 0, events_sent = 0;
	for (;;) {
		struct timespec tick = {.tv_nsec = 50 * 1000 * 1000};
		int sig = sigtimedwait(&set, NULL, &tick);
		mqtt_pub_stats(p, &st);
		if (!ready && st.connected && st.published >= 26) {
			printf("ready\n");
			fflush(stdout);
			ready = true;
		}
		if (st.published != published) {
			published = st.published;
			printf("published %llu\n", (unsigned long long)published);
			fflush(stdout);
		}
		if (st.events_sent != events_sent) {
			events_sent = st.events_sent;
			printf("events %llu\n", (unsigned long long)events_sent);
			fflush(stdout);
		}
		if (st.disconnects > disconnects) {
			disconnects = st.disconnects;
			printf("lost %llu %s\n", (unsigned long long)disconnects, st.last_error);
			fflush(stdout);
		}
		if (sig == SIGUSR1) {
			struct alert_note n = test_note();
			mqtt_pub_event(p, &n);
		} else if (sig == SIGUSR2) {
			d[0].temperature_c++;
			mqtt_pub_states(p, d, 2);
		} else if (sig == SIGTERM) {
			break;
		}
	}
	mqtt_pub_free(p);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "email") == 0)
		return cmd_email(argc, argv);
	if (argc > 1 && strcmp(argv[1], "mqtt") == 0)
		return cmd_mqtt(argc, argv);
	fprintf(stderr, "usage: nvmond-test-sink email|mqtt ...\n");
	return 2;
}
