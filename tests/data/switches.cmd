perf record --switch-events -e cpu-clock -F 999 -o tests/data/switches.data -- sh -c 'for i in 1 2 3 4 5; do seq 1 60000 | sort -R > /dev/null; sleep 0.03; done'
