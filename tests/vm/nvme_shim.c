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
 * The real sd_notify then runs as usual (a no-op without $NOTIFY_SOCKET), so
 * a VM test without systemd sees the watchdog being fed (WATCHDOG_USEC set).
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
#define OPC_SELF_TEST	 0x14
#define STATUS_DNR	 0x4000 /* as the ioctl returns it: the status field >> 1 */
#define SC_INVALID_FIELD 0x002
#define SC_ST_IN_PROG	 0x11d /* SCT 1h, SC 1Dh */

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
	int elpe;		   /* -1 = as the controller says */
	char fr[9];		   /* Identify FR; "" = as the controller says */
	struct shim_err err[SHIM_MAX_ERR];
	int nerr;
	bool selftest;
	int short_s, extended_s;
	int st_result, st_seg;
	long long st_lba; /* -1 = none */
	char hang[128];	  /* hold every admin command while this file exists; "" = never */
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
		.elpe = -1,
		.short_s = 10,
		.extended_s = 60,
		.st_lba = -1,
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
		if (rc == 0 && buf && (cmd->cdw10 & 0xff) == 1)
			identify_patch(&c, buf, len);
		return rc;
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
