#!/usr/bin/env bash
# The Fling! retrograde tables (issue 39), in one run: full builds of k = 2..MAX with the
# symmetric step (the build's default) and of k = 2..FAST_MAX with the fast step, each under
# /usr/bin/time -v (wall time, user and system seconds, peak RSS), with each k's boards per
# second and per processor second; the two builds' tables compared byte for byte and their
# counts against docs/games.md; then samples of k = SAMPLE (default MAX+1, from the real
# MAX-piece tables just built) with the reference step (the step of the build before commit
# 41e01ee, kept as `Step::Reference`) and the fast step on the same ranges.
#
#   benches/fling_tables.sh [DIR]      # DIR keeps the symmetric tables (default: scratch)
#   MAX=9 FAST_MAX=8 SAMPLE=9-10 CHUNKS=400 NICE=19 benches/fling_tables.sh /work/fling-run2/tables
#
# The load (uptime) is printed before and after: on a shared machine the processor seconds
# are the figures to compare, and ratios measured in this one run.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MAX=${MAX:-8}
FAST_MAX=${FAST_MAX:-$MAX}
SAMPLE=${SAMPLE:-$((MAX + 1))}
CHUNKS=${CHUNKS:-200}
NICE=${NICE:-0}
# BENCH names an already built bench binary (target/release/deps/tables-*) to skip the build.
if [ -z "${BENCH:-}" ]; then
  cargo build --release --quiet -p fling --bench tables --manifest-path "$root/Cargo.toml"
fi
bench=${BENCH:-$(ls -t "${CARGO_TARGET_DIR:-$root/target}"/release/deps/tables-* | grep -v '\.d$' | head -1)}
work=$(mktemp -d "${TMPDIR:-/tmp}/fling-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
dir=${1:-$work/symmetric}

# The counts of docs/games.md (k: with a move, solvable, uniquely solvable).
declare -A expected=(
  [2]="267 267 267" [3]="12266 2720 2110" [4]="255733 35518 15724"
  [5]="3310650 481048 103324" [6]="30921914 6110224 548966" [7]="228600020 67035246 2232602"
  [8]="1415073693 597112986 6312768" [9]="7568642966 4214547264 11978388"
)

timed() { # timed LABEL STEP MAX DIR: one full build, its table and its time -v summary
  echo "== $1: $2 step, k = 2..$3, $(uptime)"
  FLING_BENCH_STEP=$2 FLING_BENCH_PIECES=$3 FLING_BENCH_DIR=$4 \
    /usr/bin/time -v nice -n "$NICE" "$bench" 2>"$work/$1.time" | tee "$work/$1.out"
  grep -E 'Elapsed|User time|System time|Maximum resident' "$work/$1.time"
}

timed symmetric symmetric "$MAX" "$dir"
timed fast fast "$FAST_MAX" "$work/fast"

echo "== checks"
for k in $(seq 2 "$MAX"); do
  line=$(awk -v k="$k" '$1 == k {print $3, $4, $5}' "$work/symmetric.out")
  want=${expected[$k]:-}
  if [ -n "$want" ] && [ "$line" != "$want" ]; then
    echo "k = $k: counts $line, docs/games.md says $want: MISMATCH"
  elif [ -n "$want" ]; then
    echo "k = $k: counts equal docs/games.md"
  fi
  if [ "$k" -le "$FAST_MAX" ]; then
    for what in solvable unique; do
      cmp -s "$work/fast/$what-$k.bits" "$dir/$what-$k.bits" \
        && echo "k = $k: $what tables of both steps identical" \
        || echo "k = $k: $what tables of the two steps DIFFER"
    done
  fi
done

echo "== samples of k = $SAMPLE, each from the real tables of one piece fewer, $(uptime)"
FLING_BENCH_SAMPLE=$SAMPLE FLING_BENCH_DIR=$dir FLING_BENCH_CHUNKS=$CHUNKS \
  nice -n "$NICE" "$bench"
echo "== done, $(uptime)"
