#!/usr/bin/env bash
# The Fling! headline (issue 39) in one run: `hsg fling tables --max-pieces 11` from nothing
# (tables of 2..FULL pieces, by default every count; lists of the uniquely solvable boards
# above FULL) under /usr/bin/time -v, its table of counts, wall time, processor seconds, peak
# RSS and disk; the counts compared with docs/games.md; then the independent checks: for a
# table of 10 or more pieces, SAMPLES boards drawn at random solved by direct search against
# its bits (the bench binary's FLING_BENCH_TABLE_CHECK mode); for a list, listed boards and
# candidates solved by direct search (FLING_BENCH_CHECK), and the solvable boards of the listed
# counts estimated from boards drawn at random (FLING_BENCH_ESTIMATE).
#
#   benches/fling_headline.sh [DIR]          (DIR keeps the tables; default: scratch)
#   MAX=11 SAMPLES=10000 NICE=-10 benches/fling_headline.sh /work/fling-tables
#   MAX=11 FULL=9 SAMPLES=1000 DRAWS=1000000 benches/fling_headline.sh   (lists above 9)
#   MAX=8 FULL=6 SAMPLES=200 DRAWS=100000 benches/fling_headline.sh      (a quick trial)
#
# The build's progress goes to DIR/../headline-progress.log as it runs (kept if the run is
# stopped), so that an interrupted run still shows how far each count got and when.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MAX=${MAX:-11}
# FULL: the tables' piece count (hsg's default: every count); the counts above are lists.
FULL=${FULL:-$MAX}
NICE=${NICE:-0}
SAMPLES=${SAMPLES:-1000}
hsg=${HSG:-$root/target/release/hsg}
if [ -z "${HSG:-}" ]; then
  cargo build --release --quiet -p cli --manifest-path "$root/Cargo.toml"
fi
cargo build --release --quiet -p fling --bench tables --manifest-path "$root/Cargo.toml"
bench=$(ls -t "${CARGO_TARGET_DIR:-$root/target}"/release/deps/tables-* | grep -v '\.d$' | head -1)
work=$(mktemp -d "${TMPDIR:-/tmp}/fling-headline.XXXXXX")
trap 'rm -rf "$work"' EXIT
dir=${1:-$work/tables}
if [ -e "$dir/manifest.json" ]; then
  echo "$dir already holds tables: the run would not start from nothing" >&2
  exit 2
fi

# The counts of docs/games.md (k: with a move, solvable, uniquely solvable).
declare -A expected=(
  [2]="267 267 267" [3]="12,266 2,720 2,110" [4]="255,733 35,518 15,724"
  [5]="3,310,650 481,048 103,324" [6]="30,921,914 6,110,224 548,966"
  [7]="228,600,020 67,035,246 2,232,602" [8]="1,415,073,693 597,112,986 6,312,768"
  [9]="7,568,642,966 4,214,547,264 11,978,388"
  [10]="35,598,313,880 23,938,078,337 15,296,908"
  [11]="148,892,611,676 113,310,809,584 13,655,136"
)

echo "== hsg fling tables --max-pieces $MAX from nothing, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$(dirname "$dir")"
progress="$(dirname "$dir")/headline-progress.log"
# NICE is set on the build's own session too: where the kernel groups processes by session
# (autogroup), a plain nice only ranks the build against its own session's processes.
/usr/bin/time -v -o "$work/time" setsid -w bash -c \
  'echo "$1" > /proc/self/autogroup 2>/dev/null; shift; exec nice -n "$@"' _ "$NICE" "$NICE" \
  "$hsg" fling tables --max-pieces "$MAX" --full-tables "$FULL" --out "$dir" >"$work/out" 2> >(while IFS= read -r line; do
    echo "$(date -u +%T) $line"; done >"$progress")
cat "$work/out"
echo "rates (boards of the count, full table or list, per second of its wall time):"
awk '$1 ~ /^[0-9]+$/ && $NF !~ /kept/ { b = $2; gsub(",", "", b); s = $NF;
  printf "  k = %2d: %10.1f s, %14.0f boards/s\n", $1, s, (s > 0 ? b / s : 0) }' "$work/out"
grep -E 'Elapsed|User time|System time|Maximum resident' "$work/time"
echo "disk: $(du -sh "$dir" | cut -f1), load after $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== checks"
for k in $(seq 2 "$MAX"); do
  want=${expected[$k]:-}
  [ -z "$want" ] && continue
  if [ "$k" -gt "$FULL" ]; then  # a list: its uniquely solvable count only
    line=$(awk -v k="$k" '$1 == k {print $(NF - 1)}' "$work/out")
    want=${want##* }
  else
    line=$(awk -v k="$k" '$1 == k {print $3, $4, $5}' "$work/out")
  fi
  [ -z "$line" ] && continue
  [ "$line" = "$want" ] && echo "k = $k: counts equal docs/games.md" \
    || echo "k = $k: counts $line, docs/games.md says $want: MISMATCH"
done
for k in $(seq 10 "$FULL"); do
  echo "== k = $k: $SAMPLES boards drawn at random solved by direct search against the table"
  FLING_BENCH_TABLE_CHECK=$k FLING_BENCH_CHECK_SAMPLES=$SAMPLES FLING_BENCH_DIR=$dir "$bench"
done
for k in $(seq $((FULL + 1)) "$MAX"); do
  echo "== k = $k: $SAMPLES listed boards and $SAMPLES candidates solved by direct search"
  FLING_BENCH_CHECK=$k FLING_BENCH_CHECK_SAMPLES=$SAMPLES FLING_BENCH_DIR=$dir "$bench"
  echo "== k = $k: solvable boards estimated from ${DRAWS:-1000000} boards drawn at random"
  FLING_BENCH_ESTIMATE=$k FLING_BENCH_ESTIMATE_SAMPLES=${DRAWS:-1000000} FLING_BENCH_DIR=$dir "$bench"
done
echo "== done, load $(cut -d' ' -f1-3 /proc/loadavg)"
