#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build, serve and test Perfscope.
# Idempotent and non-interactive: a second run only checks versions (a few seconds).
# Cold on 2 cores: about 13 min (trunk ~7 min, wasm-bindgen-cli ~5 min, the rest < 1 min).
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14   # newest Trunk whose rust-version fits rustc 1.95 (0.22 needs 1.96.1)
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

step() { printf '\n== setup: %s\n' "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }

# 1. Chromium + ChromeDriver for the browser tests (apt waits up to 10 min for another dpkg).
if ! have chromium || ! have chromedriver; then
  step "apt: chromium chromium-driver"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -q
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends chromium chromium-driver
fi

# 2. Rust targets: wasm for the page; thumbv7em checks that perfscope-format stays no_std.
installed_targets=$(rustup target list --installed)
for target in wasm32-unknown-unknown thumbv7em-none-eabihf; do
  if ! grep -qx "$target" <<<"$installed_targets"; then
    step "rustup target add $target"
    rustup target add "$target"
  fi
done

# 3. wasm-bindgen-cli at exactly the wasm-bindgen version in Cargo.lock (Trunk would otherwise
#    try to download it).
WB_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "$WB_VERSION" ]; then
  echo "setup: cannot find wasm-bindgen in Cargo.lock" >&2
  exit 1
fi
if [ "$(wasm-bindgen --version 2>/dev/null | cut -d' ' -f2)" != "$WB_VERSION" ]; then
  step "cargo install wasm-bindgen-cli $WB_VERSION"
  # --locked fails when the registry lacks a locked dependency version (webpki-roots 1.0.11
  # here); then resolve afresh.
  cargo install wasm-bindgen-cli --version "$WB_VERSION" --locked --force \
    || cargo install wasm-bindgen-cli --version "$WB_VERSION" --force
fi

# 4. Trunk, built without its fat-LTO release profile (7 min instead of 17 on 2 cores).
if [ "$(trunk --version 2>/dev/null | cut -d' ' -f2)" != "$TRUNK_VERSION" ]; then
  step "cargo install trunk $TRUNK_VERSION"
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install trunk --version "$TRUNK_VERSION" --locked --force
fi

# 5. npm: playwright-core (drives the system Chromium; downloads no browser) and binaryen
#    (wasm-opt 132; Debian's binaryen 108 cannot read this rustc's wasm).
if ! npm ls --depth=0 >/dev/null 2>&1 || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  step "npm ci"
  npm ci --no-audit --no-fund
fi

# 6. Python checkers used by the export tests (pprof decoded with Google's protobuf against
#    profile.proto; speedscope JSON validated against its schema). Versions known to work here.
if ! python3 -c "import google.protobuf, grpc_tools, jsonschema" >/dev/null 2>&1; then
  step "pip: protobuf grpcio-tools jsonschema"
  if ! python3 -m pip --version >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends python3-pip
  fi
  python3 -m pip install --quiet --disable-pip-version-check --break-system-packages \
    'protobuf==7.36.2' 'grpcio-tools==1.85.1' 'jsonschema==4.26.0'
fi

# 7. cargo-fuzz for the brief fuzz runs of test.sh (stable rustc with RUSTC_BOOTSTRAP=1; libFuzzer
#    is built with the C++ compiler).
if ! have c++; then
  step "apt: g++"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends g++
fi
if [ "$(cargo fuzz --version 2>/dev/null | cut -d' ' -f2)" != "0.13.2" ]; then
  step "cargo install cargo-fuzz 0.13.2"
  cargo install cargo-fuzz --version 0.13.2 --locked --force
fi

# 8. All crates, so that builds can run --offline.
cargo fetch --locked
cargo fetch --locked --manifest-path fuzz/Cargo.toml
