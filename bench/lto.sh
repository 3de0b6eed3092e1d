#!/usr/bin/env bash
# LTO link-time benchmark (run by hand, not in CI): rld -flto against lld-14 -flto and
# lld-14 -flto=thin on the corpus programs (bzip2, Lua, SQLite; tests/corpus/).
#
#   bench/lto.sh                 # all programs, 3 runs each
#   RUNS=5 bench/lto.sh sqlite
#
# Objects are compiled once per mode with clang-14 -O2 (-flto for rld and lld full LTO,
# -flto=thin for lld ThinLTO); the link goes through the clang driver each time, since
# what is measured is the whole LTO link (LLVM's optimization and code generation
# dominate). Prints the median wall time, peak RSS, output size, and ratios to rld.
set -euo pipefail

work="${BENCH_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target/bench-lto}"
runs="${RUNS:-3}"
# shellcheck source=bench/lto-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lto-common.sh"
command -v /usr/bin/time >/dev/null || { echo "install GNU time (apt-get install time)" >&2; exit 1; }

programs=("$@")
((${#programs[@]})) || programs=(bzip2 lua sqlite)

compile() { # prog mode(full|thin) -> prints object list
    corpus_bitcode "$1" "$work/$1-$2" "$([[ $2 == thin ]] && echo -flto=thin || echo -flto)"
}

printf '%-8s %-16s %12s %10s %11s %9s\n' program linker "median (s)" "RSS (MB)" "size (B)" "vs rld"
for prog in "${programs[@]}"; do
    mapfile -t full < <(compile "$prog" full)
    mapfile -t thin < <(compile "$prog" thin)
    ldflags="$(conf_get "$prog" ldflags)"
    libs="$(conf_get "$prog" libs)"
    declare -A time_of=()
    for cfg in rld lld lld-thin; do
        case $cfg in
            rld) objs=("${full[@]}"); ld=(--ld-path="$RLD") ;;
            lld) objs=("${full[@]}"); ld=(-fuse-ld=lld) ;;
            lld-thin) objs=("${thin[@]}"); ld=(-fuse-ld=lld) ;;
        esac
        out="$work/$prog.$cfg"
        times=()
        rss=0
        for ((i = 0; i < runs; i++)); do
            /usr/bin/time -f '%e %M' -o "$work/time.txt" \
                clang-14 -O2 -flto "${ld[@]}" $ldflags "${objs[@]}" -o "$out" $libs
            read -r t m <"$work/time.txt"
            times+=("$t")
            ((m > rss)) && rss=$m
        done
        med=$(printf '%s\n' "${times[@]}" | median)
        time_of[$cfg]=$med
        ratio=$(awk -v a="$med" -v b="${time_of[rld]}" 'BEGIN { printf "%.2fx", a / b }')
        printf '%-8s %-16s %12s %10d %11d %9s\n' "$prog" "$cfg" "$med" $((rss / 1024)) \
            "$(stat -c %s "$out")" "$ratio"
    done
    unset time_of
done
