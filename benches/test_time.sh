#!/usr/bin/env bash
# The README's test command from a fresh clone of HEAD: compile time, then run time, each
# with wall and CPU seconds and the load, and the run time of every test binary. Extra
# arguments go to both cargo commands, e.g. a profile to try without editing Cargo.toml:
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

# Runs a phase under /usr/bin/time and prints its wall and CPU seconds with the load.
timed() {
    local name=$1
    shift
    echo "== $name: load $(cut -d' ' -f1-3 /proc/loadavg)"
    /usr/bin/time -f "== $name: %e s wall, %U s user, %S s system" "$@"
}
timed compile cargo test --workspace --profile ci --no-run "$@"
timed tests cargo test --workspace --profile ci "$@" 2>&1 |
    grep -E '^(==|     Running|   Doc-tests|test result)' | sed 's/; 0 measured//'
