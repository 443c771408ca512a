/* SPDX-License-Identifier: MIT */
/*
 * nvmond-test-nvme: an LD_PRELOAD shim for the VM tests that makes QEMU's
 * emulated NVMe controllers answer what QEMU 7.2 cannot: hot or stuck
 * temperature sensors, error log entries, a device self-test, power-on hours.
 * Never linked into the daemon.
 *
 * It intercepts ioctl(fd, NVME_IOCTL_ADMIN_CMD or NVME_IOCTL_ADMIN64_CMD, cmd)
 * and, for the controller behind fd (its serial from sysfs, else from an
 * Identify Controller the shim sends itself), rewrites the answer as the
 * configuration file says: $NVMOND_SHIM_CONF, default /tmp/nvme-shim.conf,
 * re-read whenever it changes, so a test can change the answers while the
 * daemon runs. One or more "key=value" after the serial on each line; lines
 * add up; '#' starts a comment:
 *
 *   NVMOND-VM-0000 composite=310 sensor2=355      temperatures in Kelvin
 *   NVMOND-VM-0000 poh=12345                      power-on hours
 *   NVMOND-VM-0000 error=1,0,1,0x09,0,0           COUNT,SQID,SCT,SC,LBA,NSID
 *   NVMOND-VM-0000 error=2,1,2,0x81,4096,1        (one entry per error=)
 *   NVMOND-VM-0000 elpe=3                         Identify ELPE (0's based)
 *   NVMOND-VM-0001 selftest=yes selftest_short_s=10 selftest_extended_s=60
 *   NVMOND-VM-0001 selftest_result=7,2,123456     RESULT[,SEGMENT,FAILING LBA]
 *   NVMOND-VM-0001 hang=/tmp/hang1                a controller that stops answering
 *
 * Get Log Page 02h: the composite, sensors 1-8 and power-on hours replaced;
 *   num_err_log_entries = max(the controller's + configured entries, the
 *   largest configured count). The critical warning byte is left alone, and
 *   hwmon still shows the controller's own temperature (the kernel reads it
 *   without this ioctl).
 * Get Log Page 01h: the configured entries, largest count first, then the
 *   controller's own non-empty ones.
 * selftest=yes: Identify Controller gets OACS bit 4 (Device Self-test) and
 *   EDSTT (minutes, from selftest_extended_s); Device Self-test (14h) starts
 *   a short (1h) or extended (2h) test or aborts one (Fh), and Get Log Page
 *   06h shows it running, its completion advancing with the time, then its
 *   result (default 0, "completed without error"). The state lives in
 *   "<conf>.state", shared by every process that loads the shim. A start
 *   while a test runs fails with Device Self-test In Progress.
 * ocp=ocp|other, pel=N, npss=N, ps=P, apst=on|off, hctm=T1,T2, media_errors=N
 *   (issue 27): log C0h, the Persistent Event Log, power states, APST and HCTM
 *   as QEMU's controller does not have them ("drive logs" below, and
 *   tests/vm/README.md); $NVMOND_SHIM_CMD_LOG logs each command answered so.
 * hang=PATH: while PATH exists, every admin command to the controller is held
 *   in the ioctl (as a command to a hung controller waits in the kernel) and
 *   goes to the controller once PATH is removed; each held command appends
 *   "opcode=0x02 pid=123 tid=124" to "PATH.held" when it starts waiting.
 * Everything else, and every controller the file does not name, passes
 * through untouched. Problems go to stderr, prefixed "nvme-shim:".
 *
 * $NVMOND_SHIM_STATUS_LOG=/path: every admin command that reaches the
 * controller and does not complete successfully (a non-zero NVMe status, or
 * a failed ioctl) appends one line there, whatever the configuration says,
 * with the status the controller really gave (before any rewriting):
 *   comm=nvmond pid=123 opcode=0x02 nsid=0xffffffff cdw10=0x00ff00c0 cdw11=0x0 status=0x4002
 *   comm=nvme pid=124 opcode=0xc1 nsid=0x0 cdw10=0x0 cdw11=0x0 errno=22
 * (status as the ioctl returns it: the Status Field without the phase tag;
 * 0x4000 is DNR). Commands the shim answers itself (a simulated self-test)
 * and its own Identify are not logged.
 *
 * $NVMOND_SHIM_NOTIFY_LOG=/path: the shim also stands in front of
 * sd_notify(3) (libsystemd) and appends each call's state there, one line per
 * assignment, after the uptime in ms (CLOCK_BOOTTIME): "12345 WATCHDOG=1".
 * The real sd_notify then runs as usual, so a VM test without systemd sees the
 * watchdog being fed with WATCHDOG_USEC set and $NOTIFY_SOCKET naming a socket
 * that need not exist (the daemon talks to a service manager only when it is set).
 */
#undef _FORTIFY_SOURCE
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/nvme_ioctl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define SHIM_MAX_CTRL	 16
#define SHIM_MAX_ERR	 64
#define SHIM_SERIAL	 21
#define NUM_SENSORS	 8
#define ST_LOG_SIZE	 564 /* Device Self-test log: 4 bytes + 20 results of 28 */
#define ST_MAX_RESULTS	 20
#define ERR_ENTRY_SIZE	 64
#define OPC_GET_LOG	 0x02
#define OPC_IDENTIFY	 0x06
#define OPC_GET_FEATURES 0x0a
#define PEL_KINDS	 17 /* pel_kinds[] */
#define OPC_SELF_TEST	 0x14
#define STATUS_DNR	 0x4000 /* as the ioctl returns it: the status field >> 1 */
#define SC_INVALID_FIELD 0x002
#define SC_ST_IN_PROG	 0x11d /* SCT 1h, SC 1Dh */
#define SC_CMD_SEQ_ERROR 0x00c
#define SC_INTERNAL	 0x006

struct shim_err {
	uint64_t count, lba;
	uint32_t nsid;
	uint16_t sqid;
	uint8_t sct, sc;
};

