#!/usr/bin/env bash
# Called-value propagation side by side (run by hand): for each program, the number of
# indirect call sites, how many rld resolves (remarks `cvp`/`callees` or `promoted`), and how
# many LLVM 22's own pass resolves on the same merged bitcode
# (`opt-22 -passes=called-value-propagation`, counting `!callees`). Then the interpreter
# benchmark (bench/programs/vm_*.c) timed linked by rld -flto and by lld-22 -flto.
#
#   bench/cvp.sh                  # bzip2, lua, sqlite and the VM program
#   RUNS=5 bench/cvp.sh
set -euo pipefail

work="${BENCH_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target/bench-cvp}"
runs="${RUNS:-5}"
# shellcheck source=bench/lto-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lto-common.sh"

# Bitcode objects of a corpus program (clang-22 -O2 -flto), one per line.
corpus_objects() { corpus_bitcode "$1" "$work/$1" -flto; }

vm_objects() {
    local f
    mkdir -p "$work/vm"
    for f in vm_main vm_ops; do
        "$cc" -O2 -flto -I"$repo/bench/programs" -c "$repo/bench/programs/$f.c" -o "$work/vm/$f.o"
        echo "$work/vm/$f.o"
    done
}

# An indirect call in textual IR: the callee operand is a local value, not a @global.
count_indirect() { grep -cE '(call|invoke) [^@(]*%[-a-zA-Z$._0-9]+\(' || true; }

printf '%-8s %10s %14s %16s %10s\n' program "indirect" "rld: resolved" "opt-22 CVP" "promoted"
# Lua twice: as its Makefile links it (-Wl,-E: every function exported, so any loaded C
# module may call them and their parameters are unknowable) and without -E (the corpus
# driver loads no C modules).
for prog in bzip2 lua lua-E sqlite vm; do
    if [[ $prog == lua-E ]]; then
        mapfile -t objs < <(corpus_objects lua)
        ldflags="-Wl,-E"
        libs="$(conf_get lua libs)"
    elif [[ $prog == lua ]]; then
        mapfile -t objs < <(corpus_objects lua)
        ldflags=""
        libs="$(conf_get lua libs)"
    elif [[ $prog == vm ]]; then
        mapfile -t objs < <(vm_objects)
        ldflags=""
        libs=""
    else
        mapfile -t objs < <(corpus_objects "$prog")
        ldflags="$(conf_get "$prog" ldflags)"
        libs="$(conf_get "$prog" libs)"
    fi
    llvm-link-22 "${objs[@]}" -o "$work/$prog.merged.bc"
    sites=$(llvm-dis-22 "$work/$prog.merged.bc" -o - | count_indirect)
    llvm_resolved=$(opt-22 -passes=called-value-propagation "$work/$prog.merged.bc" -S -o - | grep -c '!callees !' || true)
    remarks="$work/$prog.remarks.yaml"
    "$cc" -O2 -flto --ld-path="$RLD" $ldflags "${objs[@]}" -o "$work/$prog.rld" $libs \
        -Wl,--opt-remarks-filename="$remarks" -Wl,--opt-remarks-passes=cvp
    rld_resolved=$(grep -cE '^Name: +(callees|promoted)$' "$remarks" || true)
    promoted=$(grep -cE '^Name: +promoted$' "$remarks" || true)
    printf '%-8s %10s %14s %16s %10s\n' "$prog" "$sites" "$rld_resolved" "$llvm_resolved" "$promoted"
done

echo
echo "interpreter benchmark (bench/programs/vm_*.c, 30000 instructions x 2000 runs), $runs runs each:"
"$cc" -O2 -flto --ld-path="$lld" "$work/vm/vm_main.o" "$work/vm/vm_ops.o" -o "$work/vm.lld"
declare -A med
for b in rld lld; do
    times=()
    for ((i = 0; i < runs; i++)); do
        /usr/bin/time -f '%e' -o "$work/t.txt" "$work/vm.$b" 30000 >/dev/null
        times+=("$(cat "$work/t.txt")")
    done
    med[$b]=$(printf '%s\n' "${times[@]}" | median)
    echo "  $b -flto: ${med[$b]} s (median)"
done
cmp <("$work/vm.rld" 3000) <("$work/vm.lld" 3000) >/dev/null && echo "  outputs identical"
awk -v a="${med[lld]}" -v b="${med[rld]}" 'BEGIN { printf "  rld-linked runs %.2fx as fast as lld-linked\n", a / b }'
