#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The docs agree with nvmond (issue 28): every list the docs repeat is compared with its one
# source, every JSON example parses and has the daemon's keys, and every `$ nvmond …` example
# runs with the output it shows. See docs_agree.py for each check; a mismatch names the file,
# the list and the item.
set -u
: "${NVMOND_BIN:?run through ctest, or set NVMOND_BIN}" "${NVMOND_SRC:?}" "${NVMOND_BUILD:?}"
for tool in python3 awk; do
	command -v "$tool" > /dev/null || { echo "SKIP: $tool is missing"; exit 77; }
done
TABLES=${NVMOND_DOCS_TABLES:-$NVMOND_BUILD/tests/nvmond-docs-tables}
[ -x "$TABLES" ] || { echo "FAIL: no $TABLES (build the target nvmond-docs-tables)"; exit 1; }
TMP=$(mktemp -d /tmp/nvmond-test-docs-agree.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
# The manuals as the build makes them (systemd/install.cmake).
MAN5=$NVMOND_BUILD/man/nvmond.conf.5
MAN8=$NVMOND_BUILD/man/nvmond.8
if [ ! -f "$MAN5" ] || [ "$MAN5" -ot "$NVMOND_SRC/systemd/nvmond.conf" ] ||
	[ "$MAN5" -ot "$NVMOND_SRC/systemd/man/conf2man.awk" ]; then
	sed 's/@PROJECT_VERSION@/test/' "$NVMOND_SRC/systemd/man/nvmond.conf.5.in" > "$TMP/nvmond.conf.5.in"
	awk -f "$NVMOND_SRC/systemd/man/conf2man.awk" "$TMP/nvmond.conf.5.in" "$NVMOND_SRC/systemd/nvmond.conf" \
		> "$TMP/nvmond.conf.5" || { echo "FAIL: conf2man.awk"; exit 1; }
	MAN5=$TMP/nvmond.conf.5
fi
if [ ! -f "$MAN8" ] || [ "$MAN8" -ot "$NVMOND_SRC/systemd/man/nvmond.8.in" ]; then
	sed 's/@[A-Z_]*@/x/g' "$NVMOND_SRC/systemd/man/nvmond.8.in" > "$TMP/nvmond.8"
	MAN8=$TMP/nvmond.8
fi
python3 "$NVMOND_SRC/tests/integration/docs_agree.py" --src "$NVMOND_SRC" --bin "$NVMOND_BIN" \
	--tables "$TABLES" --man5 "$MAN5" --man8 "$MAN8" --tmp "$TMP" ${DOCS_AGREE_ONLY:+--only $DOCS_AGREE_ONLY}
