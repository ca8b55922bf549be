#!/bin/bash
# Interleaved one-core series for BENCHMARKS.md (2-D): Go before, Go after,
# scikit-image, 10 calls each, ROUNDS rounds (default 2), with the time and
# load average of each round. Needs /tmp/slic_before.test and
# /tmp/slic_after.test (go test -c at the two commits) and the image
# written by SLIC_BENCH_PNG=/tmp/slic_cow1024.png.
# usage: ROUNDS=2 testdata/yardstick/series_2d.sh   (from psub/slic)
ROUNDS=${ROUNDS:-2}
for r in $(seq "$ROUNDS"); do
  echo "round $r $(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"
  for b in before after; do
    GOMAXPROCS=1 taskset -c 0 /tmp/slic_$b.test -test.run XXX -test.bench 'Segment2D/cow1024x768$' \
      -test.benchtime 1x -test.count 10 -test.benchmem 2>&1 | grep Bench | sed "s/^/$b /"
  done
  taskset -c 0 /usr/bin/python3 testdata/yardstick/skimage_2d.py /tmp/slic_cow1024.png 500 20 2 10 | sed 's/^/skimage /'
done
echo "end $(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)"
