/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * This host's stable id in a fleet (issue 24): an application-specific id made
 * from /etc/machine-id the way sd_id128_get_machine_app_specific() makes one
 * (systemd's sd-id128: HMAC-SHA256 keyed with the machine id over nvmond's
 * app id, the first 16 bytes made a version-4 UUID), so the machine id itself
 * never leaves the host and every host keeps its id across restarts.
 */
#define HOST_ID_LEN 32 /* lowercase hex digits */

/* nvmond's application id (made once with uuidgen; never change it). */
#define HOST_ID_APP                                                                                \
	{                                                                                          \
		0x40, 0x70, 0x8e, 0x55, 0x81, 0xad, 0x4b, 0x62, 0xa2, 0x31, 0xec, 0x09, 0xd3,      \
			0x14, 0x54, 0x8e                                                           \
	}

#define HOST_ID_MACHINE_ID_PATH "/etc/machine-id"

/**
 * host_id_parse_machine_id() - machine-id(5): 32 hex digits and a newline (or
 * none) in the @len bytes at @text, into 16 bytes. Return: 0 or -EINVAL.
 */
int host_id_parse_machine_id(const char *text, size_t len, uint8_t ret[16]);

/**
 * host_id_derive() - The id of the machine @machine_id for the application @app,
 * as 32 lowercase hex digits. Pure. Return: 0, or -EIO when the HMAC failed.
 */
int host_id_derive(const uint8_t machine_id[16], const uint8_t app[16], char ret[HOST_ID_LEN + 1]);

/**
 * host_id_read() - nvmond's id of this host, from the machine id in the file
 * @path (HOST_ID_MACHINE_ID_PATH; the environment variable NVMOND_MACHINE_ID
 * names another file, for tests that run several daemons on one machine: see
 * host_id_path()). Return: 0, -ENOENT / -EACCES / … (read), or -EINVAL (not a
 * machine id).
 */
int host_id_read(const char *path, char ret[HOST_ID_LEN + 1]);

/** host_id_path() - $NVMOND_MACHINE_ID when set (tests), else HOST_ID_MACHINE_ID_PATH. */
const char *host_id_path(void);
