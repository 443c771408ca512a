/* SPDX-License-Identifier: MIT */
/*
 * Reading the configuration file: libinih does the INI syntax, a line reader and
 * an inspection of each line add what inih cannot report (line numbers, unknown
 * or empty sections, malformed and overlong lines), and every key = value goes
 * through cfg_apply() (cfg.c). The file applies all or nothing.
 */
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nvmond/core/cfg.h"
#include "nvmond/util/fperm.h"
#include "cfg_internal.h"
#include "cfg_keys.h"

/*
 * Parsing state. libinih (Debian, v55) does not pass line numbers to the handler and keeps
 * parsing after an error, so our reader counts lines (one reader call per line, exactly as
 * inih counts them) and the first error is recorded here with its line.
 */
/*
 * A bad value, held until the end of the file: a later line setting the same key
 * replaces it ("a key set twice: the last one wins", also over a bad value, as a
 * tool that appends its overrides to a file expects).
 */
struct cfg_pending {
	char section[64];
	char key[64];
	int line;
	char msg[CFG_ERR_MAX];
};

struct cfg_parse {
	FILE *f;
	const char *path;
	struct cfg *c;
	const struct cfg_check *checks;
	size_t n_checks;
	int line;	/* line most recently handed to inih */
	bool after_key; /* inih's "previous name" is set: indented lines continue it */
	int read_errno; /* fgets() failed */
	int err_line;	/* first error, 0 = none */
	char err[CFG_ERR_MAX];
	struct cfg_pending *pending; /* bad values not set again (yet) */
	size_t n_pending, cap_pending;
};

static __attribute__((format(printf, 2, 3))) void cfg_parse_fail(struct cfg_parse *p,
								 const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->err_line)
		return; /* keep the first one */
	p->err_line = p->line;
	n = snprintf(p->err, sizeof(p->err), "%s:%d: ", p->path, p->line);
	if (n < 0 || (size_t)n >= sizeof(p->err))
		return;
	va_start(ap, fmt);
	vsnprintf(p->err + n, sizeof(p->err) - (size_t)n, fmt, ap);
	va_end(ap);
}

/* The bad value held for [@section] @key, if any. */
static struct cfg_pending *cfg_pending_find(struct cfg_parse *p, const char *section,
					    const char *key)
{
	for (size_t i = 0; i < p->n_pending; i++)
		if (strcmp(p->pending[i].section, section) == 0 &&
		    strcmp(p->pending[i].key, key) == 0)
			return &p->pending[i];
	return NULL;
}

/* [@section] @key was set again, to a good value: its bad one before is gone. */
static void cfg_pending_drop(struct cfg_parse *p, const char *section, const char *key)
{
	struct cfg_pending *q = cfg_pending_find(p, section, key);

	if (q)
		*q = p->pending[--p->n_pending];
}

/* Hold the bad value of [@section] @key at the current line (or fail now, out of memory). */
static void cfg_pending_add(struct cfg_parse *p, const char *section, const char *key,
			    const char *msg)
{
	struct cfg_pending *q = cfg_pending_find(p, section, key);

	if (!q && (strlen(section) >= sizeof(q->section) || strlen(key) >= sizeof(q->key))) {
		cfg_parse_fail(p, "%s", msg);
		return;
	}
	if (!q) {
		if (p->n_pending == p->cap_pending) {
			size_t cap = p->cap_pending ? 2 * p->cap_pending : 8;
			struct cfg_pending *v = realloc(p->pending, cap * sizeof(*v));
			if (!v) {
				cfg_parse_fail(p, "%s", msg);
				return;
			}
			p->pending = v;
			p->cap_pending = cap;
		}
		q = &p->pending[p->n_pending++];
		snprintf(q->section, sizeof(q->section), "%s", section);
		snprintf(q->key, sizeof(q->key), "%s", key);
	}
	q->line = p->line;
	snprintf(q->msg, sizeof(q->msg), "%s", msg);
}

/* At the end of the file: the first bad value nothing replaced, unless an error came before. */
static void cfg_pending_report(struct cfg_parse *p)
{
	const struct cfg_pending *first = NULL;

	for (size_t i = 0; i < p->n_pending; i++)
		if (!first || p->pending[i].line < first->line)
			first = &p->pending[i];
	if (!first || (p->err_line && p->err_line < first->line))
		return;
	p->err_line = first->line;
	if (snprintf(p->err, sizeof(p->err), "%s:%d: %s", p->path, first->line, first->msg) < 0)
		p->err[0] = '\0';
}

/* inih's find_chars_or_comment(): the first of @chars, or an inline " ;" comment. */
static const char *cfg_find_chars_or_comment(const char *s, const char *chars)
{
	bool was_space = false;

	while (*s && !strchr(chars, *s) && !(was_space && *s == ';')) {
		was_space = cfg_is_space(*s);
		s++;
	}
	return s;
}

/*
 * Look at the line the way inih will, for what inih cannot report: unknown sections (also
 * empty ones — inih does not tell the handler about sections) and malformed lines.
 */
