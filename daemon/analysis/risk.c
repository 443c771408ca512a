/* SPDX-License-Identifier: MIT */
/*
 * The risk verdict: documented rules on the health log, the error history,
 * the OCP log and the Persistent Event Log, each confirmed by two reads
 * before it counts. Pure. See risk.h and docs/health.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/analysis/risk.h"
#include "nvmond/util/units.h"

static const struct risk_rule_info rules[_RISK_RULE_MAX] = {
	[RISK_CRITICAL_WARNING] =
		{"critical_warning", RISK_FAILED,
		 "critical warning bit 2 (reliability degraded), 3 (read-only), 4 (volatile "
		 "memory backup failed) or 5 (persistent memory read-only)",
		 "the bit in 2 health-log reads in a row",
		 "NVMe Base 2.0, Figure 207 (SMART / Health Information, Critical Warning): the "
		 "drive's own statement"},
	[RISK_SPARE_BELOW] = {"spare_below_threshold", RISK_REPLACE_SOON,
			      "critical warning bit 0: available spare below the drive's threshold",
			      "the bit in 2 health-log reads in a row",
			      "NVMe Base 2.0, Figure 207 (Available Spare, Available Spare "
			      "Threshold)"},
	[RISK_PERCENT_USED] = {"percent_used", RISK_REPLACE_SOON, "percentage used at or above 90",
			       "the value in 2 health-log reads in a row",
			       "NVMe Base 2.0, Figure 207 (Percentage Used: the vendor's estimate "
			       "of the life used; 100 is the rated endurance); issue 27"},
	[RISK_SPARE_PROJECTION] =
		{"spare_projection", RISK_REPLACE_SOON,
		 "available spare, fitted by a least-squares line over the last 30 days of hourly "
		 "values, reaches its threshold within 90 days",
		 "at least 7 days and 24 hourly values in the window, a falling line, spare still "
		 "above its threshold, and 2 hourly fits in a row",
		 "the wear projection of docs/wear.md, applied to the spare (issue 27)"},
	[RISK_RECENT_ERRORS] =
		{"recent_errors", RISK_WATCH,
		 "a media or data integrity error in the last 90 days: the health log's Media and "
		 "Data Integrity Errors rose, an error log entry of class media or io, or the OCP "
		 "Uncorrectable Read Error Count rose",
		 "the rise still there in the next read (2 reads in a row)",
		 "Schroeder, Lagisetty, Merchant, Flash Reliability in Production: The Expected "
		 "and the Unexpected, FAST'16: an uncorrectable error in one month came with about "
		 "a 30 % chance of another in the next"},
	[RISK_YOUNG_ERRORS] =
		{"young_drive_errors", RISK_WATCH,
		 "recent_errors on a drive with fewer than 2,160 power-on hours (90 days)",
		 "as recent_errors",
		 "Meza, Wu, Kumar, Mutlu, A Large-Scale Study of Flash Memory Failures in the "
		 "Field, SIGMETRICS'15: failures are more frequent early in a drive's life (infant "
		 "mortality)"},
	[RISK_BAD_BLOCKS] =
		{"bad_block_growth", RISK_WATCH,
		 "the OCP log's bad user and system NAND blocks together are more than 30 days ago "
		 "(or than at the first read within them)",
		 "the growth in 2 C0h reads in a row",
		 "OCP Datacenter NVMe SSD Specification 2.0, log C0h (Bad User / System NAND "
		 "Blocks); Schroeder et al., FAST'16: drives that develop bad blocks in the field "
		 "see more uncorrectable errors"},
	[RISK_HW_ERROR] = {"hardware_error_event", RISK_WATCH,
			   "an NVM Subsystem Hardware Error event (type 05h) in the Persistent "
			   "Event Log within the last 90 days",
			   "the event stored, and 2 health-log reads since",
			   "NVMe Base 2.0, §5.16.1.14 (Persistent Event Log, event type 05h)"},
	[RISK_NEIGHBOUR] = {"neighbour_failed", RISK_WATCH,
			    "another drive of this host is replace_soon or failed",
			    "that drive's own verdict (confirmed by its rules), and 2 health-log "
			    "reads of this "
			    "one",
			    "Han et al., An In-Depth Study of Correlated Failures in Production "
			    "SSD-Based Data "
			    "Centers, FAST'21: failures cluster by node and rack"},
};

static const char *const level_names[_RISK_LEVEL_MAX] = {"ok", "watch", "replace_soon", "failed"};

const struct risk_rule_info *risk_rule_info(enum risk_rule r)
{
	return &rules[r];
}

const char *risk_level_name(enum risk_level l)
{
	return (unsigned)l < _RISK_LEVEL_MAX ? level_names[l] : "ok";
}

int risk_level_from_name(const char *name)
{
	for (int l = 0; l < _RISK_LEVEL_MAX; l++)
		if (strcmp(level_names[l], name) == 0)
			return l;
	return -EINVAL;
}

int risk_rule_from_name(const char *name)
{
	for (int r = 0; r < _RISK_RULE_MAX; r++)
		if (strcmp(rules[r].name, name) == 0)
			return r;
	return -EINVAL;
}

int risk_rules_parse(const char *disable, struct risk_cfg *ret, char *ret_err, size_t err_len)
{
	struct risk_cfg c;
	const char *p = disable;

	for (int r = 0; r < _RISK_RULE_MAX; r++)
		c.rule_on[r] = true;
	while (*p) {
		char word[64];
		size_t n;

		p += strspn(p, " \t,");
		n = strcspn(p, ",");
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (!n) {
			p += strcspn(p, ",");
			continue;
		}
		snprintf(word, sizeof(word), "%.*s", (int)(n < 63 ? n : 63), p);
		int r = n < 64 ? risk_rule_from_name(word) : -EINVAL;
		if (r < 0) {
			snprintf(ret_err, err_len, "[risk] disable: no rule '%s' (docs/health.md)",
				 word);
			return -EINVAL;
		}
		c.rule_on[r] = false;
		p += strcspn(p, ",");
	}
	*ret = c;
	return 0;
}

static void cond_set(struct risk_cond *c, int64_t evidence_ms, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void cond_set(struct risk_cond *c, int64_t evidence_ms, const char *fmt, ...)
{
	va_list ap;

	c->known = true;
	c->active = true;
	c->evidence_ms = evidence_ms;
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
}

static void cond_clear(struct risk_cond *c, int64_t evidence_ms)
{
	*c = (struct risk_cond){.known = true, .evidence_ms = evidence_ms};
}

/* Days until the fitted spare reaches @thresh, or a negative number when it does not fall. */
static double spare_days_left(const struct risk_input *in, double *ret_drop)
{
	double st = 0, ss = 0, stt = 0, sts = 0, n = (double)in->n_spare;

	for (size_t i = 0; i < in->n_spare; i++) {
		double t = (double)(in->spare[i].ts_ms - in->now_ms) / MS_PER_DAY;
		double y = in->spare[i].spare;
		st += t;
		ss += y;
		stt += t * t;
		sts += t * y;
	}
	double den = n * stt - st * st;
	if (den <= 0)
		return -1;
	double slope = (n * sts - st * ss) / den; /* points per day */
	double at_now = (ss - slope * st) / n;	  /* the line at t = 0 */
	*ret_drop = -slope * RISK_SPARE_FIT_DAYS;
	if (slope >= 0)
		return -1;
	double days = (at_now - in->spare_thresh) / -slope;
	return days < 0 ? 0 : days;
}

