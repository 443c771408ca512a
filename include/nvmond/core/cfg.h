/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CFG_DEFAULT_PATH   "/etc/nvmond/nvmond.conf"
#define CFG_DEFAULT_LISTEN "127.0.0.1:9470"
#define CFG_PATH_MAX	   4096
#define CFG_ERR_MAX	   512
#define CFG_USER_MAX	   64 /* [daemon] user: a login name */

enum cfg_demo {
	CFG_DEMO_AUTO, /* demo drives only when no NVMe controller is found */
	CFG_DEMO_YES,
	CFG_DEMO_NO,
};

enum log_level {
	LOG_LVL_ERROR,
	LOG_LVL_WARNING,
	LOG_LVL_INFO,
	LOG_LVL_DEBUG,
};

#define CFG_MAX_DEVICES	  64
#define CFG_TOKEN_MAX	  128
#define CFG_KEYS_MAX	  256 /* global keys (the table in cfg_keys.c), for struct cfg's key_line */
#define CFG_SECTIONS_MAX  16  /* sections owned above core (cfg_section.h) */
#define CFG_SECT_MEM	  (64 * 1024) /* their structs, together */
#define CFG_SECT_KEYS_MAX 128	      /* their keys, together */

/* Who is who (issue 24): the host's name and labels, a drive's label and location. */
#define CFG_HOST_NAME_MAX   64	/* [daemon] host_name, bytes with the NUL */
#define CFG_LABELS_MAX	    16	/* [daemon] host_labels: pairs */
#define CFG_LABEL_NAME_MAX  64	/* a label's name, with the NUL */
#define CFG_LABEL_VALUE_MAX 128 /* a label's value (UTF-8), with the NUL */
#define CFG_DEVICE_TEXT_MAX 128 /* [device] label, location (UTF-8), with the NUL */
#define CFG_URL_MAX	    512 /* [daemon] public_url */

/* One Prometheus label: the name as Prometheus requires it, a UTF-8 value. */
struct cfg_label {
	char name[CFG_LABEL_NAME_MAX];
	char value[CFG_LABEL_VALUE_MAX];
};

/* [daemon] host_labels = site=fra1, rack=r12: in the order written, names unique. */
struct cfg_labels {
	size_t n;
	struct cfg_label v[CFG_LABELS_MAX];
};

/*
 * Settings of one drive: a section [device "X"] where X is a serial number or a
 * model name. cfg_device_for() merges, in order: built-in defaults, the section
 * naming the model, the section naming the serial. Feature work adds fields here
 * and one line each to the device key table in cfg_keys.c.
 */
struct cfg_device {
	char match[64];	      /* the X of [device "X"] */
	uint64_t set_mask;    /* which keys the section sets (bit = index in the table) */
	uint64_t rated_bytes; /* rated endurance, rated_tbw = 400TB; 0 = not configured */
	/* rated sequential read / write MB/s (data sheet); 0 = the built-in table (issue 13) */
	uint32_t rated_read_mbps, rated_write_mbps;
	/* probes (issue 4) */
	char probe_dir[512];	     /* directory for the probe file; "" = raw namespace, reads */
	char probe_schedule[256];    /* "daily 03:00 seq1m-q8, weekly Sun 04:00 sustained-write" */
	uint64_t probe_file_size;    /* bytes */
	uint64_t probe_budget_day;   /* bytes per 24 h; 0 = a share of the rated endurance */
	uint64_t probe_budget_month; /* bytes per 30 days; 0 = likewise */
	uint64_t probe_sustained_limit; /* sustained-write stops after this many bytes */
	int probe_destructive;		/* 1: writes to an unused raw namespace allowed */
	uint32_t probe_nsid;		/* probe_namespace: the raw namespace probed */
	/* alerts: this drive's margins below WCTEMP / CCTEMP, °C ([alerts] ones if unset) */
	uint32_t alert_warning_margin_c;
	uint32_t alert_critical_margin_c;
	/* temperature sensors 1-8: alerts only when asked ([alerts] sensor_alerts if unset) */
	int sensor_alerts; /* 1: a sensor alerts at its limit (drive's, else WCTEMP) */
	uint32_t
		sensor_limit_c[8]; /* sensor_limit_N, °C; 0 = none (alerts without sensor_alerts) */
	/* who is who (issue 24): UTF-8 text, "" = not set */
	char label[CFG_DEVICE_TEXT_MAX];    /* "bay 3 – scratch" */
	char location[CFG_DEVICE_TEXT_MAX]; /* "rack 12 U4 slot 3" */
	/*
	 * Device self-tests (issue 12): "weekly Sun 02:00 short, monthly 1 03:00 extended"
	 * (analysis/selftest_sched.h), "none" = no scheduled tests, "" = [selftests]
	 * default_schedule: the self-test service owns that section and tells the
	 * schedule in effect (selftest_schedule_in_effect(), selftest/selftest_conf.h).
	 */
	char selftest_schedule[256];
};

