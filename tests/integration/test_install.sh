#!/usr/bin/env bash
# `cmake --install` end to end:
#  1. into a DESTDIR: binary, unit (ExecStart for this prefix, sandbox rated OK),
#     the sysusers.d file of its User=nvmond (valid for systemd-sysusers; not run
#     on this machine for a DESTDIR install) and the tmpfiles.d file of its
#     directories (valid for systemd-tmpfiles, in a root of its own),
#     sample config (kept when one exists), man pages (render without warnings,
#     name every option and key), migrations, web assets, Prometheus files;
#  2. a build configured for a temporary prefix, installed there: the installed
#     daemon serves the installed web assets (not the source tree's).
#  3. CLI fit: --help names every option main.c accepts; NO_COLOR is respected.
# Env: NVMOND_BIN, NVMOND_SRC, NVMOND_BUILD (set by ctest).
set -u
. "$(dirname "$0")/lib.sh"
: "${NVMOND_SRC:?}" "${NVMOND_BUILD:?}"
command -v cmake > /dev/null || { echo "SKIP: cmake not installed"; exit 77; }

cache() { sed -n "s/^$1:[A-Z]*=//p" "$NVMOND_BUILD/CMakeCache.txt"; }
PREFIX=$(cache CMAKE_INSTALL_PREFIX)
[ -n "$PREFIX" ] || fail "no CMAKE_INSTALL_PREFIX in $NVMOND_BUILD/CMakeCache.txt"

# ---- 1. DESTDIR install ------------------------------------------------------------
D=$TMP/dest
DESTDIR=$D cmake --install "$NVMOND_BUILD" > "$TMP/install.log" 2>&1 ||
	fail "cmake --install: $(tail -5 "$TMP/install.log")"
for f in sbin/nvmond lib/systemd/system/nvmond.service lib/sysusers.d/nvmond.conf \
	lib/tmpfiles.d/nvmond.conf share/doc/nvmond/changelog.gz share/doc/nvmond/copyright \
	share/man/man8/nvmond.8 \
	share/man/man5/nvmond.conf.5 share/doc/nvmond/nvmond.conf share/nvmond/web/index.html \
	share/nvmond/migrations/0001_init.sql share/nvmond/prometheus/nvmond.rules.yml \
	share/nvmond/prometheus/grafana-dashboard.json share/nvmond/prometheus/scrape.yml; do
	[ -f "$D$PREFIX/$f" ] || fail "not installed: $PREFIX/$f"
done
[ -x "$D$PREFIX/sbin/nvmond" ] || fail "installed binary not executable"
[ -f "$D/etc/nvmond/nvmond.conf" ] || fail "not installed: /etc/nvmond/nvmond.conf"
# Staged, it has no group nvmond yet: 0644, for a package's postinst to make root:nvmond 0640.
[ "$(stat -c %a "$D/etc/nvmond/nvmond.conf")" = 644 ] ||
	fail "staged /etc/nvmond/nvmond.conf is $(stat -c %a "$D/etc/nvmond/nvmond.conf"), want 644"
n_src=$(ls "$NVMOND_SRC"/migrations/*.sql | wc -l)
n_inst=$(ls "$D$PREFIX"/share/nvmond/migrations/*.sql | wc -l)
[ "$n_src" = "$n_inst" ] || fail "$n_inst of $n_src migrations installed"
"$D$PREFIX/sbin/nvmond" --version | grep -q '^nvmond [0-9]' || fail "installed binary: --version"

unit=$D$PREFIX/lib/systemd/system/nvmond.service
grep -qx "ExecStart=$PREFIX/sbin/nvmond --config /etc/nvmond/nvmond.conf --db /var/lib/nvmond/nvmond.db" \
	"$unit" || fail "installed unit: $(grep ExecStart "$unit")"
if command -v systemd-analyze > /dev/null; then
	systemd-analyze security --offline=true --no-pager "$unit" > "$TMP/sec.txt" 2>&1 ||
		fail "systemd-analyze security: $(tail -3 "$TMP/sec.txt")"
	exposure=$(sed -n 's/.*Overall exposure level.*: \([0-9.]*\) .*/\1/p' "$TMP/sec.txt")
	python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= 4.0 else 1)" "$exposure" ||
		fail "installed unit exposure $exposure > 4.0"
	echo "ok: installed unit: exposure $exposure"
