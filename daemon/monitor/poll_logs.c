/* SPDX-License-Identifier: MIT */
/*
 * What a drive knows beyond its health log (issue 27), read after the sample
 * of each poll, one command after the other, none waited for (dev_async.h):
 * the power state (Get Features 02h; APST and HCTM after a scan), log C0h
 * where its GUID is the OCP one (probed once per firmware revision), and the
 * Persistent Event Log where LPA says the drive has it (only what is new,
 * when the health log or the interval says so). Each answer is decoded,
 * stored as it changes, put into the fleet; then the poll ends
 * (poller_poll_end()). See poller_internal.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "nvmond/core/log.h"
#include "nvmond/monitor/logplan.h"
#include "nvmond/monitor/logs_conf.h"
#include "nvmond/store/store_drive.h"
#include "poller_internal.h"

/* Bytes of the Persistent Event Log one read asks for, and reads per poll. */
#define PEL_CHUNK	   (64 * 1024)
#define PEL_READS_PER_POLL 4
/* A failed C0h or PEL read is tried again after this (not every poll). */
#define RETRY_MS (5 * 60 * 1000LL)

enum ocp_state { OCP_UNKNOWN, OCP_YES, OCP_NO };

struct pdev_logs {
	/* From the last scan that read Identify. */
	bool caps;
	uint8_t npss;
	struct power_state_desc psd[POWER_STATES_MAX];
	bool apst_sup, hctm_sup, pel_sup, ext_data, power_sup;
	/* Refused by the drive: not asked again until its firmware changes. */
	bool power_refused, pel_refused;
	uint16_t mntmt, mxtmt;
	char fw[FWLOG_REV_MAX];
	/* Log C0h. */
	enum ocp_state ocp;
	bool ocp_loaded;
	int64_t ocp_next_ms;
	bool ocp_stored_have;
	struct store_ocp_row ocp_stored;
	/* Power. */
	bool feats_due; /* APST and HCTM at the next poll (after a scan) */
	uint8_t feats_asked;
	bool power_loaded, power_stored_have;
	struct store_power_row power_stored;
	struct apst apst;
	/* The Persistent Event Log. */
	bool pel_loaded, pel_due;
	struct pel_cursor cur;
	int64_t pel_next_ms;
	unsigned pel_reads; /* in this poll */
	uint64_t pel_off;   /* of the read out */
	bool have_smart;
	struct smart_log last_smart;
	/* Watching, for events that came while nvmond was not (late). */
	int64_t watch_since_ms, last_poll_ms;
	struct fleet_drive fd;
	struct store_ns_row ns_stored[FLEET_NS_MAX];
	bool ns_loaded[FLEET_NS_MAX];
};

struct pdev_logs *poller_logs_new(void)
{
	struct pdev_logs *l = calloc(1, sizeof(*l));

	if (l)
		l->fd.ocp.wa_x100 = -1;
	return l;
}

void poller_logs_free(struct pdev_logs *l)
{
	free(l);
}

static struct pdev *drive_of(const struct pdev_poll *q)
{
	return &q->p->devs[q->idx];
}

static void to_fleet(struct poller *p, struct pdev *d)
{
	(void)fleet_put_drive(p->fleet, d->id, &d->logs->fd);
}

static struct dev_ident who_of(const struct pdev *d)
{
	return (struct dev_ident){.model = d->model, .serial = d->serial};
}

/* ---- the Persistent Event Log ------------------------------------------- */

static void step_pel(struct pdev_poll *q);

