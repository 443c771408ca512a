/* SPDX-License-Identifier: MIT */
/*
 * HTTPS: the certificate chain and key, read from PEM files, checked, and handed
 * to every TLS handshake by a GnuTLS retrieve callback (libmicrohttpd's
 * MHD_OPTION_HTTPS_CERT_CALLBACK2). A reload builds a new pair apart and swaps
 * the pointer under a mutex; each handshake copies the pair it finds under the
 * same mutex and GnuTLS frees that copy with the session, so the old pair can
 * be freed right after the swap and open connections are never cut.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>

#include "nvmond/api/api_tls.h"
#include "nvmond/util/fperm.h"

#include "api_internal.h"

#define TLS_FILE_MAX  (1024 * 1024) /* a PEM chain and key are a few kB */
#define TLS_CHAIN_MAX 16

/* One certificate chain with its key, as read from the files. Never changed. */
struct tls_pair {
	gnutls_datum_t der[TLS_CHAIN_MAX]; /* the chain, leaf first */
	unsigned n;
	gnutls_x509_privkey_t key;
	char desc[API_TLS_DESC_MAX];
};

struct api_tls {
	char *cert_path, *key_path;
	struct tls_pair *pair; /* under tls_lock */
};

/*
 * GnuTLS's retrieve callback carries no user pointer and libmicrohttpd sets none
 * on the session, so the server in TLS mode is found here: one per process.
 */
static pthread_mutex_t tls_lock = PTHREAD_MUTEX_INITIALIZER;
static struct api_tls *tls_active;

static void pair_free(struct tls_pair *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < p->n; i++)
		gnutls_free(p->der[i].data);
	if (p->key)
		gnutls_x509_privkey_deinit(p->key);
	free(p);
}

/*
 * The whole of @path (what: "tls_cert" or "tls_key", for the message), NUL-ended;
 * a @secret one (the key) only when others cannot read or write it.
 */
static int file_read(const char *what, const char *path, bool secret, gnutls_datum_t *ret,
		     char ret_err[API_ERR_MAX])
{
	FILE *f = fopen(path, "re");
	unsigned char *buf = NULL;
	size_t n;
	int r;

	if (!f) {
		r = -errno;
		snprintf(ret_err, API_ERR_MAX, "%s %s: %s", what, path, strerror(-r));
		return r;
	}
	/* The key is a secret: nobody but its owner (and group) may read it (fperm.h). */
	char why[API_ERR_MAX - 16];
	if (secret && (r = fperm_check(fileno(f), path, FPERM_SECRET, why, sizeof(why))) < 0) {
		fclose(f);
		snprintf(ret_err, API_ERR_MAX, "%s %s", what, why);
		return r;
	}
	buf = malloc(TLS_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		snprintf(ret_err, API_ERR_MAX, "out of memory");
		return -ENOMEM;
	}
	n = fread(buf, 1, TLS_FILE_MAX + 1, f);
	r = ferror(f) ? -EIO : 0;
	fclose(f);
	if (r == 0 && n > TLS_FILE_MAX)
		r = -EFBIG;
	if (r < 0) {
		free(buf);
		snprintf(ret_err, API_ERR_MAX, "%s %s: %s", what, path,
			 r == -EFBIG ? "larger than 1 MiB" : strerror(-r));
		return r;
	}
	buf[n] = '\0';
	*ret = (gnutls_datum_t){.data = buf, .size = (unsigned)n};
	return 0;
}

