#!/usr/bin/env bash
# The scale issue's room5 figures, each phase as a user waits for it: `hsg explore` of room5
# on two threads with the default --mem, `hsg analyze --analysis-mem 20G` of its store, then
# the workbench's first frame and first usable screens (the `workbench` bench of the tui crate
# on the finished store, 80x24). Each phase prints its wall time, its CPU seconds and its
# peak RSS (from /usr/bin/time -v); the explore's summary lines (states, transitions, the
# visited index) are echoed. The store goes to STORE (default a scratch directory removed on
# exit; room5's store takes about 30 GB) and is kept when STORE is given.
#
#   benches/room5.sh [LEVEL]          (default levels/sokoban/room5.xsb)
#   STORE=/big/room5 KEEP=1 benches/room5.sh
set -euo pipefail
source "$(dirname "$0")/common.sh"
level=${1:-$root/levels/sokoban/room5.xsb}
store=${STORE:-$work/room5}

# phase NAME CMD...: runs CMD under /usr/bin/time -v with its stdout in $work/NAME.out and its
# stderr in $work/NAME.err, then prints the phase's wall, CPU and peak RSS.
phase() {
  local name=$1; shift
  /usr/bin/time -v "$@" > "$work/$name.out" 2> "$work/$name.err" || {
    echo "$name failed:" >&2; tail -n 20 "$work/$name.err" >&2; exit 1; }
  local wall user sys rss
  wall=$(grep -oP 'Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): \K[0-9:.]+' "$work/$name.err" \
    | awk -F: '{s=0; for (i=1;i<=NF;i++) s=s*60+$i; print s}')
  user=$(grep -oP 'User time \(seconds\): \K[0-9.]+' "$work/$name.err")
  sys=$(grep -oP 'System time \(seconds\): \K[0-9.]+' "$work/$name.err")
  rss=$(grep -oP 'Maximum resident set size \(kbytes\): \K[0-9]+' "$work/$name.err")
  printf '%-9s %9.1f s wall (%d min %02d s), %8.1f s user, %7.1f s system, peak RSS %6.0f MiB, load %s\n' \
    "$name" "$wall" "$((${wall%.*} / 60))" "$((${wall%.*} % 60))" "$user" "$sys" \
    "$(echo "$rss" | awk '{print $1/1024}')" "$(cut -d' ' -f1-3 /proc/loadavg)"
}

echo "level: $level, store: $store, $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg)"
# The workbench bench is built first, so that its phase times the workbench, not a build.
cargo bench --quiet --no-run --manifest-path "$root/Cargo.toml" -p tui --bench workbench 2>/dev/null
rm -rf "$store"
phase explore "$hsg" explore "$level" --store "$store" --threads 2
# (The summaries are filtered with sed, not cut with head: under pipefail a closed pipe
# would end the script.)
grep -hE 'states|transitions|visited index|wall' "$work/explore.out" | sed -n '1,12s/^/  /p' || true
phase analyze "$hsg" analyze "$store" --analysis-mem 20G
grep -E 'hyperstates|win|compression' "$work/analyze.out" | sed -n '1,8s/^/  /p' || true
phase workbench cargo bench --quiet --manifest-path "$root/Cargo.toml" -p tui --bench workbench -- "$store" --repeats 1
grep -E 'first|overview|usable|verified' "$work/workbench.out" | sed -n '1,12s/^/  /p' || true
if [ -n "${KEEP:-}" ]; then trap - EXIT; echo "kept: $store (scratch files in $work)"; fi
