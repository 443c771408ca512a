#!/usr/bin/env bash
# The Debian package end to end (issue 25), in a throw-away Debian 12 root that
# the test makes itself, never the host's:
#  1. `cmake --preset deb` + `--target package` make nvmond_<version>_<arch>.deb
#     whose version is the project's (and --version's), with dependencies from
#     dpkg-shlibdeps, the files and the conffile the issue lists.
#  2. The root: mmdebstrap --variant=minbase of bookworm from this machine's apt
#     sources, with systemd and man-db, and the .deb files of the package's
#     dependencies downloaded, so apt installs offline; a tarball in
#     $NVMOND_BUILD/deb-cache/, reused while the sources and the dependencies
#     are the same (made in the background while 3 builds).
#  3. The previous version's package: the newest earlier commit on main whose
#     schema is older (its migrations/ has fewer files), built from its sources;
#     a commit from before the packaging rules existed gets this commit's
#     (systemd/deb/, CMakePresets.json, the sysusers.d and tmpfiles.d files)
#     laid over its tree, and a version below its own (V~prev.<commit>), so it
#     sorts below this one. Needs the git history: it fails, never skips, when
#     that commit is missing. Cached in deb-cache/ by commit and overlay.
#  4. lintian finds no error and no warning, and every tag it still reports
#     (info) is listed in docs/installing.md.
#  5. Where systemd is not running (systemd-nspawn without --boot): `apt install
#     ./nvmond_<version>_<arch>.deb` succeeds with its dependencies and says what
#     to run later; user, directories, conffile ownership, the enabled unit;
#     `nvmond --version`, `nvmond status --demo --json` and `man nvmond` there;
#     the installed unit rates as docs/installing.md says (systemd-analyze
#     security); purge leaves no file of the package.
#  6. With systemd as PID 1 (systemd-nspawn --boot, its own network): install the
#     previous package (the service starts and records samples), edit the
#     configuration, upgrade to this one (the service restarts, the edit stays,
#     the database is migrated at the new start with every sample kept); the
#     service runs sandboxed as nvmond; systemd-analyze verify is clean; a
#     database from a newer nvmond is refused, its bytes untouched; remove keeps
#     the configuration and the database; purge leaves the file list as it was
#     before the install.
# Skips (77) where a root cannot be made or booted here; with CI=true those fail.
# Env: NVMOND_BIN, NVMOND_SRC, NVMOND_BUILD (set by ctest); NVMOND_DEB_CACHE
# (default $NVMOND_BUILD/deb-cache).
set -u
. "$(dirname "$0")/lib.sh"
: "${NVMOND_SRC:?}" "${NVMOND_BUILD:?}"

T0=$SECONDS
skip() {
	[ "${CI:-}" = true ] && fail "CI must run this test, but: $*"
	echo "SKIP: $*"
	exit 77
}
step() { echo "--- $* ($((SECONDS - T0)) s)"; }

[ "$(id -u)" = 0 ] || skip "needs root (a Debian root, chroot and systemd-nspawn)"
for c in mmdebstrap systemd-nspawn nsenter lintian dpkg-deb git cmake sqlite3 curl; do
	command -v "$c" > /dev/null || skip "$c not installed (.ci/deps)"
done
[ "$(dpkg --print-architecture)" = amd64 ] || skip "the root is made for amd64 only"

CACHE=${NVMOND_DEB_CACHE:-$NVMOND_BUILD/deb-cache}
mkdir -p "$CACHE" || fail "cannot make $CACHE"
R=$TMP/root
NSPAWN_PID=
LEADER=

