#!/usr/bin/env bash
# How much of what LLVM leaves MayAlias rld's alias metadata removes, and how much any
# sound analysis could (run by hand; needs llvm-22-dev for the opt plugin).
#
# Per program: linked by rld -flto --save-temps --lto-partitions=1 with and without rld's
# alias metadata (--no-wpa-aa-metadata: same analyses, same IR). On each `*.0.0.preopt.bc`
# (the whole program in one module) the `aat-eval` pass of bench/aa-ceiling/plugin.cpp asks
# LLVM 22's default AA pipeline (basic-aa, TBAA, scoped-noalias) the queries of
# `aa-eval -evaluate-aa-metadata` -- every load against every store and every store against
# every other store of a function -- and lists the pairs answered MayAlias. Then the bitcode
# with the metadata is instrumented (`aat-instrument`), compiled at -O0 with
# bench/aa-ceiling/runtime.cpp and run on a small workload, which records which pairs of
# accesses touched the same byte of the same object (one `alloca` run, one allocation, one
# global) and which abstract objects (allocation sites) and 8-byte slots each access
# touched. bench/aa-ceiling/ceiling.py joins them:
#
#   pairs       the queries
#   MayAlias    answered MayAlias by LLVM's default AA, then with rld's metadata
#   ran         of the pairs LLVM leaves MayAlias, those whose two accesses both ran
#   overlap     of those, the pairs that touched the same byte of the same object: the
#               dynamic ceiling (no sound analysis can answer them NoAlias)
#   rld left    pairs that ran, did not overlap and rld leaves MayAlias, split by what
#               telling them apart takes: "instances" (they touched the same 8-byte slot of
#               the same abstract object, never of the same instance: contexts), "fields"
#               (other slots of a common object) and "objects" (no common object: a more
#               precise points-to set)
#   unsound     pairs rld's metadata made NoAlias that overlapped in the run (must be 0)
#
#   bench/aa-ceiling.sh                     # bzip2, lua (-Wl,-E), sqlite
#   PROGRAMS=sqlite bench/aa-ceiling.sh
#   LINK_FLAGS="-Wl,--some-option" bench/aa-ceiling.sh   # rld's analysis configured otherwise
set -euo pipefail

work="${BENCH_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target/bench-aa-ceiling}"
# shellcheck source=bench/lto-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lto-common.sh"
# shellcheck source=bench/aa-ceiling/table.sh
source "$(dirname "${BASH_SOURCE[0]}")/aa-ceiling/table.sh"

programs="${PROGRAMS:-bzip2 lua sqlite}"
tool="$bench_dir/aa-ceiling"
read -ra link_flags <<<"${LINK_FLAGS:-}"

clang++-22 -O2 -shared -fPIC $(llvm-config-22 --cxxflags) "$tool/plugin.cpp" -o "$work/plugin.so"
clang++-22 -O2 -c "$tool/runtime.cpp" -o "$work/runtime.o"
plugin=(-load-pass-plugin="$work/plugin.so")

# The workloads, smaller than bench/lto.sh's: every access is traced.
seq 1 20000 | awk '{ print $1, $1 * 7919 % 100003, "line" ($1 % 97) }' >"$work/ceiling-input"
sed -e 's/round = 1, 3/round = 1, 1/' -e 's/200000/4000/' -e 's/60000/3000/' \
    -e 's/300000/5000/' -e 's/fib(24)/fib(12)/' "$bench_dir/programs/lto-workload.lua" \
    >"$work/ceiling.lua"
sed -e 's/200000/3000/' "$bench_dir/programs/lto-workload.sql" >"$work/ceiling.sql"
ceiling_workload() { # prog exe
    case $1 in
        bzip2) "$2" -c <"$work/ceiling-input" >"$work/w.bz2" && "$2" -dc <"$work/w.bz2" |
            cmp - "$work/ceiling-input" ;;
        lua) "$2" "$work/ceiling.lua" >/dev/null ;;
        sqlite) "$2" "$work/ceiling.sql" >/dev/null ;;
    esac
}

ceiling_header
for prog in $programs; do
    mapfile -t objs < <(corpus_bitcode "$prog" "$work/$prog" -flto)
    ldflags="$(conf_get "$prog" ldflags)"
    libs="$(conf_get "$prog" libs)"
    for mode in off on; do
        out="$work/$mode/$prog"
        mkdir -p "$(dirname "$out")"
        extra=("${link_flags[@]}")
        [[ $mode == off ]] && extra+=(-Wl,--no-wpa-aa-metadata)
        "$cc" -O2 -flto --ld-path="$RLD" $ldflags "${objs[@]}" -o "$out" $libs \
            -Wl,--save-temps -Wl,--lto-partitions=1 -Wl,--time "${extra[@]}" 2>"$out.time" ||
            { tail -5 "$out.time" >&2; exit 1; }
        opt-22 "${plugin[@]}" -passes=aat-eval -aat-eval-out="$out.eval" -disable-output \
            "$out.0.0.preopt.bc"
    done
    on="$work/on/$prog"
    opt-22 "${plugin[@]}" -passes=aat-instrument "$on.0.0.preopt.bc" -o "$on.inst.bc"
    clang-22 -O0 "$on.inst.bc" "$work/runtime.o" -lstdc++ $libs -o "$on.inst"
    rm -f "$on.trace"
    AAT_OUT="$on.trace" ceiling_workload "$prog" "$on.inst"
    ceiling_row "$prog" "$work/off/$prog.eval" "$on.eval" "$on.trace" "$on.time"
done
