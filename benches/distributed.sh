#!/usr/bin/env bash
# The distributed explorer (issue 19) against the single-machine explorer, in one invocation:
# N processes on this machine over 127.0.0.1 (`hsg explore --cluster`, one per host line),
# then `hsg gather`. Per configuration: wall seconds of the exploration (all processes) and of
# the gather, bytes sent per state (all processes, payload), peak RSS of each process, and the
# overhead: distributed wall (exploration + gather) over the single machine's on one thread.
# CPU seconds (user + system, all processes) are printed beside wall seconds: on a loaded
# machine they are the work's own cost. Rounds interleave the configurations; medians over RUNS rounds are printed. On a 2-core
# machine 2 and 4 processes are oversubscribed: no speed-up is expected.
# MEMS lists the `--mem` budgets per process to run each process count with ("-" for the
# default, half the RAM): with a small one, each layer runs in several rounds, and the rounds
# (process 0's `R rounds in L layers`) are printed beside the peak RSS they keep within it.
#
#   RUNS=3 PROCS="1 2 4" MEMS="- 64M" benches/distributed.sh [LEVEL]   (default levels/sokoban/room4.xsb)
set -euo pipefail
source "$(dirname "$0")/common.sh"
level=${1:-$root/levels/sokoban/room4.xsb}
runs=${RUNS:-3}
procs=${PROCS:-1 2 4}
mems=${MEMS:--}

secs() { grep -oP 'Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): \K[0-9:.]+' "$1" \
  | awk -F: '{s=0; for (i=1;i<=NF;i++) s=s*60+$i; print s}'; }
cpu() { awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$@"; }
rss_mib() { grep -oP 'Maximum resident set size \(kbytes\): \K[0-9]+' "$1" | awk '{printf "%.0f", $1/1024}'; }

single() {
  rm -rf "$work/single"
  /usr/bin/time -v "$hsg" explore "$level" --store "$work/single" --threads 1 2> "$work/single.err" >/dev/null
  echo "$(secs "$work/single.err") $(rss_mib "$work/single.err") $(cpu "$work/single.err")" >> "$work/single.log"
}

# distributed N MEM: N processes with --mem MEM ("-": the default), then the gather; appends
# "wall gather bytes/state cpu rounds layers rss_0 ... rss_N-1" (cpu: user + system seconds of
# all processes).
distributed() {
  local n=$1 mem=$2 parts=() pids=() budget=()
  [ "$mem" = - ] || budget=(--mem "$mem")
  rm -rf "$work/parts" "$work/gathered"; mkdir -p "$work/parts"
  python3 - "$n" > "$work/parts/hosts" <<'PY'
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print("\n".join(f"127.0.0.1:{s.getsockname()[1]}" for s in socks))
PY
  # Every process proves the same cluster key (a fresh one per configuration).
  local key; key=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
  local start; start=$(date +%s.%N)
  for i in $(seq 0 $((n - 1))); do
    parts+=("$work/parts/part-$i")
    HSG_CLUSTER_KEY=$key /usr/bin/time -v "$hsg" explore "$level" --store "$work/parts/part-$i" \
      --cluster "$work/parts/hosts" --process "$i" "${budget[@]}" 2> "$work/parts/err-$i" >/dev/null &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  local wall; wall=$(echo "$(date +%s.%N) - $start" | bc)
  /usr/bin/time -v "$hsg" gather "${parts[@]}" --store "$work/gathered" 2> "$work/gather.err"
  local per_state; per_state=$(grep -oP 'sent \(\K[0-9.]+(?= bytes a state\))' "$work/parts/err-0")
  local rounds; rounds=$(grep -oP '\K[0-9]+ rounds in [0-9]+(?= layers)' "$work/parts/err-0" | awk '{print $1, $4}')
  local line="$wall $(secs "$work/gather.err") $per_state $(cpu "$work"/parts/err-*) $rounds"
  for i in $(seq 0 $((n - 1))); do line="$line $(rss_mib "$work/parts/err-$i")"; done
  echo "$line" >> "$work/dist-$n-$mem.log"
  # The gathered store must be the single machine's, file for file.
  for f in "$work/single"/*; do
    case $(basename "$f") in LOCK|MANIFEST) continue ;; esac
    cmp -s "$f" "$work/gathered/$(basename "$f")" || { echo "DIFFERS: $(basename "$f")"; exit 1; }
  done
}

col() { awk -v c="$1" '{print $c}' "$2" | median; }

echo "level: $level, $runs rounds, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$runs"); do
  single
  for n in $procs; do for mem in $mems; do distributed "$n" "$mem"; done; done
done
s_wall=$(col 1 "$work/single.log"); s_cpu=$(col 3 "$work/single.log")
printf '%-16s %8.1f s wall %6.1f s CPU %38s peak RSS %6d MiB\n' "single, 1 thread" "$s_wall" "$s_cpu" "" "$(col 2 "$work/single.log")"
for n in $procs; do for mem in $mems; do
  log="$work/dist-$n-$mem.log"
  wall=$(col 1 "$log"); gather=$(col 2 "$log"); bytes=$(col 3 "$log"); dcpu=$(col 4 "$log")
  rounds=$(col 5 "$log"); layers=$(col 6 "$log")
  rss=""; for i in $(seq 0 $((n - 1))); do rss="$rss $(col $((7 + i)) "$log")"; done
  ratio=$(echo "($wall + $gather) / $s_wall" | bc -l)
  cratio=$(echo "$dcpu / $s_cpu" | bc -l)
  printf '%-16s --mem %-5s %8.1f s wall %6.1f s CPU %6.1f s gather %7.1f B/state sent  %d rounds in %d layers  peak RSS per process (MiB):%s  overhead %.2fx wall, %.2fx CPU\n' \
    "$n processes" "$mem" "$wall" "$dcpu" "$gather" "$bytes" "$rounds" "$layers" "$rss" "$ratio" "$cratio"
done; done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