/*
 * A [sink "NAME"] section, kept as written: the alert subsystem owns the sink
 * types and checks the keys (core does not call alert), reporting FILE:LINE
 * from the lines kept here. Values of secret keys stay here too; nothing in
 * core logs them.
 */
#define CFG_MAX_SINKS	  16
#define CFG_SINK_KEYS	  20
#define CFG_SINK_NAME_MAX 48
#define CFG_SINK_VAL_MAX  400

struct cfg_sink_kv {
	char key[32];
	char value[CFG_SINK_VAL_MAX];
	int line; /* in cfg.sinks_file; 0: set by cfg_set() */
};

struct cfg_sink {
	char name[CFG_SINK_NAME_MAX];
	int line; /* of the first key */
	size_t n;
	struct cfg_sink_kv kv[CFG_SINK_KEYS];
};

/*
 * An [export "NAME"] section (issue 24: remote write), kept as written the way a
 * sink's section is (the same struct): the export subsystem owns its type and
 * checks its keys, with FILE:LINE from the lines kept here.
 */
#define CFG_MAX_EXPORTS 8

struct cfg {
	/* [daemon] */
	char listen_host[256];
	uint16_t listen_port;
	char database[CFG_PATH_MAX];
	char web_root[CFG_PATH_MAX];
	int64_t poll_interval_ms;
	int64_t rescan_interval_ms;
	enum cfg_demo demo;
	uint32_t demo_drives; /* how many demo drives (1 … 64) */
	int demo_history;     /* 1: a first start backfills a year of demo history */
	enum log_level log_level;
	int wake_sleeping;	   /* 1: poll runtime-suspended drives anyway (wakes them) */
	int64_t device_timeout_ms; /* a device command's deadline: past it, unresponsive */
	char user[CFG_USER_MAX];   /* started as root: the HTTP process's user; "" = stay root */
	char host_name[CFG_HOST_NAME_MAX]; /* this host in the fleet; default: gethostname() */
	struct cfg_labels host_labels;	   /* site=fra1, rack=r12: the host's target labels */
	char public_url[CFG_URL_MAX];	   /* this host's own dashboard, for a fleet page; "" */
	/* [store]: the store's own section (store/store_conf.h) */
	/* [http]: the API's own section (api/api_conf.h) */
	/* [alerts] (rules: 1 on, 0 off) */
	int alert_throttling;
	int alert_temperature;
	int alert_critical_warning;
	int alert_spare;
	int alert_percent_used;
	int alert_media_errors;
	int alert_offline;
	int alert_unresponsive;		  /* a device command passed [daemon] device_timeout */
	int alert_risk;			  /* the risk verdict rose (docs/health.md) */
	int alert_wear;			  /* tbw_80/90/100 and write_rate */
	int alert_io_errors;		  /* media / io entries in the error log */
	int alert_link_degraded;	  /* the PCIe link runs below what the drive supports */
	int alert_firmware_changed;	  /* the running firmware revision changed */
	int alert_below_rated;		  /* below_rated: a series under 80 % of the rating */
	int alert_selftest;		  /* selftest_failed and selftest_aborted */
	int alert_sensor_alerts;	  /* default of [device] sensor_alerts */
	uint32_t alert_warning_margin_c;  /* fire this many °C below WCTEMP */
	uint32_t alert_critical_margin_c; /* and below CCTEMP */
	uint32_t alert_hysteresis_c;
	int64_t alert_resolve_after_ms;
	int64_t alert_cooldown_ms;
	char alert_exec[CFG_PATH_MAX];
	int64_t alert_exec_timeout_ms;
	char alert_webhook[CFG_PATH_MAX];
	int64_t alert_webhook_timeout_ms;
	uint32_t alert_webhook_queue;
	uint32_t alert_webhook_attempts;
	int64_t alert_webhook_retry_max_ms;
	/* [probes]: the probe service's own section (probe/probe_conf.h) */
	/* [selftests]: the self-test service's own section (selftest/selftest_conf.h) */
	/* [fleet]: the fleet view's own section (fleetview/fleetview_conf.h) */
	/* [logs]: the poller's own section (monitor/logs_conf.h); [risk]: the risk
	 * monitor's (alert/risk_conf.h) */
	/* [device "…"] */
	struct cfg_device devices[CFG_MAX_DEVICES];
	size_t n_devices;
	/* [sink "…"] */
	struct cfg_sink sinks[CFG_MAX_SINKS];
	size_t n_sinks;
	char sinks_file[CFG_PATH_MAX]; /* the file the sections came from, for messages */
	/* [export "…"] (the file they came from: exports_file) */
	struct cfg_sink exports[CFG_MAX_EXPORTS];
	size_t n_exports;
	char exports_file[CFG_PATH_MAX];
	/* The sections owned above core (cfg_section.h): each owner's struct, laid
	 * out by cfg_sections_register(), and the line that set each of their keys. */
	_Alignas(16) unsigned char sect_mem[CFG_SECT_MEM];
	int sect_key_line[CFG_SECT_KEYS_MAX];
	/* Where each global key was set, for messages that name FILE:LINE after the
	 * file was read (a hook that cannot run, a cross-key rule): cfg_key_where(). */
	char file[CFG_PATH_MAX];    /* the file read last; "" = none */
	int key_line[CFG_KEYS_MAX]; /* by index in the key table; 0 = not set there */
};

