/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Private to daemon/metrics: the families of issue 27 (C0h, power states,
 * host thermal management, namespaces, the event log, the risk verdict),
 * rendered by metrics_render() with its device labels.
 */
#include <stddef.h>
#include <stdio.h>

#include "nvmond/metrics/metrics.h"

/**
 * metrics_render_drive() - Write the families of what each drive knows
 * beyond its health log to @f; device i's labels are the string at
 * @labels + i × @stride. Pure.
 */
void metrics_render_drive(FILE *f, const struct metrics_input *in, const char *labels,
			  size_t stride);
