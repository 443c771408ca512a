/* SPDX-License-Identifier: MIT */
/*
 * The MQTT publisher without a broker (daemon/alert/mqtt_pub.c): the hand-off
 * is bounded and never blocks, a broker that is down is retried (not an error),
 * and stopping is prompt whatever the connection is doing. With a real broker:
 * tests/integration/test_sink_mqtt.sh.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "nvmond/alert/mqtt_pub.h"

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A listening socket on 127.0.0.1; @listening false: closed again, so connects are refused. */
static int tcp_port(bool listening, int *ret_fd)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	cr_assert_geq(fd, 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	cr_assert_eq(listen(fd, 4), 0);
	if (!listening) {
		close(fd);
		fd = -1;
	}
	*ret_fd = fd;
	return ntohs(a.sin_port);
}

static struct mqtt_cfg cfg(int port)
{
	return (struct mqtt_cfg){.host = "127.0.0.1",
				 .port = (uint16_t)port,
				 .node = "nas",
				 .discovery = true,
				 .queue = 4,
				 .retry_min_s = 1,
				 .retry_max_s = 1};
}

/* Wait (bounded) until the publisher reports a connect error. */
static void wait_error(struct mqtt_pub *p, struct mqtt_pub_stats *st)
{
	int64_t end = mono_ms() + 10000;
	do {
		mqtt_pub_stats(p, st);
		if (st->last_error[0])
			return;
		usleep(10000);
	} while (mono_ms() < end);
	cr_assert_fail("no connect error within 10 s");
}

Test(mqtt_pub, no_host_is_invalid)
{
	struct mqtt_cfg c = cfg(1883);
	struct mqtt_pub *p = NULL;
	c.host = "";
	cr_assert_eq(mqtt_pub_new(&c, &p), -EINVAL);
	cr_assert_null(p);
}

Test(mqtt_pub, broker_down_events_bounded_stop_prompt)
{
	/* mqtt_pub.h: a broker that is down is retried, never an error at start; events wait
	 * in a bounded queue, more are dropped and counted; mqtt_pub_free() is prompt. */
	int fd;
	int port = tcp_port(false, &fd);
	struct mqtt_cfg c = cfg(port);
	struct mqtt_pub *p = NULL;
	cr_assert_eq(mqtt_pub_new(&c, &p), 0);

	struct alert_note n = {.alert_id = 1};
	strcpy(n.rule, "test");
	int64_t t0 = mono_ms();
	for (int i = 0; i < 4; i++)
		cr_assert_eq(mqtt_pub_event(p, &n), 0);
	cr_assert_eq(mqtt_pub_event(p, &n), -ENOBUFS);
	struct mqtt_drive_state d = {.has_sample = true};
	strcpy(d.serial, "S1");
	mqtt_pub_states(p, &d, 1);
	cr_assert_lt(mono_ms() - t0, 500, "the hand-off waited on the network");

	struct mqtt_pub_stats st;
	wait_error(p, &st);
	cr_assert_not(st.connected);
	cr_assert_eq(st.events_queued, 4);
	cr_assert_eq(st.events_dropped, 1);
	cr_assert_eq(st.events_sent, 0);
	cr_assert_eq(st.pending, 4);
	cr_assert_eq(st.snapshots, 1);
	cr_assert_eq(st.published, 0);
	cr_assert(strstr(st.last_error, "mqtt: connect:"), "%s", st.last_error);

	t0 = mono_ms();
	cr_assert_null(mqtt_pub_free(p));
	cr_assert_lt(mono_ms() - t0, 2000, "free took %lld ms", (long long)(mono_ms() - t0));
}

Test(mqtt_pub, stop_prompt_while_waiting_for_connack)
{
	/* A "broker" that accepts and never answers: the client library's thread is running,
	 * unconnected; mqtt_pub_free() still returns promptly. */
	int fd;
	int port = tcp_port(true, &fd);
	struct mqtt_cfg c = cfg(port);
	struct mqtt_pub *p = NULL;
	cr_assert_eq(mqtt_pub_new(&c, &p), 0);
	int conn = -1;
	for (int64_t end = mono_ms() + 5000; conn < 0 && mono_ms() < end;)
		conn = accept(fd, NULL, NULL); /* blocking: returns once the client connected */
	cr_assert_geq(conn, 0);
	struct mqtt_pub_stats st;
	mqtt_pub_stats(p, &st);
	cr_assert_not(st.connected);
	int64_t t0 = mono_ms();
	cr_assert_null(mqtt_pub_free(p));
	cr_assert_lt(mono_ms() - t0, 2000, "free took %lld ms", (long long)(mono_ms() - t0));
	close(conn);
	close(fd);
}
