#!/usr/bin/env bash
# ctest entry of the browser test: needs node, /usr/bin/chromium and the npm
# packages that tests/browser/install.sh (run by `make test`) installs.
# Usage: run.sh BUILD_DIR [TEST] (TEST: outputs (the default), viewer or diff)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -d "$here/node_modules/playwright-core" ] || [ ! -d "$here/node_modules/speedscope" ]; then
  echo "FAIL: the browser test's npm packages are not installed" >&2
  echo "  hint: run tests/browser/install.sh (make test does)" >&2
  exit 1
fi
if [ ! -x /usr/bin/chromium ]; then
  echo "FAIL: /usr/bin/chromium is missing" >&2
  echo "  hint: scripts/deps.sh test installs chromium" >&2
  exit 1
fi
exec node "$here/${2:-outputs}.test.mjs" "$1"