static void rule_spare_projection(const struct risk_input *in, struct risk_cond *c)
{
	double drop = 0, days;

	if (!in->smart_known || !in->history_ms)
		return; /* unknown */
	cond_clear(c, in->history_ms);
	if (in->n_spare < RISK_SPARE_MIN_POINTS ||
	    in->spare[in->n_spare - 1].ts_ms - in->spare[0].ts_ms <
		    RISK_SPARE_MIN_DAYS * MS_PER_DAY)
		return;
	if (in->avail_spare <= in->spare_thresh)
		return; /* spare_below_threshold's */
	days = spare_days_left(in, &drop);
	if (days < 0 || days > RISK_SPARE_HORIZON_DAYS)
		return;
	/* Weeks, not days: a line through a month of whole percent says no more. */
	long weeks = (long)(days / 7 + 0.999);
	if (weeks < 2)
		cond_set(c, in->history_ms,
			 "available spare %u %% (threshold %u %%) fell about %.0f points in %d "
			 "days: "
			 "at that rate it reaches its threshold within 2 weeks",
			 in->avail_spare, in->spare_thresh, drop, RISK_SPARE_FIT_DAYS);
	else
		cond_set(c, in->history_ms,
			 "available spare %u %% (threshold %u %%) fell about %.0f points in %d "
			 "days: "
			 "at that rate it reaches its threshold in about %ld weeks",
			 in->avail_spare, in->spare_thresh, drop, RISK_SPARE_FIT_DAYS, weeks);
}

