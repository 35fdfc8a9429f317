#!/usr/bin/env bash
# Records a big system-wide perf.data with callchains, for benchmarks (never committed).
#
#   scripts/make-big-profile.sh SIZE_MB OUT [extra perf record options, e.g. -z]
#
# Runs a busy multi-process workload (several processes and threads: sort, gzip, sha256sum,
# a shell loop, python) on every CPU while `perf record -a -g` samples cpu-clock at a high
# frequency, for as long as it takes to write about SIZE_MB megabytes. Needs root (or
# perf_event_paranoid <= -1) and the `perf` tool. CALLCHAINS=0: without -g (about three times
# as many samples per megabyte).
set -euo pipefail
size_mb=${1:?usage: make-big-profile.sh SIZE_MB OUT [perf record options]}
out=${2:?usage: make-big-profile.sh SIZE_MB OUT [perf record options]}
shift 2
freq=${FREQ:-20000}
graph=(-g)
[ "${CALLCHAINS:-1}" = 0 ] && graph=()
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

head -c 64M /dev/urandom > "$work/rand.bin"
busy() {
  # Not under -e/pipefail: a pipeline cut short by `head` (SIGPIPE) must not end the loop, or the
  # CPUs go idle and the recording is mostly the idle task.
  set +e +o pipefail
  while :; do
    case $((RANDOM % 5)) in
      0) base64 "$work/rand.bin" | head -c 16M | sort -S 32M > /dev/null ;;
      1) gzip -1 -c "$work/rand.bin" > /dev/null ;;
      2) sha256sum "$work/rand.bin" > /dev/null ;;
      3) i=0; while [ $i -lt 200000 ]; do i=$((i + 1)); done ;;
      4) python3 -c 'import hashlib,json
d={}
for i in range(300000): d[str(i)]=hashlib.md5(str(i).encode()).hexdigest()
json.dumps(d)' ;;
    esac
  done
}
ncpu=$(nproc)
for _ in $(seq $((ncpu + 1))); do busy & done

# Calibrate: bytes per second at this frequency.
perf record -a "${graph[@]}" -F "$freq" -o "$work/calib.data" "$@" -- sleep 2 2> /dev/null
rate=$(( $(stat -c %s "$work/calib.data") / 2 ))
secs=$(( size_mb * 1000000 / (rate > 0 ? rate : 1) + 1 ))
echo "recording ~${size_mb} MB: ${rate} bytes/s at -F ${freq}, about ${secs} s" >&2
# --max-size stops perf at the size asked for; the sleep is only an upper bound. perf stops
# itself there by raising SIGTERM, and then exits with that signal's status (143), having
# written the whole file: that is the expected end, not a failure.
status=0
perf record -a "${graph[@]}" -F "$freq" --max-size="${size_mb}M" -o "$out" "$@" -- sleep $((secs * 4)) || status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 143 ]; then
  echo "perf record failed (exit status $status)" >&2
  exit "$status"
fi
ls -l "$out" >&2
