#!/usr/bin/env bash
# Native benchmarks of issue #6, measured in one run on the same files, with the ratios:
#
#   scripts/bench.sh [FILE...]        (default: /work/big/big300-g.data /work/big/big300-z.data)
#
# For each file, RUNS times each (the best wall time is kept, with its peak RSS):
#   header walk        a program that maps the file and steps over record headers (the floor
#                      for stats; crates/cli/examples/header_walk.rs, little-endian files)
#   perfscope stats
#   perfscope collapse --no-symbols  > folded text file
#   perfscope collapse               > folded text file (functions named: kallsyms, this
#                                      machine's binaries, as perf script names them)
#   perf report --stdio              > /dev/null
#   perf script | inferno-collapse-perf > folded text file
#   linux-perf-data    the linux-perf-data crate iterating the samples in time order into a hash
#                      map of (pid, callchain) (crates/cli/examples/baseline_linux_perf_data.rs)
# and then the floors under collapse (crates/cli/examples/collapse_floor.rs: steps any collapse
# takes, each alone on one thread: walking the samples, counting their raw callchains, sorting
# and concatenating the folded lines; little-endian files with one sample format),
# and prints the table and the ratios the targets are about. Needs perf, inferno-collapse-perf,
# GNU time at /usr/bin/time. Environment: RUNS (default 3), QUICK_RUNS for the header walk and
# stats (default 9), SLOW_RUNS for the perf pipelines
# (default 1), OUT (scratch directory, default a temporary one), REPORT=0 to leave out perf
# report (it needs ~10 GB of memory per million samples).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
# The header walk and stats take ~0.1 s: on a shared machine three runs leave their ratio to
# chance (0.12-0.21 s for the same stats in one minute), so they run QUICK_RUNS times.
quick_runs=${QUICK_RUNS:-9}
slow_runs=${SLOW_RUNS:-1}
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(/work/big/big300-g.data /work/big/big300-z.data)
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"

cargo build --release -q -p perfscope-cli --bin perfscope --example header_walk --example baseline_linux_perf_data --example collapse_floor
bin=target/release
for tool in perf inferno-collapse-perf /usr/bin/time; do
  command -v "$tool" > /dev/null || {
    echo "bench.sh: $tool is needed" >&2
    [ "$tool" = inferno-collapse-perf ] && echo "  (cargo install --locked inferno --version 0.12.8)" >&2
    exit 1
  }
done

echo "# machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
inferno=$(grep -o '"inferno [0-9.]*' ~/.cargo/.crates.toml 2>/dev/null | tr -d '"' || true)
echo "# perf $(perf version 2>&1 | awk '{print $3}'), ${inferno:-inferno (version unknown)}, perfscope $(git rev-parse --short HEAD 2>/dev/null || echo '?')"

# best NAME RUNS CMD...: runs CMD (a bash command line) RUNS times; sets best_s, best_kb,
# best_user (of the fastest run) and prints a row. The wall time is bash's microsecond clock
# around the run (GNU time's %e has 10 ms steps: a fifth of the header walk's ~0.06 s, which
# moved the stats / walk ratio by up to 0.4).
best() {
  local name=$1 n=$2 cmd=$3 i wall kb user t0 t1 _
  best_s=""
  for ((i = 0; i < n; i++)); do
    t0=$EPOCHREALTIME
    /usr/bin/time -f "%e %M %U" -o "$out/time" bash -c "$cmd" 2> "$out/stderr" || {
      echo "bench.sh: '$name' failed:" >&2
      cat "$out/stderr" >&2
      return 1
    }
    t1=$EPOCHREALTIME
    read -r _ kb user < <(tail -1 "$out/time")
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
    if [ -z "$best_s" ] || awk -v a="$wall" -v b="$best_s" 'BEGIN { exit !(a < b) }'; then
      best_s=$wall best_kb=$kb best_user=$user
    fi
  done
  printf '  %-40s %8.3f s  %8.2f s user  %8d MB peak RSS\n' "$name" "$best_s" "$best_user" "$((best_kb / 1024))"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }'; }

for f in "${files[@]}"; do
  [ -f "$f" ] || { echo "bench.sh: no $f (make it with scripts/make-big-profile.sh)" >&2; continue; }
  size_mb=$(( $(stat -c %s "$f") / 1000000 ))
  samples=$("$bin/perfscope" stats "$f" 2> /dev/null | awk '$1 == "SAMPLE" {print $3; exit}')
  echo
  echo "## $f: $size_mb MB, $samples samples"
  best "header walk (floor for stats)" "$quick_runs" "$bin/examples/header_walk '$f' > /dev/null"; walk_s=$best_s
  best "perfscope stats" "$quick_runs" "$bin/perfscope stats '$f' > /dev/null"; stats_s=$best_s
  best "perfscope collapse --no-symbols" "$runs" "$bin/perfscope collapse --no-symbols '$f' > '$out/perfscope.folded'"; collapse_s=$best_s
  best "perfscope collapse (symbols)" "$runs" "$bin/perfscope collapse '$f' > '$out/perfscope-named.folded'"; named_s=$best_s
  best "linux-perf-data into a hash map" "$runs" "$bin/examples/baseline_linux_perf_data '$f' > /dev/null"; lpd_s=$best_s
  if [ "${REPORT:-1}" = 1 ]; then
    # perf report may be killed (perf 6.1 took 13 GB on a 315 MB recording and ran out of
    # 24 GB on a -z one): its row is then left out, the rest still measured.
    if best "perf report --stdio" "$slow_runs" "perf report --stdio -i '$f' > /dev/null"; then
      report_s=$best_s
    else
      echo "  perf report --stdio: failed, left out"
      report_s=0
    fi
  else
    report_s=0
  fi
  best "perf script | inferno-collapse-perf" "$slow_runs" "perf script -i '$f' | inferno-collapse-perf > '$out/inferno.folded'"; pipeline_s=$best_s
  echo "  folded lines: perfscope --no-symbols $(wc -l < "$out/perfscope.folded") ($(( $(stat -c %s "$out/perfscope.folded") / 1000000 )) MB), perf script | inferno $(wc -l < "$out/inferno.folded") ($(( $(stat -c %s "$out/inferno.folded") / 1000000 )) MB, symbolized)"
  echo "  ratios:"
  echo "    stats / header walk                              $(ratio "$stats_s" "$walk_s")x   (target <= 2; the walk cannot see inside compressed records)"
  echo "    perf script | inferno  /  collapse --no-symbols  $(ratio "$pipeline_s" "$collapse_s")x   (target >= 30)"
  echo "    linux-perf-data        /  collapse --no-symbols  $(ratio "$lpd_s" "$collapse_s")x   (target >= 5)"
  echo "    perf script | inferno  /  collapse (both name functions)  $(ratio "$pipeline_s" "$named_s")x"
  if [ "$report_s" != 0 ]; then
    echo "    perf report --stdio    /  collapse --no-symbols  $(ratio "$report_s" "$collapse_s")x"
  fi
  echo "  floors under collapse (one thread each; the target time for collapse is $(awk -v a="$lpd_s" 'BEGIN { printf "%.2f", a / 5 }') s):"
  "$bin/examples/collapse_floor" "$f" "$out/perfscope.folded" 2>&1 | tail -n +2 | sed 's/^/  /' || echo "    (collapse_floor does not read this file)"
done
