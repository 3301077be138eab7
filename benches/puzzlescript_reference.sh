#!/usr/bin/env bash
# hyperstate's PuzzleScript against the reference engine, game by game: every distinct game of
# the shared conformance suite (shared/fixtures/puzzlescript/testdata.jsonl) and every game of
# levels/puzzlescript/, or the game files given. For each game, its largest playable level (by
# area; the first of equals) is explored breadth-first by the reference engine
# (shared/puzzlescript-reference/bfs.js under node, timed by benches/puzzlescript_reference.js)
# and by the real `hsg explore --threads 1` with the same state cap: the reference's state count
# when its cap stopped it. Prints one row a game: states of each (and whether they agree where
# both are complete), the search phase's states per second of each (wall time from the end of
# the level's load, compile and start-up excluded, so that neither start-up is counted as
# search), their ratio, and end to end (process start to exit, CPU seconds: node's start-up and
# compile, hsg's compile and store included) with its ratio; then the medians and the worst.
# Random games are listed and skipped (the reference draws one outcome of a random rule).
#
#   benches/puzzlescript_reference.sh [GAME.txt...]
#   MAX_STATES=2000 MAX_SECONDS=20 LIMIT=40 benches/puzzlescript_reference.sh
#
# MAX_STATES and MAX_SECONDS cap the reference's search (default 2,000 states and 20 s of wall
# time: a cap by states, since the reference's first second is mostly its JIT warming up and a
# loaded machine starves it; the whole table took about an hour at load 10 to 13, mostly node's
# start-up and the reference's search); LIMIT keeps the first LIMIT conformance games. Needs
# node and python3 (CPU times to the microsecond). TABLE=FILE also writes the rows as Markdown.
set -euo pipefail
source "$(dirname "$0")/common.sh"
max_seconds=${MAX_SECONDS:-20}
max_states=${MAX_STATES:-2000}
shared=$(cd "$root/.." && pwd)/shared
[ -d "$shared" ] || shared=$(cd "$root/../.." && pwd)/shared
bfs=$shared/puzzlescript-reference/bfs.js
helper=$root/benches/puzzlescript_reference.js
command -v node >/dev/null || { echo "node is needed (apt-get install nodejs)" >&2; exit 1; }
[ -f "$bfs" ] || { echo "no $bfs beside the checkout" >&2; exit 1; }

