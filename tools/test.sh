#!/usr/bin/env bash
# The README's second command: build, then run the whole test suite with ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# chromium renders report.html in tests/tools/html_report_render_test.cpp; xmllint checks it is well-formed;
# help2man builds the man page that tests/install checks.
KP_EXTRA_PACKAGES="chromium libxml2-utils help2man ${KP_EXTRA_PACKAGES:-}" "$root/tools/setup.sh" "$root/build"
cd "$root/build"
ctest --output-on-failure -j"$(nproc)"
