#!/usr/bin/env bash
# The flame graph, and strobe diff's differential one, are well-formed XML
# (xmllint --noout) and the hostile function name of the synthetic
# recording appears only escaped.
# Usage: xmllint_check.sh BUILD_DIR
set -euo pipefail
build=$1
work=$build/tests/consumers/xmllint
mkdir -p "$work"
if ! command -v xmllint >/dev/null; then
  echo "FAIL: xmllint is missing" >&2
  echo "  hint: scripts/deps.sh test installs libxml2-utils" >&2
  exit 1
fi
"$build/strobe-synth" "$work/synth.db" 3000
for extra in "" "--per-thread" "--no-inline"; do
  # shellcheck disable=SC2086
  "$build/strobe" report "$work/synth.db" -o "$work/flame.svg" $extra
  xmllint --noout "$work/flame.svg"
  if grep -q '<script>alert' "$work/flame.svg"; then
    echo "FAIL: the hostile name reached the SVG unescaped ($extra)"; exit 1
  fi
  grep -q '&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;' "$work/flame.svg"
done
# The script block is the only <script> element.
test "$(grep -c '<script' "$work/flame.svg")" = 1
# strobe diff's, against a later run in which the hostile function is gone
# (drawn from the base).
"$build/strobe-synth" "$work/changed.db" 3000 --changed
"$build/strobe" diff "$work/synth.db" "$work/changed.db" -o "$work/diff.svg"
xmllint --noout "$work/diff.svg"
if grep -q '<script>alert' "$work/diff.svg"; then
  echo "FAIL: the hostile name reached the diff SVG unescaped"; exit 1
fi
grep -q 'data-name="&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;"' "$work/diff.svg"
test "$(grep -c '<script' "$work/diff.svg")" = 1
echo "xmllint accepts the flame graphs; names are escaped"
