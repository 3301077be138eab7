#!/usr/bin/env bash
# Fling! table builds, before and after (issue 39): samples of one piece count timed with
# several bench binaries (copies of target/release/deps/tables-* built at different commits),
# interleaved, ROUNDS times each, over several rank regions (the rate differs a lot between
# low and high ranks), and the median boards per user second of each binary and region.
#
#   SAMPLE=10 REGIONS="0-0.1 0.3-0.4" benches/fling_ab.sh DIR base=/path/a lever=/path/b
#
# DIR holds the finished tables of SAMPLE - 1 pieces and their manifest (hard links to a
# build's files will do: the sample only reads them). BUDGET=0 reads them through the file
# mapping instead of copying them into memory (for a machine whose memory is taken: the
# rates are then lower, ratios still compare). THREADS (default 1), CHUNKS (default 200).
set -euo pipefail
dir=$1
shift
SAMPLE=${SAMPLE:-10}
REGIONS=${REGIONS:-0-0.1 0.2-0.3 0.4-0.5}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-1}
CHUNKS=${CHUNKS:-200}
out=$(mktemp "${TMPDIR:-/tmp}/fling-ab.XXXXXX")
trap 'rm -f "$out"' EXIT
echo "== k = $SAMPLE, regions $REGIONS, $ROUNDS rounds, $THREADS threads, $(uptime)"
for round in $(seq "$ROUNDS"); do
  for region in $REGIONS; do
    for named in "$@"; do
      name=${named%%=*}
      bin=${named#*=}
      line=$(FLING_BENCH_SAMPLE=$SAMPLE FLING_BENCH_SAMPLE_STEPS=canonical FLING_BENCH_DIR=$dir \
        FLING_BENCH_CHUNKS=$CHUNKS FLING_BENCH_THREADS=$THREADS FLING_BENCH_REGION=$region \
        env ${BUDGET:+FLING_BENCH_BUDGET=$BUDGET} "$bin" | grep sampled)
      rate=$(sed -E 's/.* ([0-9]+) per user second.*/\1/' <<<"$line")
      user=$(sed -E 's/.*\(([0-9.]+) s user\).*/\1/' <<<"$line")
      echo "$round $region $name $rate $user" | tee -a "$out"
    done
  done
done
echo "== medians of $ROUNDS (boards per user second, user seconds), $(uptime)"
for region in $REGIONS; do
  for named in "$@"; do
    name=${named%%=*}
    awk -v r="$region" -v n="$name" '$2 == r && $3 == n {print $4, $5}' "$out" | sort -n |
      awk -v r="$region" -v n="$name" '{a[NR] = $1; u[NR] = $2} END {m = int((NR + 1) / 2);
        printf "%-10s %-8s %12.0f boards/user s  %6.2f user s\n", r, n, a[m], u[m]}'
  done
done