/* The decoded fields of @e as a JSON object (what the API's "detail" shows). */
static void pel_detail(const struct pel_event *e, char *buf, size_t len)
{
	char d[U128_DEC_MAX];
	json_t *j = json_object();

	json_object_set_new(j, "type", json_integer(e->type));
	json_object_set_new(j, "cntlid", json_integer(e->cntlid));
	json_object_set_new(j, "timestamp_origin", json_integer(e->ts.origin));
	json_object_set_new(j, "size", json_integer(e->size));
	if (e->data_short) {
		json_object_set_new(j, "data_short", json_true());
	} else {
		switch (e->type) {
		case PEL_SMART_SNAPSHOT:
			json_object_set_new(j, "critical_warning",
					    json_integer(e->u.smart.critical_warning));
			json_object_set_new(j, "avail_spare", json_integer(e->u.smart.avail_spare));
			json_object_set_new(j, "percent_used",
					    json_integer(e->u.smart.percent_used));
			json_object_set_new(j, "temperature_k",
					    json_integer(e->u.smart.temperature_k));
			json_object_set_new(j, "media_errors",
					    json_string(u128_to_dec(e->u.smart.media_errors, d)));
			break;
		case PEL_FW_COMMIT:
			json_object_set_new(j, "old_rev", json_string(e->u.fw.old_rev));
			json_object_set_new(j, "new_rev", json_string(e->u.fw.new_rev));
			json_object_set_new(j, "action", json_integer(e->u.fw.action));
			json_object_set_new(j, "slot", json_integer(e->u.fw.slot));
			json_object_set_new(j, "sct", json_integer(e->u.fw.sct));
			json_object_set_new(j, "sc", json_integer(e->u.fw.sc));
			break;
		case PEL_TIMESTAMP_CHANGE:
			json_object_set_new(j, "previous_ms",
					    json_integer((json_int_t)e->u.tsc.prev.ms));
			json_object_set_new(j, "ms_since_reset",
					    json_integer((json_int_t)e->u.tsc.ms_since_reset));
			break;
		case PEL_POWER_ON_RESET:
			json_object_set_new(j, "fw_rev", json_string(e->u.por.fw_rev));
			json_object_set_new(j, "controllers", json_integer(e->u.por.n_ctrl));
			json_object_set_new(j, "ctrl_power_cycle",
					    json_integer(e->u.por.ctrl_power_cycle));
			json_object_set_new(j, "power_on_ms",
					    json_integer((json_int_t)e->u.por.power_on_ms));
			json_object_set_new(j, "fw_activation", json_integer(e->u.por.fw_act));
			break;
		case PEL_HW_ERROR:
			json_object_set_new(j, "code", json_integer(e->u.hw.code));
			break;
		case PEL_NS_CHANGE:
			json_object_set_new(j, "nsid", json_integer(e->u.ns.nsid));
			json_object_set_new(j, "select", json_integer(e->u.ns.cdw10 & 0xf));
			json_object_set_new(j, "nsze", json_integer((json_int_t)e->u.ns.nsze));
			json_object_set_new(j, "ncap", json_integer((json_int_t)e->u.ns.ncap));
			break;
		case PEL_FORMAT_START:
			json_object_set_new(j, "nsid", json_integer(e->u.fmt_start.nsid));
			json_object_set_new(j, "fna", json_integer(e->u.fmt_start.fna));
			break;
		case PEL_FORMAT_DONE:
			json_object_set_new(j, "nsid", json_integer(e->u.fmt_done.nsid));
			json_object_set_new(j, "status", json_integer(e->u.fmt_done.status));
			break;
		case PEL_SANITIZE_START:
			json_object_set_new(j, "action", json_integer(e->u.san_start.cdw10 & 0x7));
			break;
		case PEL_SANITIZE_DONE:
			json_object_set_new(j, "sstat", json_integer(e->u.san_done.sstat));
			json_object_set_new(j, "sprog", json_integer(e->u.san_done.sprog));
			break;
		case PEL_SET_FEATURE:
			json_object_set_new(j, "fid", json_integer(e->u.setf.fid));
			if (e->u.setf.has_cdw11)
				json_object_set_new(j, "cdw11", json_integer(e->u.setf.cdw11));
			break;
		case PEL_THERMAL_EXCURSION:
			json_object_set_new(j, "over_temp", json_integer(e->u.thermal.over_temp));
			json_object_set_new(j, "threshold", json_integer(e->u.thermal.threshold));
			break;
		default:
			break;
		}
	}
	char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	snprintf(buf, len, "%s", s ? s : "{}");
	free(s);
	json_decref(j);
}

