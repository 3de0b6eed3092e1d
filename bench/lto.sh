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

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
corpus="$repo/tests/corpus"
conf="$corpus/programs.conf"
runs="${RUNS:-3}"
work="${BENCH_DIR:-$repo/target/bench-lto}"
mkdir -p "$work"

if [[ -z "${RLD:-}" ]]; then
    cargo build --release -p rld --manifest-path "$repo/Cargo.toml" >&2
    RLD="${CARGO_TARGET_DIR:-$repo/target}/release/rld"
fi
command -v /usr/bin/time >/dev/null || { echo "install GNU time (apt-get install time)" >&2; exit 1; }

conf_get() { sed -n "s/^$1\.$2=//p" "$conf"; }
mapfile -t dirs < <(bash "$corpus/fetch.sh")
source_dir() {
    local want="$1" line
    for line in "${dirs[@]}"; do
        [[ "$line" == "$want="* ]] && { echo "${line#*=}"; return; }
    done
}

programs=("$@")
((${#programs[@]})) || programs=(bzip2 lua sqlite)

compile() { # prog mode(full|thin) -> prints object list
    local prog="$1" mode="$2" dir obj flag src
    dir="$(source_dir "$(conf_get "$prog" dir)")"
    obj="$work/$prog-$mode"
    flag=$([[ $mode == thin ]] && echo -flto=thin || echo -flto)
    mkdir -p "$obj"
    local srcs=() ex
    for src in $(cd "$dir" && eval echo "$(conf_get "$prog" sources)"); do
        ex=" $(conf_get "$prog" exclude) "
        [[ "$ex" == *" $src "* ]] || srcs+=("$dir/$src")
    done
    for src in $(conf_get "$prog" driver); do srcs+=("$corpus/$src"); done
    for src in "${srcs[@]}"; do
        local o="$obj/$(basename "${src%.c}").o"
        [[ -f "$o" ]] || clang-14 -O2 $flag $(conf_get "$prog" cflags) -I"$dir" -w -c "$src" -o "$o"
        echo "$o"
    done
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

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