# lib.sh's cleanup, after the container: never cross into a mount point.
cleanup_deb() {
	# The container is thrown away: its PID 1 killed, every process in it goes.
	if [ -n "$NSPAWN_PID" ] && kill -0 "$NSPAWN_PID" 2> /dev/null; then
		[ -n "$LEADER" ] && kill -KILL "$LEADER" 2> /dev/null
		for _ in $(seq 50); do kill -0 "$NSPAWN_PID" 2> /dev/null || break; sleep 0.1; done
		kill -KILL "$NSPAWN_PID" 2> /dev/null
		wait "$NSPAWN_PID" 2> /dev/null
	fi
	if [ -n "${NVMOND_TEST_KEEP:-}" ]; then
		mkdir -p "$NVMOND_TEST_KEEP/test_deb" && cp "$TMP"/*.log "$TMP"/*.txt \
			"$NVMOND_TEST_KEEP/test_deb/" 2> /dev/null
	fi
	rmdir "/run/systemd/nspawn/propagate/nvmond-deb-$$" 2> /dev/null
	if grep -q " $TMP" /proc/self/mounts; then
		echo "cleanup: $TMP still has mounts, not removed" >&2
	else
		rm -rf --one-file-system "$TMP"
	fi
}
trap cleanup_deb EXIT

# ---- 1. this version's package ------------------------------------------------------
step "1. the package of this tree (cmake --preset deb)"
VERSION=$(sed -n 's/^project(nvmond VERSION \([0-9.]*\) .*/\1/p' "$NVMOND_SRC/CMakeLists.txt")
[ -n "$VERSION" ] || fail "no project(nvmond VERSION …) in CMakeLists.txt"
NEW_BUILD=$NVMOND_BUILD/deb-package
(cd "$NVMOND_SRC" && cmake --preset deb -B "$NEW_BUILD") > "$TMP/new-build.log" 2>&1 &&
	cmake --build "$NEW_BUILD" -j2 --target package >> "$TMP/new-build.log" 2>&1 ||
	fail "building the package: $(tail -15 "$TMP/new-build.log")"
NEW_DEB=$NEW_BUILD/nvmond_${VERSION}_amd64.deb
[ -f "$NEW_DEB" ] || fail "no $NEW_DEB: $(ls "$NEW_BUILD"/*.deb 2>&1)"
[ "$(dpkg-deb -f "$NEW_DEB" Version)" = "$VERSION" ] || fail "package version $(dpkg-deb -f "$NEW_DEB" Version)"
# dpkg-shlibdeps: the libraries the binary links, with their minimum versions.
deps=$(dpkg-deb -f "$NEW_DEB" Depends)
for lib in libsqlite3-0 libmicrohttpd12 libnvme1 libjansson4 libc6; do
	echo "$deps" | grep -q "$lib (>= " || fail "Depends lacks $lib from dpkg-shlibdeps: $deps"
done
dpkg-deb -c "$NEW_DEB" | awk '{print $6}' | sed 's|^\./|/|' > "$TMP/new-files.txt"
for f in /usr/sbin/nvmond /lib/systemd/system/nvmond.service /usr/lib/sysusers.d/nvmond.conf \
	/usr/lib/tmpfiles.d/nvmond.conf /etc/nvmond/nvmond.conf /usr/share/man/man8/nvmond.8.gz \
	/usr/share/man/man5/nvmond.conf.5.gz /usr/share/doc/nvmond/changelog.gz \
	/usr/share/doc/nvmond/copyright /usr/share/nvmond/web/index.html \
	/usr/share/nvmond/web/vendor/uPlot.iife.min.js /usr/share/nvmond/web/vendor/uPlot.min.css \
	/usr/share/nvmond/prometheus/nvmond.rules.yml \
	/usr/share/nvmond/prometheus/grafana-dashboard.json; do
	grep -qx "$f" "$TMP/new-files.txt" || fail "the package lacks $f"
done
dpkg-deb --ctrl-tarfile "$NEW_DEB" 2> /dev/null | tar -xO ./conffiles | grep -qx /etc/nvmond/nvmond.conf ||
	fail "/etc/nvmond/nvmond.conf is not a conffile"
echo "ok: $(basename "$NEW_DEB"): Depends: $deps"

# lintian (in the background while the previous version builds): see below.
lintian --display-info --pedantic "$NEW_DEB" > "$TMP/lintian.txt" 2>&1 &
LINTIAN=$!

# ---- 2. the root (made in the background while the previous version builds) ------
step "2. the Debian 12 root"
# This machine's Debian 12 sources, as apt here reads them (apt-config's
# Dir::Etc): other repositories need keys the root lacks.
etc=$(apt-config shell d Dir::Etc/d | sed "s/^d='\(.*\)'$/\1/")
for f in "$etc/sources.list" "$etc"/sources.list.d/*.list "$etc"/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	if [ "${f%.sources}" != "$f" ]; then
		awk -v RS= '/(^|\n)Suites:[^\n]*bookworm/ && /(^|\n)Types:[^\n]*deb( |$|\n)/ &&
			(!/Signed-By:/ || /debian-archive-keyring/) { print; print "" }' "$f"
	else
		grep -E '^deb +(\[[^]]*\] +)?[a-z]+://[^ ]+ +bookworm' "$f"
	fi
done > "$TMP/sources.all" 2> /dev/null
if grep -q '^Types:' "$TMP/sources.all"; then
	sources=$TMP/sources.sources
	grep -q '^deb ' "$TMP/sources.all" && skip "both sources.list and deb822 lines for bookworm: not handled"
elif [ -s "$TMP/sources.all" ]; then
	sources=$TMP/sources.list
else
	skip "no Debian 12 (bookworm) source in $etc/sources.list*: a Debian 12 root cannot be made here"
fi
cp "$TMP/sources.all" "$sources"
NEW_NAME=$(basename "$NEW_DEB")
# systemd to boot, man-db for man; this package's dependencies (with what they
# recommend, as apt installs them) downloaded, their .deb files kept in
# /var/cache/apt/archives with the lists that name them: apt installs offline.
# Smaller to unpack each run: the lists kept compressed, no translations, apt's
# binary caches (rebuilt when apt runs) left out.
stage=$CACHE/stage
mm_args=(--variant=minbase --include=systemd,man-db --skip=cleanup/apt
	--aptopt='Acquire::GzipIndexes "true"' --dpkgopt='path-exclude=/usr/share/locale/*'
	--customize-hook='rm -f "$1"/var/cache/apt/archives/*.deb'
	--customize-hook="copy-in $stage/$NEW_NAME /tmp"
	--customize-hook="chroot \"\$1\" apt-get install --download-only -y -o APT::Install-Recommends=true /tmp/$NEW_NAME"
	--customize-hook='rm -f "$1"/tmp/*.deb "$1"/var/cache/apt/*.bin')
rkey=$( (cat "$sources"; printf '%s\n' "${mm_args[@]}"; dpkg-deb -f "$NEW_DEB" Depends;
	mmdebstrap --version) | sha256sum | cut -c1-12)
ROOT_TAR=$CACHE/root-$rkey.tar
MMDEBSTRAP=
if [ -f "$ROOT_TAR" ]; then
	echo "ok: root from the cache: $ROOT_TAR"
else
	rm -rf "$CACHE"/root-*.tar
	rm -rf "$stage" && mkdir -p "$stage" && cp "$NEW_DEB" "$stage/"
	mmdebstrap "${mm_args[@]}" bookworm "$ROOT_TAR.part.tar" "$sources" > "$TMP/mmdebstrap.log" 2>&1 &
	MMDEBSTRAP=$!
fi

# ---- 3. the previous version's package ----------------------------------------------
step "3. the previous version's package"
git -C "$NVMOND_SRC" rev-parse --git-dir > /dev/null 2>&1 ||
	skip "$NVMOND_SRC is not a git checkout: the previous version comes from its history"
n_now=$(ls "$NVMOND_SRC"/migrations/*.sql | wc -l)
PREV=
for t in $(git -C "$NVMOND_SRC" log --first-parent --format=%H HEAD -- migrations/); do
	p=$(git -C "$NVMOND_SRC" rev-parse -q --verify "$t^1^{commit}") || break
	if [ "$(git -C "$NVMOND_SRC" ls-tree --name-only "$p" migrations/ | grep -c '\.sql$')" -lt "$n_now" ]; then
		PREV=$p
		break
	fi
done
[ -n "$PREV" ] || fail "no earlier commit with fewer than $n_now migrations in the history of \
$NVMOND_SRC (shallow: $(git -C "$NVMOND_SRC" rev-parse --is-shallow-repository)): this test \
needs the history of main (a full clone)"
prev_src=$TMP/prev-src
mkdir -p "$prev_src" && git -C "$NVMOND_SRC" archive "$PREV" | tar -x -C "$prev_src" ||
	fail "git archive $PREV"
prev_n=$(ls "$prev_src"/migrations/*.sql | wc -l)
PREV_VERSION="$(sed -n 's/^project(nvmond VERSION \([0-9.]*\) .*/\1/p' "$prev_src/CMakeLists.txt")~prev.$(git -C "$NVMOND_SRC" rev-parse --short=7 "$PREV")"
dpkg --compare-versions "$PREV_VERSION" lt "$VERSION" || fail "$PREV_VERSION is not below $VERSION"
# A tree from before the packaging rules gets this tree's, laid over it.
overlay=no
if [ ! -f "$prev_src/systemd/deb/package.cmake" ]; then
	overlay=yes
	cp -r "$NVMOND_SRC/systemd/deb" "$prev_src/systemd/" &&
		cp "$NVMOND_SRC/CMakePresets.json" "$prev_src/" || fail "overlay"
	for f in sysusers:sysusers.d tmpfiles:tmpfiles.d; do
		if [ ! -f "$prev_src/systemd/nvmond.${f%%:*}" ]; then
			cp "$NVMOND_SRC/systemd/nvmond.${f%%:*}" "$prev_src/systemd/"
			echo "install(FILES systemd/nvmond.${f%%:*} DESTINATION lib/${f#*:} RENAME nvmond.conf)" \
				>> "$prev_src/CMakeLists.txt"
		fi
	done
	echo 'include(${CMAKE_SOURCE_DIR}/systemd/deb/package.cmake)' >> "$prev_src/CMakeLists.txt"
fi
mkdir -p "$prev_src/docs"
cat > "$prev_src/docs/changelog" << EOF
nvmond ($PREV_VERSION) bookworm; urgency=medium

  * Commit $PREV (schema version $prev_n), packaged by tests/integration/test_deb.sh
    with a version below its own (packaging rules laid over it: $overlay).

 -- nvmond tests <tests@invalid>  $(date -R)
EOF
# The same pinned chart library: no npm ci for it.
if cmp -s "$NVMOND_SRC/web/package-lock.json" "$prev_src/web/package-lock.json" &&
	[ -f "$NVMOND_SRC/web/vendor/uPlot.iife.min.js" ]; then
	cp -r "$NVMOND_SRC/web/vendor" "$prev_src/web/"
fi
# Cached by the commit and what was laid over it (docs/changelog aside: its date).
key=$( (echo "$PREV $PREV_VERSION"; cd "$prev_src" && cat CMakeLists.txt CMakePresets.json \
	systemd/deb/* systemd/nvmond.sysusers systemd/nvmond.tmpfiles) | sha256sum | cut -c1-12)
PREV_DEB=$CACHE/prev-$key/nvmond_${PREV_VERSION}_amd64.deb
if [ -f "$PREV_DEB" ]; then
	echo "ok: previous package from the cache: $PREV_DEB"
else
	# Only what the package holds: no layering checks, no tests.
	b=$TMP/prev-build
	(cd "$prev_src" && cmake --preset deb -B "$b" -DNVMOND_DEB_VERSION="$PREV_VERSION" \
		-DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON) > "$TMP/prev-build.log" 2>&1 ||
		fail "configuring $PREV: $(tail -15 "$TMP/prev-build.log")"
	targets="nvmond nvmond_man nvmond_deb_changelog"
	grep -q 'web_vendor' "$prev_src/CMakeLists.txt" && targets="$targets web_vendor"
	cmake --build "$b" -j2 --target $targets >> "$TMP/prev-build.log" 2>&1 &&
		(cd "$b" && cpack -G DEB) >> "$TMP/prev-build.log" 2>&1 ||
		fail "building $PREV: $(tail -15 "$TMP/prev-build.log")"
	rm -rf "$CACHE"/prev-*
	mkdir -p "$(dirname "$PREV_DEB")" && cp "$b/nvmond_${PREV_VERSION}_amd64.deb" "$PREV_DEB" ||
		fail "no package from $PREV: $(ls "$b"/*.deb 2>&1)"
fi
echo "ok: previous version: commit $PREV, $prev_n migrations (this tree: $n_now), package $PREV_VERSION (overlay: $overlay)"

if [ -n "$MMDEBSTRAP" ]; then
	step "2. waiting for mmdebstrap"
	wait "$MMDEBSTRAP" ||
		skip "mmdebstrap could not make a Debian 12 root here: $(tail -5 "$TMP/mmdebstrap.log")"
	mv "$ROOT_TAR.part.tar" "$ROOT_TAR" && rm -rf "$stage"
	echo "ok: root made: $ROOT_TAR ($(du -m "$ROOT_TAR" | cut -f1) MiB, $(grep -o 'success in [0-9]*' "$TMP/mmdebstrap.log" | cut -d' ' -f3) s)"
fi

wait "$LINTIAN"
step "4. lintian"
grep -E '^[EW]: ' "$TMP/lintian.txt" && fail "lintian: errors or warnings (above)"
# Every tag left is in docs/installing.md's lintian table, with why.
while read -r tag; do
	grep -q "^| \`$tag\` |" "$NVMOND_SRC/docs/installing.md" ||
		fail "lintian tag $tag is not listed in docs/installing.md: $(grep ": $tag" "$TMP/lintian.txt")"
done < <(sed -n 's/^[IPX]: nvmond[^:]*: \([a-z0-9.+-]*\).*/\1/p' "$TMP/lintian.txt" | sort -u)
echo "ok: lintian --display-info --pedantic: 0 errors, 0 warnings, $(grep -c '^[IPX]: ' "$TMP/lintian.txt") other tags, each in docs/installing.md"

mkdir -p "$R" && tar -C "$R" -xf "$ROOT_TAR" || fail "unpacking $ROOT_TAR"
mkdir -p "$R/root/debs" && cp "$NEW_DEB" "$PREV_DEB" "$R/root/debs/" || fail "copying the packages in"
NEW=./$NEW_NAME
PREVPKG=./$(basename "$PREV_DEB")

NS_OPTS=(-q -D "$R" --register=no --keep-unit --resolv-conf=off --timezone=off --link-journal=no
	--machine="nvmond-deb-$$")
ENV=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive
	TERM=dumb)
# in_root CMD…: in the root, systemd not running (a container without --boot).
# (nspawn's note that it leaves /run/systemd/nspawn/propagate/NAME on a /run that
# is no tmpfs, as here, is dropped.)
in_root() {
	systemd-nspawn "${NS_OPTS[@]}" --private-network --console=pipe --chdir=/root/debs \
		"${ENV[@]}" "$@" < /dev/null 2> >(grep -v '^Attempted to remove disk file system' >&2)
}
# in_booted CMD…: in the booted root (systemd is PID 1).
in_booted() {
	nsenter -t "$LEADER" -a "${ENV[@]}" sh -c 'cd /root/debs && exec "$@"' sh "$@" < /dev/null
}
# A list of the root's files, to compare: what the container makes for itself
# while it runs (its journal, apt's logs and lists, systemd's state, /tmp) is left out.
file_list() {
	(cd "$R" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./run \
		-o -path ./tmp -o -path ./var/tmp -o -path ./var/log -o -path ./var/cache/apt \
		-o -path ./var/lib/apt -o -path ./var/lib/systemd/timers \
		-o -path ./var/lib/systemd/random-seed -o -path ./var/cache/man -o -path ./root/debs \) \
		-prune -o -print | sort)
}
unit_exposure() { # FILE (in the root), with the systemd-analyze of the root
	in_root systemd-analyze security --offline=true --no-pager "$1" 2>&1 |
		sed -n 's/.*Overall exposure level.*: \([0-9.]*\) .*/\1/p'
}
doc_exposure=$(sed -n 's/.*nvmond.service` rates it \*\*\([0-9.]*\) OK\*\*.*/\1/p' "$NVMOND_SRC/docs/installing.md")
[ -n "$doc_exposure" ] || fail "docs/installing.md names no exposure figure"

# The previous version needs what this one does, as a rule; what else it needs
# is downloaded now (not cached).
names() { dpkg-deb -f "$1" Depends | tr ',|' '\n\n' | sed 's/(.*//; s/ //g' | sort -u; }
extra=$(comm -23 <(names "$PREV_DEB") <(names "$NEW_DEB"))
if [ -n "$extra" ]; then
	echo "the previous version also needs: $extra (downloading)"
	systemd-nspawn "${NS_OPTS[@]}" --console=pipe --chdir=/root/debs "${ENV[@]}" \
		apt-get install --download-only -y -o APT::Install-Recommends=true "$PREVPKG" \
		> "$TMP/prev-deps.log" 2>&1 < /dev/null || fail "downloading $extra: $(tail -5 "$TMP/prev-deps.log")"
fi

# ---- 5. systemd not running -------------------------------------------------------------
step "5. install, check, purge where systemd is not running"
in_root true > "$TMP/nspawn.log" 2>&1 || skip "systemd-nspawn cannot run the root here: $(tail -5 "$TMP/nspawn.log")"
file_list > "$TMP/files-fresh.txt"
in_root apt install -y "$NEW" > "$TMP/a-install.log" 2>&1 ||
	fail "apt install $NEW in the root: $(tail -20 "$TMP/a-install.log")"
grep -q "^Setting up nvmond ($VERSION)" "$TMP/a-install.log" || fail "not set up: $(tail "$TMP/a-install.log")"
grep -q '^Setting up libsqlite3-0' "$TMP/a-install.log" || fail "apt installed no dependency"
grep -q '^nvmond: systemd is not running here.*systemctl start nvmond' "$TMP/a-install.log" ||
	fail "postinst said nothing of what to run later: $(tail "$TMP/a-install.log")"
grep -E '^(E|W): |^dpkg: (error|warning)|[Ff]ailed' "$TMP/a-install.log" &&
	fail "apt install printed errors or warnings (above)"
in_root sh -c 'getent passwd nvmond; stat -c "%n %U:%G %a" /var/lib/nvmond /etc/nvmond/nvmond.conf;
	readlink /etc/systemd/system/multi-user.target.wants/nvmond.service' > "$TMP/a-state.txt" 2>&1
grep -q '^nvmond:x:[0-9]*:[0-9]*:nvmond NVMe monitor:/var/lib/nvmond:' "$TMP/a-state.txt" &&
	grep -qx '/var/lib/nvmond nvmond:nvmond 750' "$TMP/a-state.txt" &&
	grep -qx '/etc/nvmond/nvmond.conf root:nvmond 640' "$TMP/a-state.txt" &&
	grep -qx '/lib/systemd/system/nvmond.service' "$TMP/a-state.txt" ||
	fail "after install: user, state directory, conffile or enabled unit: $(cat "$TMP/a-state.txt")"
[ "$(in_root nvmond --version)" = "nvmond $VERSION" ] || fail "nvmond --version: $(in_root nvmond --version 2>&1)"
in_root nvmond status --demo --json --config /dev/null > "$TMP/a-status.json" 2> "$TMP/a-status.err" ||
	fail "nvmond status --demo --json: $(cat "$TMP/a-status.err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["devices"]; assert len(d) == 2 and d[0]["serial"], d' \
	"$TMP/a-status.json" || fail "status --json: $(head -c 300 "$TMP/a-status.json")"
in_root sh -c 'MANPAGER=cat MANWIDTH=80 man nvmond; MANPAGER=cat man 5 nvmond.conf' > "$TMP/a-man.txt" 2>&1 ||
	fail "man nvmond: $(tail -5 "$TMP/a-man.txt")"
grep -q -- '--config' "$TMP/a-man.txt" && grep -q 'poll_interval' "$TMP/a-man.txt" ||
	fail "man nvmond / nvmond.conf(5): $(head -20 "$TMP/a-man.txt")"
exposure=$(unit_exposure /lib/systemd/system/nvmond.service)
[ "$exposure" = "$doc_exposure" ] ||
	fail "the installed unit rates ${exposure:-nothing}, docs/installing.md says $doc_exposure"
echo "ok: installed without systemd: user, /var/lib/nvmond, conffile root:nvmond 0640, unit enabled; --version, status --json, man; exposure $exposure"
dpkg-query --admindir="$R/var/lib/dpkg" -L nvmond > "$TMP/a-owned.txt" || fail "dpkg -L nvmond"
in_root apt purge -y nvmond > "$TMP/a-purge.log" 2>&1 || fail "apt purge: $(tail "$TMP/a-purge.log")"
# The dependencies stay (apt purge removes only nvmond), so: nothing of nvmond's.
while read -r f; do
	case $f in /etc | /lib | /lib/systemd | /lib/systemd/system | /usr | /usr/* | /usr/share/*) [ -d "$R$f" ] && continue ;; esac
	[ -e "$R$f" ] && fail "purge left $f"
done < "$TMP/a-owned.txt"
# (man-db's cache of formatted pages, /var/cache/man, is man-db's: its daily job
# drops the pages of removed manuals.)
left=$(cd "$R" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./root/debs -o -path ./var/cache/man \) \
	-prune -o -name '*nvmond*' -print)
[ -z "$left" ] || fail "purge left: $left"
echo "ok: purged without systemd: no file of the package, nothing named nvmond"

# ---- 6. systemd running ---------------------------------------------------------------
step "6. boot the root (systemd-nspawn --boot)"
systemd-nspawn "${NS_OPTS[@]}" --boot --private-network --console=pipe > "$TMP/boot.log" 2>&1 &
NSPAWN_PID=$!
leader() {
	LEADER=$(pgrep -P "$NSPAWN_PID" -x systemd | head -1)
	[ -n "$LEADER" ]
}
wait_for 30 leader || skip "systemd-nspawn --boot started no systemd here: $(tail -5 "$TMP/boot.log")"
booted() {
	state=$(nsenter -t "$LEADER" -a systemctl is-system-running 2>&1)
	case $state in running | degraded) return 0 ;; esac
	return 1
}
wait_for 60 booted || skip "the booted root is '$state' after 60 s: $(tail -5 "$TMP/boot.log")"
file_list > "$TMP/files-before.txt"

step "6a. install the previous version"
in_booted apt install -y "$PREVPKG" > "$TMP/b-install.log" 2>&1 ||
	fail "apt install $PREVPKG: $(tail -20 "$TMP/b-install.log")"
grep -q '^nvmond: systemd is not running' "$TMP/b-install.log" && fail "postinst thinks systemd is not running"
[ "$(in_booted systemctl is-active nvmond)" = active ] ||
	fail "the previous version's service is not active: $(in_booted systemctl status nvmond --no-pager 2>&1 | tail -20)"
DB=$R/var/lib/nvmond/nvmond.db
q() { sqlite3 "file:$DB?mode=ro" "$1"; }
samples() { [ "$(q 'select count(*) from samples' 2> /dev/null || echo 0)" -ge "$1" ]; }
wait_for 30 samples 20 || fail "the previous version stored no samples: $(in_booted journalctl -u nvmond --no-pager | tail)"
[ "$(q 'pragma user_version')" = "$prev_n" ] || fail "schema $(q 'pragma user_version'), want $prev_n"
# An admin's edit of the conffile (the demo drives poll every 2 s from now on).
printf '\n# local edit %s\n[daemon]\npoll_interval = 2s\n' "$$" >> "$R/etc/nvmond/nvmond.conf"
old_pid=$(in_booted systemctl show -p MainPID --value nvmond)
old_start=$(in_booted systemctl show -p ExecMainStartTimestampMonotonic --value nvmond)
echo "ok: $PREV_VERSION running (pid $old_pid), schema $prev_n, $(q 'select count(*) from samples') samples"

step "6b. upgrade to this version"
in_booted systemctl stop nvmond # a consistent count of what the old version stored
t_old=$(q 'select max(ts_ms) from samples')
# The history as it stands, in what no pruning touches: the raw samples of the
# last 6 days (kept 7), the 1-hour rollups before the last 2 hours (kept for
# ever), the alerts and throttle events stored so far (by id: the new version may
# add a late event that began before the stop, when the drive's counters say so).
a_max=$(q 'select coalesce(max(id), 0) from alerts')
e_max=$(q 'select coalesce(max(id), 0) from throttle_events')
history() {
	q "select (select count(*) from samples where ts_ms > $t_old - 6 * 86400000 and ts_ms <= $t_old),
		(select count(*) || '/' || sum(n) from rollups where res_s = 3600 and ts_ms < $t_old - 7200000),
		(select count(*) from alerts where id <= $a_max),
		(select count(*) from throttle_events where id <= $e_max)"
}
h_old=$(history)
n_old=$(q "select count(*) from samples where ts_ms > $t_old - 6 * 86400000")
in_booted systemctl start nvmond
old_pid=$(in_booted systemctl show -p MainPID --value nvmond)
# Keep the admin's file; dpkg puts the new one beside it (as an admin's apt would be told).
in_booted apt install -y -o Dpkg::Options::=--force-confold "$NEW" > "$TMP/b-upgrade.log" 2>&1 ||
	fail "the upgrade: $(tail -20 "$TMP/b-upgrade.log")"
grep -q "^Unpacking nvmond ($VERSION) over ($PREV_VERSION)" "$TMP/b-upgrade.log" ||
	fail "not an upgrade: $(grep -i nvmond "$TMP/b-upgrade.log")"
[ "$(in_booted systemctl is-active nvmond)" = active ] ||
	fail "not active after the upgrade: $(in_booted journalctl -u nvmond --no-pager | tail -20)"
new_pid=$(in_booted systemctl show -p MainPID --value nvmond)
new_start=$(in_booted systemctl show -p ExecMainStartTimestampMonotonic --value nvmond)
[ "$new_pid" != "$old_pid" ] && [ "$new_start" -gt "$old_start" ] ||
	fail "the upgrade did not restart the service (pid $old_pid → $new_pid)"
# (PIDs are the container's: /proc is read in there.)
[ "$(in_booted readlink "/proc/$new_pid/exe")" = /usr/sbin/nvmond ] ||
	fail "pid $new_pid runs $(in_booted readlink "/proc/$new_pid/exe")"
grep -q "# local edit $$" "$R/etc/nvmond/nvmond.conf" || fail "the upgrade lost the admin's edit"
if dpkg-deb --fsys-tarfile "$PREV_DEB" 2> /dev/null | tar -xO ./etc/nvmond/nvmond.conf |
	cmp -s - "$NVMOND_SRC/systemd/nvmond.conf"; then
	[ ! -e "$R/etc/nvmond/nvmond.conf.dpkg-dist" ] || fail "a .dpkg-dist for an unchanged conffile"
else
	cmp -s "$R/etc/nvmond/nvmond.conf.dpkg-dist" "$NVMOND_SRC/systemd/nvmond.conf" ||
		fail "the new conffile is not beside the admin's as nvmond.conf.dpkg-dist"
fi
# (Owners by the root's names: in there.)
[ "$(in_booted stat -c '%U:%G %a' /etc/nvmond/nvmond.conf)" = "root:nvmond 640" ] ||
	fail "conffile after the upgrade: $(in_booted stat -c '%U:%G %a' /etc/nvmond/nvmond.conf)"
# Migrated by the new daemon at its start (READY=1 comes after), every old sample kept.
[ "$(q 'pragma user_version')" = "$n_now" ] || fail "schema $(q 'pragma user_version') after the upgrade, want $n_now"
[ "$(history)" = "$h_old" ] || fail "history (samples|rollups/n|alerts|events) before the upgrade $h_old, after $(history)"
newer() { [ "$(q "select count(*) from samples where ts_ms > $t_old")" -ge 4 ]; }
wait_for 20 newer || fail "no new samples after the upgrade"
[ "$(in_booted nvmond --version)" = "nvmond $VERSION" ] || fail "--version after the upgrade"
metrics=$(nsenter -t "$LEADER" -n curl -fsS --max-time 5 http://127.0.0.1:9470/metrics) ||
	fail "GET /metrics in the root"
echo "$metrics" | grep -qx "nvmond_build_info{version=\"$VERSION\"} 1" ||
	fail "nvmond_build_info: $(echo "$metrics" | grep build_info)"
grep -q 'poll_interval = 2s' "$R/etc/nvmond/nvmond.conf" || fail "edit"
echo "ok: upgraded $PREV_VERSION → $VERSION: restarted (pid $old_pid → $new_pid), edit kept, schema $prev_n → $n_now, history kept (samples|rollups/n|alerts|events: $h_old), /metrics version $VERSION"

step "6c. the running service's sandbox"
st() { in_booted cat "/proc/$1/status" | awk -v k="$2:" '$1 == k { print $2 }'; }
uid=$(in_booted id -u nvmond)
[ "$(st "$new_pid" Uid)" = "$uid" ] || fail "the daemon runs as uid $(st "$new_pid" Uid), not nvmond ($uid)"
[ "$(st "$new_pid" CapEff)" = 0000000000000000 ] || fail "the daemon holds capabilities: $(st "$new_pid" CapEff)"
[ "$(st "$new_pid" NoNewPrivs)" = 1 ] && [ "$(st "$new_pid" Seccomp)" = 2 ] ||
	fail "no no_new_privs or seccomp filter"
dev=$(in_booted cat "/proc/$new_pid/task/$new_pid/children" | awk '{ print $1 }')
[ -n "$dev" ] && [ "$(in_booted cat "/proc/$dev/comm")" = nvmond-dev ] || fail "no device process"
[ "$(st "$dev" CapEff)" = 0000000000200002 ] || fail "the device process's CapEff $(st "$dev" CapEff)"
[ "$(in_booted stat -c %U /var/lib/nvmond/nvmond.db)" = nvmond ] ||
	fail "the database belongs to $(in_booted stat -c %U /var/lib/nvmond/nvmond.db)"
in_booted systemd-analyze verify --man=no /lib/systemd/system/nvmond.service > "$TMP/verify.txt" 2>&1
[ -s "$TMP/verify.txt" ] && fail "systemd-analyze verify: $(cat "$TMP/verify.txt")"
exposure=$(in_booted systemd-analyze security --offline=true --no-pager /lib/systemd/system/nvmond.service |
	sed -n 's/.*Overall exposure level.*: \([0-9.]*\) .*/\1/p')
[ "$exposure" = "$doc_exposure" ] || fail "exposure $exposure, docs say $doc_exposure"
echo "ok: runs as nvmond (uid $uid) without capabilities, no_new_privs, seccomp; device process CapEff 0x200002; verify clean; exposure $exposure"

step "6d. a database from a newer nvmond"
in_booted systemctl stop nvmond
sqlite3 "$DB" "pragma user_version = $((n_now + 1))"
sum=$(sha256sum < "$DB")
in_booted systemctl start nvmond > "$TMP/newer.log" 2>&1 && fail "started with a newer database"
refused() { in_booted journalctl -u nvmond --no-pager | grep -q "schema version $((n_now + 1)) is newer than this nvmond.*not opened"; }
wait_for 10 refused || fail "no clear refusal in the journal: $(in_booted journalctl -u nvmond --no-pager | tail -5)"
# Exit status 3 is not restarted (RestartPreventExitStatus=3): the unit fails
# and stays so, instead of retrying every 5 s (activating (auto-restart)).
unit_state() { in_booted systemctl show -p ActiveState -p ExecMainStatus -p NRestarts nvmond | sort | tr '\n' ' '; }
gave_up() { [ "$(unit_state)" = "ActiveState=failed ExecMainStatus=3 NRestarts=0 " ]; }
wait_for 10 gave_up || fail "a newer database: the unit is '$(unit_state)', want failed with status 3, not restarted"
in_booted systemctl stop nvmond
[ "$(sha256sum < "$DB")" = "$sum" ] || fail "the refused database's bytes changed"
[ -e "$DB-wal" ] || [ -e "$DB-shm" ] && fail "the refusal made a -wal or -shm file"
sqlite3 "$DB" "pragma user_version = $n_now"
in_booted chown nvmond:nvmond /var/lib/nvmond/nvmond.db
in_booted systemctl reset-failed nvmond
in_booted systemctl start nvmond || fail "not started again: $(in_booted journalctl -u nvmond --no-pager | tail -5)"
echo "ok: refused: $(in_booted journalctl -u nvmond --no-pager -o cat | grep -m1 'is newer than')"

step "6e. remove, then purge"
n_kept=$(q 'select count(*) from samples' 2> /dev/null)
in_booted apt remove -y nvmond > "$TMP/b-remove.log" 2>&1 || fail "apt remove: $(tail "$TMP/b-remove.log")"
in_booted systemctl is-active nvmond > /dev/null && fail "the service still runs after remove"
for p in $(pgrep -x nvmond; pgrep -x nvmond-dev); do
	[ "$(readlink "/proc/$p/root")" = "$R" ] && fail "an nvmond process (pid $p) is left after remove"
done
[ -f "$DB" ] && [ "$(q 'select count(*) from samples')" -ge "$n_kept" ] || fail "remove lost the database"
grep -q "# local edit $$" "$R/etc/nvmond/nvmond.conf" || fail "remove lost the configuration"
in_booted dpkg-query -W -f '${db:Status-Abbrev}' nvmond | grep -q '^rc' || fail "not in config-files state"
in_booted apt purge -y nvmond > "$TMP/b-purge.log" 2>&1 || fail "apt purge: $(tail "$TMP/b-purge.log")"
file_list > "$TMP/files-after.txt"
diff "$TMP/files-before.txt" "$TMP/files-after.txt" > "$TMP/files.diff" ||
	fail "the root's files before the install and after the purge differ: $(head -20 "$TMP/files.diff")"
echo "ok: remove kept the configuration and $n_kept+ samples; purge left the file list as before the install ($(wc -l < "$TMP/files-before.txt") paths)"
echo "time: $((SECONDS - T0)) s"
pass
