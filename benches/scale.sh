#!/usr/bin/env bash
# The scale issue's figures in one run: room4 (or LEVEL) explored on two threads with the
# default --mem, with --mem 256M and with --mem 128M (where the compact index no longer
# holds every state and the disk phase takes over), then `hsg analyze` of the default
# store. Rounds are interleaved so that the ratios compare runs made side by side; the
# medians of the wall times, peak RSS, the per-round ratios and the visited index's bytes
# a state at its fullest (from the 256M run, whose index reaches its last size) are printed.
#
#   RUNS=3 benches/scale.sh [LEVEL]          (default levels/sokoban/room4.xsb)
set -euo pipefail
source "$(dirname "$0")/common.sh"
level=${1:-$root/levels/sokoban/room4.xsb}
runs=${RUNS:-3}

# timed NAME CMD...: runs CMD under /usr/bin/time -v, appends its wall seconds to
# $work/NAME.wall and its peak RSS (MiB) to $work/NAME.rss; its stderr stays in $work/NAME.err.
# The page cache is written back first: a run started while the kernel still writes the
# stores of the runs before it (a gigabyte after a --mem 128M run) spent twice the system
# time, and which run came after which moved the ratios by tenths.
timed() {
  local name=$1; shift
  sync
  /usr/bin/time -v "$@" 2> "$work/$name.err" >/dev/null
  grep -oP 'Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): \K[0-9:.]+' "$work/$name.err" \
    | awk -F: '{s=0; for (i=1;i<=NF;i++) s=s*60+$i; print s}' >> "$work/$name.wall"
  grep -oP 'Maximum resident set size \(kbytes\): \K[0-9]+' "$work/$name.err" \
    | awk '{print $1/1024}' >> "$work/$name.rss"
  tail -n 1 "$work/$name.wall"
}

echo "level: $level, $runs interleaved rounds, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$runs"); do
  rm -rf "$work/default" "$work/m256" "$work/m128"
  d=$(timed default "$hsg" explore "$level" --store "$work/default" --threads 2)
  a=$(timed analyze "$hsg" analyze "$work/default")
  m256=$(timed m256 "$hsg" explore "$level" --store "$work/m256" --threads 2 --mem 256M)
  m128=$(timed m128 "$hsg" explore "$level" --store "$work/m128" --threads 2 --mem 128M)
  grep -oP '[0-9.]+(?= bytes a state when full)' "$work/m256.err" >> "$work/index.bps" || true
  for f in m256 m128; do
    cmp -s "$work/default/edges.bits" "$work/$f/edges.bits" \
      || { echo "round $round: the $f store differs from the default one" >&2; exit 1; }
  done
  echo "$m256 $d" | awk '{print $1/$2}' >> "$work/r256"
  echo "$m128 $d" | awk '{print $1/$2}' >> "$work/r128"
  echo "$a $d" | awk '{print $1/$2}' >> "$work/ranalyze"
  printf 'round %d: default %.2f s, --mem 256M %.2f s, --mem 128M %.2f s, analyze %.2f s\n' \
    "$round" "$d" "$m256" "$m128" "$a"
  rm -rf "$work/default" "$work/m256" "$work/m128"
done
for f in default m256 m128 analyze; do
  printf '%-10s median %7.2f s wall, %7.0f MiB peak RSS\n' "$f" \
    "$(median < "$work/$f.wall")" "$(median < "$work/$f.rss")"
done
printf 'ratios (medians of the rounds): --mem 256M %.2fx, --mem 128M %.2fx, analyze/explore %.2fx\n' \
  "$(median < "$work/r256")" "$(median < "$work/r128")" "$(median < "$work/ranalyze")"
[ -s "$work/index.bps" ] && printf 'visited index at its fullest: %s bytes a state\n' "$(median < "$work/index.bps")"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
