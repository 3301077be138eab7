#!/bin/sh
# One full experiment of the seed's design (100 instances x 30 runs, 63 million games), three
# times, under /usr/bin/time -v: wall time, CPU time and peak resident memory of each run, and
# the median wall time. Usage: crates/evolve/benches/experiment.sh [PRESET] (default exp3).
# CARGO_TARGET_DIR is honoured; the build is the release profile.
set -eu
preset=${1:-exp3}
cd "$(dirname "$0")/../../.."
cargo build --release -p evolve --bench experiment --quiet
bin=$(ls -t "${CARGO_TARGET_DIR:-target}"/release/deps/experiment-* | grep -v '\.d$' | head -1)
walls=""
for i in 1 2 3; do
    out=$(/usr/bin/time -v "$bin" "$preset" 100 30 2>&1)
    echo "$out" | grep -E "^exp|Elapsed|User time|System time|Maximum resident|Percent of CPU"
    wall=$(echo "$out" | sed -n 's/.* games in \([0-9.]*\) s.*/\1/p')
    walls="$walls $wall"
done
echo "median wall time of$walls: $(echo $walls | tr ' ' '\n' | sort -n | sed -n 2p) s"
