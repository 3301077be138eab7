#!/usr/bin/env bash
# Runs every fuzz target for RUNS executions or SECS seconds, whichever comes first,
# JOBS targets at a time, logging to $OUT/<target>.log. Needs the targets built:
#   cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz build -s none --release
# Usage: RUNS=10000000 SECS=1800 JOBS=2 TIMEOUT=10 OUT=/tmp/fuzz fuzz/run-all.sh [TARGET...]
# TIMEOUT is libFuzzer's per-input limit in wall seconds (raise it on a busy machine).
set -u
cd "$(dirname "$0")"
RUNS=${RUNS:-10000000}
SECS=${SECS:-1800}
TIMEOUT=${TIMEOUT:-10}
JOBS=${JOBS:-2}
OUT=${OUT:-/tmp/hyperstate-fuzz}
BIN=${BIN:-${CARGO_TARGET_DIR:-target}/x86_64-unknown-linux-gnu/release}
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(sokoban puzzlegraph fling sandbox game txt puzzlescript analysis store bookmarks loader)
mkdir -p "$OUT"
run_one() {
    local t=$1
    mkdir -p "$OUT/corpus/$t" "$OUT/artifacts/$t"
    /usr/bin/time -v "$BIN/$t" "$OUT/corpus/$t" "corpus/$t" \
        -runs="$RUNS" -max_total_time="$SECS" -max_len=16384 -timeout="$TIMEOUT" \
        -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$OUT/artifacts/$t/" >"$OUT/$t.log" 2>&1
}
export -f run_one
export OUT BIN RUNS SECS TIMEOUT
printf '%s\n' "${targets[@]}" | xargs -P "$JOBS" -I{} bash -c 'run_one {}'