struct shim_ctrl {
	char serial[SHIM_SERIAL];
	int composite_k;	   /* -1 = as the controller says */
	int sensor_k[NUM_SENSORS]; /* -1 = as the controller says */
	long long poh;		   /* -1 = as the controller says */
	long long media_errors;	   /* -1 = as the controller says */
	int elpe;		   /* -1 = as the controller says */
	char fr[9];		   /* Identify FR; "" = as the controller says */
	struct shim_err err[SHIM_MAX_ERR];
	int nerr;
	bool selftest;
	int short_s, extended_s;
	int st_result, st_seg;
	long long st_lba; /* -1 = none */
	char hang[128];	  /* hold every admin command while this file exists; "" = never */
	/* issue 27: what QEMU's controller does not have (below, "drive logs") */
	int ocp; /* 0 = pass through; 1 = C0h with the OCP GUID; 2 = another GUID */
	int pel; /* -1 = pass through; else the first N events of pel_kinds[] */
	long long pel_t0, pel_t1; /* wall ms of event 0, and of event pel_split on */
	int pel_split;
	int pel_from; /* the log holds events pel_from .. pel - 1 (one alone, for nvme-cli) */
	int npss;     /* -1 = as the controller says; else NPSS (0's based) */
	int ps;	      /* -1 = as the controller says; else Get Features 02h PS */
	int apst;     /* -1 = no APST (as QEMU); 0 supported, off; 1 on */
	int hctm_t1, hctm_t2; /* -1 = no HCTM (as QEMU); else TMT1, TMT2 in K (0 = off) */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct shim_ctrl ctrls[SHIM_MAX_CTRL];
static int nctrls;
static struct stat conf_st; /* of the file last loaded; st_ino 0 = none */

/* Serials learned by the shim's own Identify, for fds sysfs does not explain. */
static struct {
	dev_t dev;
	char serial[SHIM_SERIAL];
} idcache[32];
static int nidcache;

static int (*real_ioctl_fn)(int, unsigned long, ...);

static int real_ioctl(int fd, unsigned long req, void *arg)
{
	if (!real_ioctl_fn) {
		real_ioctl_fn = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
		if (!real_ioctl_fn) {
			fprintf(stderr, "nvme-shim: no ioctl: %s\n", dlerror());
			abort();
		}
	}
	return real_ioctl_fn(fd, req, arg);
}

static const char *conf_path(void)
{
	const char *p = getenv("NVMOND_SHIM_CONF");

	return p && *p ? p : "/tmp/nvme-shim.conf";
}

static void trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\t' || s[n - 1] == 0))
		s[--n] = 0;
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	memmove(s, s + i, n - i + 1);
}

static struct shim_ctrl *ctrl_get(const char *serial, bool add)
{
	for (int i = 0; i < nctrls; i++)
		if (strcmp(ctrls[i].serial, serial) == 0)
			return &ctrls[i];
	if (!add || nctrls == SHIM_MAX_CTRL)
		return NULL;
	struct shim_ctrl *c = &ctrls[nctrls++];
	*c = (struct shim_ctrl){
		.composite_k = -1,
		.poh = -1,
		.media_errors = -1,
		.elpe = -1,
		.short_s = 10,
		.extended_s = 60,
		.st_lba = -1,
		.pel = -1,
		.npss = -1,
		.ps = -1,
		.apst = -1,
		.hctm_t1 = -1,
		.hctm_t2 = -1,
	};
	for (int i = 0; i < NUM_SENSORS; i++)
		c->sensor_k[i] = -1;
	snprintf(c->serial, sizeof(c->serial), "%s", serial);
	return c;
}

/* Numbers: decimal or 0x hex; the list separated by commas. */
static int parse_list(const char *v, unsigned long long *out, int max)
{
	int n = 0;
	char *end;

	while (n < max) {
		errno = 0;
		out[n] = strtoull(v, &end, 0);
		if (end == v || errno)
			return -1;
		n++;
		if (*end == 0)
			return n;
		if (*end != ',')
			return -1;
		v = end + 1;
	}
	return -1;
}

static bool apply(struct shim_ctrl *c, const char *key, const char *val)
{
	unsigned long long a[6];
	int n = parse_list(val, a, 6);

	if (strcmp(key, "composite") == 0 && n == 1) {
		c->composite_k = (int)a[0];
	} else if (strncmp(key, "sensor", 6) == 0 && key[6] >= '1' && key[6] <= '8' &&
		   key[7] == 0 && n == 1) {
		c->sensor_k[key[6] - '1'] = (int)a[0];
	} else if (strcmp(key, "media_errors") == 0 && n == 1) {
		c->media_errors = (long long)a[0];
	} else if (strcmp(key, "poh") == 0 && n == 1) {
		c->poh = (long long)a[0];
	} else if (strcmp(key, "elpe") == 0 && n == 1 && a[0] < 256) {
		c->elpe = (int)a[0];
	} else if (strcmp(key, "error") == 0 && n == 6) {
		if (c->nerr == SHIM_MAX_ERR)
			return false;
		c->err[c->nerr++] = (struct shim_err){
			.count = a[0],
			.sqid = (uint16_t)a[1],
			.sct = (uint8_t)(a[2] & 7),
			.sc = (uint8_t)a[3],
			.lba = a[4],
			.nsid = (uint32_t)a[5],
		};
	} else if (strcmp(key, "fr") == 0 && val[0] && strlen(val) <= 8) {
		snprintf(c->fr, sizeof(c->fr), "%s", val);
	} else if (strcmp(key, "selftest") == 0) {
		c->selftest = strcmp(val, "yes") == 0 || strcmp(val, "1") == 0;
	} else if (strcmp(key, "selftest_short_s") == 0 && n == 1 && a[0] > 0) {
		c->short_s = (int)a[0];
	} else if (strcmp(key, "selftest_extended_s") == 0 && n == 1 && a[0] > 0) {
		c->extended_s = (int)a[0];
	} else if (strcmp(key, "hang") == 0 && val[0] == '/' && strlen(val) < sizeof(c->hang)) {
		snprintf(c->hang, sizeof(c->hang), "%s", val);
	} else if (strcmp(key, "selftest_result") == 0 && (n == 1 || n == 3) && a[0] < 16) {
		c->st_result = (int)a[0];
		c->st_seg = n == 3 ? (int)a[1] : 0;
		c->st_lba = n == 3 ? (long long)a[2] : -1;
	} else if (strcmp(key, "ocp") == 0 && (!strcmp(val, "ocp") || !strcmp(val, "other"))) {
		c->ocp = strcmp(val, "ocp") == 0 ? 1 : 2;
	} else if (strcmp(key, "pel") == 0 && n == 1 && a[0] <= PEL_KINDS) {
		c->pel = (int)a[0];
	} else if (strcmp(key, "pel_t0") == 0 && n == 1) {
		c->pel_t0 = (long long)a[0];
	} else if (strcmp(key, "pel_t1") == 0 && n == 1) {
		c->pel_t1 = (long long)a[0];
	} else if (strcmp(key, "pel_from") == 0 && n == 1 && a[0] <= PEL_KINDS) {
		c->pel_from = (int)a[0];
	} else if (strcmp(key, "pel_split") == 0 && n == 1 && a[0] <= PEL_KINDS) {
		c->pel_split = (int)a[0];
	} else if (strcmp(key, "npss") == 0 && n == 1 && a[0] < 32) {
		c->npss = (int)a[0];
	} else if (strcmp(key, "ps") == 0 && n == 1 && a[0] < 32) {
		c->ps = (int)a[0];
	} else if (strcmp(key, "apst") == 0 && (!strcmp(val, "on") || !strcmp(val, "off"))) {
		c->apst = strcmp(val, "on") == 0;
	} else if (strcmp(key, "hctm") == 0 && n == 2 && a[0] < 65536 && a[1] < 65536) {
		c->hctm_t1 = (int)a[0];
		c->hctm_t2 = (int)a[1];
	} else {
		return false;
	}
	return true;
}

