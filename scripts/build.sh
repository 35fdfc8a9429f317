#!/usr/bin/env bash
# Builds the release page into dist/ with Trunk. Never downloads anything: it uses the tools
# that scripts/setup.sh installed (run that first) and the crates that it fetched. Asset URLs are
# relative (Trunk.toml: public_url = "./"), so dist/ works from any sub-path of any static host.
set -euo pipefail
cd "$(dirname "$0")/.."
# npm's wasm-opt 132 must come before any other (Debian's 108 breaks release builds).
export PATH="$PWD/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export TRUNK_SKIP_VERSION_CHECK=true
trunk build --release --locked --offline "$@"
# Trunk's inline start script into a file (strict CSP), and the service worker.
node scripts/postbuild.mjs dist
