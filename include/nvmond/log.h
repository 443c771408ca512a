/* SPDX-License-Identifier: MIT */
#pragma once

#include "nvmond/cfg.h"

/*
 * Logging happens only at the edges: main, loop callbacks, HTTP handlers.
 * Library modules return errors and messages to their caller instead.
 */
void log_set_level(enum log_level lvl);
enum log_level log_get_level(void);

void log_msg(enum log_level lvl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_LVL_ERROR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_LVL_WARNING, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)