/* Re-read the file when it changed (or went away). Called with the lock held. */
static void conf_refresh(void)
{
	const char *path = conf_path();
	struct stat st;
	char line[1024];
	int lineno = 0;

	if (stat(path, &st) < 0) {
		nctrls = 0;
		conf_st.st_ino = 0;
		return;
	}
	if (st.st_ino == conf_st.st_ino && st.st_dev == conf_st.st_dev &&
	    st.st_size == conf_st.st_size && st.st_mtim.tv_sec == conf_st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == conf_st.st_mtim.tv_nsec)
		return;
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	conf_st = st;
	nctrls = 0;
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok, *hash = strchr(line, '#');
		struct shim_ctrl *c = NULL;

		lineno++;
		if (hash)
			*hash = 0;
		for (tok = strtok_r(line, " \t\r\n", &save); tok;
		     tok = strtok_r(NULL, " \t\r\n", &save)) {
			char *eq = strchr(tok, '=');

			if (!c) {
				if (!(c = ctrl_get(tok, true))) {
					fprintf(stderr, "nvme-shim: %s:%d: too many controllers\n",
						path, lineno);
					break;
				}
				continue;
			}
			if (eq)
				*eq = 0;
			if (!eq || !apply(c, tok, eq + 1))
				fprintf(stderr, "nvme-shim: %s:%d: ignored %s%s%s\n", path, lineno,
					tok, eq ? "=" : "", eq ? eq + 1 : "");
		}
	}
	fclose(f);
}

/* --- which controller ---------------------------------------------------- */

static bool read_serial(const char *path, char serial[SHIM_SERIAL])
{
	char buf[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	trim(buf);
	if (strlen(buf) >= SHIM_SERIAL) /* SN is 20 bytes */
		return false;
	memcpy(serial, buf, strlen(buf) + 1);
	return serial[0] != 0;
}

/* The serial of the controller behind @fd. Return: false when unknown. */
static bool fd_serial(int fd, char serial[SHIM_SERIAL])
{
	struct stat st;
	char path[128];

	if (fstat(fd, &st) < 0)
		return false;
	if (S_ISCHR(st.st_mode)) {
		/* /dev/nvmeX: the controller itself */
		snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/serial", major(st.st_rdev),
			 minor(st.st_rdev));
		if (read_serial(path, serial))
			return true;
	} else if (S_ISBLK(st.st_mode)) {
		/* a namespace: its controller, or its subsystem with native multipath */
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/device/serial",
			 major(st.st_rdev), minor(st.st_rdev));
		if (read_serial(path, serial))
			return true;
	} else {
		return false;
	}
	pthread_mutex_lock(&lock);
	for (int i = 0; i < nidcache; i++)
		if (idcache[i].dev == st.st_rdev) {
			snprintf(serial, SHIM_SERIAL, "%s", idcache[i].serial);
			pthread_mutex_unlock(&lock);
			return true;
		}
	pthread_mutex_unlock(&lock);

	/* Ask the controller: Identify Controller, SN in bytes 23:04. */
	static __thread uint8_t id[4096];
	struct nvme_passthru_cmd cmd = {
		.opcode = OPC_IDENTIFY,
		.addr = (uint64_t)(uintptr_t)id,
		.data_len = sizeof(id),
		.cdw10 = 1,
	};
	if (real_ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd) != 0)
		return false;
	memcpy(serial, id + 4, 20);
	serial[20] = 0;
	trim(serial);
	pthread_mutex_lock(&lock);
	if (nidcache < (int)(sizeof(idcache) / sizeof(idcache[0]))) {
		idcache[nidcache].dev = st.st_rdev;
		snprintf(idcache[nidcache].serial, SHIM_SERIAL, "%s", serial);
		nidcache++;
	}
	pthread_mutex_unlock(&lock);
	return serial[0] != 0;
}

/* --- rewriting answers --------------------------------------------------- */

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Write @n bytes of the page at @off into the part of it the host asked for
 * (@len bytes from page offset @lpo). */
static void patch(uint8_t *buf, size_t len, uint64_t lpo, size_t off, const uint8_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t at = off + i;
		if (at >= lpo && at - lpo < len)
			buf[at - lpo] = src[i];
	}
}

static void patch_le(uint8_t *buf, size_t len, uint64_t lpo, size_t off, uint64_t v, size_t n)
{
	uint8_t b[16] = {0};

	put_le(b, v, n > 8 ? 8 : (int)n);
	patch(buf, len, lpo, off, b, n);
}

static uint64_t max_count(const struct shim_ctrl *c)
{
	uint64_t m = 0;

	for (int i = 0; i < c->nerr; i++)
		if (c->err[i].count > m)
			m = c->err[i].count;
	return m;
}

static void smart_patch(const struct shim_ctrl *c, uint8_t *buf, size_t len, uint64_t lpo)
{
	if (c->composite_k >= 0)
		patch_le(buf, len, lpo, 1, (uint64_t)c->composite_k, 2);
	for (int i = 0; i < NUM_SENSORS; i++)
		if (c->sensor_k[i] >= 0)
			patch_le(buf, len, lpo, 200 + 2 * i, (uint64_t)c->sensor_k[i], 2);
	if (c->poh >= 0)
		patch_le(buf, len, lpo, 128, (uint64_t)c->poh, 16);
	if (c->media_errors >= 0) /* Media and Data Integrity Errors, bytes 175:160 */
		patch_le(buf, len, lpo, 160, (uint64_t)c->media_errors, 16);
	if (c->nerr > 0) {
		uint64_t real = 0, n;
		if (lpo <= 176 && 176 + 8 - lpo <= len)
			real = get_le(buf + 176 - lpo, 8);
		n = real + (uint64_t)c->nerr;
		if (max_count(c) > n)
			n = max_count(c);
		patch_le(buf, len, lpo, 176, n, 16);
	}
}