static void pair_describe(struct tls_pair *p, gnutls_x509_crt_t leaf)
{
	gnutls_datum_t dn = {0};
	unsigned char fp[32];
	size_t fp_len = sizeof(fp);
	char fphex[3 * sizeof(fp)] = "";
	char when[32] = "?";
	time_t t = gnutls_x509_crt_get_expiration_time(leaf);
	struct tm tm;

	if (t != (time_t)-1 && gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (gnutls_x509_crt_get_fingerprint(leaf, GNUTLS_DIG_SHA256, fp, &fp_len) == 0)
		for (size_t i = 0; i < fp_len && i < sizeof(fp); i++)
			snprintf(fphex + (i ? 3 * i - 1 : 0), sizeof(fphex) - (i ? 3 * i - 1 : 0),
				 i ? ":%02X" : "%02X", fp[i]);
	(void)gnutls_x509_crt_get_dn3(leaf, &dn, 0);
	snprintf(p->desc, sizeof(p->desc), "%s, expires %s, SHA-256 %s",
		 dn.data ? (const char *)dn.data : "?", when, fphex);
	gnutls_free(dn.data);
}

/*
 * Read and check a pair: the chain parses (leaf first, each signed by the
 * next), the key parses and belongs to the leaf. Messages name the file.
 */
static int pair_load(const char *cert_path, const char *key_path, struct tls_pair **ret,
		     char ret_err[API_ERR_MAX])
{
	gnutls_datum_t cert_pem = {0}, key_pem = {0};
	gnutls_x509_crt_t *crts = NULL;
	unsigned n_crts = 0;
	gnutls_certificate_credentials_t check = NULL;
	struct tls_pair *p;
	int r, g;

	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(ret_err, API_ERR_MAX, "out of memory");
		return -ENOMEM;
	}
	r = file_read("tls_cert", cert_path, false, &cert_pem, ret_err);
	if (r < 0)
		goto out;
	r = file_read("tls_key", key_path, true, &key_pem, ret_err);
	if (r < 0)
		goto out;
	r = -EINVAL;
	g = gnutls_x509_crt_list_import2(&crts, &n_crts, &cert_pem, GNUTLS_X509_FMT_PEM,
					 GNUTLS_X509_CRT_LIST_FAIL_IF_UNSORTED);
	if (g < 0 || n_crts == 0) {
		snprintf(ret_err, API_ERR_MAX, "tls_cert %s: not a PEM certificate chain (%s)",
			 cert_path, g < 0 ? gnutls_strerror(g) : "no certificate");
		goto out;
	}
	if (n_crts > TLS_CHAIN_MAX) {
		snprintf(ret_err, API_ERR_MAX, "tls_cert %s: more than %d certificates", cert_path,
			 TLS_CHAIN_MAX);
		goto out;
	}
	g = gnutls_x509_privkey_init(&p->key);
	if (g == 0)
		g = gnutls_x509_privkey_import2(p->key, &key_pem, GNUTLS_X509_FMT_PEM, NULL, 0);
	if (g < 0) {
		snprintf(ret_err, API_ERR_MAX,
			 "tls_key %s: not an unencrypted PEM private key (%s)", key_path,
			 gnutls_strerror(g));
		goto out;
	}
	/* GnuTLS's own check that the key belongs to the leaf certificate. */
	g = gnutls_certificate_allocate_credentials(&check);
	if (g == 0)
		g = gnutls_certificate_set_x509_key(check, crts, (int)n_crts, p->key);
	if (g < 0) {
		snprintf(ret_err, API_ERR_MAX, "tls_key %s does not fit tls_cert %s: %s", key_path,
			 cert_path, gnutls_strerror(g));
		goto out;
	}
	for (unsigned i = 0; i < n_crts; i++) {
		g = gnutls_x509_crt_export2(crts[i], GNUTLS_X509_FMT_DER, &p->der[i]);
		if (g < 0) {
			snprintf(ret_err, API_ERR_MAX, "tls_cert %s: %s", cert_path,
				 gnutls_strerror(g));
			goto out;
		}
		p->n = i + 1;
	}
	pair_describe(p, crts[0]);
	*ret = p;
	p = NULL;
	r = 0;
out:
	if (check)
		gnutls_certificate_free_credentials(check);
	for (unsigned i = 0; i < n_crts; i++)
		gnutls_x509_crt_deinit(crts[i]);
	gnutls_free(crts);
	free(cert_pem.data);
	if (key_pem.data) {
		memset(key_pem.data, 0, key_pem.size); /* the key leaves no copy behind */
		free(key_pem.data);
	}
	pair_free(p);
	return r;
}

