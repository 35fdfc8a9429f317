#!/usr/bin/env bash
# Every test: native unit and doc tests, the no_std/wasm builds of perfscope-format, the release
# page build, and the browser end-to-end tests. Runs scripts/setup.sh first. Exits non-zero if
# any step fails; the output ends with the browser test runner's summary.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

T0=$SECONDS
failed=()
timings=()
run() {  # run NAME COMMAND...: runs one step, records its time and failure
  local name=$1; shift
  local start=$SECONDS
  printf '\n== test.sh: %s\n' "$name"
  if "$@"; then
    timings+=("$(printf '%5ss  ok    %s' $((SECONDS - start)) "$name")")
  else
    timings+=("$(printf '%5ss  FAIL  %s' $((SECONDS - start)) "$name")")
    failed+=("$name")
  fi
}

run "setup" scripts/setup.sh
if [ ${#failed[@]} -ne 0 ]; then
  echo "test.sh: setup failed; nothing else can run" >&2
  exit 1
fi
run "cargo test --workspace" cargo test --workspace --locked --offline
run "perfscope-format for wasm32-unknown-unknown" \
  cargo build -p perfscope-format --locked --offline --target wasm32-unknown-unknown
run "perfscope-format for thumbv7em-none-eabihf (no_std)" \
  cargo build -p perfscope-format --locked --offline --target thumbv7em-none-eabihf
run "fuzz targets, 15 s each (scripts/fuzz.sh)" env CARGO_NET_OFFLINE=true scripts/fuzz.sh 15
run "page build (scripts/build.sh)" scripts/build.sh

printf '\n== test.sh: steps so far\n'
printf '%s\n' "${timings[@]}"
if [ -f dist/index.html ] && [[ ! " ${failed[*]} " =~ "page build" ]]; then
  printf '\n== test.sh: browser tests (node --test tests/)\n'
  node --test --test-reporter=spec tests/
  node_status=$?
else
  echo "test.sh: the page did not build; browser tests skipped" >&2
  node_status=1
fi

if [ $node_status -ne 0 ]; then failed+=("browser tests"); fi
if [ ${#failed[@]} -ne 0 ]; then
  printf 'test.sh: FAILED (%ss): %s\n' $((SECONDS - T0)) "$(IFS=,; echo "${failed[*]}")" >&2
  exit 1
fi
