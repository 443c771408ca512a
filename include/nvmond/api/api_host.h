/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * The names the HTTP server answers to, against DNS rebinding: a web page whose
 * name an attacker points at 127.0.0.1 after it loaded can read the API as that
 * name, but its requests carry that name in Host. A request whose Host is not one
 * of ours is refused. An IP address in Host is always taken: a browser sends one
 * only for a page loaded from that address, which is this server itself (a
 * rebinding page always has a name). No HTTP server here, no resolver: names in,
 * a verdict out.
 */
#include <stdbool.h>
#include <stddef.h>

#define API_HOSTS_MAX	  32
#define API_HOST_NAME_MAX 254 /* a DNS name of up to 253 characters, and NUL */

struct api_hosts {
	size_t n;
	bool any; /* "*": every name (no protection against rebinding) */
	char name[API_HOSTS_MAX][API_HOST_NAME_MAX]; /* lower case, no trailing dot */
};

/**
 * api_hosts_add() - Add the name @name (@len bytes): letters, digits, '-', '_' and
 * '.', in any case, a trailing dot ignored; or "*" for any name.
 * Return: 0; -EINVAL when it is not such a name; -ENOSPC past API_HOSTS_MAX.
 */
int api_hosts_add(struct api_hosts *h, const char *name, size_t len);

/**
 * api_hosts_parse() - Add each name of @list, separated by commas and blanks
 * ([http] allowed_hosts). Return: 0, or -EINVAL / -ENOSPC with @err filled
 * (naming the entry).
 */
int api_hosts_parse(struct api_hosts *h, const char *list, char *err, size_t errsize);

enum api_host_verdict {
	API_HOST_OK,	  /* an IP address, one of the names, or no Host at all */
	API_HOST_BAD,	  /* not a Host value (RFC 9112 §3.2: 400) */
	API_HOST_UNKNOWN, /* a name this server does not answer to (RFC 9110 §15.5.20: 421) */
};

/**
 * api_host_check() - The verdict on a Host field value @field (NULL: the request had
 * none, which api_frame_check() allows in HTTP/1.0 only): uri-host [":" port]
 * (RFC 3986 §3.2.2); an IPv4 address or a bracketed IPv6 one is taken; a name is
 * taken when it is in @h (any case, one trailing dot ignored); an empty one is
 * unknown.
 */
enum api_host_verdict api_host_check(const struct api_hosts *h, const char *field);