static void cfg_parse_inspect(struct cfg_parse *p, const char *line)
{
	const char *start = line, *end;

	if (p->line == 1 && (unsigned char)start[0] == 0xEF && (unsigned char)start[1] == 0xBB &&
	    (unsigned char)start[2] == 0xBF)
		start += 3;
	const char *text = start;
	while (cfg_is_space(*start))
		start++;

	if (*start == '\0' || *start == ';' || *start == '#')
		return;
	if (p->after_key && start > text)
		return; /* continuation of the previous value */
	if (*start == '[') {
		end = cfg_find_chars_or_comment(start + 1, "]");
		if (*end != ']') {
			cfg_parse_fail(p, "missing ']' in section header");
			return;
		}
		p->after_key = false;
		const char *name = start + 1;
		while (cfg_is_space(*name))
			name++;
		const char *nend = end;
		while (nend > name && cfg_is_space(nend[-1]))
			nend--;
		int len = (int)(nend - name);
		if (len == 0) {
			cfg_parse_fail(p, "empty section name");
			return;
		}
		char section[64];
		snprintf(section, sizeof(section), "%.*s", len, name);
		if ((size_t)len >= sizeof(section) || !cfg_section_known(section))
			cfg_parse_fail(p, "unknown section [%.*s]", len, name);
		return;
	}
	end = cfg_find_chars_or_comment(start, "=:");
	if (*end != '=' && *end != ':') {
		cfg_parse_fail(p, "expected 'key = value' or '[section]'");
		return;
	}
	p->after_key = true;
}

/*
 * fgets(), telling a NUL byte apart: fgets() would hand inih a line cut at the NUL and
 * the rest of it would be lost without a word. Return: the length read, 0 at the end.
 */
static size_t cfg_read_line(FILE *f, char *str, int num, bool *ret_nul)
{
	size_t len = 0;
	int ch;

	*ret_nul = false;
	while (len + 1 < (size_t)num && (ch = getc(f)) != EOF) {
		if (ch == '\0')
			*ret_nul = true;
		str[len++] = (char)ch;
		if (ch == '\n')
			break;
	}
	str[len] = '\0';
	return len;
}

static char *cfg_parse_reader(char *str, int num, void *stream)
{
	struct cfg_parse *p = stream;
	size_t len;
	bool nul;

	len = cfg_read_line(p->f, str, num, &nul);
	if (len == 0) {
		if (ferror(p->f))
			p->read_errno = errno ? errno : EIO;
		return NULL;
	}
	p->line++;
	if (nul) {
		cfg_parse_fail(p, "NUL byte in the line (is this a text file?)");
		str[0] = '\0'; /* inih skips it */
		return str;
	}
	if (len > 0 && str[len - 1] != '\n' && !feof(p->f)) {
		/* The buffer is full: read the rest of the line so inih's count stays right. */
		bool more = false;
		int ch;

		while ((ch = getc(p->f)) != EOF && ch != '\n')
			if (!cfg_is_space((char)ch))
				more = true;
		if (ferror(p->f)) {
			p->read_errno = errno ? errno : EIO;
			return NULL;
		}
		const char *t = str;
		while (cfg_is_space(*t))
			t++;
		if (more && *t != '#' && *t != ';') { /* long comments are fine */
			/* @num holds the NUL: a line of num - 1 characters is whole, the
			 * end of line (and blanks) after it read and dropped here. */
			cfg_parse_fail(p, "line too long (max %d characters)", num - 1);
			str[0] = '\0'; /* inih skips it */
			return str;
		}
	}
	cfg_parse_inspect(p, str);
	return str;
}

static int cfg_parse_handler(void *user, const char *section, const char *name, const char *value)
{
	struct cfg_parse *p = user;
	char msg[CFG_ERR_MAX];
	char sect[64];
	size_t n;
	int r;

	/* inih keeps "[ daemon ]" verbatim; the section names we know have no spaces. */
	while (cfg_is_space(*section))
		section++;
	n = strlen(section);
	while (n > 0 && cfg_is_space(section[n - 1]))
		n--;
	snprintf(sect, sizeof(sect), "%.*s", (int)n, section);

	r = cfg_apply_at(p->c, sect, name, value, p->line, msg, sizeof(msg));
	if (r == -EINVAL) {
		cfg_pending_add(p, sect, name, msg); /* unless a later line sets it again */
		return 1;
	}
	if (r < 0) {
		cfg_parse_fail(p, "%s", msg);
		return 0;
	}
	cfg_pending_drop(p, sect, name);
	/* The owner's own check of a key of its section (cfg_section.h). */
	const struct cfg_key *key = cfg_key_lookup(sect, name);
	if (key && key->check && key->check(value, msg, sizeof(msg)) < 0) {
		char full[CFG_ERR_MAX];
		if (snprintf(full, sizeof(full), "[%s] %s: %s", sect, name, msg) < 0)
			full[0] = '\0';
		cfg_pending_add(p, sect, name, full);
		return 1;
	}
	for (size_t i = 0; i < p->n_checks; i++) {
		const struct cfg_check *k = &p->checks[i];
		size_t sl = strlen(k->section);
		bool device = strcmp(k->section, "device") == 0;

		if (strcmp(k->key, name) != 0 || strncmp(sect, k->section, sl) != 0 ||
		    !(sect[sl] == '\0' || (device && (cfg_is_space(sect[sl]) || sect[sl] == '"'))))
			continue;
		if (k->fn(value, msg, sizeof(msg)) < 0) {
			char full[CFG_ERR_MAX];
			if (snprintf(full, sizeof(full), "[%s] %s: %s", sect, name, msg) < 0)
				full[0] = '\0';
			cfg_pending_add(p, sect, name, full);
			return 1;
		}
	}
	return 1;
}

