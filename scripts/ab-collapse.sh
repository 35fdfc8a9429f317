#!/usr/bin/env bash
# Two builds of `perfscope collapse --no-symbols` on one file, run in turn (the machine's speed
# drifts by ±20 % within minutes: only runs made side by side compare), and the medians:
#
#   scripts/ab-collapse.sh BIN_A BIN_B RUNS FILE
#
# BIN_A, BIN_B: perfscope binaries (copy target/release/perfscope aside between builds).
# Prints each run's wall time (ms, output to /dev/null) and each binary's median.
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: $0 BIN_A BIN_B RUNS FILE" >&2; exit 2; }
a=$1 b=$2 runs=$3 file=$4
declare -A times=([A]="" [B]="")
for _ in $(seq "$runs"); do
  for which in A B; do
    if [ "$which" = A ]; then bin=$a; else bin=$b; fi
    start=$(date +%s%N)
    "$bin" collapse --no-symbols "$file" > /dev/null
    end=$(date +%s%N)
    times[$which]+=" $(( (end - start) / 1000000 ))"
  done
done
for which in A B; do
  median=$(tr ' ' '\n' <<< "${times[$which]}" | grep . | sort -n | awk '{v[NR]=$1} END {print v[int((NR + 1) / 2)]}')
  echo "$which ms:${times[$which]}   median $median"
done
