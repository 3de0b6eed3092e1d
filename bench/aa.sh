#!/usr/bin/env bash
# Whole-program alias analysis side by side with LLVM's own evaluator (run by hand).
#
# Each corpus program is linked by rld -flto with --save-temps twice: as usual, and with
# --no-wpa-aa-metadata (same analyses, same IR, no alias metadata written). LLVM 22's
# `aa-eval -evaluate-aa-metadata` with the default AA pipeline (basic-aa, TBAA,
# scoped-noalias) then counts NoAlias answers on each `*.0.0.preopt.bc` (one LTO
# partition, so that one module holds the whole program), and rld's `--time`
# gives the cost of the analysis. Then what LLVM's passes did with it: their remarks
# (licm, gvn, the vectorizers, dse) counted with and without the metadata. Last, a
# program whose hot loop only rld's alias information lets LLVM vectorize, timed linked
# by rld and by lld-22.
#
#   bench/aa.sh              # bzip2, lua (-Wl,-E, as its Makefile links), sqlite
#   PROGRAMS="bzip2" bench/aa.sh
#   RUNS=5 bench/aa.sh       # runs of the mix benchmark
set -euo pipefail

work="${BENCH_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target/bench-aa}"
# shellcheck source=bench/lto-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lto-common.sh"

programs="${PROGRAMS:-bzip2 lua sqlite}"
passes='licm|gvn|loop-vectorize|slp-vectorizer|dse'

# no_alias_rate BITCODE: "<queries> <no-alias> <percent> <modref queries> <no-modref>
# <percent>" from aa-eval (ModRef: a call against a memory access or another call).
no_alias_rate() {
    opt-22 -passes=aa-eval -evaluate-aa-metadata -aa-pipeline=default -disable-output "$1" 2>&1 |
        awk '/Total Alias Queries Performed/ { q = $1 }
             /no alias responses/ { n = $1 }
             /Total ModRef Queries Performed/ { mq = $1 }
             /no mod\/ref responses/ { mn = $1 }
             END { printf "%d %d %.1f %d %d %.1f\n", q, n, q ? 100 * n / q : 0,
                   mq, mn, mq ? 100 * mn / mq : 0 }'
}

# pointer_pairs BITCODE: "<queries> <no-alias>" for aa-eval's pairs of pointer values alone
# (no -evaluate-aa-metadata): queries about bare pointers, which carry no metadata, so no
# alias metadata can change their answers.
pointer_pairs() {
    opt-22 -passes=aa-eval -aa-pipeline=default -disable-output "$1" 2>&1 |
        awk '/Total Alias Queries Performed/ { q = $1 } /no alias responses/ { n = $1 }
             END { printf "%d %d\n", q, n }'
}

# remark_counts FILE: "pass:name count" for the passes' Passed remarks.
remark_counts() {
    awk '/^--- !Passed/ { p = 1; next } /^--- / { p = 0 }
         p && /^Pass:/ { pass = $2 } p && /^Name:/ { print pass ":" $2; p = 0 }' "$1" |
        sort | uniq -c | awk '{ print $2, $1 }'
}

printf '%-8s %10s %16s %16s %7s %16s %10s %16s %16s %7s %14s\n' program queries "NoAlias without" \
    "NoAlias with rld" ratio "ceiling (ratio)" "ModRef q." "NoModRef without" "NoModRef with" ratio \
    "rld analysis"
