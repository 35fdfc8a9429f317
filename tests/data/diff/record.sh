#!/bin/sh
# How base.data and slow.data were made (perf 6.1, x86_64, as root). The binaries are recorded
# at /tmp/perfscope-diff/{base,slow}; the test finds their symbols in the committed copies.
set -e
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/perfscope-diff
cd /tmp/perfscope-diff
CFLAGS="-O1 -g -fno-omit-frame-pointer"
gcc $CFLAGS -o base "$here/prog.c"
gcc $CFLAGS -DSLOW=3 -o slow "$here/prog.c"
perf record -e cpu-clock -F 2000 -g -o base.data ./base
perf record -e cpu-clock -F 2000 -g -o slow.data ./slow
for f in base slow; do
    # perf's own view, the oracle: self overhead per symbol (period-weighted) with sample counts.
    perf report -i $f.data --no-children --stdio -s sym -n -g none > $f.report.txt
    cp $f $f.data $f.report.txt "$here/"
done