/* Store the events @t took from @data; Return: how many were new. */
static size_t pel_store(struct poller *p, struct pdev *d, const struct pel_take *t,
			const uint8_t *data, size_t len, int64_t now)
{
	struct pdev_logs *l = d->logs;
	struct store_pel_row *v = calloc(t->n ? t->n : 1, sizeof(*v));
	int64_t gap = logplan_gap_ms(p->cfg.poll_interval_ms);
	size_t n = 0, added = 0;

	if (!v)
		return 0;
	for (size_t i = 0; i < t->n; i++) {
		struct pel_event e;
		if (pel_event_decode(data + t->off[i], len - t->off[i], &e) < 0)
			continue;
		struct store_pel_row *r = &v[n++];
		int64_t wall = pel_ts_wall_ms(&e.ts);
		r->fingerprint = e.fingerprint;
		r->type = e.type;
		r->time_known = wall >= 0;
		r->ts_ms = r->time_known ? wall : now;
		r->read_ms = now;
		bool watched = false;
		if (r->time_known && r->ts_ms < l->watch_since_ms)
			watched = store_watched_at(p->store, d->id, r->ts_ms, gap) == 1;
		r->late = logplan_pel_late(r->time_known, r->ts_ms, l->watch_since_ms, watched);
		snprintf(r->kind, sizeof(r->kind), "%s", pel_type_name(e.type));
		pel_summary(&e, r->summary, sizeof(r->summary));
		pel_detail(&e, r->detail, sizeof(r->detail));
	}
	if (store_pel_add(p->store, d->id, v, n, &added) < 0) {
		log_warn("%s: storing its persistent event log entries failed: %s", d->name,
			 store_strerror(p->store));
		added = 0;
	}
	size_t late = 0, thermal = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].id && v[i].late) {
			late++;
			thermal += v[i].type == PEL_THERMAL_EXCURSION;
		}
	if (added)
		log_info("%s: %zu new event%s from the drive's Persistent Event Log, %zu of them "
			 "from while nvmond was not watching (%zu thermal excursion%s)",
			 d->name, added, added == 1 ? "" : "s", late, thermal,
			 thermal == 1 ? "" : "s");
	free(v);
	return added;
}

static void pel_cursor_save(struct poller *p, struct pdev *d, int64_t now)
{
	const struct pel_cursor *c = &d->logs->cur;
	struct store_pel_cursor sc = {.tll = c->tll,
				      .tnev = c->tnev,
				      .generation = c->generation,
				      .anchor_off = c->anchor_off,
				      .anchor_size = c->anchor_size,
				      .anchor_fp = c->anchor_fp,
				      .read_ms = now};

	if (store_pel_cursor_put(p->store, d->id, &sc) < 0)
		log_warn("%s: storing where its event log was read failed: %s", d->name,
			 store_strerror(p->store));
}

static void on_pel(void *userdata, int r, void *answer)
{
	struct pdev_poll *q = userdata;
	struct poller *p = q->p;
	struct pdev *d = drive_of(q);
	struct pdev_logs *l = d->logs;
	const struct dev_pel_answer *a = answer;
	struct pel_header h;
	struct pel_take t;

	if (poller_answer_moot(q, r))
		return;
	if (r == -EOPNOTSUPP) {
		log_debug("%s: the drive refuses its Persistent Event Log although LPA says it has "
			  "one: not read again until the next scan",
			  d->name);
		l->pel_sup = false;
		l->pel_refused = true;
		l->fd.pel.supported = false;
	} else if (r < 0 || pel_header_decode(a->head, &h) < 0) {
		log_debug("%s: reading its Persistent Event Log failed: %s", d->name,
			  r < 0 ? strerror(-r) : "not a Persistent Event Log header");
		l->pel_next_ms = q->now + RETRY_MS;
		l->pel_due = false;
	} else {
		int tr = pel_take(&l->cur, &h, l->pel_off, a->data, a->got, &t);
		if (tr < 0)
			log_debug("%s: an event of its Persistent Event Log at %" PRIu64
				  " cannot be read: the events before it are taken",
				  d->name, l->pel_off + (t.n ? t.off[t.n - 1] : 0));
		if (!t.restart) {
			l->fd.pel.stored += pel_store(p, d, &t, a->data, a->got, q->now);
			l->cur = t.cursor;
			pel_cursor_save(p, d, q->now);
		}
		l->fd.pel.read = true;
		l->fd.pel.read_ms = q->now;
		l->fd.pel.tnev = h.tnev;
		l->fd.pel.tll = h.tll;
		to_fleet(p, d);
		if (t.restart) {
			l->cur.anchor_off = 0;
			l->pel_due = true; /* from the first event */
		} else {
			l->pel_due = t.more && tr == 0;
			l->pel_next_ms = q->now + logs_conf(&p->cfg)->pel_interval_ms;
		}
		if (l->pel_due && l->pel_reads < PEL_READS_PER_POLL) {
			step_pel(q);
			return;
		}
	}
	poller_poll_end(q);
}

