perf inject -i tests/data/compressed.data -o - > tests/data/compressed-pipe.data   # compressed.data as a pipe-mode stream (its records stay compressed)