static void base64(const unsigned char *p, size_t n, char *out)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);
		*out++ = a[v >> 18 & 63];
		*out++ = a[v >> 12 & 63];
		*out++ = i + 1 < n ? a[v >> 6 & 63] : '=';
		*out++ = i + 2 < n ? a[v & 63] : '=';
	}
	*out = '\0';
}

int api_tls_pin(const char *cert_path, char ret[API_TLS_PIN_MAX], char ret_err[API_ERR_MAX])
{
	gnutls_datum_t pem = {0};
	gnutls_x509_crt_t crt = NULL;
	unsigned char id[32];
	size_t id_len = sizeof(id);
	int r, g;

	r = file_read("tls_cert", cert_path, false, &pem, ret_err);
	if (r < 0)
		return r;
	g = gnutls_x509_crt_init(&crt);
	if (g == 0)
		g = gnutls_x509_crt_import(crt, &pem, GNUTLS_X509_FMT_PEM);
	/* With SHA-256 the key id is the hash of the DER SubjectPublicKeyInfo. */
	if (g == 0)
		g = gnutls_x509_crt_get_key_id(crt, GNUTLS_KEYID_USE_SHA256, id, &id_len);
	if (g == 0 && id_len == sizeof(id)) {
		memcpy(ret, "sha256//", 8);
		base64(id, id_len, ret + 8);
	} else {
		snprintf(ret_err, API_ERR_MAX, "tls_cert %s: not a PEM certificate (%s)", cert_path,
			 g < 0 ? gnutls_strerror(g) : "no SHA-256 key id");
		r = -EINVAL;
	}
	if (crt)
		gnutls_x509_crt_deinit(crt);
	free(pem.data);
	return r;
}

int api_tls_new(const char *cert_path, const char *key_path, struct api_tls **ret,
		char ret_err[API_ERR_MAX])
{
	struct api_tls *t = calloc(1, sizeof(*t));
	int r;

	if (!t || !(t->cert_path = strdup(cert_path)) || !(t->key_path = strdup(key_path))) {
		api_tls_free(t);
		snprintf(ret_err, API_ERR_MAX, "out of memory");
		return -ENOMEM;
	}
	r = pair_load(cert_path, key_path, &t->pair, ret_err);
	if (r < 0) {
		api_tls_free(t);
		return r;
	}
	*ret = t;
	return 0;
}

int api_tls_reload(struct api_tls *t, char ret_err[API_ERR_MAX])
{
	struct tls_pair *p = NULL, *old;
	int r = pair_load(t->cert_path, t->key_path, &p, ret_err);

	if (r < 0)
		return r;
	pthread_mutex_lock(&tls_lock);
	old = t->pair;
	t->pair = p;
	pthread_mutex_unlock(&tls_lock);
	pair_free(old); /* handshakes hold copies, never the pair */
	return 0;
}

void api_tls_describe(struct api_tls *t, char buf[API_TLS_DESC_MAX])
{
	pthread_mutex_lock(&tls_lock);
	snprintf(buf, API_TLS_DESC_MAX, "%s", t->pair ? t->pair->desc : "none");
	pthread_mutex_unlock(&tls_lock);
}

struct api_tls *api_tls_free(struct api_tls *t)
{
	if (!t)
		return NULL;
	pthread_mutex_lock(&tls_lock);
	if (tls_active == t)
		tls_active = NULL;
	pthread_mutex_unlock(&tls_lock);
	pair_free(t->pair);
	free(t->cert_path);
	free(t->key_path);
	free(t);
	return NULL;
}

