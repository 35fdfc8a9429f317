perf record -e cpu-clock -F 1999 -o tests/data/threads.data -- sh -c 'for i in $(seq 240); do sh -c "i=0; while [ \$i -lt 2500 ]; do i=\$((i+1)); done"; done'
