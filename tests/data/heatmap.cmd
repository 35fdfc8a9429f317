perf record -e cpu-clock -F 1999 -g --switch-events -o tests/data/heatmap.data -- sh -c 'for i in 1 2 3; do timeout 0.6 sh -c "while :; do :; done"; sleep 0.3; done'
