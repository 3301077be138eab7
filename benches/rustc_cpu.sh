#!/usr/bin/env bash
# A RUSTC_WRAPPER for benches/test_time.sh: runs rustc and appends one line a compilation to
# $RUSTC_CPU_LOG: crate name, kind (lib, test, bin, proc-macro...), user, system and wall
# seconds. The link of a binary is part of its line (rustc runs the linker).
rustc=$1
shift
name=? kind=lib prev=
for arg in "$@"; do
    case "$prev" in
    --crate-name) name=$arg ;;
    --crate-type) kind=$arg ;;
    esac
    [ "$arg" = --test ] && kind=test
    prev=$arg
done
# Cargo's queries of the compiler (version, target information) are not compilations.
case " $* " in *" - "* | *" -vV "*) exec "$rustc" "$@" ;; esac
times=$(mktemp "${TMPDIR:-/tmp}/rustc-cpu.XXXXXX")
status=0
/usr/bin/time -o "$times" -f "%U %S %e" "$rustc" "$@" || status=$?
echo "$name $kind $(tail -n 1 "$times")" >>"${RUSTC_CPU_LOG:?}"
rm -f "$times"
exit "$status"