static void pel_load(struct poller *p, struct pdev *d)
{
	struct pdev_logs *l = d->logs;
	struct store_pel_cursor sc;
	uint64_t n = 0;

	if (l->pel_loaded)
		return;
	l->pel_loaded = true;
	l->pel_due = true; /* a restart: what came meanwhile */
	if (store_pel_cursor_get(p->store, d->id, &sc) == 0) {
		l->cur = (struct pel_cursor){.tll = sc.tll,
					     .tnev = sc.tnev,
					     .generation = sc.generation,
					     .anchor_off = sc.anchor_off,
					     .anchor_size = sc.anchor_size,
					     .anchor_fp = sc.anchor_fp};
		l->fd.pel.read = true;
		l->fd.pel.read_ms = sc.read_ms;
		l->fd.pel.tnev = sc.tnev;
		l->fd.pel.tll = sc.tll;
	}
	if (store_pel_count(p->store, d->id, -1, INT64_MIN, INT64_MAX, &n) == 0)
		l->fd.pel.stored = n;
}

static void step_pel(struct pdev_poll *q)
{
	struct poller *p = q->p;
	struct pdev *d = drive_of(q);
	struct pdev_logs *l = d->logs;

	if (!logs_conf(&p->cfg)->pel || !l->pel_sup) {
		poller_poll_end(q);
		return;
	}
	pel_load(p, d);
	if (!l->pel_due && q->now < l->pel_next_ms) {
		poller_poll_end(q);
		return;
	}
	l->pel_reads++;
	l->pel_off = pel_next_read(&l->cur);
	struct dev_ident who = who_of(d);
	int r = dev_read_pel_async(p->async, d->name, &who, q->now, l->pel_off, PEL_CHUNK,
				   l->ext_data, on_pel, q);
	if (r < 0)
		on_pel(q, r, NULL);
}

/* ---- log C0h -------------------------------------------------------------- */

static void ocp_probe_save(struct poller *p, struct pdev *d, bool ocp, const char *why, int64_t now)
{
	struct store_ocp_probe pr = {.ocp = ocp, .ts_ms = now};

	snprintf(pr.firmware, sizeof(pr.firmware), "%s", d->logs->fw);
	snprintf(pr.why, sizeof(pr.why), "%s", why);
	if (store_ocp_probe_put(p->store, d->id, &pr) < 0)
		log_warn("%s: storing what it answered to log C0h failed: %s", d->name,
			 store_strerror(p->store));
	d->logs->fd.ocp.probed = true;
	d->logs->fd.ocp.present = ocp;
	snprintf(d->logs->fd.ocp.why, sizeof(d->logs->fd.ocp.why), "%s", why);
}

static void on_ocp(void *userdata, int r, void *answer)
{
	struct pdev_poll *q = userdata;
	struct poller *p = q->p;
	struct pdev *d = drive_of(q);
	struct pdev_logs *l = d->logs;
	struct ocp_log o;

	if (poller_answer_moot(q, r))
		return;
	if (r == 0 && ocp_decode(answer, &o) == -ENOMSG) {
		const uint8_t *g = (const uint8_t *)answer + OCP_LOG_SIZE - OCP_GUID_LEN;
		/* One line, then never again for this firmware: not an OCP drive. */
		log_debug("%s: log C0h is another vendor's page (Log Page GUID "
			  "%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X, not "
			  "the OCP one): ignored",
			  d->name, g[15], g[14], g[13], g[12], g[11], g[10], g[9], g[8], g[7], g[6],
			  g[5], g[4], g[3], g[2], g[1], g[0]);
		l->ocp = OCP_NO;
		ocp_probe_save(p, d, false, "another vendor's C0h page", q->now);
		to_fleet(p, d);
	} else if (r == -EOPNOTSUPP) {
		log_debug("%s: the drive refuses log C0h: no OCP log", d->name);
		l->ocp = OCP_NO;
		ocp_probe_save(p, d, false, "log C0h refused", q->now);
		to_fleet(p, d);
	} else if (r < 0) {
		log_errno(LOG_LVL_DEBUG, -r, "%s: reading log C0h failed", d->name);
		l->ocp_next_ms = q->now + RETRY_MS;
	} else {
		if (l->ocp != OCP_YES)
			ocp_probe_save(p, d, true, "", q->now);
		l->ocp = OCP_YES;
		struct fleet_ocp *f = &l->fd.ocp;
		f->have = true;
		f->read_ms = q->now;
		f->log = o;
		f->host_written_units = q->s.smart.data_units_written;
		f->wa_x100 = ocp_write_amp_x100(o.phys_written_bytes, f->host_written_units);
		if (logplan_ocp_store(l->ocp_stored_have ? &l->ocp_stored.l : NULL,
				      l->ocp_stored.ts_ms, &o, q->now)) {
			struct store_ocp_row row = {.device_id = d->id,
						    .ts_ms = q->now,
						    .l = o,
						    .host_written_units = f->host_written_units};
			if (store_ocp_insert(p->store, &row) < 0) {
				log_warn("%s: storing its C0h log failed: %s", d->name,
					 store_strerror(p->store));
			} else {
				l->ocp_stored = row;
				l->ocp_stored_have = true;
			}
		}
		l->ocp_next_ms = q->now + logs_conf(&p->cfg)->ocp_interval_ms;
		to_fleet(p, d);
	}
	step_pel(q);
}

