#!/usr/bin/env python3
"""ctest_numbers.py BUILD_DIR PART [EXCEPT]: the numbers of a part of a
build's unit and e2e tests, comma-separated, for ctest -I 0,0,0,NUMBERS.

  early   the unit tests that need not run alone (not RUN_SERIAL)
  rest    the other unit and e2e tests
  EXCEPT  a test left out of either part (by its name)

scripts/test.sh runs the ASan build's early part beside the plain build's
tests, its rest after them, and agent_push (EXCEPT) beside the rest. The parts are
taken from one listing (ctest --show-only=json-v1), so that together they
are every test of labels unit and e2e, once."""
import json
import subprocess
import sys


def main():
    build, part = sys.argv[1], sys.argv[2]
    left_out = sys.argv[3] if len(sys.argv) > 3 else None
    listing = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"],
                             check=True, capture_output=True, text=True).stdout
    numbers = []
    for number, test in enumerate(json.loads(listing)["tests"], 1):
        props = {p["name"]: p["value"] for p in test.get("properties", [])}
        labels = set(props.get("LABELS", []))
        if not labels & {"unit", "e2e"}:
            continue
        early = "unit" in labels and not props.get("RUN_SERIAL")
        if (part == "early") == early and test["name"] != left_out:
            numbers.append(str(number))
    if not numbers:
        sys.exit(f"ctest_numbers.py: no {part} tests in {build}")
    print(",".join(numbers))


if __name__ == "__main__":
    main()
