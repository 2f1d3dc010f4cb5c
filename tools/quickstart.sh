#!/usr/bin/env bash
# The README's first command: build, then run the default study and say where the report is.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/setup.sh" "$root/build"
"$root/build/tools/kneepoint" study "$root/studies/quickstart.yaml" --out "$root/kneepoint-out/quickstart"