/*
 * Called by GnuTLS in each handshake: a copy of the pair served now, which
 * GnuTLS deinitializes with the session (GNUTLS_CERT_RETR_DEINIT_ALL).
 */
static int tls_retrieve(gnutls_session_t session, const struct gnutls_cert_retr_st *info,
			gnutls_pcert_st **ret_certs, unsigned *ret_n_certs,
			gnutls_ocsp_data_st **ret_ocsp, unsigned *ret_n_ocsp,
			gnutls_privkey_t *ret_key, unsigned *ret_flags)
{
	(void)session;
	(void)info;
	gnutls_pcert_st *certs = NULL;
	gnutls_privkey_t key = NULL;
	unsigned n = 0;
	int r = -1;

	pthread_mutex_lock(&tls_lock);
	const struct tls_pair *p = tls_active ? tls_active->pair : NULL;
	if (!p)
		goto out;
	certs = gnutls_calloc(p->n, sizeof(*certs));
	if (!certs)
		goto out;
	for (; n < p->n; n++)
		if (gnutls_pcert_import_x509_raw(&certs[n], &p->der[n], GNUTLS_X509_FMT_DER, 0) < 0)
			goto out;
	if (gnutls_privkey_init(&key) < 0 ||
	    gnutls_privkey_import_x509(key, p->key, GNUTLS_PRIVKEY_IMPORT_COPY) < 0)
		goto out;
	r = 0;
out:
	pthread_mutex_unlock(&tls_lock);
	if (r < 0) {
		for (unsigned i = 0; i < n; i++)
			gnutls_pcert_deinit(&certs[i]);
		gnutls_free(certs);
		if (key)
			gnutls_privkey_deinit(key);
		return -1;
	}
	*ret_certs = certs;
	*ret_n_certs = n;
	*ret_ocsp = NULL;
	*ret_n_ocsp = 0;
	*ret_key = key;
	*ret_flags = GNUTLS_CERT_RETR_DEINIT_ALL;
	return 0;
}

int api_tls_priorities_check(const char *priorities, char *err, size_t errsize)
{
	gnutls_priority_t p = NULL;
	const char *at = NULL;
	int r = gnutls_priority_init(&p, priorities, &at);

	if (r != GNUTLS_E_SUCCESS) {
		if (at && r == GNUTLS_E_INVALID_REQUEST)
			snprintf(err, errsize,
				 "not a GnuTLS priority string: '%.60s' is not understood", at);
		else
			snprintf(err, errsize, "not a GnuTLS priority string: %s",
				 gnutls_strerror(r));
		return -EINVAL;
	}
	gnutls_priority_deinit(p);
	return 0;
}

int api_tls_mhd_options(struct api_tls *t, const char *priorities,
			struct MHD_OptionItem ret[API_TLS_MHD_OPTIONS], char ret_err[API_ERR_MAX])
{
	char err[200];

	pthread_mutex_lock(&tls_lock);
	if (tls_active && tls_active != t) {
		pthread_mutex_unlock(&tls_lock);
		snprintf(ret_err, API_ERR_MAX, "one HTTPS server per process");
		return -EBUSY;
	}
	tls_active = t;
	pthread_mutex_unlock(&tls_lock);
	if (MHD_is_feature_supported(MHD_FEATURE_HTTPS_CERT_CALLBACK2) != MHD_YES) {
		snprintf(ret_err, API_ERR_MAX,
			 "this libmicrohttpd has no HTTPS certificate callback (GnuTLS 3.6.3+)");
		return -EOPNOTSUPP;
	}
	if (api_tls_priorities_check(priorities, err, sizeof(err)) < 0) {
		snprintf(ret_err, API_ERR_MAX, "[http] tls_priorities: %s", err);
		return -EINVAL;
	}
	ret[0] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_CERT_CALLBACK2, 0, (void *)tls_retrieve};
	/* MHD copies nothing: the string must outlive the server (the config does). */
	ret[1] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)priorities};
	return 2;
}
