#!/usr/bin/env bash
# PuzzleScript end to end against the native Sokoban explorer: the same room written as
# PuzzleScript (levels/puzzlescript/ROOM.ps.txt) and as XSB (levels/sokoban/ROOM.xsb),
# explored on one thread by the real `hsg explore`, the two interleaved run after run so that
# both see the same machine. Prints, per game, the median exploration rate (states/s as the
# explorer reports it), wall seconds, CPU seconds (user + system: what a loaded machine
# disturbs least), states per CPU second and peak RSS, then the native/PuzzleScript ratios.
#
#   benches/puzzlescript.sh [ROOM...]     (default: room3 room4)
#   THREADS=2 benches/puzzlescript.sh room4   (the explorer's default two threads; default 1)
#   RUNS=5 benches/puzzlescript.sh room3
set -euo pipefail
source "$(dirname "$0")/common.sh"
runs=${RUNS:-3}
rooms=("$@")
[ ${#rooms[@]} -gt 0 ] || rooms=(room3 room4)

# once NAME LEVEL: one exploration; appends its figures to $work/NAME.*
once() {
  local name=$1 level=$2
  rm -rf "$work/store"
  /usr/bin/time -v "$hsg" explore "$level" --store "$work/store" --threads "${THREADS:-1}" 2> "$work/err" >/dev/null
  grep -oP 'complete: \K[0-9,]+(?= states)' "$work/err" | tr -d , > "$work/$name.states"
  grep -oP '\(\K[0-9,]+(?= states/s\))' "$work/err" | tr -d , >> "$work/$name.rate"
  grep -oP 'Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): \K[0-9:.]+' "$work/err" \
    | awk -F: '{s=0; for (i=1;i<=NF;i++) s=s*60+$i; print s}' >> "$work/$name.wall"
  awk '/User time/ {u=$NF} /System time/ {s=$NF} END {print u+s}' "$work/err" >> "$work/$name.cpu"
  grep -oP 'Maximum resident set size \(kbytes\): \K[0-9]+' "$work/err" | awk '{print $1/1024}' >> "$work/$name.rss"
}

# show NAME: the medians of NAME's runs.
show() {
  local name=$1 states
  states=$(cat "$work/$name.states")
  printf '%-22s %10s states %10.0f states/s %8.2f s wall %8.2f s CPU %10.0f states/CPU-s %6.0f MiB\n' \
    "$name" "$states" "$(median < "$work/$name.rate")" "$(median < "$work/$name.wall")" \
    "$(median < "$work/$name.cpu")" "$(echo "$states / $(median < "$work/$name.cpu")" | bc -l)" \
    "$(median < "$work/$name.rss")"
}

echo "$runs runs each (medians), ${THREADS:-1} thread(s), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for room in "${rooms[@]}"; do
  for _ in $(seq "$runs"); do
    once "$room-puzzlescript" "$root/levels/puzzlescript/$room.ps.txt"
    once "$room-native" "$root/levels/sokoban/$room.xsb"
  done
  show "$room-puzzlescript"
  show "$room-native"
  printf '%-22s rate %.1fx, CPU time %.1fx\n' "$room native/PS" \
    "$(echo "$(median < "$work/$room-native.rate") / $(median < "$work/$room-puzzlescript.rate")" | bc -l)" \
    "$(echo "$(median < "$work/$room-puzzlescript.cpu") / $(median < "$work/$room-native.cpu")" | bc -l)"
done
