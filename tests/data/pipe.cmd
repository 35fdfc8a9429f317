perf record -e cpu-clock -F 999 -g -o - -- sh -c 'seq 1 100000 | sort -R | md5sum' > tests/data/pipe.data
