#!/usr/bin/env bash
# Installs the browser tests' npm packages (playwright-core, speedscope) from
# package-lock.json into tests/browser/node_modules; `make test` runs it.
# Does nothing when they are already installed at the locked versions.
set -euo pipefail
cd "$(dirname "$0")"
if [ -f node_modules/.package-lock.json ] && cmp -s <(node -e '
    const l = require("./package-lock.json").packages;
    delete l[""];
    console.log(JSON.stringify(l));') <(node -e '
    console.log(JSON.stringify(require("./node_modules/.package-lock.json").packages));'); then
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "strobe: error: npm is missing; cannot install the browser tests' packages" >&2
  echo "  hint: scripts/deps.sh test installs it" >&2
  exit 1
fi
npm ci --no-audit --no-fund --loglevel=error