static void ocp_load(struct poller *p, struct pdev *d)
{
	struct pdev_logs *l = d->logs;
	struct store_ocp_probe pr;
	struct store_ocp_row row;

	if (l->ocp_loaded)
		return;
	l->ocp_loaded = true;
	if (store_ocp_probe_get(p->store, d->id, &pr) == 0 && strcmp(pr.firmware, l->fw) == 0) {
		l->ocp = pr.ocp ? OCP_YES : OCP_NO;
		l->fd.ocp.probed = true;
		l->fd.ocp.present = pr.ocp;
		snprintf(l->fd.ocp.why, sizeof(l->fd.ocp.why), "%.63s", pr.why);
	}
	if (store_ocp_last(p->store, d->id, INT64_MAX, &row) == 0) {
		l->ocp_stored = row;
		l->ocp_stored_have = true;
		if (l->ocp != OCP_NO) {
			l->fd.ocp.have = true;
			l->fd.ocp.read_ms = row.ts_ms;
			l->fd.ocp.log = row.l;
			l->fd.ocp.host_written_units = row.host_written_units;
			l->fd.ocp.wa_x100 = ocp_write_amp_x100(row.l.phys_written_bytes,
							       row.host_written_units);
		}
	}
}

static void step_ocp(struct pdev_poll *q)
{
	struct poller *p = q->p;
	struct pdev *d = drive_of(q);
	struct pdev_logs *l = d->logs;

	if (!logs_conf(&p->cfg)->ocp || !l->caps) {
		step_pel(q);
		return;
	}
	ocp_load(p, d);
	if (l->ocp == OCP_NO || q->now < l->ocp_next_ms) {
		step_pel(q);
		return;
	}
	struct dev_ident who = who_of(d);
	int r = dev_read_ocp_async(p->async, d->name, &who, q->now, on_ocp, q);
	if (r == -EOPNOTSUPP) /* the backend has no C0h: nothing to probe */
		l->ocp = OCP_NO;
	if (r < 0) {
		if (r != -EOPNOTSUPP)
			on_ocp(q, r, NULL);
		else
			step_pel(q);
	}
}

/* ---- power ------------------------------------------------------------------ */

static void power_store(struct poller *p, struct pdev *d, int64_t now)
{
	struct pdev_logs *l = d->logs;
	const struct fleet_power *f = &l->fd.power;
	struct store_power_row row = {
		.device_id = d->id,
		.ts_ms = now,
		.ps = f->ps,
		.wh = f->wh,
		.max_uw = f->ps < f->n_ps ? (int64_t)f->psd[f->ps].max_uw : -1,
		.non_operational = f->ps < f->n_ps ? (int)f->psd[f->ps].non_operational : -1,
		.apst_enabled = f->apst_known ? (int)f->apst_enabled : -1,
		.apst_idle_ms =
			f->apst_known && f->apst_idle.reaches ? (int64_t)f->apst_idle.idle_ms : -1,
		.tmt1_k = f->hctm_known ? (int)f->tmt1_k : -1,
		.tmt2_k = f->hctm_known ? (int)f->tmt2_k : -1,
	};
	const struct store_power_row *s = &l->power_stored;

	if (!l->power_loaded) {
		l->power_loaded = true;
		l->power_stored_have = store_power_last(p->store, d->id, &l->power_stored) == 0;
	}
	/* A timeline: a row each time something of it changes. */
	if (l->power_stored_have && s->ps == row.ps && s->wh == row.wh &&
	    s->apst_enabled == row.apst_enabled && s->apst_idle_ms == row.apst_idle_ms &&
	    s->tmt1_k == row.tmt1_k && s->tmt2_k == row.tmt2_k && s->max_uw == row.max_uw)
		return;
	if (store_power_insert(p->store, &row) < 0) {
		log_warn("%s: storing its power state failed: %s", d->name,
			 store_strerror(p->store));
		return;
	}
	l->power_stored = row;
	l->power_stored_have = true;
}

