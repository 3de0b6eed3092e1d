# Shared by bench/lto.sh, bench/cvp.sh and bench/plugin.sh (sourced, not run): where the
# corpus is, the rld under test, compiling a corpus program to LLVM bitcode, and timing the
# programs on their workloads. Expects `work` to be set (and `program_runs` for best_run).

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bench_dir="$repo/bench"
corpus="$repo/tests/corpus"
conf="$corpus/programs.conf"
mkdir -p "$work"

# The compiler of the bitcode: clang-22, or BENCH_CC=clang-14 for LLVM 14's bitcode (which
# rld's LLVM upgrades on read). The reference linker is lld-22 either way.
cc="${BENCH_CC:-clang-22}"
lld="$(command -v ld.lld-22)" || { echo "ld.lld-22 is not installed (lld-22)" >&2; exit 1; }

if [[ -z "${RLD:-}" ]]; then
    cargo build --release -p rld -p rld-plugin --manifest-path "$repo/Cargo.toml" >&2
    RLD="${CARGO_TARGET_DIR:-$repo/target}/release/rld"
fi

conf_get() { sed -n "s/^$1\.$2=//p" "$conf"; }
mapfile -t dirs < <(bash "$corpus/fetch.sh")
source_dir() {
    local line
    for line in "${dirs[@]}"; do
        [[ "$line" == "$1="* ]] && { echo "${line#*=}"; return; }
    done
}

# corpus_bitcode PROG OUTDIR LTOFLAG [FLAG...]: compiles PROG (tests/corpus/programs.conf)
# with $cc -O2 LTOFLAG FLAG... into OUTDIR/$cc (objects reused while present), prints the
# objects.
corpus_bitcode() {
    local prog="$1" obj="$2" flag="$3" dir src ex o
    local extra=("${@:4}")
    dir="$(source_dir "$(conf_get "$prog" dir)")"
    # Objects of each compiler apart: the one that wrote them is in the directory's name.
    obj="$obj/$cc"
    mkdir -p "$obj"
    local srcs=()
    for src in $(cd "$dir" && eval echo "$(conf_get "$prog" sources)"); do
        ex=" $(conf_get "$prog" exclude) "
        [[ "$ex" == *" $src "* ]] || srcs+=("$dir/$src")
    done
    for src in $(conf_get "$prog" driver); do srcs+=("$corpus/$src"); done
    for src in "${srcs[@]}"; do
        o="$obj/$(basename "${src%.c}").o"
        [[ -f "$o" ]] || "$cc" -O2 "$flag" "${extra[@]}" $(conf_get "$prog" cflags) -I"$dir" -w -c "$src" -o "$o"
        echo "$o"
    done
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# time_link ARGS...: runs `clang-22 -O2 -flto ARGS...` $runs times; sets link_time (the
# median wall time, s) and rss (the peak, KB).
time_link() {
    local times=() i
    rss=0
    for ((i = 0; i < runs; i++)); do
        time_once "$@"
        times+=("$once_time")
        ((once_rss > rss)) && rss=$once_rss
    done
    link_time=$(printf '%s\n' "${times[@]}" | median)
}

# time_once ARGS...: one `clang-22 -O2 -flto ARGS...`; sets once_time (wall, s) and
# once_rss (peak, KB).
time_once() {
    /usr/bin/time -f '%e %M' -o "$work/time.txt" "$cc" -O2 -flto "$@"
    read -r once_time once_rss <"$work/time.txt"
}

# The bzip2 workload's input: 4 MB of generated text and numbers (deterministic).
workload_input="$work/bzip2-input"
seq 1 210000 | awk '{ print $1, $1 * 7919 % 100003, "line" ($1 % 97) }' >"$workload_input"

workload() { # prog exe -> the workload's command line (one shell command)
    case $1 in
        bzip2) echo "'$2' -c <'$workload_input' >'$work/w.bz2' && '$2' -dc <'$work/w.bz2' >'$work/w.out'" ;;
        lua) echo "'$2' '$bench_dir/programs/lto-workload.lua' >/dev/null" ;;
        sqlite) echo "'$2' '$bench_dir/programs/lto-workload.sql' >/dev/null" ;;
    esac
}

best_run() { # prog exe -> prints the best user+sys time of program_runs runs
    local best="" cmd t
    cmd="$(workload "$1" "$2")"
    for ((r = 0; r < program_runs; r++)); do
        /usr/bin/time -f '%U %S' -o "$work/run.txt" sh -c "$cmd"
        t=$(awk '{ print $1 + $2 }' "$work/run.txt")
        best=$(awk -v a="$t" -v b="${best:-$t}" 'BEGIN { print (a < b) ? a : b }')
    done
    [[ $1 != bzip2 ]] || cmp -s "$work/w.out" "$workload_input" || { echo "bzip2 round trip failed" >&2; exit 1; }
    echo "$best"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
