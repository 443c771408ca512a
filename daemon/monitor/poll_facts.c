/* SPDX-License-Identifier: MIT */
/*
 * What the poller records about a drive besides its samples: firmware
 * revisions and PCIe link changes (store_facts), whether it sleeps, the
 * hwmon-only sample of a drive without privileges and the one notice about
 * them; the facts go into the fleet and to the listeners (on_facts). See
 * poller_internal.h.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nvmond/core/log.h"
#include "nvmond/store/store_facts.h"
#include "poller_internal.h"

void poller_notify_facts(struct poller *p, const struct pdev *d, int64_t now_ms)
{
	struct fleet_device fd;

	fleet_put_facts(p->fleet, d->id, &d->facts);
	if (p->n_listeners == 0 || fleet_get(p->fleet, d->id, &fd) < 0)
		return;
	for (size_t i = 0; i < p->n_listeners; i++)
		if (p->listeners[i].on_facts)
			p->listeners[i].on_facts(p->listeners[i].ctx, &fd.row, &d->facts, now_ms);
}

/* Once per run: what is missing without privileges, and how to grant them. */
void poller_tell_no_permission(struct poller *p, const struct pdev *d)
{
	if (p->told_no_permission)
		return;
	p->told_no_permission = true;
	log_warn("no permission for NVMe admin commands on /dev/%s (%s): showing the identity "
		 "from sysfs and the temperatures from hwmon only; the health counters, "
		 "critical warnings, error log and firmware slots stay unknown and their alerts "
		 "silent. Run nvmond as root, or with CAP_SYS_ADMIN (systemd: "
		 "AmbientCapabilities=CAP_SYS_ADMIN) and read access to the /dev/nvme* nodes",
		 d->name, d->key);
}

/* The firmware and link last recorded for @d, once per run. */
static void facts_load(struct poller *p, struct pdev *d)
{
	struct store_fw_row fw;
	struct store_link_row l;

	if (d->facts_loaded)
		return;
	if (store_fw_last(p->store, d->id, &fw) == 0) {
		snprintf(d->fw, sizeof(d->fw), "%s", fw.new_rev);
		snprintf(d->facts.firmware, sizeof(d->facts.firmware), "%s", fw.new_rev);
		if (fw.old_rev[0]) {
			snprintf(d->facts.firmware_prev, sizeof(d->facts.firmware_prev), "%s",
				 fw.old_rev);
			d->facts.firmware_changed_ms = fw.ts_ms;
		}
	}
	if (store_link_at(p->store, d->id, INT64_MAX, &l) == 0) {
		d->facts.link = l.link;
		d->link_recorded = true;
	}
	d->facts_loaded = true;
}

/* Record a firmware revision change (or the baseline) found by a scan. */
static void facts_firmware(struct poller *p, struct pdev *d, const struct dev_info *info,
			   int64_t now)
{
	struct fw_change ch;
	struct store_fw_row row = {.device_id = d->id, .ts_ms = now};

	fwlog_change(d->fw, info->id.firmware, info->facts.has_fwlog ? &info->facts.fwlog : NULL,
		     &ch);
	snprintf(d->facts.firmware_pending, sizeof(d->facts.firmware_pending), "%s", ch.pending);
	if (!ch.current[0] || (!ch.changed && d->fw[0]))
		return;
	snprintf(row.old_rev, sizeof(row.old_rev), "%s", ch.changed ? ch.old_rev : "");
	snprintf(row.new_rev, sizeof(row.new_rev), "%s", ch.current);
	if (store_fw_insert(p->store, &row) < 0) {
		log_warn("storing the firmware of %s failed: %s", d->key, store_strerror(p->store));
		return; /* tried again at the next scan */
	}
	snprintf(d->fw, sizeof(d->fw), "%s", ch.current);
	snprintf(d->facts.firmware, sizeof(d->facts.firmware), "%s", ch.current);
	if (!ch.changed)
		return;
	snprintf(d->facts.firmware_prev, sizeof(d->facts.firmware_prev), "%s", ch.old_rev);
	d->facts.firmware_changed_ms = now;
	log_event(LOG_LVL_INFO, d->name, d->serial, "firmware_changed",
		  "device %s (%s): firmware changed from %s to %s", d->key, d->name, ch.old_rev,
		  ch.new_rev);
}

