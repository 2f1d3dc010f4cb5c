#!/usr/bin/env bash
# The README's first command: build, then run the default study and say where the report is.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# Only the CLI: the test suite is the second command's job.
"$root/tools/setup.sh" "$root/build" kneepoint
"$root/build/tools/kneepoint" study "$root/studies/quickstart.yaml" --out "$root/kneepoint-out/quickstart"
