perf record -z -e cpu-clock -F 999 -g -o tests/data/compressed.data -- sh -c 'seq 1 300000 | sort -R | sort -n | md5sum'
