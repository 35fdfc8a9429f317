#!/usr/bin/env bash
# The browser benchmark of issue 6: opens each perf.data in the Perfscope page in headless
# Chromium (time to the summary, to the flame graph, peak wasm memory, renderer peak RSS,
# per-frame redraw cost on zoom and pan, range refilter), and the `perf script` text of the
# first file in speedscope (the npm package's static build, same Chromium), then prints tables
# and ratios.
#
#   scripts/bench-browser.sh [FILE.data...]   (default: /work/big/big300-g.data /work/big/big300-z.data)
#
# Environment: SPEEDSCOPE_FILES (the files whose perf script text speedscope opens; default the
# first file; "none" to skip), STEPS (interaction steps per kind, default 20; 0 skips them),
# TIMEOUT (seconds per file, default 600), JSON (also write the measurements there),
# SCREENSHOTS (a directory for a screenshot of each page once drawn), REBUILD=1 (build the page
# even when dist/ exists), PAGE_QUERY (added to the page's address, e.g. slice=1048576 for the
# worker's slice size, reader=0 for a worker that reads the file itself, without its reader),
# PAGE_CHROMIUM_FLAGS (more Chromium flags for the page's browser, space-separated, e.g.
# --js-flags=--no-liftoff), WITH_SYMBOLS (FILE:FILE:…, symbol files such as a copy of
# /proc/kallsyms and the binaries: the first file is also opened with them dropped along).
#
# Builds the page into dist/ when there is none (scripts/build.sh: run scripts/setup.sh once
# first), installs the npm packages when missing, and makes the perf script text of each
# speedscope file once, cached next to it as FILE.data.script.txt (perf 6.1 must be installed).
# Not a test: the figures depend on the machine; see BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -eq 0 ]; then
  set -- /work/big/big300-g.data /work/big/big300-z.data
fi
for f in "$@"; do
  [ -f "$f" ] || { echo "bench-browser: no such file: $f (make one with scripts/make-big-profile.sh)" >&2; exit 1; }
done

if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/speedscope ]; then
  npm ci --no-audit --no-fund
fi
if [ "${REBUILD:-0}" = 1 ] || [ ! -f dist/index.html ]; then
  scripts/build.sh
fi

args=()
speedscope_files=${SPEEDSCOPE_FILES:-$1}
if [ "$speedscope_files" != none ]; then
  for f in $speedscope_files; do
    text="$f.script.txt"
    if [ ! -f "$text" ] || [ "$f" -nt "$text" ]; then
      echo "bench-browser: perf script -i $f > $text (once)" >&2
      perf script -i "$f" > "$text.tmp" 2> /dev/null
      mv "$text.tmp" "$text"
    fi
    args+=(--speedscope "$f=$text")
  done
fi
[ -n "${WITH_SYMBOLS:-}" ] && args+=(--with "$1=$WITH_SYMBOLS")
[ -n "${JSON:-}" ] && args+=(--json "$JSON")
[ -n "${SCREENSHOTS:-}" ] && args+=(--screenshots "$SCREENSHOTS")

echo "machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM, load $(cut -d' ' -f1-3 /proc/loadavg); $(/usr/bin/chromium --version 2>/dev/null || echo chromium); commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')" >&2
exec node tests/bench/browser-bench.mjs --steps "${STEPS:-20}" --timeout "${TIMEOUT:-600}" "${args[@]}" "$@"
