#!/usr/bin/env bash
# LTO benchmark (run by hand, not in CI): rld -flto against lld-22 -flto and lld-22
# -flto=thin on the corpus programs (bzip2, Lua, SQLite; tests/corpus/).
#
#   bench/lto.sh                 # all programs, 3 link runs and 5 program runs each
#   RUNS=5 bench/lto.sh sqlite
#
# Objects are compiled once per mode with clang-22 -O2 (-flto for rld and lld full LTO,
# -flto=thin for lld ThinLTO); every link goes through the clang driver, since what is
# measured is the whole LTO link. For each linker: the median wall time of the link, its
# peak RSS, the output size, and the run time of the output on a workload (bzip2
# compressing and decompressing 4 MB, bench/programs/lto-workload.lua and .sql; the best of
# PROGRAM_RUNS, user + system time), each with its ratio to rld's. The links run round-robin
# (each round links once with every configuration). rld runs twice: with
# its default partitions (from the program's size) and with --lto-partitions=1 (one
# module, like lld's full LTO). rld links with --no-fork here, so that GNU time sees the
# process that links (by default it links in a child process the driver does not wait for).
#
# Then an incremental relink: a cold rld link of Lua with an empty --lto-cache-dir, one
# file edited (lstrlib.c: a constant changed) and recompiled, and the relink with the
# cache; the same with lld-22 -flto=thin and --thinlto-cache-dir.
set -euo pipefail

work="${BENCH_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target/bench-lto}"
runs="${RUNS:-3}"
program_runs="${PROGRAM_RUNS:-5}"
# shellcheck source=bench/lto-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lto-common.sh"
command -v /usr/bin/time >/dev/null || { echo "install GNU time (apt-get install time)" >&2; exit 1; }

programs=("$@")
((${#programs[@]})) || programs=(bzip2 lua sqlite)

compile() { # prog mode(full|thin) -> prints object list
    corpus_bitcode "$1" "$work/$1-$2" "$([[ $2 == thin ]] && echo -flto=thin || echo -flto)"
}

printf '%-7s %-18s %10s %9s %11s %9s %9s\n' program linker "link (s)" "RSS (MB)" "size (B)" \
    "run (s)" "vs rld"
for prog in "${programs[@]}"; do
    mapfile -t full < <(compile "$prog" full)
    mapfile -t thin < <(compile "$prog" thin)
    ldflags="$(conf_get "$prog" ldflags)"
    libs="$(conf_get "$prog" libs)"
    declare -A link_of=() run_of=() rss_of=() times_of=() cmd_of=()
    configs=(rld rld-1-partition lld lld-thin)
    for cfg in "${configs[@]}"; do
        case $cfg in
            rld) cmd_of[$cfg]="--ld-path=$RLD -Wl,--no-fork ${full[*]}" ;;
            rld-1-partition) cmd_of[$cfg]="--ld-path=$RLD -Wl,--no-fork -Wl,--lto-partitions=1 ${full[*]}" ;;
            lld) cmd_of[$cfg]="--ld-path=$lld ${full[*]}" ;;
            lld-thin) cmd_of[$cfg]="--ld-path=$lld ${thin[*]}" ;;
        esac
        rss_of[$cfg]=0
    done
    # Round-robin: each round links once with every configuration, so that a machine whose
    # speed drifts over minutes slows them alike (one configuration's runs after another's
    # would put the drift into the ratios).
    for ((i = 0; i < runs; i++)); do
        for cfg in "${configs[@]}"; do
            # shellcheck disable=SC2086 # the command line is words
            time_once ${cmd_of[$cfg]} $ldflags -o "$work/$prog.$cfg" $libs
            times_of[$cfg]+="$once_time "
            ((once_rss > rss_of[$cfg])) && rss_of[$cfg]=$once_rss
        done
    done
    for cfg in "${configs[@]}"; do
        out="$work/$prog.$cfg"
        # shellcheck disable=SC2086 # a list of numbers
        link_of[$cfg]=$(printf '%s\n' ${times_of[$cfg]} | median)
        run_of[$cfg]=$(best_run "$prog" "$out")
        printf '%-7s %-18s %10s %9d %11d %9s %9s\n' "$prog" "$cfg" "${link_of[$cfg]}" \
            $((rss_of[$cfg] / 1024)) "$(stat -c %s "$out")" "${run_of[$cfg]}" \
            "$(ratio "${link_of[$cfg]}" "${link_of[rld]}")/$(ratio "${run_of[$cfg]}" "${run_of[rld]}")"
    done
    unset link_of run_of rss_of times_of cmd_of
done
echo "(vs rld: link time ratio / run time ratio, the row's over rld's)"

# Incremental relink of Lua after editing one file.
lua_dir="$(source_dir "$(conf_get lua dir)")"
edit_dir="$work/lua-edit"
rm -rf "$edit_dir" && mkdir -p "$edit_dir"
sed 's/#define MAXCCALLS\t200/#define MAXCCALLS\t201/' "$lua_dir/lstrlib.c" >"$edit_dir/lstrlib.c"
cmp -s "$lua_dir/lstrlib.c" "$edit_dir/lstrlib.c" && { echo "lstrlib.c edit did not apply" >&2; exit 1; }
ldflags="$(conf_get lua ldflags)"
libs="$(conf_get lua libs)"
echo
printf '%-20s %10s %10s %9s\n' "Lua relink" "cold (s)" "warm (s)" "warm/cold"
for cfg in rld lld-thin; do
    mode=$([[ $cfg == rld ]] && echo full || echo thin)
    mapfile -t objs < <(compile lua "$mode")
    # A build directory of its own: the edited object replaces lstrlib.o at the same path,
    # as a build system's relink sees it.
    dir="$work/lua-relink-$cfg"
    rm -rf "$dir" && mkdir -p "$dir"
    cp "${objs[@]}" "$dir/"
    local_objs=()
    for o in "${objs[@]}"; do local_objs+=("$dir/$(basename "$o")"); done
    cache="$dir/cache"
    case $cfg in
        rld) ld=(--ld-path="$RLD" -Wl,--lto-cache-dir="$cache") ;;
        lld-thin) ld=(--ld-path="$lld" -Wl,--thinlto-cache-dir="$cache") ;;
    esac
    /usr/bin/time -f '%e' -o "$work/time.txt" \
        "$cc" -O2 -flto "${ld[@]}" $ldflags "${local_objs[@]}" -o "$dir/lua" $libs
    cold=$(cat "$work/time.txt")
    "$cc" -O2 "$([[ $mode == thin ]] && echo -flto=thin || echo -flto)" $(conf_get lua cflags) \
        -I"$lua_dir" -w -c "$edit_dir/lstrlib.c" -o "$dir/lstrlib.o"
    /usr/bin/time -f '%e' -o "$work/time.txt" \
        "$cc" -O2 -flto "${ld[@]}" $ldflags "${local_objs[@]}" -o "$dir/lua" $libs
    warm=$(cat "$work/time.txt")
    "$dir/lua" "$bench_dir/programs/lto-workload.lua" >/dev/null
    printf '%-20s %10s %10s %9s\n' "$cfg" "$cold" "$warm" "$(ratio "$warm" "$cold")"
done
