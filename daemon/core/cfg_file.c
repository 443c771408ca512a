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

#include "nvmond/core/cfg.h"
#include "cfg_internal.h"

/*
 * Parsing state. libinih (Debian, v55) does not pass line numbers to the handler and keeps
 * parsing after an error, so our reader counts lines (one reader call per line, exactly as
 * inih counts them) and the first error is recorded here with its line.
 */
struct cfg_parse {
	FILE *f;
	const char *path;
	struct cfg *c;
	int line;	/* line most recently handed to inih */
	bool after_key; /* inih's "previous name" is set: indented lines continue it */
	int read_errno; /* fgets() failed */
	int err_line;	/* first error, 0 = none */
	char err[CFG_ERR_MAX];
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

static char *cfg_parse_reader(char *str, int num, void *stream)
{
	struct cfg_parse *p = stream;
	size_t len;

	if (!fgets(str, num, p->f)) {
		if (ferror(p->f))
			p->read_errno = errno ? errno : EIO;
		return NULL;
	}
	p->line++;
	len = strlen(str);
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
			cfg_parse_fail(p, "line too long (max %d characters)", num - 3);
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
	if (r < 0) {
		cfg_parse_fail(p, "%s", msg);
		return 0;
	}
	return 1;
}

int cfg_load(struct cfg *c, const char *path, char ret_err[CFG_ERR_MAX])
{
	struct cfg_parse p = {.path = path};
	struct cfg *tmp = NULL;
	int r;

	p.f = fopen(path, "re");
	if (!p.f) {
		r = -errno;
		snprintf(ret_err, CFG_ERR_MAX, "%s: %m", path);
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

	r = ini_parse_stream(cfg_parse_reader, &p, cfg_parse_handler, &p);
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
	if (tmp->n_sinks)
		snprintf(tmp->sinks_file, sizeof(tmp->sinks_file), "%s", path);
	*c = *tmp;
	r = 0;
finish:
	free(tmp);
	fclose(p.f);
	return r;
}
