/* SPDX-License-Identifier: MIT */
/*
 * One drive's poll as the steps of its commands: the health log (or hwmon's
 * temperatures), then the error log when its count moved, then the thresholds
 * of sensors not asked yet. Each command goes to the controller's worker
 * without waiting (dev_async.h) and the next step runs on the loop when its
 * answer comes, so a controller that hangs holds only its own poll: the loop
 * polls the other drives, answers mainq and feeds the watchdog meanwhile.
 * What follows a read (decode, the error log's rows, temps, fleet, listeners,
 * the buffer) runs on the loop, as before; the sample carries its round's
 * time, and at most one poll of a drive is out, so its samples keep their
 * order. See poller_internal.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "nvmond/core/log.h"
#include "nvmond/monitor/temps.h"
#include "nvmond/util/timefmt.h"
#include "poller_internal.h"

static struct pdev *drive_of(const struct pdev_poll *q)
{
	return &q->p->devs[q->idx];
}

/* The poll is over; the round ends with the last one out (poller_round_end()). */
void poller_poll_end(struct pdev_poll *q)
{
	struct poller *p = q->p;

	q->busy = false;
	p->n_busy--;
	if (p->n_busy == 0 && !p->in_tick)
		poller_round_end(p);
}

/* The sample is taken: judged, into the fleet, to the listeners, buffered. */
static void poll_sample(struct pdev_poll *q)
{
	struct poller *p = q->p;
	struct pdev *d = drive_of(q);
	struct fleet_temps t;

	p->n_polls++;
	poller_set_unresponsive(p, d, false, q->now);
	struct temps_drive td = {
		.model = d->model,
		.serial = d->serial,
		.wctemp_k = d->wctemp_k,
		.cctemp_k = d->cctemp_k,
		.drive_limit_k = d->drive_limit_k,
	};
	temps_judge(&p->cfg, &td, d->hist, &q->s.smart, q->now, &t);
	fleet_put_judged(p->fleet, &q->s, &t);
	poller_notify_sample(p, d, &q->s, q->now);
	/* hwmon samples know the temperatures only: shown, never stored. */
	if (q->s.source == SAMPLE_SOURCE_SMART) {
		if (p->buf.len == 0)
			p->pending_since_ms = timefmt_mono_ms();
		if (sbuf_push(&p->buf, &q->s))
			log_debug("sample buffer full: dropped the oldest (%llu so far)",
				  (unsigned long long)p->buf.dropped);
	}
	/* The drive's other logs (issue 27) follow; they end the poll. */
	if (q->s.source == SAMPLE_SOURCE_SMART)
		poller_logs_poll(q);
	else
		poller_poll_end(q);
}

/* A command past device_timeout: not offline, still there, not answering (issue 15). */
void poller_poll_timed_out(struct pdev_poll *q)
{
	poller_set_unresponsive(q->p, drive_of(q), true, q->now);
	poller_poll_end(q);
}

bool poller_answer_moot(struct pdev_poll *q, int r)
{
	if (!drive_of(q)->online) {
		poller_poll_end(q);
		return true;
	}
	if (dev_timed_out(r)) {
		poller_poll_timed_out(q);
		return true;
	}
	return false;
}

static void on_limits(void *userdata, int r, void *answer)
{
	struct pdev_poll *q = userdata;
	struct pdev *d = drive_of(q);
	const uint16_t *k = answer;

	if (!d->online) {
		poller_poll_end(q);
		return;
	}
	if (dev_timed_out(r)) {
		d->limits_asked &= (uint8_t)~q->limits_want; /* asked again once it answers */
	} else if (r < 0 && r != -EOPNOTSUPP) {
		log_errno(LOG_LVL_INFO, -r, "%s: cannot read the sensors' temperature thresholds",
			  d->name);
	} else if (r == 0) {
		for (int i = 0; i < SMART_NUM_SENSORS; i++)
			if (q->limits_want & (1u << i))
				d->drive_limit_k[i] = k[i];
	}
	poll_sample(q);
}