static int cmp_err_desc(const void *a, const void *b)
{
	const struct shim_err *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static void errlog_answer(const struct shim_ctrl *c, uint8_t *buf, size_t len, uint64_t lpo)
{
	size_t total = lpo + len;
	uint8_t *page = calloc(1, total);
	struct shim_err e[SHIM_MAX_ERR];
	size_t at = 0;

	if (!page)
		return;
	memcpy(e, c->err, sizeof(e[0]) * (size_t)c->nerr);
	qsort(e, (size_t)c->nerr, sizeof(e[0]), cmp_err_desc);
	for (int i = 0; i < c->nerr && at + ERR_ENTRY_SIZE <= total; i++, at += ERR_ENTRY_SIZE) {
		uint8_t *p = page + at;
		uint16_t st = (uint16_t)(e[i].sc << 1 | e[i].sct << 9 | 1u << 15); /* DNR */

		put_le(p + 0, e[i].count, 8);
		put_le(p + 8, e[i].sqid, 2);
		put_le(p + 10, e[i].count & 0xffff, 2); /* CID */
		put_le(p + 12, st, 2);
		put_le(p + 16, e[i].lba, 8);
		put_le(p + 24, e[i].nsid, 4);
	}
	/* The controller's own entries after them (offsets other than 0: not merged). */
	if (lpo == 0)
		for (size_t off = 0; off + ERR_ENTRY_SIZE <= len; off += ERR_ENTRY_SIZE)
			if (get_le(buf + off, 8) != 0 && at + ERR_ENTRY_SIZE <= total) {
				memmove(page + at, buf + off, ERR_ENTRY_SIZE);
				at += ERR_ENTRY_SIZE;
			}
	memcpy(buf, page + lpo, len);
	free(page);
}

static void identify_patch(const struct shim_ctrl *c, uint8_t *buf, size_t len)
{
	if (len < 4096)
		return;
	if (c->selftest) {
		buf[256] |= 1u << 4; /* OACS: Device Self-test supported */
		put_le(buf + 316, (uint64_t)((c->extended_s + 59) / 60), 2); /* EDSTT, minutes */
	}
	if (c->elpe >= 0)
		buf[262] = (uint8_t)c->elpe;
	if (c->fr[0]) { /* FR, bytes 64..71, blank-padded ASCII */
		memset(buf + 64, ' ', 8);
		memcpy(buf + 64, c->fr, strlen(c->fr));
	}
}

/* --- device self-test: state shared through "<conf>.state" ---------------- */

struct st_result {
	uint8_t stc, result, seg, vdi, sct, sc;
	uint64_t poh, lba;
	uint32_t nsid;
};

struct st_state {
	bool running;
	uint8_t stc;
	long long start_ms;
	uint32_t nsid;
	struct st_result res[ST_MAX_RESULTS]; /* newest first */
	int nres;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Lines: "SERIAL run STC START_MS NSID" and, oldest first,
 * "SERIAL res STC RESULT SEG VDI SCT SC POH LBA NSID". */
static void st_load(FILE *f, const char *serial, struct st_state *s)
{
	char line[512], ser[SHIM_SERIAL + 8], kind[8];

	*s = (struct st_state){0};
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned a[6];
		unsigned long long b[3];

		if (sscanf(line, "%28s %7s", ser, kind) != 2 || strcmp(ser, serial) != 0)
			continue;
		if (strcmp(kind, "run") == 0 &&
		    sscanf(line, "%*s %*s %u %llu %u", &a[0], &b[0], &a[1]) == 3) {
			s->running = true;
			s->stc = (uint8_t)a[0];
			s->start_ms = (long long)b[0];
			s->nsid = a[1];
		} else if (strcmp(kind, "res") == 0 &&
			   sscanf(line, "%*s %*s %u %u %u %u %u %u %llu %llu %llu", &a[0], &a[1],
				  &a[2], &a[3], &a[4], &a[5], &b[0], &b[1], &b[2]) == 9) {
			if (s->nres == ST_MAX_RESULTS)
				s->nres--;
			memmove(&s->res[1], &s->res[0], sizeof(s->res[0]) * (size_t)s->nres);
			s->res[0] = (struct st_result){
				.stc = (uint8_t)a[0],
				.result = (uint8_t)a[1],
				.seg = (uint8_t)a[2],
				.vdi = (uint8_t)a[3],
				.sct = (uint8_t)a[4],
				.sc = (uint8_t)a[5],
				.poh = b[0],
				.lba = b[1],
				.nsid = (uint32_t)b[2],
			};
			s->nres++;
		}
	}
}

/* Rewrite the file: other controllers' lines as they were, then this one's. */
static void st_save(FILE *f, const char *serial, const struct st_state *s)
{
	char *keep = NULL, line[512], ser[SHIM_SERIAL + 8];
	size_t keep_len = 0;
	FILE *m = open_memstream(&keep, &keep_len);

	if (!m)
		return;
	rewind(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%28s", ser) != 1 || strcmp(ser, serial) != 0)
			fputs(line, m);
	fclose(m);
	rewind(f);
	if (ftruncate(fileno(f), 0) < 0)
		fprintf(stderr, "nvme-shim: cannot truncate the state file: %s\n", strerror(errno));
	fwrite(keep, 1, keep_len, f);
	free(keep);
	for (int i = s->nres - 1; i >= 0; i--) {
		const struct st_result *r = &s->res[i];
		fprintf(f, "%s res %u %u %u %u %u %u %llu %llu %u\n", serial, r->stc, r->result,
			r->seg, r->vdi, r->sct, r->sc, (unsigned long long)r->poh,
			(unsigned long long)r->lba, r->nsid);
	}
	if (s->running)
		fprintf(f, "%s run %u %lld %u\n", serial, s->stc, s->start_ms, s->nsid);
	fflush(f);
}

static void st_push(struct st_state *s, const struct st_result *r)
{
	if (s->nres == ST_MAX_RESULTS)
		s->nres--;
	memmove(&s->res[1], &s->res[0], sizeof(s->res[0]) * (size_t)s->nres);
	s->res[0] = *r;
	s->nres++;
}

static int st_duration_ms(const struct shim_ctrl *c, uint8_t stc)
{
	return (stc == 2 ? c->extended_s : c->short_s) * 1000;
}

/* A running test whose time is up completes with the configured result. */
static void st_advance(const struct shim_ctrl *c, struct st_state *s, long long now)
{
	if (!s->running || now - s->start_ms < st_duration_ms(c, s->stc))
		return;
	struct st_result r = {
		.stc = s->stc,
		.result = (uint8_t)c->st_result,
		.seg = (uint8_t)c->st_seg,
		.poh = c->poh >= 0 ? (uint64_t)c->poh : 0,
	};
	if (c->st_lba >= 0) {
		/* NSID, FLBA, SCT and SC valid: an unrecovered read at that LBA */
		r.vdi = 0xf;
		r.nsid = s->nsid == 0 || s->nsid == 0xffffffffu ? 1 : s->nsid;
		r.lba = (uint64_t)c->st_lba;
		r.sct = 0x2;
		r.sc = 0x81;
	}
	st_push(s, &r);
	s->running = false;
}

static FILE *st_open(void)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s.state", conf_path());
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0) {
		fprintf(stderr, "nvme-shim: cannot open %s: %s\n", path, strerror(errno));
		return NULL;
	}
	flock(fd, LOCK_EX);
	FILE *f = fdopen(fd, "r+");
	if (!f)
		close(fd);
	return f;
}

static void st_close(FILE *f)
{
	flock(fileno(f), LOCK_UN);
	fclose(f);
}

