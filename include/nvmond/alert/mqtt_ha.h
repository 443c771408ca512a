/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmond/alert/alert_sink.h"

/*
 * What the MQTT sink publishes, as topics and payloads (pure: no broker, no
 * clock). Under the topic prefix P (default "nvmond"), for host H and each drive
 * with serial S (H and S made topic-safe by mqtt_topic_id()):
 *   P/H/status                  "online" / "offline" (retained; the last will)
 *   P/H/S/temperature           composite temperature, °C (retained)
 *   P/H/S/percentage_used       %, NVMe "Percentage Used" (retained)
 *   P/H/S/data_written          TB (10^12 bytes), 3 decimals (retained)
 *   P/H/S/available_spare       % (retained)
 *   P/H/S/throttling            "ON" / "OFF" (retained)
 *   P/H/S/problem               "ON" / "OFF": a health problem (retained)
 *   P/H/S/event                 each notification, alert_note_json() (not retained)
 *   P/H/event                   a notification about no drive (a test)
 * and, for Home Assistant's MQTT discovery (prefix D, default "homeassistant"),
 *   D/sensor/nvmond_S/<object>/config, D/binary_sensor/nvmond_S/<object>/config and
 *   D/event/nvmond_S/event/config (HA's event entity on P/H/S/event)
 * (retained JSON: name, unique_id, state_topic, availability_topic, device, …).
 */
struct mqtt_ha_cfg {
	const char *topic_prefix;     /* "nvmond" */
	const char *discovery_prefix; /* "homeassistant" */
	const char *host;	      /* this machine */
	const char *sw_version;	      /* nvmond's version, in the device info */
};

/* One drive's latest state, as the caller knows it. */
struct mqtt_drive_state {
	char device[64]; /* "nvme0" */
	char model[41];
	char serial[21];
	char firmware[9];
	char vendor[32];	     /* "" if not known */
	bool has_sample;	     /* false: only discovery, no state values yet */
	int temperature_c;	     /* composite temperature */
	unsigned percentage_used;    /* may exceed 100 */
	uint64_t data_units_written; /* NVMe units of 512 000 bytes */
	unsigned available_spare;    /* % */
	bool throttling;
	bool problem;
};

struct device_row;
struct smart_log;

/**
 * mqtt_drive_state_from() - @ret for the store's @dev from its latest full
 * SMART / Health log @smart (NULL: none yet, or a temperatures-only sample:
 * discovery only) and @throttling (a throttle episode is open). "problem" is
 * any Critical Warning bit (spare, temperature, reliability, read-only,
 * volatile backup, PMR) or an Endurance Group Critical Warning; the counter of
 * data units written saturates at UINT64_MAX (8 ZB away).
 */
void mqtt_drive_state_from(const struct device_row *dev, const struct smart_log *smart,
			   bool throttling, struct mqtt_drive_state *ret);

struct mqtt_msg {
	char *topic;
	char *payload;
	bool retain;
};

/* A growing list of messages; owns its strings. */
struct mqtt_msgs {
	struct mqtt_msg *v;
	size_t n, cap;
};

/** mqtt_msgs_clear() - Free every message of @m and empty it (it stays usable). */
void mqtt_msgs_clear(struct mqtt_msgs *m);

/**
 * mqtt_topic_id() - @s as one topic level and a Home Assistant id: ASCII
 * letters, digits, "-" and "_" kept, everything else (space, "/", "+", "#", …)
 * made "_"; "unknown" if that leaves nothing. @size >= 8.
 */
void mqtt_topic_id(const char *s, char *out, size_t size);

/** mqtt_ha_drive_id() - @d's serial, trimmed of its padding, as mqtt_topic_id(): its topic level and HA id. */
void mqtt_ha_drive_id(const struct mqtt_drive_state *d, char *out, size_t size);

/** mqtt_ha_status_topic() - "P/H/status" into @out. Return: 0 or -ENAMETOOLONG. */
int mqtt_ha_status_topic(const struct mqtt_ha_cfg *c, char *out, size_t size);

/** mqtt_ha_discovery() - Append @d's discovery configs to @out. Return: 0 or -ENOMEM. */
int mqtt_ha_discovery(const struct mqtt_ha_cfg *c, const struct mqtt_drive_state *d,
		      struct mqtt_msgs *out);

/** mqtt_ha_states() - Append @d's retained states to @out (none without a sample). Return: 0 or -ENOMEM. */
int mqtt_ha_states(const struct mqtt_ha_cfg *c, const struct mqtt_drive_state *d,
		   struct mqtt_msgs *out);

/** mqtt_ha_event() - Append @n as an event (not retained) to @out. Return: 0 or -ENOMEM. */
int mqtt_ha_event(const struct mqtt_ha_cfg *c, const struct alert_note *n, struct mqtt_msgs *out);

/** mqtt_tb() - @units (of 512 000 bytes) as TB with 3 decimals, exact, "12.345". */
void mqtt_tb(uint64_t units, char *out, size_t size);
