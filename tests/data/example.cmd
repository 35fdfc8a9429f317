perf record -e cpu-clock -F 999 -g -o tests/data/example.data -- sh -c 'seq 1 200000 | sort -R | sort -n | md5sum'