fi

# The unit's user: systemd-sysusers makes it from the installed file (in a root
# of its own); a DESTDIR install leaves this machine's users alone.
grep -q '^User=nvmond$' "$unit" || fail "installed unit without User=nvmond"
grep 'Running: .*sysusers' "$TMP/install.log" &&
	fail "a DESTDIR install ran systemd-sysusers on this machine"
if command -v systemd-sysusers > /dev/null; then
	mkdir -p "$TMP/sysroot/etc"
	systemd-sysusers --root="$TMP/sysroot" "$D$PREFIX/lib/sysusers.d/nvmond.conf" \
		> "$TMP/sysusers.log" 2>&1 || fail "systemd-sysusers: $(cat "$TMP/sysusers.log")"
	grep -q '^nvmond:x:[0-9]*:[0-9]*:nvmond NVMe monitor:/var/lib/nvmond:' "$TMP/sysroot/etc/passwd" ||
		fail "systemd-sysusers made no user nvmond: $(cat "$TMP/sysroot/etc/passwd" "$TMP/sysusers.log")"
	grep -q '^nvmond:' "$TMP/sysroot/etc/group" || fail "systemd-sysusers made no group nvmond"
	echo "ok: sysusers.d/nvmond.conf makes the user and group nvmond"
	# tmpfiles.d: the two directories, nvmond's; a database a root-run version
	# left there becomes nvmond's too (else the daemon, as nvmond, cannot open it).
	mkdir -p "$TMP/sysroot/var/lib/nvmond" && touch "$TMP/sysroot/var/lib/nvmond/nvmond.db"
	systemd-tmpfiles --root="$TMP/sysroot" --create "$D$PREFIX/lib/tmpfiles.d/nvmond.conf" \
		> "$TMP/tmpfiles.log" 2>&1 || fail "systemd-tmpfiles: $(cat "$TMP/tmpfiles.log")"
	uid=$(awk -F: '$1 == "nvmond" { print $3 }' "$TMP/sysroot/etc/passwd")
	for want in "var/lib/nvmond 750 $uid" "run/nvmond 700 $uid" "var/lib/nvmond/nvmond.db 644 $uid"; do
		set -- $want
		[ "$(stat -c '%a %u' "$TMP/sysroot/$1")" = "$2 $3" ] ||
			fail "tmpfiles.d: $1 is $(stat -c '%a %u' "$TMP/sysroot/$1"), want $2 $3"
	done
	echo "ok: tmpfiles.d/nvmond.conf makes /var/lib/nvmond and /run/nvmond nvmond's, and what is in the first"
fi

# An existing configuration survives a reinstall.
echo "# local edit $$" >> "$D/etc/nvmond/nvmond.conf"
DESTDIR=$D cmake --install "$NVMOND_BUILD" > "$TMP/install2.log" 2>&1 || fail "second install"
grep -q "# local edit $$" "$D/etc/nvmond/nvmond.conf" || fail "install overwrote /etc/nvmond/nvmond.conf"
grep -q "Keeping: $D/etc/nvmond/nvmond.conf" "$TMP/install2.log" || fail "no 'Keeping' message"
echo "ok: DESTDIR layout; existing nvmond.conf kept"

# Man pages: render cleanly, and name every option and every key.
if command -v groff > /dev/null; then
	for m in man8/nvmond.8 man5/nvmond.conf.5; do
		out=$(LC_ALL=C.UTF-8 groff -k -man -Tutf8 -ww -z "$D$PREFIX/share/man/$m" 2>&1)
		[ -z "$out" ] || fail "groff warns on $m: $out"
	done
	LC_ALL=C.UTF-8 groff -k -man -Tutf8 -P-cbou "$D$PREFIX/share/man/man8/nvmond.8" > "$TMP/nvmond.8.txt"
	LC_ALL=C.UTF-8 groff -k -man -Tutf8 -P-cbou "$D$PREFIX/share/man/man5/nvmond.conf.5" > "$TMP/nvmond.conf.5.txt"
