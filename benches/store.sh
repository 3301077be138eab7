#!/usr/bin/env bash
# The compact store's figures (issue 18) for one level: for one thread and two, the
# exploration phase, the finish (what `hsg explore` does after the search), the total and the
# peak RSS (`/usr/bin/time -v`); the bytes a state of every store file; and the ratio of the
# one-thread total to the plain C breadth-first search of ../shared/bench/xsb_bfs.c (in RAM, no
# store). Each round runs the C search, one thread and two threads one after the other, so
# that all three see the same load; medians of RUNS rounds are printed.
#
#   benches/store.sh [LEVEL]               (default levels/sokoban/room4.xsb)
#   RUNS=5 ORACLE=path/to/xsb_bfs.c LOG2_SLOTS=27 benches/store.sh
#   HSG=path/to/another/hsg benches/store.sh    (e.g. an older build, for before and after)
set -euo pipefail
source "$(dirname "$0")/common.sh"
level=${1:-$root/levels/sokoban/room4.xsb}
hsg=${HSG:-$hsg}
runs=${RUNS:-3}
oracle_src=${ORACLE:-$root/../shared/bench/xsb_bfs.c}

oracle=""
if [ -f "$oracle_src" ]; then
  gcc -O2 -o "$work/xsb_bfs" "$oracle_src"
  oracle="$work/xsb_bfs"
else
  echo "no C oracle at $oracle_src (set ORACLE): its ratio is left out"
fi

# seconds TIME_OUTPUT: the wall-clock seconds `/usr/bin/time -v` reported.
seconds() {
  grep -oP 'Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): \K[0-9:.]+' "$1" \
    | awk -F: '{s=0; for (i=1;i<=NF;i++) s=s*60+$i; print s}'
}

# explore THREADS: one run into $work/store; appends to $work/{explore,total,rss}-THREADS.
explore() {
  local threads=$1
  rm -rf "$work/store"
  /usr/bin/time -v "$hsg" explore "$level" --store "$work/store" --threads "$threads" \
    2> "$work/err" >/dev/null
  grep -oP 'complete: .* in \K[0-9.]+(?= s)' "$work/err" >> "$work/explore-$threads"
  seconds "$work/err" >> "$work/total-$threads"
  grep -oP 'Maximum resident set size \(kbytes\): \K[0-9]+' "$work/err" \
    | awk '{print $1/1024}' >> "$work/rss-$threads"
}

echo "level: $level, $runs rounds, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
# What fresh memory costs here: the visited index (1 GiB on room4) and the C search's table
# (1 GiB, and its queue) both pay it, once a run (benches/first_touch.c).
gcc -O2 -o "$work/first_touch" "$root/benches/first_touch.c"
"$work/first_touch" 1024 | sed 's/^/fresh memory, /'
for _ in $(seq "$runs"); do
  if [ -n "$oracle" ]; then
    # Wall clock, as for hsg (the program's own figure is CPU time).
    /usr/bin/time -v "$oracle" "$level" "${LOG2_SLOTS:-27}" > /dev/null 2> "$work/oracle-err"
    seconds "$work/oracle-err" >> "$work/oracle"
  fi
  explore 1
  explore 2
done

for threads in 1 2; do
  e=$(median < "$work/explore-$threads")
  t=$(median < "$work/total-$threads")
  printf '%d thread(s): exploration %6.2f s, finish %5.2f s, total %6.2f s (%.3fx exploration), peak RSS %6.0f MiB\n' \
    "$threads" "$e" "$(echo "$t - $e" | bc -l)" "$t" "$(echo "$t / $e" | bc -l)" "$(median < "$work/rss-$threads")"
done
t1=$(median < "$work/total-1")
t2=$(median < "$work/total-2")
printf 'two threads end to end: %.2fx one thread\n' "$(echo "$t1 / $t2" | bc -l)"
if [ -n "$oracle" ]; then
  c=$(median < "$work/oracle")
  printf 'C breadth-first search (in RAM, no store): %.2f s wall; one thread with store: %.3fx its time\n' \
    "$c" "$(echo "$t1 / $c" | bc -l)"
  # Each round's own ratio: the C search and the explorer ran within a minute of each other,
  # so the load the machine's other tenants put on memory moves both, and the median of these
  # is steadier than the ratio of the medians when the load drifts between rounds.
  paste "$work/oracle" "$work/total-1" "$work/total-2" \
    | awk '{printf "  round %d: C %.2f s, one thread %.2f s (%.3fx), two threads %.2f s (%.2fx one)\n", NR, $1, $2, $2 / $1, $3, $2 / $3}'
  paste "$work/oracle" "$work/total-1" | awk '{print $2 / $1}' > "$work/ratios"
  printf 'median of the per-round ratios, one thread against C: %.3fx\n' "$(median < "$work/ratios")"
fi

states=$("$hsg" report "$work/store" --json --no-analysis | grep -oP '"states": \K[0-9]+' | head -1)
echo "store of the last run: $states states, bytes a state per file:"
total=0
for f in "$work"/store/*; do
  [ -f "$f" ] || continue
  size=$(stat -c %s "$f")
  total=$((total + size))
  printf '  %-22s %8.3f\n' "$(basename "$f")" "$(echo "$size / $states" | bc -l)"
done
printf '  %-22s %8.3f\n' "all files" "$(echo "$total / $states" | bc -l)"