/* Device Self-test (14h). Return: 0, or the NVMe status as the ioctl gives it. */
static int st_command(const struct shim_ctrl *c, uint8_t stc, uint32_t nsid)
{
	struct st_state s;
	long long now = now_ms();
	FILE *f = st_open();
	int rc = 0;

	if (!f)
		return -1;
	st_load(f, c->serial, &s);
	st_advance(c, &s, now);
	if (stc == 1 || stc == 2) {
		if (s.running) {
			rc = STATUS_DNR | SC_ST_IN_PROG;
		} else {
			s.running = true;
			s.stc = stc;
			s.start_ms = now;
			s.nsid = nsid;
		}
	} else if (stc == 0xf) {
		if (s.running) {
			struct st_result r = {.stc = s.stc,
					      .result = 1}; /* aborted by a DST command */
			r.poh = c->poh >= 0 ? (uint64_t)c->poh : 0;
			st_push(&s, &r);
			s.running = false;
		}
	} else {
		rc = STATUS_DNR | SC_INVALID_FIELD;
	}
	st_save(f, c->serial, &s);
	st_close(f);
	return rc;
}

static int st_log(const struct shim_ctrl *c, uint8_t *buf, size_t len, uint64_t lpo)
{
	uint8_t page[ST_LOG_SIZE] = {0};
	struct st_state s;
	long long now = now_ms();
	FILE *f = st_open();

	if (!f)
		return -1;
	st_load(f, c->serial, &s);
	st_advance(c, &s, now);
	st_save(f, c->serial, &s);
	st_close(f);
	if (s.running) {
		long long pct = (now - s.start_ms) * 100 / st_duration_ms(c, s.stc);
		page[0] = s.stc;
		page[1] = (uint8_t)(pct > 99 ? 99 : pct);
	}
	for (int i = 0; i < ST_MAX_RESULTS; i++) {
		uint8_t *p = page + 4 + 28 * i;
		if (i >= s.nres) {
			p[0] = 0xf; /* entry not used */
			continue;
		}
		const struct st_result *r = &s.res[i];
		p[0] = (uint8_t)(r->stc << 4 | (r->result & 0xf));
		p[1] = r->seg;
		p[2] = r->vdi;
		put_le(p + 4, r->poh, 8);
		put_le(p + 12, r->nsid, 4);
		put_le(p + 16, r->lba, 8);
		p[24] = r->sct;
		p[25] = r->sc;
	}
	memset(buf, 0, len);
	if (lpo < ST_LOG_SIZE)
		memcpy(buf, page + lpo, len < ST_LOG_SIZE - lpo ? len : ST_LOG_SIZE - lpo);
	return 0;
}

/* --- the status log -------------------------------------------------------- */

/* The process name, for the status log (nvmond and nvme-cli may share one). */
static void comm_name(char *buf, size_t len)
{
	int fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		snprintf(buf, len, "?");
		return;
	}
	buf[n] = 0;
	trim(buf);
}

/* One line per failed admin command, appended in one write(2) (O_APPEND). */
static void status_log(const struct nvme_passthru_cmd *cmd, int rc, int err)
{
	const char *path = getenv("NVMOND_SHIM_STATUS_LOG");
	char line[256], comm[32];
	int n;

	if (!path || !*path || rc == 0)
		return;
	comm_name(comm, sizeof(comm));
	n = snprintf(line, sizeof(line),
		     "comm=%s pid=%d opcode=0x%02x nsid=0x%x cdw10=0x%x cdw11=0x%x ", comm,
		     (int)getpid(), cmd->opcode, cmd->nsid, cmd->cdw10, cmd->cdw11);
	if (rc > 0)
		n += snprintf(line + n, sizeof(line) - (size_t)n, "status=0x%x\n", (unsigned)rc);
	else
		n += snprintf(line + n, sizeof(line) - (size_t)n, "errno=%d\n", err);
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) != n)
		fprintf(stderr, "nvme-shim: cannot write %s: %s\n", path, strerror(errno));
	close(fd);
}

/* --- drive logs (issue 27): C0h, the Persistent Event Log, power, APST, HCTM -- */

/*
 * Built here byte by byte from the specifications, apart from nvmond's own
 * encoders (daemon/decode/ocp.c, pel.c, power.c), so the VM test compares two
 * readings of the spec, and nvme-cli a third.
 */

/* OCP Datacenter NVMe SSD Specification 2.0, log C0h, bytes 511:496. */
static const uint8_t ocp_guid[16] = {0xC5, 0xAF, 0x10, 0x28, 0xEA, 0xBF, 0xF2, 0xA4,
				     0x9C, 0x4F, 0x6F, 0x7C, 0xC9, 0x14, 0xD5, 0xAF};

/*
 * The C0h page: the values VM tests expect (drive_logs.guest.sh). Physical
 * media units written is 2^64 + 305418240 bytes: past 64 bits on purpose.
 */
static void ocp_page(const struct shim_ctrl *c, uint8_t p[512])
{
	memset(p, 0, 512);
	put_le(p + 0, 0x12345000, 8);	      /* 15:0 Physical Media Units Written, low */
	put_le(p + 8, 1, 8);		      /*      ... high: 2^64 */
	put_le(p + 16, 0x987654321000ull, 8); /* 31:16 Physical Media Units Read */
	put_le(p + 32, 29, 6);		      /* 37:32 Bad User NAND Blocks, raw */
	put_le(p + 38, 98, 2);		      /* 39:38 ... normalized */
	put_le(p + 40, 1, 6);		      /* 45:40 Bad System NAND Blocks, raw */
	put_le(p + 46, 100, 2);		      /* 47:46 ... normalized */
	put_le(p + 48, 51, 8);		      /* 55:48 XOR Recovery Count */
	put_le(p + 56, 7, 8);		      /* 63:56 Uncorrectable Read Error Count */
	put_le(p + 64, 1234, 8);	      /* 71:64 Soft ECC Error Count */
	put_le(p + 72, 3, 4);		      /* 75:72 End to End Correction: detected */
	put_le(p + 76, 2, 4);		      /* 79:76 ... corrected */
	p[80] = 4;			      /* System Data % Used */
	put_le(p + 81, 5, 7);		      /* 87:81 Refresh Counts */
	put_le(p + 88, 1500, 4);	      /* 91:88 Maximum User Data Erase Count */
	put_le(p + 92, 1200, 4);	      /* 95:92 Minimum User Data Erase Count */
	p[96] = 12;			      /* Number of Thermal Throttling Events */
	p[97] = 0;			      /* Current Throttling Status */
	p[103] = 2;			      /* 103:98 Specification Version: 2.0.0.0 */
	put_le(p + 104, 355, 8);	      /* 111:104 PCIe Correctable Error Count */
	put_le(p + 112, 9, 4);		      /* 115:112 Incomplete Shutdowns */
	p[120] = 87;			      /* % Free Blocks */
	put_le(p + 128, 100, 2);	      /* 129:128 Capacitor Health */
	put_le(p + 494, 3, 2);		      /* 495:494 Log Page Version */
	if (c->ocp == 1) {
		memcpy(p + 496, ocp_guid, 16);
	} else { /* another vendor's page at C0h */
		for (int i = 0; i < 16; i++)
			p[496 + i] = (uint8_t)(0x11 * (i + 1));
	}
}

