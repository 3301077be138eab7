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
#   MAX_SECONDS=1 MAX_STATES=20000 LIMIT=40 benches/puzzlescript_reference.sh
#
# MAX_SECONDS and MAX_STATES cap the reference's search (default 1 s and 20,000 states; the
# whole table then takes about ten minutes on a loaded machine); LIMIT keeps the first LIMIT
# conformance games. Needs node. TABLE=FILE also writes the rows as Markdown to FILE.
set -euo pipefail
source "$(dirname "$0")/common.sh"
max_seconds=${MAX_SECONDS:-1}
max_states=${MAX_STATES:-20000}
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

rows=$work/rows
: > "$rows"
random=0
echo "load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores; reference capped at $max_seconds s and $max_states states of search"
printf '%-34s %3s %7s %7s %5s %11s %11s %7s %7s %7s %7s\n' game level ref hsg same \
  "ref st/s" "hsg st/s" ratio "ref s" "hsg s" e2e
for i in "${!files[@]}"; do
  file=${files[$i]} name=${names[$i]:0:34}
  level=$(largest "$file")
  if [ -z "$level" ]; then
    printf '%-34s hsg lists no playable level\n' "$name"
    continue
  fi
  /usr/bin/time -f '%U %S' -o "$work/ref.time" node "$helper" time "$bfs" "$file" $((level - 1)) \
    --max-states "$max_states" --max-seconds "$max_seconds" --max-again 100000 \
    > "$work/ref.json" 2>/dev/null || true
  json=$(tail -n 1 "$work/ref.json")
  if [ -z "$json" ]; then
    printf '%-34s %3s reference printed nothing\n' "$name" "$level"
    continue
  fi
  rstates=$(field "$json" states) rcomplete=$(field "$json" complete)
  rwall=$(field "$json" search_wall) error=$(field "$json" error)
  if [[ $error == nondeterministic* ]]; then
    random=$((random + 1))
    continue
  elif [ -n "$error" ]; then
    printf '%-34s %3s reference: %s\n' "$name" "$level" "${error:0:60}"
    continue
  fi
  cap=()
  [ "$rcomplete" = true ] || cap=(--max-states "$rstates")
  # hsg runs three times (short runs are at the mercy of the scheduler): the median rate, and
  # the CPU time of the median run. --keep-inert: the reference's graph, state for state.
  : > "$work/hsg.runs"
  for _ in 1 2 3; do
    rm -rf "$work/store"
    if ! /usr/bin/time -f '%U %S' -o "$work/hsg.time" "$hsg" explore "$file" --level "$level" \
      --store "$work/store" --threads 1 --keep-inert "${cap[@]}" > /dev/null 2> "$work/hsg.err"; then
      break
    fi
    end=$(grep -P '^(complete|partial): ' "$work/hsg.err" | tail -n 1)
    echo "$(grep -oP '\(\K[0-9,]+(?= states/s\))' <<< "$end" | tr -d ,) $(cpu "$work/hsg.time")" >> "$work/hsg.runs"
  done
  if [ "$(wc -l < "$work/hsg.runs")" -lt 3 ]; then
    printf '%-34s %3s %7s hsg: %s\n' "$name" "$level" "$rstates" "$(grep -v '^\[' "$work/hsg.err" | head -n 1 | cut -c1-60)"
    continue
  fi
  hstates=$(grep -oP '^\w+: \K[0-9,]+(?= states)' <<< "$end" | tr -d ,)
  read -r hrate hcpu < <(sort -g "$work/hsg.runs" | sed -n 2p)
  hcomplete=false
  [[ $end == complete* ]] && hcomplete=true
  same=-
  if [ "$rcomplete" = true ] && [ "$hcomplete" = true ]; then
    if [ "$rstates" = "$hstates" ]; then same=yes; else same=NO; fi
  fi
  rrate=$(echo "$rstates / $rwall" | bc -l)
  rcpu=$(cpu "$work/ref.time")
  ratio=$(echo "$hrate / $rrate" | bc -l)
  # End to end: states per CPU second of each whole process (hsg's clock counts hundredths).
  e2e=$(awk -v rs="$rstates" -v rc="$rcpu" -v hs="$hstates" -v hc="$hcpu" \
    'BEGIN {if (hc > 0 && rc > 0) printf "%.1f", (hs / hc) / (rs / rc); else print "-"}')
  printf '%-34s %3s %7s %7s %5s %11.0f %11.0f %6.1fx %7.2f %7.2f %7s\n' "$name" "$level" \
    "$rstates" "$hstates" "$same" "$rrate" "$hrate" "$ratio" "$rcpu" "$hcpu" "$e2e"
  printf '%s\t%s\t%s\t%s\t%s\t%.0f\t%s\t%.1f\t%.2f\t%.2f\t%s\n' "$name" "$level" "$rstates" \
    "$hstates" "$same" "$rrate" "$hrate" "$ratio" "$rcpu" "$hcpu" "$e2e" >> "$rows"
done

# summary ROWS WHAT: the medians and the worst over the rows of file ROWS.
summary() {
  local rows=$1 what=$2
  [ -s "$rows" ] || return 0
  echo "$what: $(wc -l < "$rows") games; search phase, hsg/reference states per second:" \
    "median $(cut -f8 "$rows" | median)x, worst $(cut -f8 "$rows" | sort -g | head -n 1)x" \
    "($(sort -t$'\t' -k8,8g "$rows" | head -n 1 | cut -f1)), $(awk -F'\t' '$8 < 10' "$rows" | wc -l) below 10x;" \
    "end to end (CPU) median $(cut -f11 "$rows" | grep -v '^-' | median)x" \
    "over the $(cut -f11 "$rows" | grep -vc '^-') with a measurable hsg CPU time"
}
echo "$random random games skipped (the reference draws one outcome);" \
  "$(grep -c $'\tNO\t' "$rows" || true) games with different counts where both completed"
summary "$rows" "all games timed"
# Levels of fewer than 100 states (the reference's count) time start-up more than search: a
# millisecond of hsg's explorer setup is a large share of such a run.
awk -F'\t' '$3 >= 100' "$rows" > "$rows.100"
summary "$rows.100" "levels of at least 100 states"
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "${TABLE:-}" ]; then
  {
    echo "| game | level | states (reference) | states (hsg) | same | reference states/s | hsg states/s | ratio | reference CPU s | hsg CPU s | end-to-end ratio |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    sort -t$'\t' -k8,8g "$rows" | awk -F'\t' -v OFS=' | ' '{$8 = $8 "x"; print "| " $0 " |"}'
  } > "$TABLE"
fi
