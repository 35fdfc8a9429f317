#!/usr/bin/env bash
# Sets up, builds the release page and serves dist/ on http://127.0.0.1:8080 (PORT to change).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
exec node scripts/static-server.mjs dist "${PORT:-8080}" 127.0.0.1