/** cfg_sink_get() - The value of @key in @s, or NULL; @ret_line (may be NULL) gets its line. */
const char *cfg_sink_get(const struct cfg_sink *s, const char *key, int *ret_line);

/**
 * cfg_label_name_ok() - Whether @s is a label name Prometheus takes
 * ([a-zA-Z_][a-zA-Z0-9_]*) that is not reserved to it (a leading "__").
 */
bool cfg_label_name_ok(const char *s);

/**
 * cfg_parse_labels() - "site=fra1, rack=r12, role=db" into @ret: names as
 * cfg_label_name_ok() wants them, none twice, none that nvmond's own series use
 * (cfg_label_reserved()); values UTF-8 without control characters, not empty,
 * in double quotes when they hold a comma. An empty string is no label.
 * @err: what is wrong, when it fails
 * Return: 0, or -EINVAL.
 */
int cfg_parse_labels(const char *s, struct cfg_labels *ret, char *err, size_t errsize);

/**
 * cfg_label_reserved() - Whether @name is a label nvmond puts on series itself
 * (job, instance, host, host_id, device, serial, …): a host label of that name
 * would clash with it.
 */
bool cfg_label_reserved(const char *name);

/** cfg_label_reserved_list() - The reserved names, "job, instance, …", for messages and docs. */
const char *cfg_label_reserved_list(void);

/** cfg_device_sets() - Whether a section of @d sets @key (a [device] key name). */
bool cfg_device_sets(const struct cfg_device *d, const char *key);

/**
 * cfg_device_for() - The settings that apply to the drive @model / @serial.
 * Margins not set in a section are the [alerts] ones. selftest_schedule is the
 * drive's own as its sections set it ("" = not set): the self-test service, which
 * owns [selftests], tells the schedule in effect and checks its syntax.
 */
void cfg_device_for(const struct cfg *c, const char *model, const char *serial,
		    struct cfg_device *ret);

/** cfg_key_count() - How many keys exist (global ones plus [device] ones). */
size_t cfg_key_count(void);

/*
 * One key as the table defines it, in the words of docs/configuration.md: what the
 * docs and the sample configuration are checked against (tests/integration/test_docs*).
 */
struct cfg_key_desc {
	const char *section; /* "daemon", …; "device" for [device "X"] */
	const char *key;
	const char *type; /* "duration", "integer", "size", "bool", "choice", "text", "address",
			      or what the docs call a text key with a syntax of its own */
	const char *def;  /* the default as written in the file; NULL: computed */
	char range[96];	  /* "100ms … 1d", "1 … 64", "≥ 1 MiB", "a, b, c", "not empty", "" */
	bool range_known; /* false: the key's syntax (a list, a schedule) is checked above core */
	int64_t len_min, len_max; /* a text's length in bytes (0, 0: not a text) */
	bool restart;		  /* takes effect at the next start only */
};

