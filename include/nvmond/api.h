/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "nvmond/fleet.h"

/*
 * The HTTP server (libmicrohttpd + jansson). It runs in its own threads so a
 * slow client never delays polling; it reads devices from the fleet and samples
 * through its own read-only store handles.
 */
struct api;

#define API_ERR_MAX 256

struct api_config {
	const char *host;     /* address to bind, e.g. "127.0.0.1", "::" */
	uint16_t port;	      /* 0 = pick a free port (tests), see api_port() */
	const char *db_path;  /* database file for read-only handles */
	const char *web_root; /* directory of static files */
	unsigned threads;     /* worker threads */
	int64_t timeout_ms;   /* idle connection timeout */
	struct fleet *fleet;  /* borrowed; outlives the api */
};

/**
 * api_start() - Bind and start serving.
 * Return: 0, or negative errno with @ret_err filled.
 */
int api_start(const struct api_config *c, struct api **ret, char ret_err[API_ERR_MAX]);

/** api_port() - The bound port. */
uint16_t api_port(const struct api *a);

/** api_stop() - Stop serving and free. Accepts NULL. Return: NULL. */
struct api *api_stop(struct api *a);
