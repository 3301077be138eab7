# Shared by the explorer's bench drivers (sourced, not run): builds the release `hsg`, makes a
# scratch directory removed on exit, and defines `median`.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# HSG=PATH measures that binary instead (say, one kept from before a change).
if [ -n "${HSG:-}" ]; then
  hsg=$HSG
else
  cargo build --release --quiet --bin hsg --manifest-path "$root/Cargo.toml"
  hsg=${CARGO_TARGET_DIR:-$root/target}/release/hsg
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/hsg-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# median: the median of the numbers on standard input, one a line.
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