/*
 * The drive's own threshold of each sensor it reports, asked once after it
 * came online (and again for a sensor that starts reporting), never every
 * poll: only for reported sensors, since a drive may log an Invalid Field
 * error for a sensor it does not have.
 */
static void step_limits(struct pdev_poll *q)
{
	struct pdev *d = drive_of(q);
	uint8_t want = temps_reported(&q->s.smart) & (uint8_t)~d->limits_asked;

	if (!want) {
		poll_sample(q);
		return;
	}
	d->limits_asked |= want;
	q->limits_want = want;
	struct dev_ident who = {.model = d->model, .serial = d->serial};
	int r = dev_read_sensor_limits_async(q->p->async, d->name, &who, want, on_limits, q);
	if (r < 0)
		on_limits(q, r, NULL);
}

static void on_errlog(void *userdata, int r, void *answer)
{
	struct pdev_poll *q = userdata;
	struct pdev *d = drive_of(q);

	if (!d->online) {
		poller_poll_end(q);
		return;
	}
	poller_errlog_take(q->p, d, &q->s.smart, q->el_want, r, answer, q->now);
	step_limits(q);
}

/* The error log when the health log's count moved (poll_errlog.c). */
static void step_errlog(struct pdev_poll *q)
{
	struct pdev *d = drive_of(q);

	q->el_want = poller_errlog_want(q->p, d, &q->s.smart, q->now);
	if (!q->el_want) {
		step_limits(q);
		return;
	}
	struct dev_ident who = {.model = d->model, .serial = d->serial};
	int r = dev_read_errlog_async(q->p->async, d->name, &who, q->now, q->el_want, d->el_ext,
				      on_errlog, q);
	if (r < 0)
		on_errlog(q, r, NULL);
}

static void on_hwmon(void *userdata, int r, void *answer)
{
	struct pdev_poll *q = userdata;
	struct pdev *d = drive_of(q);

	if (poller_answer_moot(q, r))
		return;
	if (r < 0) {
		/* No hwmon (before Linux 5.5): identity only, nothing to sample. */
		if (r != -ENOENT)
			log_errno(LOG_LVL_DEBUG, -r, "reading the hwmon temperatures of %s failed",
				  d->name);
		poller_poll_end(q);
		return;
	}
	poller_hwmon_sample(d, q->now, answer, &q->s);
	poll_sample(q);
}

static void step_hwmon(struct pdev_poll *q)
{
	int r = dev_read_hwmon_async(q->p->async, drive_of(q)->name, q->now, on_hwmon, q);

	if (r < 0)
		on_hwmon(q, r, NULL);
}

static void on_smart(void *userdata, int r, void *answer)
{
	struct pdev_poll *q = userdata;
	struct poller *p = q->p;
	struct pdev *d = drive_of(q);

	if (!d->online) {
		poller_poll_end(q);
		return;
	}
	if (dev_no_permission(r)) {
		/* Identify was allowed, the health log is not. */
		d->access = DEV_ACCESS_SYSFS;
		d->facts.hwmon_only = true;
		poller_tell_no_permission(p, d);
		poller_notify_facts(p, d, q->now);
		step_hwmon(q);
		return;
	}
	if (dev_timed_out(r)) {
		poller_poll_timed_out(q);
		return;
	}
	if (r < 0) {
		poller_poll_failed(p, d, r, q->now);
		poller_poll_end(q);
		return;
	}
	smart_decode(answer, &q->s.smart);
	step_errlog(q);
}

void poller_poll_drive(struct poller *p, struct pdev *d, enum poll_action act, int64_t now)
{
	struct pdev_poll *q = d->poll;

	q->busy = true;
	p->n_busy++;
	q->now = now;
	q->s = (struct sample){.device_id = d->id, .ts_ms = now};
	if (act == POLL_HWMON) {
		step_hwmon(q);
		return;
	}
	struct dev_ident who = {.model = d->model, .serial = d->serial};
	int r = dev_read_smart_async(p->async, d->name, &who, now, on_smart, q);
	if (r < 0)
		on_smart(q, r, NULL);
}
