#!/usr/bin/env bash
# Analysis as fast as exploration (issue 35, item 4): each run explores LEVEL on two
# threads, then analyses the store (`hsg analyze`, headroom included), and prints both
# wall times, their ratio, CPU seconds and peak RSS, then the medians over RUNS runs and
# the median of the runs' ratios (each measured in one run, so that the machine's load
# weighs on both sides alike). The analysis's own phase times come from its last line.
#
#   benches/analysis_ratio.sh [LEVEL]     (default levels/sokoban/room4.xsb)
#   RUNS=5 benches/analysis_ratio.sh
#   HSG=/path/to/hsg benches/analysis_ratio.sh   (another binary, e.g. main's, to compare)
set -euo pipefail
source "$(dirname "$0")/common.sh"
hsg=${HSG:-$hsg}
level=${1:-$root/levels/sokoban/room4.xsb}
runs=${RUNS:-3}

# timed NAME ARGS...: runs `hsg ARGS` under /usr/bin/time, appends wall, CPU (user +
# system) seconds and peak RSS (MiB) to $work/NAME.{wall,cpu,rss}, and prints its wall.
timed() {
  local name=$1; shift
  /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$hsg" "$@" > /dev/null 2> "$work/$name.err"
  read -r wall user sys rss < "$work/time"
  echo "$wall" >> "$work/$name.wall"
  echo "$user $sys" | awk '{print $1 + $2}' >> "$work/$name.cpu"
  echo "$rss" | awk '{print $1 / 1024}' >> "$work/$name.rss"
  echo "$wall"
}

echo "level: $level, $runs runs, $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$work/ratio"
for run in $(seq "$runs"); do
  rm -rf "$work/store"
  explore=$(timed explore explore "$level" --store "$work/store" --threads 2)
  analyse=$(timed analyze analyze "$work/store")
  ratio=$(awk -v a="$analyse" -v e="$explore" 'BEGIN {printf "%.2f", a / e}')
  echo "$ratio" >> "$work/ratio"
  phases=$(grep -oP 'analysis saved in .*\(\K.*(?=\))' "$work/analyze.err" || true)
  echo "run $run: explore $explore s, analyze $analyse s, ratio $ratio ($phases)"
done
for name in explore analyze; do
  printf '%-8s %7.2f s wall %7.2f s CPU %7.0f MiB peak RSS (medians)\n' "$name" \
    "$(median < "$work/$name.wall")" "$(median < "$work/$name.cpu")" "$(median < "$work/$name.rss")"
done
echo "analysis / exploration: $(median < "$work/ratio") (median of the runs' ratios; target 1.5)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
