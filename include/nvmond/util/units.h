/* SPDX-License-Identifier: MIT */
/*
 * Units of time and size, one set of names for the whole tree. Times are int64
 * milliseconds (what the store, the API and the clocks use); sizes are binary
 * (IEC 80000-13: KiB = 2^10 bytes; the decimal kB/MB of a configuration's sizes are
 * cfg_value's business, not these).
 */
#ifndef NVMOND_UTIL_UNITS_H
#define NVMOND_UTIL_UNITS_H

#include <stdint.h>

#define MS_PER_SEC  INT64_C(1000)
#define MS_PER_MIN  (60 * MS_PER_SEC)
#define MS_PER_HOUR (60 * MS_PER_MIN)
#define MS_PER_DAY  (24 * MS_PER_HOUR)
#define MS_PER_WEEK (7 * MS_PER_DAY)

#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define GiB (1ull << 30)

#endif
