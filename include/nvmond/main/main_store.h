/* SPDX-License-Identifier: MIT */
#pragma once

/*
 * The daemon's database at start (main_store.c): open and migrate it, or wait
 * for it while it cannot be opened. Private to the nvmond executable.
 */
#include "nvmond/api/api_tls.h"
#include "nvmond/core/cfg.h"
#include "nvmond/store/store.h"

/**
 * main_store_open() - Open (create, migrate) c->database. While that fails for a
 * reason that can pass (a read-only or full file system, no permission, a lock:
 * anything but a schema that is not this nvmond's), log the reason once (and again
 * when it changes), tell systemd (READY=1, so boot goes on, and STATUS= with the
 * reason; the watchdog is fed), answer GET /healthz with 503 and the reason, and
 * try again after 5 s, doubling up to a minute, until it opens or SIGTERM/SIGINT
 * comes. The stop signals must be blocked (run_daemon() does so first).
 * @tls: borrowed, for the /healthz server (NULL = HTTP)
 * Return: 0 with *ret set; -ECANCELED when stopped while waiting; other negative
 * errno (logged) when the database will not do or /healthz cannot be served.
 */
int main_store_open(const struct cfg *c, struct api_tls *tls, struct store **ret);
