#!/usr/bin/env bash
# Benchmark by hand (not part of ctest): database size per drive-year at a 10 s poll
# with the default retention (issue 14 §2: at most 25 MB), and whether the file stays
# compact once retention prunes, over 1, 2 and 3 simulated years of one drive.
#
# nvmond-histgen inserts a day at a time and runs the rollup step after each day, as
# the daemon's timer would (raw samples kept 7 days, 1-minute rollups 90 days, hourly
# rollups for good), so each database is what the daemon would have left. For each
# file: its size, its pages and free pages (PRAGMA page_count, freelist_count), the
# bytes each table and its indexes take (dbstat), and the growth over the year before.
#
# Usage: tests/bench/storage-bench.sh BUILD_DIR [YEARS="1 2 3"]
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR [YEARS]}
years=${2:-"1 2 3"}
tmp=$(mktemp -d /tmp/nvmond-storage.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

q() { python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(*c.execute(sys.argv[2]).fetchone())' "$@"; }

printf '| years | file (MB) | pages | free pages | samples (MB) | rollups (MB) | growth over the year before (MB) |\n'
printf '|---|---|---|---|---|---|---|\n'
prev=0
for y in $years; do
	db="$tmp/$y.db"
	"$build/tests/nvmond-histgen" "$db" $((365 * y)) 1 10 > /dev/null
	size=$(stat -c %s "$db")
	pages=$(q "$db" "PRAGMA page_count")
	free=$(q "$db" "PRAGMA freelist_count")
	# dbstat: a table's bytes with its indexes (sqlite_autoindex_*, idx_*)
	samples=$(q "$db" "SELECT sum(pgsize) FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name = 'samples')")
	rollups=$(q "$db" "SELECT sum(pgsize) FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name = 'rollups')")
	awk -v y="$y" -v s="$size" -v p="$pages" -v f="$free" -v sa="$samples" -v ro="$rollups" \
		-v prev="$prev" 'BEGIN { printf "| %d | %.1f | %d | %d | %.1f | %.1f | %s |\n", y, s / 1e6, p, f,
			sa / 1e6, ro / 1e6, prev ? sprintf("%.1f", (s - prev) / 1e6) : "" }'
	prev=$size
	rm -f "$db" "$db-wal" "$db-shm"
done