/* The event types of the log, in order (NVMe Base 2.0, Persistent Event Log Event Types). */
static const uint8_t pel_kinds[PEL_KINDS] = {
	0x04, /* Power-on or Reset */
	0x01, /* SMART / Health Log Snapshot */
	0x02, /* Firmware Commit */
	0x03, /* Timestamp Change */
	0x0D, /* Thermal Excursion */
	0x05, /* NVM Subsystem Hardware Error */
	0x06, /* Change Namespace */
	0x07, /* Format NVM Start */
	0x08, /* Format NVM Completion */
	0x09, /* Sanitize Start */
	0x0A, /* Sanitize Completion */
	0x0B, /* Set Feature */
	0x0C, /* Telemetry Log Create */
	0xDE, /* Vendor Specific */
	0x20, /* reserved: a kind nvmond does not know */
	0xDF, /* TCG Defined */
	0x0D, /* Thermal Excursion, again */
};

/* A Timestamp (feature 0Eh layout): ms in 47:0, Timestamp Origin 1h (set by a host) in 51:49. */
static uint64_t pel_ts(long long ms)
{
	return ((uint64_t)ms & 0xFFFFFFFFFFFFull) | 1ull << 49;
}

/* Event data of event @i into @d (room for 512 bytes). Return: its length. */
static size_t pel_data(int i, uint8_t type, long long ms, uint8_t *d)
{
	memset(d, 0, 512);
	switch (type) {
	case 0x04: /* 7:0 Firmware Revision, then one Controller Reset Information (36 bytes) */
		memcpy(d, "7.2.22  ", 8);
		put_le(d + 8 + 0, 0, 2);	   /* CNTLID */
		d[8 + 2] = 0;			   /* Firmware Activation */
		d[8 + 3] = 0;			   /* Operation in Progress */
		put_le(d + 8 + 16, 42, 4);	   /* Controller Power Cycle */
		put_le(d + 8 + 20, 123456789, 8);  /* Power on milliseconds */
		put_le(d + 8 + 28, pel_ts(ms), 8); /* Controller Timestamp */
		return 8 + 36;
	case 0x01:			  /* the SMART / Health log (02h) as it was */
		d[0] = 0;		  /* Critical Warning */
		put_le(d + 1, 310, 2);	  /* Composite Temperature, K */
		d[3] = 100;		  /* Available Spare */
		d[4] = 10;		  /* Available Spare Threshold */
		d[5] = 3;		  /* Percentage Used */
		put_le(d + 128, 1400, 8); /* Power On Hours */
		put_le(d + 160, 2, 8);	  /* Media and Data Integrity Errors */
		return 512;
	case 0x02: /* old FR, new FR, action, slot, SCT, SC, vendor result code */
		memcpy(d, "1.0     ", 8);
		memcpy(d + 8, "1.1     ", 8);
		d[16] = 1;
		d[17] = 2;
		return 22;
	case 0x03: /* 7:0 Previous Timestamp, 15:8 Milliseconds Since Reset */
		put_le(d, pel_ts(ms - 60000), 8);
		put_le(d + 8, 5000, 8);
		return 16;
	case 0x0D: /* Over Temperature, Threshold */
		d[0] = i < 10 ? 3 : 5;
		d[1] = i < 10 ? 73 : 75;
		return 2;
	case 0x05: /* 1:0 NVM Subsystem Hardware Error Event Code, 3:2 reserved, additional */
		put_le(d, 0x0003, 2);
		put_le(d + 4, 0xCAFE, 4);
		return 8;
	case 0x06: /* Change Namespace: CDW10, NSZE, NCAP, FLBAS, DPS, NMIC, ANAGRPID, NVMSETID, NSID */
		put_le(d + 0, 0, 4);
		put_le(d + 8, 524288, 8);
		put_le(d + 24, 524288, 8);
		put_le(d + 44, 2, 4);
		return 48;
	case 0x07: /* NSID, FNA, 7:5 reserved, Format NVM CDW10 */
		put_le(d, 1, 4);
		put_le(d + 8, 0x0, 4);
		return 12;
	case 0x08: /* NSID, Smallest Format Progress Indicator, Status, Completion Info, Status Field */
		put_le(d, 1, 4);
		d[4] = 100;
		d[5] = 1;
		return 12;
	case 0x09: /* SANICAP, Sanitize CDW10, CDW11 */
		put_le(d, 0x7, 4);
		put_le(d + 4, 2, 4); /* block erase */
		return 12;
	case 0x0A: /* SPROG, SSTAT, Completion Info, reserved */
		put_le(d, 0xFFFF, 2);
		put_le(d + 2, 0x0101, 2);
		return 8;
	case 0x0B: /* Set Feature Event Layout (2 dwords logged), then CDW10, CDW11 */
		put_le(d, 2, 4);
		put_le(d + 4, 0x0C, 4); /* FID 0Ch: APST */
		put_le(d + 8, 1, 4);
		return 12;
	case 0x0C: /* the Telemetry Host-Initiated log's header */
		d[0] = 0x07;
		return 512;
	default: /* vendor, TCG and unknown kinds: 4 bytes */
		put_le(d, 0x04030201, 4);
		return 4;
	}
}

/*
 * The whole Persistent Event Log (NVMe Base 2.0 §5.16.1.14): the 512-byte
 * header, then @c->pel events, each a 24-byte event header (EHL 21), no
 * vendor specific information, and its data. Return: malloc'd, *@len bytes.
 */
