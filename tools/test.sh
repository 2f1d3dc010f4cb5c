#!/usr/bin/env bash
# The README's second command: build, then run the whole test suite with ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# The validation tests read SCALE-Sim and Pollux references from the shared/ folder: wherever
# KP_SHARED_DIR says, else at ../shared beside the clone (as in CI), else beside the local
# repository it was cloned from (a scratch clone elsewhere). Without it they cannot run: one
# clear error instead of two dozen failing tests.
shared_ok() { [ -d "$1/reference/scalesim" ] && [ -d "$1/pollux_osdi21_traces" ]; }
shared_dir=${KP_SHARED_DIR:-$root/../shared}
if [ -z "${KP_SHARED_DIR:-}" ] && ! shared_ok "$shared_dir"; then
  origin=$(git -C "$root" config --get remote.origin.url 2>/dev/null || true)
  origin=${origin#file://}
  if [ -n "$origin" ] && [ -d "$origin" ] && shared_ok "$origin/../shared"; then
    shared_dir=$(cd "$origin/../shared" && pwd)
  fi
fi
if ! shared_ok "$shared_dir"; then
  echo "test.sh: no shared/ folder with reference/scalesim and pollux_osdi21_traces at $shared_dir;" \
       "clone beside it or set KP_SHARED_DIR=/path/to/shared" >&2
  exit 2
fi
export KP_SHARED_DIR=$shared_dir
# chromium renders report.html in tests/tools/html_report_render_test.cpp; xmllint checks it is well-formed;
# help2man builds the man page that tests/install checks.
KP_EXTRA_PACKAGES="chromium libxml2-utils help2man ${KP_EXTRA_PACKAGES:-}" "$root/tools/setup.sh" "$root/build"
cd "$root/build"
ctest --output-on-failure -j"$(nproc)"
