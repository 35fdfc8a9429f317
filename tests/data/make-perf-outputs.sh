#!/usr/bin/env bash
# Regenerates the perf outputs that the browser tests compare the page with. Needs perf (run as
# root on the machine that has it); run from anywhere. Made with perf 6.1.187.
#
#   <name>.samples.txt      perf script --ns -F comm,pid,tid,time,event -i <name>.data
#   buildids.buildid-list.txt  perf buildid-list -i buildids.data
#   example.expected.json   sample counts of perf script --ns --time RANGE for some ranges, and
#                           how many samples have a frame in a given DSO (perf script -F dso)
set -euo pipefail
cd "$(dirname "$0")"
for f in example pipe two-events heatmap threads compressed; do
  perf script --ns -F comm,pid,tid,time,event -i "$f.data" > "$f.samples.txt" 2>/dev/null
done
# buildids.buildid-list.txt: the build ids of every binary the recording mapped.
perf buildid-list -i buildids.data > buildids.buildid-list.txt 2>/dev/null

count_range() { perf script --ns --time "$1" -F time -i example.data 2>/dev/null | wc -l; }
# Samples with at least one frame whose DSO file name is $1.
count_dso() {
  perf script --ns -F time,ip,dso -i example.data 2>/dev/null | awk -v want="$1" '
    /^ *[0-9]+\.[0-9]+:/ { if (hit) n++; hit = 0; next }
    /^\t/ { d = $0; sub(/.*\(/, "", d); sub(/\)$/, "", d); sub(/.*\//, "", d); if (d == want) hit = 1 }
    END { if (hit) n++; print n + 0 }'
}
ranges=("2276.9,2277.2" "2276.822040855,2277.022241493" "2276.822040856,2277.022241492")
{
  echo '{'
  echo '  "perf": "'"$(perf version | cut -d' ' -f3)"'",'
  echo '  "time_command": "perf script --ns --time RANGE -F time -i tests/data/example.data | wc -l",'
  echo '  "time_ranges": ['
  for i in "${!ranges[@]}"; do
    sep=$([ "$i" -lt $((${#ranges[@]} - 1)) ] && echo , || true)
    echo '    { "time": "'"${ranges[$i]}"'", "samples": '"$(count_range "${ranges[$i]}")"' }'"$sep"
  done
  echo '  ],'
  echo '  "dso_command": "perf script --ns -F time,ip,dso -i tests/data/example.data: samples with a frame in DSO",'
  echo '  "dso_samples": { "libc.so.6": '"$(count_dso libc.so.6)"', "ld-linux-x86-64.so.2": '"$(count_dso ld-linux-x86-64.so.2)"' },'
  echo '  "samples": '"$(wc -l < example.samples.txt)"
  echo '}'
} > example.expected.json
cat example.expected.json
