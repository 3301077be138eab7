#!/usr/bin/env bash
# The live HSG against a plain exploration followed by a batch analysis (issue target: at most
# 2x in time), and a depth-limited HSG of an 11x11 Affordance Sandbox instance under a memory
# budget (rate and peak RSS). Prints each run's wall, user and system seconds and peak RSS,
# then the medians and the ratio.
#
#   RUNS=3 benches/live.sh [LEVEL]      (default levels/sokoban/room4.xsb)
set -euo pipefail
cd "$(dirname "$0")/.."
LEVEL=${1:-levels/sokoban/room4.xsb}
RUNS=${RUNS:-3}
SANDBOX_DEPTH=${SANDBOX_DEPTH:-14}
SANDBOX_MEM=${SANDBOX_MEM:-1G}
cargo build --release --bin hsg >/dev/null
HSG=${CARGO_TARGET_DIR:-target}/release/hsg
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

measure() { # label command...
    local label=$1
    shift
    /usr/bin/time -f "$label %e %U %S %M" "$@" 2>&1 >/dev/null | tail -1
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

: >"$SCRATCH/log"
for i in $(seq "$RUNS"); do
    measure plain "$HSG" explore "$LEVEL" --store "$SCRATCH/plain" --force-new | tee -a "$SCRATCH/log"
    measure analyze "$HSG" analyze "$SCRATCH/plain" --no-headroom | tee -a "$SCRATCH/log"
    measure live "$HSG" explore "$LEVEL" --store "$SCRATCH/live" --live-hsg --force-new | tee -a "$SCRATCH/log"
done
p=$(awk '$1=="plain"{print $2}' "$SCRATCH/log" | median)
a=$(awk '$1=="analyze"{print $2}' "$SCRATCH/log" | median)
l=$(awk '$1=="live"{print $2}' "$SCRATCH/log" | median)
echo "median wall: plain $p s + analyze $a s; live $l s; ratio $(echo "$l / ($p + $a)" | bc -l | cut -c1-5)"

SANDBOX=levels/sandbox/exp6-instances.sandbox
measure "sandbox-depth-$SANDBOX_DEPTH" "$HSG" explore "$SANDBOX" --store "$SCRATCH/sandbox" \
    --hsg-depth "$SANDBOX_DEPTH" --mem "$SANDBOX_MEM" --force-new
"$HSG" info "$SCRATCH/sandbox" | head -3
