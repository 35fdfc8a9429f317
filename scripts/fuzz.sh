#!/usr/bin/env bash
# Builds the cargo-fuzz targets and runs each for SECONDS (default 30).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      # targets: file stream feature sample (default: all)
#
# Works on a stable toolchain: cargo-fuzz passes nightly-only flags (-Zsanitizer=address, …),
# which stable rustc accepts with RUSTC_BOOTSTRAP=1 (set here; harmless on nightly). Needs
# `cargo install cargo-fuzz` (0.13) and a C++ compiler for libFuzzer.
#
# Seeds fuzz/corpus/<target> from the shared corpus (fuzz/seed.sh) when it is empty. The corpus
# grows in place; crashes, timeouts and out-of-memory inputs go to fuzz/artifacts/<target>/.
# `-rss_limit_mb` / `-malloc_limit_mb` are small and `-timeout` short, so over-allocation and
# hangs count as crashes. Exits non-zero on the first target that finds one.
#
# Reproduce an artifact:  RUSTC_BOOTSTRAP=1 cargo fuzz run --fuzz-dir fuzz TARGET fuzz/artifacts/TARGET/crash-…
# Minimize it:            RUSTC_BOOTSTRAP=1 cargo fuzz tmin --fuzz-dir fuzz TARGET fuzz/artifacts/TARGET/crash-…
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=()
  for f in fuzz/fuzz_targets/*.rs; do
    t=$(basename "$f" .rs)
    [ "$t" = common ] || targets+=("$t")
  done
fi
export RUSTC_BOOTSTRAP=1
# ASan keeps freed memory in a 256 MB quarantine by default, which alone would exceed the RSS
# limit: keep it small so the limit measures what the parser holds.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=32"
rss_mb=${FUZZ_RSS_MB:-512}
max_len=${FUZZ_MAX_LEN:-65536}

cargo fuzz build --fuzz-dir fuzz
for t in "${targets[@]}"; do
  if [ -z "$(ls -A "fuzz/corpus/$t" 2>/dev/null)" ]; then
    fuzz/seed.sh
  fi
done
for t in "${targets[@]}"; do
  echo "== fuzz $t for ${secs}s"
  mkdir -p "fuzz/artifacts/$t"
  set +e
  cargo fuzz run --fuzz-dir fuzz "$t" -- \
    -max_total_time="$secs" -rss_limit_mb="$rss_mb" -malloc_limit_mb="$rss_mb" -timeout=5 \
    -max_len="$max_len" -print_final_stats=1 2>&1 |
    grep --line-buffered -v -e '^INFO: Loaded' -e '^INFO: Seed' -e '^#[0-9]*.*\(NEW\|REDUCE\|pulse\)' -e 'NEW_FUNC' -e ' # Uses: ' -e '^###### '
  status=${PIPESTATUS[0]}
  set -e
  if [ "$status" -ne 0 ]; then
    echo "fuzz: $t failed; the input is in fuzz/artifacts/$t/" >&2
    exit 1
  fi
done
