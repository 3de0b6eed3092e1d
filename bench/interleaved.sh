#!/usr/bin/env bash
# Round-robin timing of the linkers bench/run.sh ran last (run by hand, not in CI):
#
#   bench/run.sh -n 1 llvm-api llvm-whole      # first: builds, links, saves each command
#   bench/interleaved.sh 20 llvm-api llvm-whole
#
# On a shared machine whose speed drifts over minutes, timing one linker's runs after
# another's (as hyperfine does) mixes the drift into the ratios; here every round runs each
# linker once, in turn, so drift hits them alike. Reads the command lines bench/run.sh left
# in target/bench/link/<program>/<linker>.cmd; prints, per program, each linker's median
# wall time and rld's ratio to mold and to lld-22 (the median of the per-round ratios).
# Times come from bash's $EPOCHREALTIME around each run (no process is started to read
# the clock). Before each run, bench/quiesce.sh waits until the child processes rld,
# mold and wild leave freeing memory after they return are gone: they would slow down the next run,
# another linker's.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${BENCH_DIR:-$repo/target/bench}"
rounds="${1:-20}"
shift || true
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 ROUNDS PROGRAM..." >&2; exit 2; }
[[ $# -gt 0 ]] || set -- llvm-api llvm-whole
linkers=(rld mold lld)

for prog in "$@"; do
    dir="$work/link/$prog"
    declare -A cmd=()
    for l in "${linkers[@]}"; do
        [[ -f "$dir/$l.cmd" ]] || { echo "no $dir/$l.cmd: run bench/run.sh $prog first" >&2; exit 1; }
        cmd[$l]="$(cat "$dir/$l.cmd")"
    done
    times="$(mktemp)"
    for ((r = 0; r < rounds; r++)); do
        line=""
        for l in "${linkers[@]}"; do
            eval "args=(${cmd[$l]})"
            # The previous linker's background teardown is not this one's time.
            "$repo/bench/quiesce.sh"
            start=$EPOCHREALTIME
            "${args[@]}" >/dev/null 2>&1 || { echo "$prog: $l failed" >&2; exit 1; }
            end=$EPOCHREALTIME
            line+="$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f ", (b - a) * 1000 }')"
        done
        echo "$line" >>"$times"
    done
    awk -v prog="$prog" -v n="$rounds" '
        function median(v, k,   i, j, t) {
            for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
            return (k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
        }
        { rld[NR] = $1; mold[NR] = $2; lld[NR] = $3; rm[NR] = $1 / $2; rl[NR] = $1 / $3 }
        END {
            printf "%-10s rld %.1f ms, mold %.1f ms, lld-22 %.1f ms (medians of %d rounds); rld / mold = %.2fx, rld / lld-22 = %.2fx\n",
                prog, median(rld, NR), median(mold, NR), median(lld, NR), n, median(rm, NR), median(rl, NR)
        }' "$times"
    rm -f "$times"
    unset cmd
done