static void on_power(void *userdata, int r, void *answer)
{
	struct pdev_poll *q = userdata;
	struct poller *p = q->p;
	struct pdev *d = drive_of(q);
	struct pdev_logs *l = d->logs;
	const struct dev_power *a = answer;
	struct fleet_power *f = &l->fd.power;

	if (poller_answer_moot(q, r))
		return;
	if (r == -EOPNOTSUPP) {
		log_debug("%s: the drive refuses Get Features Power Management: its power state is "
			  "not read",
			  d->name);
		l->power_sup = false;
		l->power_refused = true;
	} else if (r < 0) {
		log_errno(LOG_LVL_DEBUG, -r, "%s: reading its power state failed", d->name);
	} else {
		struct power_mgmt pm = power_mgmt_decode(a->pm_dw0);
		if (!f->have || f->ps != pm.ps)
			f->since_ms = q->now;
		f->have = true;
		f->read_ms = q->now;
		f->ps = pm.ps;
		f->wh = pm.wh;
		if (l->feats_asked & DEV_POWER_APST) {
			f->apst_known = a->got & DEV_POWER_APST;
			if (f->apst_known) {
				apst_decode(a->apst_dw0, a->apst_table, &l->apst);
				f->apst_enabled = l->apst.enabled;
			}
		}
		if (l->feats_asked & DEV_POWER_HCTM) {
			f->hctm_known = a->got & DEV_POWER_HCTM;
			if (f->hctm_known) {
				struct hctm h = hctm_decode(a->hctm_dw0);
				f->tmt1_k = h.tmt1_k;
				f->tmt2_k = h.tmt2_k;
			}
		}
		if (l->feats_asked)
			l->feats_due = false;
		f->apst_idle = f->apst_known ? apst_first_idle(&l->apst, l->psd, l->npss, f->ps)
					     : (struct apst_idle){0};
		f->polls_keep_awake = f->apst_idle.reaches &&
				      p->cfg.poll_interval_ms < (int64_t)f->apst_idle.idle_ms;
		power_store(p, d, q->now);
		to_fleet(p, d);
	}
	step_ocp(q);
}

static void step_power(struct pdev_poll *q)
{
	struct poller *p = q->p;
	struct pdev *d = drive_of(q);
	struct pdev_logs *l = d->logs;

	if (!logs_conf(&p->cfg)->power || !l->caps || !l->power_sup) {
		step_ocp(q);
		return;
	}
	l->feats_asked = 0;
	if (l->feats_due)
		l->feats_asked =
			(l->apst_sup ? DEV_POWER_APST : 0) | (l->hctm_sup ? DEV_POWER_HCTM : 0);
	struct dev_ident who = who_of(d);
	int r = dev_read_power_async(p->async, d->name, &who, q->now,
				     (uint8_t)(DEV_POWER_PM | l->feats_asked), on_power, q);
	if (r == -EOPNOTSUPP) {
		l->power_sup = false;
		step_ocp(q);
	} else if (r < 0) {
		on_power(q, r, NULL);
	}
}

void poller_logs_poll(struct pdev_poll *q)
{
	struct poller *p = q->p;
	struct pdev *d = drive_of(q);
	struct pdev_logs *l = d->logs;

	l->watch_since_ms = logplan_watch_since(l->watch_since_ms, l->last_poll_ms, q->now,
						logplan_gap_ms(p->cfg.poll_interval_ms));
	l->last_poll_ms = q->now;
	if (logplan_pel_trigger(l->have_smart ? &l->last_smart : NULL, &q->s.smart))
		l->pel_due = true;
	l->last_smart = q->s.smart;
	l->have_smart = true;
	l->pel_reads = 0;
	if (d->access != DEV_ACCESS_ADMIN) {
		poller_poll_end(q);
		return;
	}
	step_power(q);
}

/* ---- after a scan ------------------------------------------------------------- */