/* The errors of the last RISK_ERRORS_DAYS in words; false when none. */
static bool errors_text(const struct risk_input *in, char *buf, size_t len)
{
	char d[U128_DEC_MAX];
	size_t k = 0;
	bool any = false;

	buf[0] = '\0';
	if (in->media_known && in->media_now > in->media_then) {
		k += (size_t)snprintf(buf + k, len - k, "%s media and data integrity errors",
				      u128_to_dec(in->media_now - in->media_then, d));
		any = true;
	}
	if (in->io_errors && k < len) {
		k += (size_t)snprintf(buf + k, len - k,
				      "%s%" PRIu64 " error log entr%s of class "
				      "media or io",
				      any ? ", " : "", in->io_errors,
				      in->io_errors == 1 ? "y" : "ies");
		any = true;
	}
	if (in->unc_known && in->unc_now > in->unc_then && k < len) {
		snprintf(buf + k, len - k, "%s%" PRIu64 " uncorrectable reads (OCP log)",
			 any ? ", " : "", in->unc_now - in->unc_then);
		any = true;
	}
	return any;
}

void risk_conditions(const struct risk_cfg *c, const struct risk_input *in,
		     struct risk_cond ret[_RISK_RULE_MAX])
{
	char errs[160], d[U128_DEC_MAX];

	memset(ret, 0, sizeof(*ret) * _RISK_RULE_MAX);
	if (in->smart_known) {
		int64_t t = in->smart_ms;
		uint8_t bad = in->critical_warning & RISK_CRIT_FAILED_BITS;

		cond_clear(&ret[RISK_CRITICAL_WARNING], t);
		if (bad)
			cond_set(&ret[RISK_CRITICAL_WARNING], t,
				 "the drive reports critical warning %#04x:%s%s%s%s", bad,
				 bad & 0x04 ? " reliability degraded" : "",
				 bad & 0x08 ? " read-only" : "",
				 bad & 0x10 ? " volatile memory backup failed" : "",
				 bad & 0x20 ? " persistent memory read-only" : "");
		cond_clear(&ret[RISK_SPARE_BELOW], t);
		if (in->critical_warning & 0x01)
			cond_set(&ret[RISK_SPARE_BELOW], t,
				 "available spare %u %% is below the drive's threshold %u %%",
				 in->avail_spare, in->spare_thresh);
		cond_clear(&ret[RISK_PERCENT_USED], t);
		if (in->percent_used >= RISK_USED_PCT)
			cond_set(&ret[RISK_PERCENT_USED], t,
				 "%u %% of the rated endurance used (the drive's estimate; %d is "
				 "the "
				 "threshold)",
				 in->percent_used, RISK_USED_PCT);
		bool errors = errors_text(in, errs, sizeof(errs));
		cond_clear(&ret[RISK_RECENT_ERRORS], t);
		if (errors)
			cond_set(&ret[RISK_RECENT_ERRORS], t, "in the last %d days: %s",
				 RISK_ERRORS_DAYS, errs);
		cond_clear(&ret[RISK_YOUNG_ERRORS], t);
		if (errors && in->power_on_hours < RISK_YOUNG_HOURS)
			cond_set(&ret[RISK_YOUNG_ERRORS], t,
				 "errors on a young drive: %s power-on hours (under %d), and %s",
				 u128_to_dec(in->power_on_hours, d), RISK_YOUNG_HOURS, errs);
		cond_clear(&ret[RISK_HW_ERROR], t);
		if (in->hw_errors)
			cond_set(&ret[RISK_HW_ERROR], t,
				 "%" PRIu64
				 " hardware error event%s in the drive's event log in the "
				 "last %d days",
				 in->hw_errors, in->hw_errors == 1 ? "" : "s", RISK_HW_DAYS);
		cond_clear(&ret[RISK_NEIGHBOUR], t);
		if (in->neighbours_bad)
			cond_set(&ret[RISK_NEIGHBOUR], t,
				 "%s of this host is replace_soon or failed%s (failures cluster by "
				 "host)",
				 in->neighbour && in->neighbour[0] ? in->neighbour
								   : "another drive",
				 in->neighbours_bad > 1 ? ", and others" : "");
	}
	rule_spare_projection(in, &ret[RISK_SPARE_PROJECTION]);
	if (in->blocks_known && in->ocp_ms) {
		cond_clear(&ret[RISK_BAD_BLOCKS], in->ocp_ms);
		if (in->blocks_now > in->blocks_then)
			cond_set(&ret[RISK_BAD_BLOCKS], in->ocp_ms,
				 "%" PRIu64 " more bad NAND blocks than %d days ago (%" PRIu64
				 " now, OCP log)",
				 in->blocks_now - in->blocks_then, RISK_BLOCKS_DAYS,
				 in->blocks_now);
	}
	for (int r = 0; r < _RISK_RULE_MAX; r++)
		if (!c->rule_on[r])
			ret[r] = (struct risk_cond){.known = true, .off = true};
}

