/* SPDX-License-Identifier: MIT */
/*
 * The names the server answers to (api_host.h): pure, table-tested.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "nvmond/api/api_host.h"

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == '.';
}

int api_hosts_add(struct api_hosts *h, const char *name, size_t len)
{
	if (len == 1 && name[0] == '*') {
		h->any = true;
		return 0;
	}
	if (len > 0 && name[len - 1] == '.')
		len--;
	if (len == 0 || len >= API_HOST_NAME_MAX)
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		if (!name_char(name[i]))
			return -EINVAL;
	if (h->n == API_HOSTS_MAX)
		return -ENOSPC;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];

		h->name[h->n][i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
	}
	h->name[h->n][len] = '\0';
	h->n++;
	return 0;
}

int api_hosts_parse(struct api_hosts *h, const char *list, char *err, size_t errsize)
{
	const char *p = list;

	while (*p) {
		size_t n;
		int r;

		p += strspn(p, ", \t");
		n = strcspn(p, ", \t");
		if (n == 0)
			break;
		r = api_hosts_add(h, p, n);
		if (r == -ENOSPC) {
			snprintf(err, errsize, "more than %d names", API_HOSTS_MAX);
			return r;
		}
		if (r < 0) {
			snprintf(err, errsize,
				 "'%.*s' is not a host name (letters, digits, '-', '_' and '.'; IP "
				 "addresses are always taken)",
				 (int)(n > 80 ? 80 : n), p);
			return r;
		}
		p += n;
	}
	return 0;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* reg-name (RFC 3986 §3.2.2): unreserved, pct-encoded, sub-delims. */
static bool reg_name_ok(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '%') {
			if (i + 2 >= n || !is_hex(s[i + 1]) || !is_hex(s[i + 2]))
				return false;
			i += 2;
		} else if (!name_char(c) && c != '~' && !strchr("!$&'()*+,;=", c)) {
			return false;
		}
	}
	return true;
}

/* ":" port, or nothing (RFC 3986: port = *DIGIT). */
static bool port_ok(const char *s)
{
	if (*s == '\0')
		return true;
	if (*s != ':')
		return false;
	return strspn(s + 1, "0123456789") == strlen(s + 1);
}

enum api_host_verdict api_host_check(const struct api_hosts *h, const char *field)
{
	char buf[INET6_ADDRSTRLEN + 1];
	unsigned char addr[16];
	size_t n;

	if (!field)
		return API_HOST_OK;
	if (field[0] == '[') {
		const char *end = strchr(field, ']');

		n = end ? (size_t)(end - field - 1) : 0;
		if (!end || n == 0 || n >= sizeof(buf) || !port_ok(end + 1))
			return API_HOST_BAD;
		memcpy(buf, field + 1, n);
		buf[n] = '\0';
		return inet_pton(AF_INET6, buf, addr) == 1 ? API_HOST_OK : API_HOST_BAD;
	}
	n = strcspn(field, ":");
	if (!port_ok(field + n) || !reg_name_ok(field, n))
		return API_HOST_BAD;
	if (n < sizeof(buf)) {
		memcpy(buf, field, n);
		buf[n] = '\0';
		if (inet_pton(AF_INET, buf, addr) == 1)
			return API_HOST_OK;
	}
	if (n > 0 && field[n - 1] == '.')
		n--; /* "localhost." is "localhost" */
	if (n == 0)
		return API_HOST_UNKNOWN;
	if (h->any)
		return API_HOST_OK;
	for (size_t i = 0; i < h->n; i++)
		if (strlen(h->name[i]) == n && strncasecmp(h->name[i], field, n) == 0)
			return API_HOST_OK;
	return API_HOST_UNKNOWN;
}