/* Record the PCIe link when it differs from the last one recorded. */
static void facts_link(struct poller *p, struct pdev *d, const struct nvme_pcie_link *l,
		       int64_t now)
{
	struct store_link_row row = {.device_id = d->id, .ts_ms = now, .link = *l};
	char was[NVME_PCIE_LINK_STR_MAX], is[NVME_PCIE_LINK_STR_MAX];

	if (!nvme_pcie_link_known(l) ||
	    (d->link_recorded && memcmp(&d->facts.link, l, sizeof(*l)) == 0))
		return;
	if (store_link_insert(p->store, &row) < 0) {
		log_warn("storing the PCIe link of %s failed: %s", d->key,
			 store_strerror(p->store));
		return;
	}
	nvme_pcie_link_format(&d->facts.link, was, sizeof(was));
	nvme_pcie_link_format(l, is, sizeof(is));
	if (d->link_recorded)
		log_event(nvme_pcie_link_degraded(l) ? LOG_LVL_WARNING : LOG_LVL_INFO, d->name,
			  d->serial, "link", "device %s (%s): %s, was %s", d->key, d->name, is,
			  was);
	else if (nvme_pcie_link_degraded(l))
		log_event(LOG_LVL_WARNING, d->name, d->serial, "link",
			  "device %s (%s): %s: the link runs below what the drive supports", d->key,
			  d->name, is);
	d->facts.link = *l;
	d->link_recorded = true;
}

/* After a scan found @d: its access, sleep, link and firmware. */
void poller_facts_update(struct poller *p, struct pdev *d, const struct dev_info *info, int64_t now)
{
	facts_load(p, d);
	d->access = info->access;
	if (info->access == DEV_ACCESS_SYSFS)
		poller_tell_no_permission(p, d);
	d->facts.known = true;
	d->facts.asleep = info->asleep;
	d->facts.hwmon_only = info->access == DEV_ACCESS_SYSFS;
	if (info->unresponsive)
		poller_set_unresponsive(p, d, true, now);
	if (info->access == DEV_ACCESS_ADMIN && !info->asleep && !info->unresponsive) {
		/* Identify was answered: its capabilities hold until the next scan. */
		d->facts.id_known = true;
		d->facts.selftest_supported = dev_selftest_supported(&info->id);
		d->facts.edstt_min = info->id.edstt;
	}
	facts_link(p, d, &info->facts.link, now);
	/* A controller that did not answer Identify has only sysfs's revision. */
	if (!info->unresponsive)
		facts_firmware(p, d, info, now);
	poller_notify_facts(p, d, now);
}

/* A sample of the temperatures hwmon showed (@t); the other fields stay unknown. */
void poller_hwmon_sample(const struct pdev *d, int64_t now, const struct nvme_hwmon_temps *t,
			 struct sample *ret)
{
	*ret = (struct sample){.device_id = d->id, .ts_ms = now, .source = SAMPLE_SOURCE_HWMON};
	ret->smart.temperature_k = t->composite_k;
	memcpy(ret->smart.temp_sensor_k, t->sensor_k, sizeof(t->sensor_k));
}

/*
 * A command to the drive passed [daemon] device_timeout, or the stuck one
 * returned: tell once, show it (the alert service hears it as a fact). Once it
 * answers again, a rescan reads its Identify data anew.
 */
void poller_set_unresponsive(struct poller *p, struct pdev *d, bool hung, int64_t now)
{
	if (d->facts.unresponsive == hung) {
		if (!hung && d->answered_ms) {
			if (now - d->answered_ms > p->cfg.alert_resolve_after_ms)
				d->answered_ms = 0; /* this call is the last */
			poller_notify_facts(p, d, now);
		}
		return;
	}
	if (hung)
		log_event(LOG_LVL_ERROR, d->name, d->serial, "unresponsive",
			  "device %s (%s) is unresponsive: an admin command got no answer within "
			  "%lld ms; no more commands are sent to it until that one returns",
			  d->key, d->name, (long long)p->cfg.device_timeout_ms);
	else
		log_event(LOG_LVL_INFO, d->name, d->serial, "responsive",
			  "device %s (%s) answers again: polling again", d->key, d->name);
	d->facts.unresponsive = hung;
	d->facts.unresponsive_since_ms = hung ? now : 0;
	d->answered_ms = hung ? 0 : now;
	if (!hung)
		p->rescan_soon = true;
	poller_notify_facts(p, d, now);
}

/* A drive fell asleep or woke: tell once, show it. */
void poller_set_asleep(struct poller *p, struct pdev *d, bool asleep, int64_t now)
{
	if (d->facts.asleep == asleep)
		return;
	log_event(LOG_LVL_INFO, d->name, d->serial, asleep ? "asleep" : "awake",
		  asleep ? "device %s (%s) is asleep (runtime-suspended): not polled until it "
			   "wakes (wake_sleeping = no)"
			 : "device %s (%s) is awake: polling again",
		  d->key, d->name);
	d->facts.asleep = asleep;
	poller_notify_facts(p, d, now);
}
