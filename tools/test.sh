#!/usr/bin/env bash
# The README's second command: build, then run the whole test suite with ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/setup.sh" "$root/build"
cd "$root/build"
ctest --output-on-failure -j"$(nproc)"
