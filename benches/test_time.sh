#!/usr/bin/env bash
# The README's test command from a fresh clone of HEAD, in the two phases a new user pays:
# compiling (`--no-run`) and running. Each phase prints its wall and CPU seconds (user +
# system, which do not depend on the load) with the load average beside them.
#
# Compiling goes through benches/rustc_cpu.sh, which logs the CPU seconds of every rustc run,
# summed here as dependencies, the workspace's libraries, its unit-test binaries, its
# integration-test binaries, and the `hsg` binary with the examples (a binary's line includes
# its link). Running times each test binary alone.
# SLOWEST=N then runs every test alone (`--exact`) and lists the N slowest by CPU seconds.
#
# Extra arguments go to every cargo command, e.g. a profile to try without editing Cargo.toml:
#   benches/test_time.sh --config 'profile.ci.opt-level=1'
# CLONE (default: a temporary directory, removed at the end) keeps the clone elsewhere.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
clone=${CLONE:-$(mktemp -d /tmp/test-time.XXXXXX)}
[ -n "${CLONE:-}" ] || trap 'rm -rf "$clone"' EXIT
git clone -q "$repo" "$clone/hyperstate"
cd "$clone/hyperstate"
# The PuzzleScript reference is looked for beside the checkout.
[ -d "$repo/../shared" ] && [ ! -e "$clone/shared" ] && ln -s "$repo/../shared" "$clone/shared"
export CARGO_TARGET_DIR=$clone/hyperstate/target
# Every cargo command goes through the wrapper: cargo rebuilds everything when it changes.
export RUSTC_WRAPPER=$repo/benches/rustc_cpu.sh RUSTC_CPU_LOG=$clone/rustc-cpu.log
log=$RUSTC_CPU_LOG
: >"$log"

# Runs a command under /usr/bin/time and prints its wall and CPU seconds with the load.
timed() {
    local name=$1
    shift
    echo "== $name: load $(cut -d' ' -f1-3 /proc/loadavg)"
    /usr/bin/time -f "== $name: %e s wall, %U s user, %S s system" "$@"
}

timed compile cargo test --workspace --profile ci --no-run "$@" 2>&1 | grep -E '^(==|error)'

# The CPU seconds of the compilations, grouped.
members=" $(cargo metadata --no-deps --format-version 1 "$@" |
    python3 -c 'import json, sys; print(" ".join(p["name"] for p in json.load(sys.stdin)["packages"]))') "
tests=" $(cargo metadata --no-deps --format-version 1 "$@" | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    for t in p["targets"]:
        if "test" in t["kind"]:
            print(t["name"])' | sort -u | tr '\n' ' ') "
awk -v members="$members" -v tests="$tests" '
    { cpu = $3 + $4; group = "dependencies (and build scripts, proc macros)" }
    index(members, " " $1 " ") && $2 == "lib" { group = "workspace libraries" }
    index(members, " " $1 " ") && $2 == "test" { group = "workspace unit-test binaries" }
    index(tests, " " $1 " ") && $2 == "test" { group = "integration-test binaries" }
    $2 == "bin" { group = "hsg and the examples" }
    { sum[group] += cpu; count[group]++; total += cpu }
    END {
        for (g in sum) printf "   %-48s %3d rustc runs %7.1f CPU s\n", g, count[g], sum[g]
        printf "   %-48s %3d rustc runs %7.1f CPU s\n", "all", NR, total
    }' "$log"
echo "== the 15 costliest compilations (CPU s: user, system, wall)"
sort -k3 -g -r "$log" | head -n 15 | sed 's/^/   /'

# Every test binary: its package, kind, name, executable and manifest.
targets=$(cargo test --workspace --profile ci --no-run --message-format=json "$@" 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["profile"]["test"] and m.get("executable"):
        pkg = m["package_id"].split("#")[0].rstrip("/").split("/")[-1]
        kind = m["target"]["kind"][0]
        print(pkg, kind, m["target"]["name"], m["executable"], m["manifest_path"])')
echo "== tests: load $(cut -d' ' -f1-3 /proc/loadavg)"
start=$SECONDS
# Each binary runs as cargo runs it, from its package's directory (not through `cargo test
# -p`, which would unify other features and rebuild).
while read -r pkg kind name exe manifest; do
    (
        cd "$(dirname "$manifest")"
        /usr/bin/time -f "   $pkg $kind $name: %e s wall, %U s user, %S s system" "$exe" -q 2>&1 |
            grep -E "^   $pkg|^test result|FAILED|panicked" | sed 's/; 0 measured//;s/^test result/      test result/'
    ) || true
done <<<"$targets"
echo "== tests: $((SECONDS - start)) s wall in all, load $(cut -d' ' -f1-3 /proc/loadavg)"

if [ -n "${SLOWEST:-}" ]; then
    echo "== the $SLOWEST slowest tests, each run alone (CPU s: user + system, wall s)"
    while read -r pkg kind name exe manifest; do
        (
            cd "$(dirname "$manifest")"
            "$exe" --list --format terse 2>/dev/null | sed -n 's/: test$//p' | while read -r t; do
                /usr/bin/time -o "$clone/times" -f "%U %S %e $name $t" "$exe" --exact "$t" -q \
                    >/dev/null 2>&1 || true
                tail -n 1 "$clone/times"
            done
        )
    done <<<"$targets" | awk '{printf "%7.2f %7.2f %s", $1 + $2, $3, $4; for (i = 5; i <= NF; i++) printf " %s", $i; print ""}' |
        sort -g -r | head -n "$SLOWEST" | sed 's/^/   /'
fi