/* The message after the @n bytes of "where" cfg_key_fail() or cfg_line_fail() wrote. */
static void fail_after(char *err, size_t errsize, int n, const char *fmt, va_list ap)
{
	if (n >= 0 && (size_t)n < errsize)
		vsnprintf(err + n, errsize - (size_t)n, fmt, ap);
}

int cfg_key_fail(const struct cfg *c, const char *section, const char *key, char *err,
		 size_t errsize, const char *fmt, ...)
{
	char where[CFG_PATH_MAX + 16];
	va_list ap;
	int n;

	cfg_key_where(c, section, key, where, sizeof(where));
	n = snprintf(err, errsize, "%s%s", where, where[0] ? ": " : "");
	va_start(ap, fmt);
	fail_after(err, errsize, n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int cfg_line_fail(char *err, size_t errsize, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int n = line > 0 ? snprintf(err, errsize, "%s:%d: ", file, line) : 0;

	va_start(ap, fmt);
	fail_after(err, errsize, n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int cfg_load(struct cfg *c, const char *path, char ret_err[CFG_ERR_MAX])
{
	return cfg_load_checked(c, path, NULL, 0, ret_err);
}

int cfg_load_checked(struct cfg *c, const char *path, const struct cfg_check *checks,
		     size_t n_checks, char ret_err[CFG_ERR_MAX])
{
	struct cfg_parse p = {.path = path, .checks = checks, .n_checks = n_checks};
	struct cfg *tmp = NULL;
	int r;

	p.f = fopen(path, "re");
	if (!p.f) {
		r = -errno;
		snprintf(ret_err, CFG_ERR_MAX, "%s: %m", path);
		return r;
	}
	/*
	 * It names the programs nvmond runs and where it sends what: nobody but its
	 * owner (root or this user) may write it or its directory (fperm.h). Not a
	 * file (a directory): the read below says so.
	 */
	struct stat st;
	if (fstat(fileno(p.f), &st) == 0 && S_ISREG(st.st_mode) &&
	    (r = fperm_check(fileno(p.f), path, FPERM_TRUSTED, ret_err, CFG_ERR_MAX)) < 0) {
		fclose(p.f);
		return r;
	}
	/* Parse into a copy: on any error @c stays as it was. */
	tmp = malloc(sizeof(*tmp));
	if (!tmp) {
		r = -ENOMEM;
		snprintf(ret_err, CFG_ERR_MAX, "%s: out of memory", path);
		goto finish;
	}
	*tmp = *c;
	p.c = tmp;
	snprintf(tmp->file, sizeof(tmp->file), "%s", path);
	memset(tmp->key_line, 0, sizeof(tmp->key_line));
	memset(tmp->sect_key_line, 0, sizeof(tmp->sect_key_line));

	r = ini_parse_stream(cfg_parse_reader, &p, cfg_parse_handler, &p);
	cfg_pending_report(&p);
	if (p.read_errno) {
		r = -p.read_errno;
		errno = p.read_errno;
		snprintf(ret_err, CFG_ERR_MAX, "%s: read error: %m", path);
		goto finish;
	}
	if (r > 0 && (p.err_line == 0 || r < p.err_line)) {
		/* inih found something our inspection did not; report it generically. */
		snprintf(ret_err, CFG_ERR_MAX, "%s:%d: syntax error", path, r);
		r = -EINVAL;
		goto finish;
	}
	if (r < 0) {
		snprintf(ret_err, CFG_ERR_MAX, "%s: parser failed (%d)", path, r);
		r = r == -2 ? -ENOMEM : -EIO;
		goto finish;
	}
	if (p.err_line) {
		memcpy(ret_err, p.err, CFG_ERR_MAX);
		r = -EINVAL;
		goto finish;
	}
	r = cfg_sect_together(tmp, ret_err, CFG_ERR_MAX);
	if (r < 0)
		goto finish;
	if (tmp->n_sinks)
		snprintf(tmp->sinks_file, sizeof(tmp->sinks_file), "%s", path);
	if (tmp->n_exports)
		snprintf(tmp->exports_file, sizeof(tmp->exports_file), "%s", path);
	*c = *tmp;
	r = 0;
finish:
	free(p.pending);
	free(tmp);
	fclose(p.f);
	return r;
}
