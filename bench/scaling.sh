#!/usr/bin/env bash
# How link time grows with the program: a synthetic program scaled 1x, 4x and 16x, linked
# by rld and the other linkers (run by hand).
#
#   bench/scaling.sh                   # sizes 1 4 16, 5 rounds
#   SIZES="1 4" RUNS=3 bench/scaling.sh
#   LINKERS="rld mold2 wild" bench/scaling.sh
#
# The program at size S: 64*S objects, each with 256 functions (every one in its own
# section, calling two others, one in another object) and 64 data objects (own sections,
# holding pointers to functions: relocations the output must apply, and in a PIE relative
# dynamic relocations); so S scales objects, sections, symbols and relocations alike. The
# objects are written as assembly and assembled once (kept under target/bench/scaling).
# Each linker links them as a static executable with no C library (entry `_start`, which exits),
# with and without --gc-sections (wild is given --no-gc-sections in the rows without).
# Every linker's output runs and exits 0; rld's output is the same bytes with --threads=1.
#
# Prints, per size and linker, the median wall time, and for rld its time per MB of input
# and per thousand symbols: flat columns mean the cost grows linearly with the program.
#
# Environment: RLD (default target/release/rld), MOLD2, WILD (default: bench/anchors.sh's
# target/anchors), RUNS (default 5), SIZES (default "1 4 16"), LINKERS (default: every one
# found of rld lld mold mold2 wild).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work="${BENCH_DIR:-$repo/target/bench}/scaling"
runs=${RUNS:-5}
sizes=${SIZES:-1 4 16}
rld=${RLD:-$repo/target/release/rld}
declare -A path=(
    [rld]="$rld"
    [lld]="$(command -v ld.lld-22 || true)"
    [mold]="$(command -v mold || true)"
    [mold2]="${MOLD2:-$repo/target/anchors/mold-build/mold}"
    [wild]="${WILD:-$repo/target/anchors/wild/target/release/wild}"
)
linkers=()
for l in ${LINKERS:-rld lld mold mold2 wild}; do
    if [[ -n "${path[$l]:-}" && -x "${path[$l]}" ]]; then
        linkers+=("$l")
    else
        echo "note: $l not found${path[$l]:+ at ${path[$l]}}: skipped" >&2
    fi
done
jobs=$(nproc)

# gen_object DIR I N: object I of N (assembly), functions f_I_J, data d_I_J.
gen_object() {
    awk -v i="$2" -v n="$3" 'BEGIN {
        srand(i + 1)
        for (j = 0; j < 256; j++) {
            printf "\t.section .text.f_%d_%d,\"ax\",@progbits\n\t.globl f_%d_%d\n", i, j, i, j
            printf "\t.type f_%d_%d,@function\nf_%d_%d:\n", i, j, i, j
            k = int(rand() * n)
            printf "\tcall f_%d_%d\n", i, (j + 1) % 256
            printf "\tcall f_%d_%d\n", k, int(rand() * 256)
            printf "\tret\n\t.size f_%d_%d, .-f_%d_%d\n", i, j, i, j
        }
        for (j = 0; j < 64; j++) {
            printf "\t.section .data.rel.d_%d_%d,\"aw\",@progbits\n\t.globl d_%d_%d\n", i, j, i, j
            printf "\t.p2align 3\nd_%d_%d:\n", i, j
            printf "\t.quad f_%d_%d\n\t.quad f_%d_%d\n", i, j * 4, int(rand() * n), int(rand() * 256)
        }
        if (i == 0) {
            # The entry: keeps the chain from f_0_0 (and through it much of the program)
            # alive under --gc-sections, and exits.
            print "\t.section .text._start,\"ax\",@progbits\n\t.globl _start\n_start:"
            print "\tlea d_0_0(%rip), %rax\n\tmov $60, %eax\n\txor %edi, %edi\n\tsyscall"
        }
    }' >"$1/o$2.s"
}

build() { # SIZE: objects in $work/sSIZE
    local s=$1 dir="$work/s$1" n=$((64 * $1)) i
    if [[ -f "$dir/done" ]]; then return; fi
    mkdir -p "$dir"
    echo "generating size $s ($n objects)..." >&2
    for ((i = 0; i < n; i++)); do gen_object "$dir" "$i" "$n"; done
    # shellcheck disable=SC2016 # $1 is for the inner sh
    find "$dir" -name '*.s' | xargs -P "$jobs" -I{} sh -c 'as "$1" -o "${1%.s}.o"' sh {}
    rm -f "$dir"/*.s
    touch "$dir/done"
}

median() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m * 1000 }'; }

printf '%-5s %-4s %-10s %10s %12s %14s\n' size gc linker "median ms" "rld ms/MB" "rld us/1k sym"
for s in $sizes; do
    build "$s"
    dir="$work/s$s"
    objs=("$dir"/o*.o)
    in_mb=$(du -cb "${objs[@]}" | tail -1 | awk '{ printf "%.2f", $1 / 1048576 }')
    symbols=$((64 * s * 320))
    for gc in no yes; do
        declare -A cmd=()
        for l in "${linkers[@]}"; do
            args=("${path[$l]}" -static -o "$dir/out.$l" -e _start)
            if [[ $gc == yes ]]; then
                args+=(--gc-sections)
            elif [[ $l == wild ]]; then
                args+=(--no-gc-sections)
            fi
            cmd[$l]=$(printf '%q ' "${args[@]}" "${objs[@]}")
            eval "${cmd[$l]}" || { echo "$l failed at size $s" >&2; exit 1; }
            "$dir/out.$l" || { echo "$l's output at size $s exits $?" >&2; exit 1; }
            : >"$dir/$l.times"
        done
        "${path[rld]}" -static -o "$dir/out.rld1" -e _start \
            $([[ $gc == yes ]] && echo --gc-sections) --threads=1 "${objs[@]}"
        cmp -s "$dir/out.rld1" "$dir/out.rld" || { echo "rld: --threads=1 differs at size $s" >&2; exit 1; }
        for ((r = 0; r < runs; r++)); do
            for l in "${linkers[@]}"; do
                "$repo/bench/quiesce.sh"
                t0=$EPOCHREALTIME
                eval "${cmd[$l]}"
                t1=$EPOCHREALTIME
                awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >>"$dir/$l.times"
            done
        done
        for l in "${linkers[@]}"; do
            ms=$(median <"$dir/$l.times")
            per=("" "")
            if [[ $l == rld ]]; then
                per=("$(awk -v t="$ms" -v m="$in_mb" 'BEGIN { printf "%.2f", t / m }')"
                     "$(awk -v t="$ms" -v k="$symbols" 'BEGIN { printf "%.2f", t * 1000 / (k / 1000) }')")
            fi
            printf '%-5s %-4s %-10s %10s %12s %14s\n' "${s}x" "$gc" "$l" "$ms" "${per[0]}" "${per[1]}"
        done
        unset cmd
    done
done
