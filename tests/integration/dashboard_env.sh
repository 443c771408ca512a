# The browser tests' environment (sourced by test_dashboard*.sh after lib.sh): skip
# without node, npm or chromium; playwright-core exactly as locked, in the build
# directory ($NODE_DIR); screenshots go to $ARTIFACTS.
command -v node > /dev/null || { echo "SKIP: node is not installed"; exit 77; }
command -v npm > /dev/null || { echo "SKIP: npm is not installed"; exit 77; }
[ -x /usr/bin/chromium ] || { echo "SKIP: /usr/bin/chromium is not installed"; exit 77; }
[ -f "$NVMOND_SRC/web/vendor/uPlot.iife.min.js" ] || fail "web/vendor/ is not built (the web_vendor target)"

NODE_DIR=$NVMOND_BUILD/dashboard-test
mkdir -p "$NODE_DIR"
cp "$NVMOND_SRC/tests/dashboard/package.json" "$NVMOND_SRC/tests/dashboard/package-lock.json" \
	"$NVMOND_SRC/tests/dashboard/dashboard.test.js" "$NVMOND_SRC/tests/dashboard/year.test.js" \
	"$NVMOND_SRC/tests/dashboard/fleet.test.js" "$NODE_DIR/"
if ! cmp -s "$NODE_DIR/package-lock.json" "$NODE_DIR/node_modules/.package-lock.json" 2> /dev/null ||
	[ ! -d "$NODE_DIR/node_modules/playwright-core" ]; then
	(cd "$NODE_DIR" && npm ci --no-audit --no-fund --loglevel=error) > "$TMP/npm.log" 2>&1 ||
		fail "npm ci: $(tail -5 "$TMP/npm.log")"
fi
ARTIFACTS=$NVMOND_BUILD/artifacts/dashboard