static uint8_t *pel_build(const struct shim_ctrl *c, size_t *len)
{
	size_t cap = 512 + (size_t)PEL_KINDS * (24 + 512), n = 512;
	uint8_t *p = calloc(1, cap), d[512];

	if (!p)
		return NULL;
	for (int i = c->pel_from; i < c->pel; i++) {
		uint8_t type = pel_kinds[i];
		long long ms = i < c->pel_split || !c->pel_t1
				       ? c->pel_t0 + i * 1000LL
				       : c->pel_t1 + (i - c->pel_split) * 1000LL;
		size_t dl = pel_data(i, type, ms, d);
		uint8_t *e = p + n;
		e[0] = type;		      /* Event Type */
		e[1] = 0;		      /* Event Type Revision */
		e[2] = 21;		      /* Event Header Length: bytes after this field */
		e[3] = 0;		      /* Event Header Additional Info */
		put_le(e + 4, 0, 2);	      /* Controller Identifier */
		put_le(e + 6, pel_ts(ms), 8); /* Event Timestamp */
		put_le(e + 14, 0, 2);	      /* Port Identifier */
		put_le(e + 20, 0, 2);	      /* Vendor Specific Information Length */
		put_le(e + 22, dl, 2);	      /* Event Length: VSI + event data */
		memcpy(e + 24, d, dl);
		n += 24 + dl;
	}
	p[0] = 0x0D; /* Log Identifier */
	put_le(p + 4, (uint64_t)(c->pel > c->pel_from ? c->pel - c->pel_from : 0), 4); /* TNEV */
	put_le(p + 8, n, 8);		     /* Total Log Length */
	p[16] = 0;			     /* Log Revision */
	put_le(p + 18, 512, 2);		     /* Log Header Length */
	put_le(p + 20, pel_ts(now_ms()), 8); /* Timestamp */
	put_le(p + 28, 1400, 8);	     /* Power on Hours (16 bytes) */
	put_le(p + 44, 42, 8);		     /* Power Cycle Count */
	put_le(p + 52, 0x1b36, 2);	     /* PCI Vendor ID */
	put_le(p + 54, 0x1af4, 2);	     /* PCI Subsystem Vendor ID */
	memset(p + 56, ' ', 20 + 40);	     /* Serial Number, Model Number */
	memcpy(p + 56, c->serial, strlen(c->serial));
	memcpy(p + 76, "QEMU NVMe Ctrl", 14);
	put_le(p + 372, 1, 2);		   /* Generation Number */
	for (int t = 0x01; t <= 0x0D; t++) /* Supported Events Bitmap */
		p[480 + t / 8] |= (uint8_t)(1u << (t % 8));
	p[480 + 0xDE / 8] |= 1u << (0xDE % 8);
	p[480 + 0xDF / 8] |= 1u << (0xDF % 8);
	*len = n;
	return p;
}

/* The reporting context, controller-wide: a file per serial next to the configuration. */
static void pel_ctx_path(const struct shim_ctrl *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s.pelctx-%s", conf_path(), c->serial);
}

/* $NVMOND_SHIM_CMD_LOG: one line per drive-log command the shim answers. */
static void cmd_log(const struct shim_ctrl *c, const char *fmt, ...)
{
	const char *path = getenv("NVMOND_SHIM_CMD_LOG");
	char line[256], comm[32];
	va_list ap;
	int n;

	if (!path || !*path)
		return;
	comm_name(comm, sizeof(comm));
	n = snprintf(line, sizeof(line), "serial=%s comm=%s pid=%d ", c->serial, comm,
		     (int)getpid());
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) != n)
		fprintf(stderr, "nvme-shim: cannot write %s: %s\n", path, strerror(errno));
	close(fd);
}

/*
 * Get Log Page 0Dh: LSP 1h establishes a context (a Command Sequence Error
 * when one exists: the holder must release it first) and returns the header;
 * 0h reads at the offset inside a context (none: Command Sequence Error); 2h
 * releases. Return: 0 or the status.
 */