/** cfg_key_describe() - Key @i (0 … cfg_key_count() - 1). Return: 0, or -ENOENT. */
int cfg_key_describe(size_t i, struct cfg_key_desc *ret);

/** cfg_bool_names() - The spellings a bool takes ("yes", "no", …), NULL-terminated. */
const char *const *cfg_bool_names(void);

/**
 * cfg_key_line() - The line of @c->file that set global key [@section] @key.
 * Return: the line, 0 when the file did not set it.
 */
int cfg_key_line(const struct cfg *c, const char *section, const char *key);

/**
 * cfg_key_where() - "FILE:LINE" of the line that set [@section] @key in the file
 * @c was read from, for a message about its value found after the file was read.
 * Return: @buf, "" when the key was not set in a file (a default, cfg_set()).
 */
const char *cfg_key_where(const struct cfg *c, const char *section, const char *key, char *buf,
			  size_t size);

/**
 * cfg_restart_changes() - The keys that take effect at the next start only (every
 * [http] key, and those the table marks) whose value differs between @running and
 * @loaded, as "[daemon] demo_drives, [http] token" in @buf.
 * Return: how many differ (0: @buf is "").
 */
size_t cfg_restart_changes(const struct cfg *running, const struct cfg *loaded, char *buf,
			   size_t size);

#define CFG_SIZE_DECIMALS 6 /* "1.123456PB" at most */

/**
 * cfg_parse_size() - "400TB", "1.2PB", "600GB", "512000" (bytes); decimal units
 * (kB, MB, GB, TB, PB = powers of 1000) and binary ones (KiB … PiB); up to
 * CFG_SIZE_DECIMALS decimals, a fraction of a byte rounded down.
 * Return: 0, or -EINVAL, -ERANGE, -EDOM (more decimals).
 */
int cfg_parse_size(const char *s, uint64_t *ret);

/**
 * cfg_defaults() - Fill @c with the built-in defaults (database path depends on
 * whether we run as root).
 */
void cfg_defaults(struct cfg *c);

/**
 * cfg_load() - Apply the INI file @path on top of @c.
 * @ret_err: "file:line: message" on failure (CFG_ERR_MAX bytes)
 * Return: 0; -ENOENT when the file does not exist (@ret_err filled); -EINVAL on an
 * unknown section or key or a bad value; -EPERM when others than its owner (root or
 * this process's user) can write the file or its directory (fperm.h); other negative
 * errno on read errors.
 */
int cfg_load(struct cfg *c, const char *path, char ret_err[CFG_ERR_MAX]);

/*
 * A check of one key's value that a layer above core owns (a schedule's syntax, a
 * directory that must exist): cfg_load_checked() runs it on every value of that key
 * read from the file, so that a bad one is reported as "FILE:LINE: key: message" when
 * the file is read, by the daemon and by `nvmond status` alike.
 */
struct cfg_check {
	const char *section; /* "device" stands for every [device "X"] */
	const char *key;
	int (*fn)(const char *value, char *err, size_t errsize); /* 0, or < 0 with @err */
};

/**
 * cfg_load_checked() - cfg_load(), and each of @checks (@n_checks) on its key's values.
 * Return: as cfg_load(); a failed check is -EINVAL.
 */
int cfg_load_checked(struct cfg *c, const char *path, const struct cfg_check *checks,
		     size_t n_checks, char ret_err[CFG_ERR_MAX]);

/**
 * cfg_set() - Set one key as if read from the file (used for --db, --listen, tests).
 * Return: 0, or -EINVAL with @ret_err filled ("message" only).
 */
int cfg_set(struct cfg *c, const char *section, const char *key, const char *value,
	    char ret_err[CFG_ERR_MAX]);

/**
 * cfg_parse_duration_ms() - "250ms", "10s", "5m", "2h", "1d", or bare seconds.
 * Return: 0, or -EINVAL.
 */
int cfg_parse_duration_ms(const char *s, int64_t *ret);

/**
 * cfg_parse_listen() - "host:port", "[v6]:port" or ":port".
 * Return: 0, or -EINVAL.
 */
int cfg_parse_listen(const char *s, char host[256], uint16_t *ret_port);
