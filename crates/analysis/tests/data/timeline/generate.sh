#!/bin/sh
# Regenerates the expected outputs of the timeline/off-CPU corpus tests with perf itself
# (perf 6.1.187 on Linux 6.18, x86_64; the files are in ../shared/corpus, see its MANIFEST).
# Run from this directory: sh generate.sh [path/to/shared]. Outputs are committed.
set -e
S=${1:-../../../../../../shared}
C=$S/corpus
for f in gen/sched-record gen/tp-callchain bigendian/be-multi; do
    n=$(basename $f)
    # One line per sched_switch sample: the task switched out, its wait (off-CPU) time before
    # the switch-in that preceded this switch-out, and its run time (msec, truncated to usec).
    perf sched timehist -i $C/$f.data --no-call-graph --state -n > $n.timehist.txt 2>/dev/null
    # Per-thread totals: sched-in count, run time, and wait time split by the state at sched-out.
    perf sched timehist -i $C/$f.data -s --state > $n.timehist-summary.txt 2>/dev/null
done
# perf sched timehist needs sched_switch; for PERF_RECORD_SWITCH, perf script's own decoding of
# every switch record (ns times), from which the test sums OUT -> next IN per thread.
perf script -i $C/gen/switch-events.data --show-switch-events --ns -F pid,tid,time 2>/dev/null \
    | grep PERF_RECORD_SWITCH > switch-events.switches.txt
# Samples per (pid, tid) as perf script counts them (all events, every sample).
for f in gen/switch-events gen/sched-record gen/tp-callchain bigendian/be-multi; do
    n=$(basename $f)
    perf script -i $C/$f.data -F pid,tid 2>/dev/null | awk '{ n[$1] += 1 } END { for (k in n) print k, n[k] }' \
        | LC_ALL=C sort > $n.samples-per-thread.txt
done