static int pel_answer(const struct shim_ctrl *c, uint32_t cdw10, uint8_t *buf, size_t len,
		      uint64_t lpo)
{
	unsigned lsp = (cdw10 >> 8) & 0x7f;
	char ctx[512];
	size_t n = 0;
	int rc = 0;

	pel_ctx_path(c, ctx, sizeof(ctx));
	bool have = access(ctx, F_OK) == 0;
	if (lpo & 3) { /* LPO is dword aligned: bits 1:0 of LPOL are 0 */
		rc = STATUS_DNR | SC_INVALID_FIELD;
	} else if (lsp == 1 && have) {
		rc = SC_CMD_SEQ_ERROR;
	} else if (lsp == 1) {
		int fd = open(ctx, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
		if (fd >= 0)
			close(fd);
	} else if (lsp == 0 && !have) {
		rc = SC_CMD_SEQ_ERROR;
	} else if (lsp == 2) {
		unlink(ctx);
	} else if (lsp > 2) {
		rc = STATUS_DNR | SC_INVALID_FIELD;
	}
	cmd_log(c, "lid=0x0d lsp=%u lpo=%llu len=%zu rc=0x%x", lsp, (unsigned long long)lpo, len,
		rc);
	if (rc || lsp == 2 || !buf)
		return rc;
	uint8_t *log = pel_build(c, &n);
	if (!log)
		return STATUS_DNR | SC_INTERNAL;
	memset(buf, 0, len);
	if (lpo < n)
		memcpy(buf, log + lpo, n - lpo < len ? n - lpo : len);
	free(log);
	return 0;
}

/* Identify Controller: LPA, NPSS, the power state descriptors, APSTA, HCTMA, MNTMT, MXTMT. */
static void identify_drive_patch(const struct shim_ctrl *c, uint8_t *buf)
{
	static const uint16_t mp_cw[] = {900, 600, 350, 7, 1};	  /* Maximum Power, 0.01 W */
	static const uint32_t enlat[] = {0, 50, 500, 2000, 5000}; /* µs */
	static const uint32_t exlat[] = {0, 100, 1000, 10000, 40000};

	if (c->pel >= 0)
		buf[261] |= 1u << 4; /* LPA bit 4: Persistent Event log */
	if (c->npss >= 0) {
		buf[263] = (uint8_t)c->npss; /* NPSS, 0's based */
		for (int i = 0; i < 32; i++) {
			uint8_t *d = buf + 2048 + 32 * i;
			memset(d, 0, 32);
			if (i > c->npss)
				continue;
			int k = i < 5 ? i : 4;
			put_le(d + 0, mp_cw[k], 2);  /* MP, MXPS 0: 0.01 W */
			d[3] = i >= 3 ? 1u << 1 : 0; /* NOPS */
			put_le(d + 4, enlat[k], 4);  /* ENLAT */
			put_le(d + 8, exlat[k], 4);  /* EXLAT */
			d[12] = d[13] = d[14] = d[15] =
				(uint8_t)(i >= 3 ? 0 : i); /* RRT RRL RWT RWL */
		}
	}
	if (c->apst >= 0)
		buf[265] |= 1u << 0; /* APSTA */
	if (c->hctm_t1 >= 0) {
		put_le(buf + 322, 1, 2);   /* HCTMA */
		put_le(buf + 324, 313, 2); /* MNTMT, K */
		put_le(buf + 326, 363, 2); /* MXTMT, K */
	}
}

/*
 * Get Features 02h, 0Ch and 10h where the configuration says. Return: 1 when
 * the shim answered (*@dw0 and @buf filled), 0 to pass it to the controller.
 */
static int feature_answer(const struct shim_ctrl *c, uint32_t cdw10, uint8_t *buf, size_t len,
			  uint32_t *dw0)
{
	uint8_t fid = cdw10 & 0xff;

	if (fid == 0x02 && c->ps >= 0) {
		*dw0 = (uint32_t)c->ps; /* 4:0 PS, 7:5 WH 0 */
	} else if (fid == 0x0C && c->apst >= 0) {
		*dw0 = (uint32_t)c->apst; /* bit 0 APSTE */
		if (buf && len) {
			uint8_t t[256] = {0};
			/* entries 0..2 go to state 3 after 100 ms idle, 3 to 4 after 2 s */
			for (int i = 0; i <= c->npss && i < 4; i++) {
				if (i < 3 && c->npss >= 3)
					put_le(t + 8 * i, 3u << 3 | 100u << 8, 4);
				else if (i == 3 && c->npss >= 4)
					put_le(t + 8 * i, 4u << 3 | 2000u << 8, 4);
			}
			memcpy(buf, t, len < sizeof(t) ? len : sizeof(t));
		}
	} else if (fid == 0x10 && c->hctm_t1 >= 0) {
		*dw0 = (uint32_t)c->hctm_t1 << 16 | (uint32_t)c->hctm_t2;
	} else {
		return 0;
	}
	cmd_log(c, "fid=0x%02x dw0=0x%x", fid, *dw0);
	return 1;
}

/* The controller's own answer to an admin command the caller sent, logged when it failed. */
static int real_admin(int fd, unsigned long req, void *arg)
{
	int rc = real_ioctl(fd, req, arg);
	int err = errno;

	if (arg)
		status_log(arg, rc, err);
	errno = err;
	return rc;
}

/* --- the interception ---------------------------------------------------- */

static void set_result(unsigned long req, void *arg, uint64_t v)
{
	if (req == NVME_IOCTL_ADMIN64_CMD)
		((struct nvme_passthru_cmd64 *)arg)->result = v;
	else
		((struct nvme_passthru_cmd *)arg)->result = (uint32_t)v;
}

/* hang=: hold the command while the file exists, as a hung controller would. */
static void hold(const struct shim_ctrl *c, uint8_t opcode)
{
	const struct timespec tick = {.tv_nsec = 50 * 1000 * 1000};
	char held[sizeof(c->hang) + 8];

	if (!c->hang[0] || access(c->hang, F_OK) != 0)
		return;
	snprintf(held, sizeof(held), "%s.held", c->hang);
	FILE *f = fopen(held, "ae");
	if (f) {
		fprintf(f, "opcode=0x%02x pid=%d tid=%d\n", opcode, (int)getpid(), (int)gettid());
		fclose(f);
	}
	while (access(c->hang, F_OK) == 0)
		nanosleep(&tick, NULL);
}

static int admin(int fd, unsigned long req, void *arg)
{
	/* Both layouts agree up to timeout_ms. */
	struct nvme_passthru_cmd *cmd = arg;
	char serial[SHIM_SERIAL];
	struct shim_ctrl c;
	bool found = false;

	if (!cmd)
		return real_admin(fd, req, arg);
	pthread_mutex_lock(&lock);
	conf_refresh();
	bool any = nctrls > 0;
	pthread_mutex_unlock(&lock);
	if (!any || !fd_serial(fd, serial))
		return real_admin(fd, req, arg);
	pthread_mutex_lock(&lock);
	struct shim_ctrl *p = ctrl_get(serial, false);
	if (p) {
		c = *p;
		found = true;
	}
	pthread_mutex_unlock(&lock);
	if (!found)
		return real_admin(fd, req, arg);

	uint8_t *buf = (uint8_t *)(uintptr_t)cmd->addr;
	size_t len = cmd->data_len;
	int rc;

	hold(&c, cmd->opcode);

	switch (cmd->opcode) {
	case OPC_GET_LOG: {
		uint8_t lid = cmd->cdw10 & 0xff;
		uint64_t numd = ((uint64_t)(cmd->cdw11 & 0xffff) << 16 | cmd->cdw10 >> 16) + 1;
		uint64_t lpo = (uint64_t)cmd->cdw13 << 32 | cmd->cdw12;

		if (numd * 4 < len)
			len = (size_t)(numd * 4);
		if (lid == 0xC0 && c.ocp) {
			uint8_t page[512];
			ocp_page(&c, page);
			cmd_log(&c, "lid=0xc0 lpo=%llu len=%zu", (unsigned long long)lpo, len);
			if (buf) {
				memset(buf, 0, len);
				if (lpo < sizeof(page))
					memcpy(buf, page + lpo,
					       sizeof(page) - lpo < len ? sizeof(page) - lpo : len);
			}
			set_result(req, arg, 0);
			return 0;
		}
		if (lid == 0x0D && c.pel >= 0) {
			rc = pel_answer(&c, cmd->cdw10, buf, len, lpo);
			if (rc == 0)
				set_result(req, arg, 0);
			return rc;
		}
		if (lid == 0x06 && c.selftest && buf) {
			rc = st_log(&c, buf, len, lpo);
			if (rc == 0)
				set_result(req, arg, 0);
			return rc;
		}
		rc = real_admin(fd, req, arg);
		if (rc != 0 || !buf)
			return rc;
		if (lid == 0x02)
			smart_patch(&c, buf, len, lpo);
		else if (lid == 0x01 && c.nerr > 0)
			errlog_answer(&c, buf, len, lpo);
		return rc;
	}
	case OPC_IDENTIFY:
		rc = real_admin(fd, req, arg);
		if (rc == 0 && buf && (cmd->cdw10 & 0xff) == 1) {
			identify_patch(&c, buf, len);
			if (len >= 4096)
				identify_drive_patch(&c, buf);
		}
		return rc;
	case OPC_GET_FEATURES: {
		uint32_t dw0 = 0;
		if (feature_answer(&c, cmd->cdw10, buf, len, &dw0)) {
			set_result(req, arg, dw0);
			return 0;
		}
		return real_admin(fd, req, arg);
	}
	case OPC_SELF_TEST:
		if (!c.selftest)
			return real_admin(fd, req, arg);
		rc = st_command(&c, cmd->cdw10 & 0xf, cmd->nsid);
		if (rc >= 0)
			set_result(req, arg, 0);
		return rc;
	default:
		return real_admin(fd, req, arg);
	}
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;

	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if (req == NVME_IOCTL_ADMIN_CMD || req == NVME_IOCTL_ADMIN64_CMD) {
		int saved = errno;
		int rc = admin(fd, req, arg);
		if (rc >= 0)
			errno = saved;
		return rc;
	}
	return real_ioctl(fd, req, arg);
}

/* libsystemd's, interposed (sd-daemon.h is not needed for the one prototype). */
int sd_notify(int unset_environment, const char *state);

int sd_notify(int unset_environment, const char *state)
{
	static int (*real)(int, const char *);
	const char *path = getenv("NVMOND_SHIM_NOTIFY_LOG");

	if (path && *path && state) {
		struct timespec ts;
		FILE *f = fopen(path, "ae");

		clock_gettime(CLOCK_BOOTTIME, &ts);
		if (f) {
			long long ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
			for (const char *p = state; *p;) {
				size_t n = strcspn(p, "\n");
				if (n)
					fprintf(f, "%lld %.*s\n", ms, (int)n, p);
				p += n + (p[n] == '\n');
			}
			fclose(f);
		}
	}
	if (!real)
		real = (int (*)(int, const char *))dlsym(RTLD_NEXT, "sd_notify");
	return real ? real(unset_environment, state) : 0;
}
