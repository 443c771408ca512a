#!/usr/bin/env bash
# A long run, short (issue 23 §5; docs/architecture.md#a-long-run; the hour-long one is
# tests/bench/soak-bench.sh): 32 demo drives polled every 0.1 s for 150 s (about 48,000
# drive-polls) with the API under a light load (a dashboard and a Prometheus). Past the
# first 60 s, a clear leak fails it, naming the figure: the daemon's memory allocated and
# not freed (nvmond_malloc_in_use_bytes) growing by more than 2 MiB per 100,000
# drive-polls (20 bytes each; a 64-byte malloc left in on_smart: 7,891); either
# process's private anonymous memory at its lowest by more than 8 MiB (the
# allocator may keep 1 MiB free atop each thread's arena, so its readings jump by a MiB
# with no leak: a CI run fitted 3,654 KiB to one such jump at its end), RSS by 16;
# a descriptor or a thread more at the end, the database by more than 1 KiB per
# drive-poll, an API request that failed. CPU per drive-poll is shown, not held: it
# grows while the rollups' 5-minute grace fills.
# An ASan build is skipped: its quarantine holds freed memory (its own leak check runs
# at the exit of every test). Env (ctest): NVMOND_BIN, NVMOND_SRC.
set -u
command -v python3 > /dev/null || { echo "SKIP: python3 not installed"; exit 77; }
. "$(dirname "$0")/lib.sh"
if ldd "$NVMOND_BIN" 2> /dev/null | grep -q libasan; then
	echo "SKIP: an ASan build: its quarantine keeps freed memory, the figures would be its"
	exit 77
fi
rc=0
python3 "$(dirname "$0")/soak.py" "$NVMOND_BIN" "$NVMOND_SRC/web" "$TMP" 150 \
	--warmup 60 --every 5 --check --max-malloc 2048 --max-anon 8192 > "$TMP/soak.out" || rc=$?
cat "$TMP/soak.out"
[ "$rc" = 0 ] || fail "$(grep -E '^grows|^failed' "$TMP/soak.out" | head -5)"
pass
