#!/usr/bin/env bash
# Two-thread scaling of the explorer on a noisy machine: one-thread and two-thread runs
# alternate for ROUNDS rounds, each after IDLE seconds of idle (so that every run meets the
# memory in the same state: this VM's host reclaims freed memory within seconds, and a first
# touch then costs 2.3 s per GiB). Prints each run's exploring seconds, the medians, and the
# median of the rounds' ratios, which is the figure to quote: a round's two runs share the
# machine's mood.
#
#   benches/scaling.sh [LEVEL]          (default levels/sokoban/room4.xsb)
#   ROUNDS=7 IDLE=15 benches/scaling.sh
set -euo pipefail
source "$(dirname "$0")/common.sh"
level=${1:-$root/levels/sokoban/room4.xsb}
rounds=${ROUNDS:-5}
idle=${IDLE:-15}

# secs THREADS: the exploring seconds of one run (the store's `finish` is not counted).
secs() {
  rm -rf "$work/store"
  sync
  sleep "$idle"
  "$hsg" explore "$level" --store "$work/store" --threads "$1" 2>&1 >/dev/null \
    | grep -oP '^complete: .* in \K[0-9.]+(?= s)'
}

echo "level: $level, $rounds rounds, $idle s idle before each run, $(nproc) cores"
: > "$work/one"; : > "$work/two"; : > "$work/ratio"
for round in $(seq "$rounds"); do
  one=$(secs 1)
  two=$(secs 2)
  echo "$one" >> "$work/one"; echo "$two" >> "$work/two"
  echo "$one $two" | awk '{print $1 / $2}' >> "$work/ratio"
  printf 'round %d: one thread %6.2f s, two threads %6.2f s, ratio %.2f\n' "$round" "$one" "$two" \
    "$(tail -1 "$work/ratio")"
done
printf 'medians: one thread %.2f s, two threads %.2f s; median ratio %.2f\n' \
  "$(median < "$work/one")" "$(median < "$work/two")" "$(median < "$work/ratio")"
