perf record -e cpu-clock,task-clock -F 499 -o tests/data/two-events.data -- sh -c 'seq 1 300000 | gzip -9 | gzip -d | md5sum'