fi
opts=$(cat "$NVMOND_SRC"/daemon/main/main*.c | sed -n 's/^[[:space:]]*{"\([a-z-]*\)", *[a-z_]*argument.*/\1/p' | sort -u)
[ -n "$opts" ] || fail "no long options found in daemon/main/main*.c"
"$NVMOND_BIN" --help > "$TMP/help.txt" || fail "--help exited non-zero"
for o in $opts; do
	grep -q -- "--$o\b" "$TMP/help.txt" || fail "--help does not list --$o"
	if [ -f "$TMP/nvmond.8.txt" ]; then
		grep -q -- "--$o\b" "$TMP/nvmond.8.txt" || fail "nvmond(8) does not list --$o"
	fi
done
grep -q "Exit status" "$TMP/help.txt" || fail "--help does not document exit codes"
keys=$(sed -n 's/^#\([a-z_]*\) =.*/\1/p' "$NVMOND_SRC/systemd/nvmond.conf")
if [ -f "$TMP/nvmond.conf.5.txt" ]; then
	for k in $keys; do
		grep -q "^ *$k = " "$TMP/nvmond.conf.5.txt" || fail "nvmond.conf(5) lacks $k"
	done
fi
echo "ok: --help and nvmond(8) list $(echo $opts | wc -w) options; nvmond.conf(5) $(echo $keys | wc -w) keys"

# ---- 3. NO_COLOR: color only on a terminal, and never with NO_COLOR ------------------
if command -v script > /dev/null; then
	script -qec "$NVMOND_BIN status --demo --config /dev/null" /dev/null > "$TMP/tty.txt" 2>&1
	NO_COLOR=1 script -qec "$NVMOND_BIN status --demo --config /dev/null" /dev/null > "$TMP/tty-nc.txt" 2>&1
	"$NVMOND_BIN" status --demo --config /dev/null > "$TMP/pipe.txt" 2>&1
	grep -q $'\e\[' "$TMP/tty.txt" || fail "no color on a terminal: $(cat "$TMP/tty.txt")"
	grep -q $'\e\[' "$TMP/tty-nc.txt" && fail "color despite NO_COLOR"
	grep -q $'\e\[' "$TMP/pipe.txt" && fail "color into a pipe"
	grep -q 'demo0' "$TMP/tty-nc.txt" || fail "status output missing: $(cat "$TMP/tty-nc.txt")"
	echo "ok: status colors on a terminal only, NO_COLOR respected"
fi

# ---- 2. a build for a temporary prefix finds its installed assets -------------------
if [ "$(cache NVMOND_SANITIZE)" = ON ]; then
	echo "SKIP (part): prefix build (done by the plain build's run)"
	pass
fi
P=$TMP/prefix
cmake -S "$NVMOND_SRC" -B "$TMP/build" -DNVMOND_TESTS=OFF -DCMAKE_BUILD_TYPE=Release \
	-DCMAKE_INSTALL_PREFIX="$P" > "$TMP/pb.log" 2>&1 || fail "configure: $(tail -5 "$TMP/pb.log")"
cmake --build "$TMP/build" -j2 --target nvmond nvmond_man nvmond_deb_changelog > "$TMP/pb.log" 2>&1 ||
	fail "build: $(tail -5 "$TMP/pb.log")"
# /etc is outside the prefix: install everything but that into the prefix via DESTDIR=/.
DESTDIR=$TMP/root cmake --install "$TMP/build" > "$TMP/pi.log" 2>&1 ||
	fail "install: $(tail -5 "$TMP/pi.log")"
rm -rf "$P" && mv "$TMP/root$P" "$P" || fail "prefix layout"
marker="installed-copy-$$-$RANDOM"
echo "<!-- $marker -->" >> "$P/share/nvmond/web/index.html"
NVMOND_BIN=$P/sbin/nvmond
cd / || fail "cd /"
start_daemon --demo --db "$TMP/pdb" --config /dev/null
http_get / | grep -q "$marker" || fail "the installed daemon does not serve $P/share/nvmond/web"
stop_daemon
echo "ok: a build for prefix $P serves its installed web assets"
pass
