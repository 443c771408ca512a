/* SPDX-License-Identifier: MIT */
/*
 * The host's id from its machine id, as systemd's sd_id128_get_app_specific()
 * makes it (src/libsystemd/sd-id128/sd-id128.c): HMAC-SHA256(key = the machine
 * id's 16 bytes, message = the app id's 16 bytes), the first 16 bytes of it with
 * the version nibble set to 4 and the variant bits to 10 (RFC 4122, 4.4).
 * GnuTLS computes the HMAC.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <gnutls/crypto.h>

#include "nvmond/core/host_id.h"
#include "nvmond/util/hex.h"

int host_id_parse_machine_id(const char *text, size_t len, uint8_t ret[16])
{
	uint8_t v[16];

	if (len == 33 && text[32] == '\n')
		len = 32;
	if (len != 32)
		return -EINVAL;
	for (size_t i = 0; i < 16; i++) {
		int hi = hex_digit(text[2 * i]), lo = hex_digit(text[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		v[i] = (uint8_t)(hi << 4 | lo);
	}
	for (size_t i = 0; i < 16; i++)
		ret[i] = v[i];
	return 0;
}

int host_id_derive(const uint8_t machine_id[16], const uint8_t app[16], char ret[HOST_ID_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	uint8_t mac[32];

	if (gnutls_hmac_fast(GNUTLS_MAC_SHA256, machine_id, 16, app, 16, mac) < 0)
		return -EIO;
	mac[6] = (uint8_t)((mac[6] & 0x0F) | 0x40); /* version 4 */
	mac[8] = (uint8_t)((mac[8] & 0x3F) | 0x80); /* variant: RFC 4122 */
	for (size_t i = 0; i < 16; i++) {
		ret[2 * i] = hex[mac[i] >> 4];
		ret[2 * i + 1] = hex[mac[i] & 0x0F];
	}
	ret[HOST_ID_LEN] = '\0';
	return 0;
}

int host_id_read(const char *path, char ret[HOST_ID_LEN + 1])
{
	static const uint8_t app[16] = HOST_ID_APP;
	char buf[64];
	uint8_t id[16];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	ssize_t k;

	if (fd < 0)
		return -errno;
	k = read(fd, buf, sizeof(buf));
	int e = errno;
	close(fd);
	if (k < 0)
		return -e;
	if (host_id_parse_machine_id(buf, (size_t)k, id) < 0)
		return -EINVAL;
	return host_id_derive(id, app, ret);
}

const char *host_id_path(void)
{
	const char *p = getenv("NVMOND_MACHINE_ID");

	return p && *p ? p : HOST_ID_MACHINE_ID_PATH;
}