declare -A effect_off effect_on
for prog in $programs; do
    mapfile -t objs < <(corpus_bitcode "$prog" "$work/$prog" -flto)
    ldflags="$(conf_get "$prog" ldflags)"
    [[ $prog == lua ]] && ldflags="-Wl,-E"
    libs="$(conf_get "$prog" libs)"
    for mode in off on; do
        out="$work/$mode/$prog"
        mkdir -p "$(dirname "$out")"
        extra=()
        [[ $mode == off ]] && extra=(-Wl,--no-wpa-aa-metadata)
        "$cc" -O2 -flto --ld-path="$RLD" $ldflags "${objs[@]}" -o "$out" $libs \
            -Wl,--save-temps -Wl,--lto-partitions=1 -Wl,--time "${extra[@]}" \
            -Wl,--opt-remarks-filename="$out.remarks.yaml" -Wl,--opt-remarks-passes="$passes" \
            2>"$out.time"
    done
    read -r q0 n0 p0 mq0 mn0 mp0 < <(no_alias_rate "$work/off/$prog.0.0.preopt.bc")
    read -r q1 n1 p1 mq1 mn1 mp1 < <(no_alias_rate "$work/on/$prog.0.0.preopt.bc")
    # points-to + mod/ref + alias scopes + metadata, from --time.
    ms=$(awk '/LTO: (points-to analysis|mod\/ref analysis|alias scopes|alias metadata written)/ { t += $2 }
              END { printf "%.0f ms", t }' "$work/on/$prog.time")
    ratio=$(awk -v a="$n0" -v b="$n1" 'BEGIN { printf "%.2fx", a ? b / a : 0 }')
    # The most any metadata could give: every query that carries it answered NoAlias.
    read -r qp np < <(pointer_pairs "$work/on/$prog.0.0.preopt.bc")
    ceiling=$(awk -v q="$q1" -v qp="$qp" -v np="$np" -v n0="$n0" \
        'BEGIN { c = (np + q - qp) / q; printf "%.1f%% (%.2fx)", 100 * c, n0 ? c * q / n0 : 0 }')
    mratio=$(awk -v a="$mn0" -v b="$mn1" 'BEGIN { printf "%.2fx", a ? b / a : 0 }')
    printf '%-8s %10s %15s%% %15s%% %7s %16s %10s %15s%% %15s%% %7s %14s\n' "$prog" "$q1" "$p0" \
        "$p1" "$ratio" "$ceiling" "$mq1" "$mp0" "$mp1" "$mratio" "$ms"
    [[ "$q0" == "$q1" ]] || echo "  (query counts differ: $q0 without, $q1 with)"
    effect_off[$prog]="$(remark_counts "$work/off/$prog.remarks.yaml")"
    effect_on[$prog]="$(remark_counts "$work/on/$prog.remarks.yaml")"
    # The programs must behave the same.
    cmp "$work/off/$prog.lto.o" "$work/on/$prog.lto.o" >/dev/null 2>&1 &&
        echo "  (identical code with and without)"
done

echo
echo "What LLVM's passes did (Passed remarks, without -> with rld's alias metadata):"
for prog in $programs; do
    echo "  $prog:"
    join -a1 -a2 -e0 -o 0,1.2,2.2 <(echo "${effect_off[$prog]}" | sort) <(echo "${effect_on[$prog]}" | sort) |
        awk 'NF == 3 { printf "    %-40s %6d -> %6d\n", $1, $2, $3 }'
done

# A program whose hot loop LLVM vectorizes only with rld's alias information
# (bench/programs/mix_*.c: ten inputs, more run-time overlap checks than the vectorizer
# allows), timed linked by rld -flto and by lld-22 -flto from the same objects.
runs="${RUNS:-5}"
mkdir -p "$work/mix"
for f in mix_main mix_kernel; do
    "$cc" -O2 -flto -c "$repo/bench/programs/$f.c" -o "$work/mix/$f.o"
done
"$cc" -O2 -flto --ld-path="$lld" "$work/mix/mix_main.o" "$work/mix/mix_kernel.o" -o "$work/mix/lld"
"$cc" -O2 -flto --ld-path="$RLD" "$work/mix/mix_main.o" "$work/mix/mix_kernel.o" -o "$work/mix/rld"
echo
echo "mix benchmark (bench/programs/mix_*.c, 4096 floats x 20000 runs), $runs runs each:"
declare -A med
for b in rld lld; do
    times=()
    for ((i = 0; i < runs; i++)); do
        /usr/bin/time -f '%e' -o "$work/t.txt" "$work/mix/$b" >/dev/null
        times+=("$(cat "$work/t.txt")")
    done
    med[$b]=$(printf '%s\n' "${times[@]}" | median)
    echo "  $b -flto: ${med[$b]} s (median)"
done
cmp <("$work/mix/rld") <("$work/mix/lld") >/dev/null && echo "  outputs identical"
awk -v a="${med[lld]}" -v b="${med[rld]}" 'BEGIN { printf "  rld-linked runs %.2fx as fast as lld-linked\n", a / b }'
