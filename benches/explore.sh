#!/usr/bin/env bash
# Explorer benchmarks for the foundation issue: rate on one and two threads,
# rate and peak RSS under a quarter memory budget, and checkpoint overhead.
# Every configuration runs RUNS times; medians are printed. Compare ratios
# measured in one invocation: the machine is shared and noisy.
#
#   benches/explore.sh [LEVEL]        (default levels/sokoban/room4.xsb)
#   RUNS=5 QUARTER=300M benches/explore.sh
set -euo pipefail
source "$(dirname "$0")/common.sh"
level=${1:-$root/levels/sokoban/room4.xsb}
runs=${RUNS:-3}

# bench NAME ARGS...: prints NAME, the median exploration rate (states/s while exploring,
# everything written), exploration seconds, wall seconds including `finish` (in-edge CSR and
# fingerprint index), and peak RSS.
bench() {
  local name=$1; shift
  : > "$work/rates"; : > "$work/secs"; : > "$work/rss"; : > "$work/wall"
  for _ in $(seq "$runs"); do
    rm -rf "$work/store"
    /usr/bin/time -v "$hsg" explore "$level" --store "$work/store" "$@" 2> "$work/err" >/dev/null
    grep -oP '\(\K[0-9,]+(?= states/s\))' "$work/err" | tr -d , >> "$work/rates"
    grep -oP 'in \K[0-9.]+(?= s \()' "$work/err" >> "$work/secs"
    grep -oP 'Maximum resident set size \(kbytes\): \K[0-9]+' "$work/err" | awk '{print $1/1024}' >> "$work/rss"
    grep -oP 'Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): \K[0-9:.]+' "$work/err" \
      | awk -F: '{s=0; for (i=1;i<=NF;i++) s=s*60+$i; print s}' >> "$work/wall"
  done
  printf '%-30s %10.0f states/s %7.2f s exploring %7.2f s wall %7.0f MiB peak RSS\n' "$name" \
    "$(median < "$work/rates")" "$(median < "$work/secs")" "$(median < "$work/wall")" "$(median < "$work/rss")"
}

echo "level: $level, $runs runs each, $(nproc) cores"
bench "1 thread" --threads 1
bench "2 threads" --threads 2
bench "1 thread, no checkpoints" --threads 1 --checkpoint-secs 1000000
if [ -n "${QUARTER:-}" ]; then
  bench "1 thread, --mem $QUARTER" --threads 1 --mem "$QUARTER"
  bench "2 threads, --mem $QUARTER" --threads 2 --mem "$QUARTER"
fi
rm -rf "$work/store"
"$hsg" explore "$level" --store "$work/store" --threads 1 >/dev/null 2>&1
echo "store size: $(du -sb "$work/store" | cut -f1) bytes for $("$hsg" report "$work/store" --json --no-analysis | grep -oP '"states": \K[0-9]+' | head -1) states"