/* Namespaces into the fleet, and a usage row each time one changes. */
static void ns_update(struct poller *p, struct pdev *d, const struct dev_info *info, int64_t now)
{
	struct pdev_logs *l = d->logs;

	l->fd.n_ns = info->n_ns < FLEET_NS_MAX ? info->n_ns : FLEET_NS_MAX;
	for (size_t i = 0; i < l->fd.n_ns; i++) {
		const struct dev_ns *n = &info->ns[i];
		struct fleet_ns *f = &l->fd.ns[i];
		bool keep = f->nsid == n->nsid && f->has_usage && !n->has_usage;

		if (!keep) /* a sleeping drive's scan keeps what was read before */
			*f = (struct fleet_ns){.nsid = n->nsid,
					       .has_usage = n->has_usage,
					       .nsze = n->nsze,
					       .ncap = n->ncap,
					       .nuse = n->nuse,
					       .lba_size = n->lba_size};
		snprintf(f->name, sizeof(f->name), "%s", n->name);
		snprintf(f->ana_state, sizeof(f->ana_state), "%s", n->ana_state);
		if (!n->has_usage)
			continue;
		struct store_ns_row *s = &l->ns_stored[i];
		if (!l->ns_loaded[i] || s->nsid != n->nsid) {
			l->ns_loaded[i] = true;
			if (store_ns_last(p->store, d->id, n->nsid, s) < 0)
				*s = (struct store_ns_row){.nsid = UINT32_MAX};
		}
		if (s->nsid == n->nsid && s->nsze == n->nsze && s->ncap == n->ncap &&
		    s->nuse == n->nuse && s->lba_size == n->lba_size &&
		    strcmp(s->ana_state, n->ana_state) == 0)
			continue;
		struct store_ns_row row = {.device_id = d->id,
					   .ts_ms = now,
					   .nsid = n->nsid,
					   .nsze = n->nsze,
					   .ncap = n->ncap,
					   .nuse = n->nuse,
					   .lba_size = n->lba_size};
		snprintf(row.ana_state, sizeof(row.ana_state), "%s", n->ana_state);
		if (store_ns_insert(p->store, &row) == 0)
			*s = row;
	}
}

void poller_logs_scan(struct poller *p, struct pdev *d, const struct dev_info *info, int64_t now)
{
	struct pdev_logs *l = d->logs;
	const struct idctl *id = &info->id;
	struct fleet_power *f = &l->fd.power;

	ns_update(p, d, info, now);
	if (info->access == DEV_ACCESS_ADMIN && !info->asleep && !info->unresponsive) {
		bool fw_changed = l->caps && strcmp(l->fw, id->firmware) != 0;
		l->caps = true;
		l->npss = id->npss < POWER_STATES_MAX ? id->npss : POWER_STATES_MAX - 1;
		memcpy(l->psd, id->ps, sizeof(l->psd));
		l->apst_sup = id->apsta & IDCTL_APSTA_SUPPORTED;
		l->hctm_sup = id->hctma & IDCTL_HCTMA_SUPPORTED;
		if (fw_changed)
			l->power_refused = l->pel_refused = false;
		l->pel_sup = (id->lpa & IDCTL_LPA_PEL) && !l->pel_refused;
		l->ext_data = id->lpa & IDCTL_LPA_EXT_DATA;
		l->power_sup = !l->power_refused;
		l->mntmt = id->mntmt;
		l->mxtmt = id->mxtmt;
		snprintf(l->fw, sizeof(l->fw), "%s", id->firmware);
		l->feats_due = true; /* the host may have set APST or HCTM since */
		if (fw_changed) {
			/* New firmware may answer C0h otherwise; and its commit is an event. */
			l->ocp = OCP_UNKNOWN;
			l->ocp_next_ms = 0;
			l->pel_due = true;
		}
		f->n_ps = (uint8_t)(l->npss + 1);
		for (unsigned i = 0; i < POWER_STATES_MAX; i++)
			f->psd[i] = i < f->n_ps
					    ? (struct fleet_psd){.max_uw = l->psd[i].max_uw,
								 .non_operational =
									 l->psd[i].non_operational,
								 .enlat_us = l->psd[i].enlat_us,
								 .exlat_us = l->psd[i].exlat_us}
					    : (struct fleet_psd){0};
		f->apst_supported = l->apst_sup;
		f->hctm_supported = l->hctm_sup;
		f->mntmt_k = l->mntmt;
		f->mxtmt_k = l->mxtmt;
		l->fd.pel.supported = l->pel_sup;
	}
	to_fleet(p, d);
}
