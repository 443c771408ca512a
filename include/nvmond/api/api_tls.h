/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "nvmond/api/api.h"

/*
 * HTTPS for the server (GnuTLS through libmicrohttpd): a certificate chain and
 * its key read from PEM files, handed to each TLS handshake by a callback, so
 * that a reload swaps them for new connections while open ones keep theirs.
 * Each handshake gets its own copy (GnuTLS frees it with the session), so the
 * old pair is freed at once after a swap.
 */
struct api_tls;

#define API_TLS_DESC_MAX 512

/*
 * [http] tls_priorities by default: TLS 1.2 and 1.3 only (RFC 8996 deprecates 1.0
 * and 1.1), with GnuTLS's NORMAL ciphers and groups.
 */
#define API_TLS_PRIORITIES "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

/**
 * api_tls_priorities_check() - Whether GnuTLS takes @priorities as a priority string
 * (gnutls_priority_init()). Return: 0, or -EINVAL with @err saying where it fails.
 */
int api_tls_priorities_check(const char *priorities, char *err, size_t errsize);

/**
 * api_tls_new() - Read and check the certificate chain in @cert_path and the
 * private key in @key_path (PEM; the key must match the first certificate).
 * Return: 0, or negative errno with @ret_err naming the file at fault.
 */
int api_tls_new(const char *cert_path, const char *key_path, struct api_tls **ret,
		char ret_err[API_ERR_MAX]);

/**
 * api_tls_reload() - Read the same two files again and, when they are good,
 * serve them from the next handshake on. A bad pair changes nothing.
 * Return: 0, or negative errno with @ret_err naming the file at fault.
 */
int api_tls_reload(struct api_tls *t, char ret_err[API_ERR_MAX]);

/**
 * api_tls_describe() - "CN=…, expires 2027-01-01T00:00:00Z, SHA-256 AB:CD:…" of
 * the certificate served now, for the log.
 */
void api_tls_describe(struct api_tls *t, char buf[API_TLS_DESC_MAX]);

#define API_TLS_PIN_MAX 64

/**
 * api_tls_pin() - "sha256//<base64>": the SHA-256 of the public key of the first
 * certificate in @cert_path, as libcurl's CURLOPT_PINNEDPUBLICKEY takes it, so a
 * local client (nvmond selftest) trusts the daemon's own certificate whatever
 * the names in it. Return: 0, or negative errno with @ret_err naming the file.
 */
int api_tls_pin(const char *cert_path, char ret[API_TLS_PIN_MAX], char ret_err[API_ERR_MAX]);

/** api_tls_free() - Free @t (the server using it must be stopped). Accepts NULL. Return: NULL. */
struct api_tls *api_tls_free(struct api_tls *t);