# The games: named on the command line, else the conformance suite's and the bundled ones.
mkdir -p "$work/games"
declare -a files names
if [ $# -gt 0 ]; then
  for f in "$@"; do files+=("$f"); names+=("$(basename "$f")"); done
else
  node "$helper" games "$shared/fixtures/puzzlescript/testdata.jsonl" "$work/games" > "$work/list"
  while IFS=$'\t' read -r file name; do
    files+=("$work/games/$file"); names+=("$name")
  done < <(head -n "${LIMIT:-100000}" "$work/list")
  for f in "$root"/levels/puzzlescript/*.txt; do
    [ "$(basename "$f")" = SOURCES.md ] && continue
    files+=("$f"); names+=("$(basename "$f")")
  done
fi

# field JSON KEY: a number, boolean or string field of a flat JSON line (empty when missing).
field() { grep -oP "\"$2\":\"?\K[^,\"}]*" <<< "$1" | head -n 1 || true; }

# largest LEVEL_FILE: the playable level with the largest area (hsg's numbering, from 1).
largest() {
  "$hsg" explore "$1" --list 2>/dev/null \
    | grep -oP '^\s+\K[0-9]+(?=\s+level [0-9]+: [0-9]+x[0-9]+)|level [0-9]+: \K[0-9]+x[0-9]+' \
    | paste - - | awk '{split($2, d, "x"); a = d[1] * d[2]; if (a > best) {best = a; n = $1}} END {print n}'
}

# cpu TIME_OUTPUT: user + system seconds from `/usr/bin/time -f '%U %S'`'s last line.
cpu() { tail -n 1 "$1" | awk '{print $1 + $2}'; }

# cpu_run ERR CMD...: runs CMD (stdout discarded, stderr to ERR) and prints its user + system
# seconds to the microsecond (os.wait4's rusage; /usr/bin/time rounds to hundredths).
cpu_run() {
  python3 -c 'import os, subprocess, sys
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=open(sys.argv[1], "w"))
_, status, ru = os.wait4(p.pid, 0)
print(f"{ru.ru_utime + ru.ru_stime:.6f}")
sys.exit(os.waitstatus_to_exitcode(status))' "$@"
}

# Columns of $rows: 1 game, 2 level, 3 reference states, 4 hsg states, 5 same counts,
# 6 reference states per CPU second of search, 7 hsg states per CPU second of search (its run
# less its start-up, see below),
# 8 their ratio, 9 reference states per wall second of search, 10 hsg's (its explorer's
# figure), 11 their ratio, 12 reference CPU seconds end to end, 13 hsg's, 14 their ratio.
rows=$work/rows
: > "$rows"
random=0 failed=0
echo "load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores; reference capped at $max_seconds s and $max_states states of search"
printf '%-30s %3s %7s %7s %4s %9s %9s %7s %7s %7s %7s\n' game level ref hsg same \
  "ref st/s" "hsg st/s" "ratio" "wall" "e2e s" "e2e"
for i in "${!files[@]}"; do
  file=${files[$i]} name=${names[$i]:0:30}
  level=$(largest "$file")
  if [ -z "$level" ]; then
    printf '%-30s hsg lists no playable level\n' "$name"
    failed=$((failed + 1))
    continue
  fi
  /usr/bin/time -f '%U %S' -o "$work/ref.time" node "$helper" time "$bfs" "$file" $((level - 1)) \
    --max-states "$max_states" --max-seconds "$max_seconds" --max-again 100000 \
    > "$work/ref.json" 2>/dev/null || true
  json=$(tail -n 1 "$work/ref.json")
  rstates=$(field "$json" states) rcomplete=$(field "$json" complete)
  rwall=$(field "$json" search_wall) rsearch=$(field "$json" search_cpu) error=$(field "$json" error)
  if [[ $error == nondeterministic* ]]; then
    random=$((random + 1))
    continue
  elif [ -n "$error" ] || [ -z "$rstates" ]; then
    printf '%-30s %3s reference: %s\n' "$name" "$level" "${error:-printed nothing}"
    failed=$((failed + 1))
    continue
  fi
  cap=()
  [ "$rcomplete" = true ] || cap=(--max-states "$rstates")
  # hsg runs three times (short runs are at the mercy of the machine): the run of the median
  # CPU time counts. --keep-inert: the reference's graph, state for state. Its search's CPU
  # time is that run's less the median of three runs of the same command stopped at the
  # first state (--max-states 1: start-up, compile, the store's creation and its finish).
  : > "$work/hsg.runs"
  : > "$work/hsg.base"
  for _ in 1 2 3; do
    rm -rf "$work/store"
    cpu_run "$work/hsg.err" "$hsg" explore "$file" --level "$level" --store "$work/store" \
      --threads 1 --keep-inert --max-states 1 >> "$work/hsg.base" || break
    rm -rf "$work/store"
    if ! t=$(cpu_run "$work/hsg.err" "$hsg" explore "$file" --level "$level" \
      --store "$work/store" --threads 1 --keep-inert "${cap[@]}"); then
      break
    fi
    end=$(grep -P '^(complete|partial): ' "$work/hsg.err" | tail -n 1)
    echo "$t $(grep -oP '\(\K[0-9,]+(?= states/s\))' <<< "$end" | tr -d ,) $end" >> "$work/hsg.runs"
  done
  if [ "$(wc -l < "$work/hsg.runs")" -lt 3 ]; then
    printf '%-30s %3s %7s hsg: %s\n' "$name" "$level" "$rstates" "$(grep -v '^\[' "$work/hsg.err" | head -n 1 | cut -c1-60)"
    failed=$((failed + 1))
    continue
  fi
  read -r hcpu hwall end < <(sort -g "$work/hsg.runs" | sed -n 2p)
  hbase=$(median < "$work/hsg.base")
  hstates=$(grep -oP '^\w+: \K[0-9,]+(?= states)' <<< "$end" | tr -d ,)
  same=-
  if [ "$rcomplete" = true ] && [[ $end == complete* ]]; then
    if [ "$rstates" = "$hstates" ]; then same=yes; else same=NO; fi
  fi
  rcpu=$(cpu "$work/ref.time")
  awk -v OFS='\t' -v n="$name" -v l="$level" -v rs="$rstates" -v hs="$hstates" -v same="$same" \
    -v rsc="$rsearch" -v hc="$hcpu" -v hb="$hbase" -v rw="$rwall" -v hw="$hwall" -v rc="$rcpu" 'BEGIN {
      # A search of less than 0.1 ms of CPU after the baseline is counted as 0.1 ms.
      hs1 = hc - hb; if (hs1 < 0.0001) hs1 = 0.0001
      r1 = rs / rsc; h1 = hs / hs1; r2 = rs / rw; r3 = rs / rc; h3 = hs / hc
      printf "%s\t%s\t%s\t%s\t%s\t%.0f\t%.0f\t%.1f\t%.0f\t%.0f\t%.1f\t%.2f\t%.3f\t%.1f\n",
        n, l, rs, hs, same, r1, h1, h1 / r1, r2, hw, hw / r2, rc, hc, rc / hc * hs / rs
    }' >> "$rows"
  tail -n 1 "$rows" | awk -F'\t' '{printf "%-30s %3s %7s %7s %4s %9s %9s %6sx %6sx %7s %6sx\n",
    $1, $2, $3, $4, $5, $6, $7, $8, $11, $13, $14}'
done

# summary ROWS WHAT: the medians and the worst over the rows of file ROWS.
summary() {
  local rows=$1 what=$2
  [ -s "$rows" ] || return 0
  echo "$what: $(wc -l < "$rows") games; hsg/reference states per CPU second of search:" \
    "median $(cut -f8 "$rows" | median)x, worst $(cut -f8 "$rows" | sort -g | head -n 1)x" \
    "($(sort -t$'\t' -k8,8g "$rows" | head -n 1 | cut -f1)), $(awk -F'\t' '$8 < 10' "$rows" | wc -l) below 10x;" \
    "by wall time median $(cut -f11 "$rows" | median)x; end to end (CPU) median $(cut -f14 "$rows" | median)x"
}
echo "$random random games skipped (the reference draws one outcome), $failed not timed (above);" \
  "$(grep -c $'\tNO\t' "$rows" || true) games with different counts where both completed"
summary "$rows" "all games timed"
# Levels of fewer than 100 states (the reference's count) time start-up more than search: a
# millisecond of hsg's setup is a large share of such a run.
awk -F'\t' '$3 >= 100' "$rows" > "$rows.100"
summary "$rows.100" "levels of at least 100 states"
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "${TABLE:-}" ]; then
  {
    echo "| game | level | states: reference | hsg | same | states per CPU s of search: reference | hsg | ratio | states per wall s: reference search | hsg explorer | ratio | end to end CPU s: reference | hsg | ratio |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    sort -t$'\t' -k8,8g "$rows" | awk -F'\t' -v OFS=' | ' '{$8 = $8 "x"; $11 = $11 "x"; $14 = $14 "x"; print "| " $0 " |"}'
  } > "$TABLE"
fi