bool risk_step(struct risk_state *st, const struct risk_cond conds[_RISK_RULE_MAX], int64_t now_ms,
	       struct risk_verdict *ret)
{
	struct risk_verdict v = {.known = true};
	uint8_t before = st->v.known ? st->v.level : RISK_OK;

	for (int r = 0; r < _RISK_RULE_MAX; r++) {
		const struct risk_cond *c = &conds[r];
		if (!c->known)
			continue;
		if (c->off) { /* turned off: it counts no more, at once */
			v.off |= 1u << r;
			st->counts[r] = false;
			st->held[r] = st->absent[r] = 0;
			continue;
		}
		if (c->evidence_ms <= st->last_ms[r])
			continue; /* the same read again */
		st->last_ms[r] = c->evidence_ms;
		if (c->active) {
			st->absent[r] = 0;
			if (st->held[r] < UINT8_MAX)
				st->held[r]++;
			if (st->held[r] >= RISK_CONFIRM)
				st->counts[r] = true;
		} else {
			st->held[r] = 0;
			if (st->absent[r] < UINT8_MAX)
				st->absent[r]++;
			if (st->absent[r] >= RISK_CONFIRM)
				st->counts[r] = false;
		}
	}
	for (int r = 0; r < _RISK_RULE_MAX; r++) {
		if (!st->counts[r])
			continue;
		struct risk_reason *x = &v.r[v.n++];
		x->rule = (uint8_t)r;
		x->level = (uint8_t)rules[r].level;
		/* The words of the newest read that saw it (kept while it counts). */
		if (conds[r].active)
			snprintf(x->reason, sizeof(x->reason), "%s", conds[r].reason);
		else
			for (size_t i = 0; i < st->v.n; i++)
				if (st->v.r[i].rule == r)
					snprintf(x->reason, sizeof(x->reason), "%s",
						 st->v.r[i].reason);
		if (x->level > v.level)
			v.level = x->level;
	}
	v.since_ms = st->v.known && v.level == before ? st->v.since_ms : now_ms;
	bool changed = !st->v.known || v.level != before;
	st->v = v;
	*ret = v;
	return changed;
}

void risk_state_seed(struct risk_state *st, const struct risk_verdict *v)
{
	*st = (struct risk_state){.v = *v};
	for (size_t i = 0; i < v->n; i++)
		if (v->r[i].rule < _RISK_RULE_MAX) {
			st->counts[v->r[i].rule] = true;
			st->held[v->r[i].rule] = RISK_CONFIRM;
		}
}
