#!/usr/bin/env bash
# The LTO plugin benchmark (run by hand, not in CI): each plugin host (GNU ld, gold, mold)
# running rld's plugin (librld_plugin.so, through scripts/rld-plugin-ld) against the same
# host running LLVM's LLVMgold.so, on the corpus programs (bzip2, Lua, SQLite) built with
# clang-22 -O2 -flto, with `rld -flto` as a third column of reference.
#
#   bench/plugin.sh                # all programs, 3 link runs and 5 program runs each
#   RUNS=5 bench/plugin.sh sqlite
#
# Every link goes through the clang driver (clang-22 -O2 -flto). For each configuration:
# the median wall time of the link, its peak RSS, the output size, and the run time of the
# output on the LTO benchmark's workloads (the best of PROGRAM_RUNS, user + system time);
# "vs LLVMgold" is the ratio to the same host with LLVMgold.so (link time / run time).
# `rld -flto` links with --no-fork, so that GNU time sees the process that links.
set -euo pipefail

work="${BENCH_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target/bench-plugin}"
runs="${RUNS:-3}"
program_runs="${PROGRAM_RUNS:-5}"
# shellcheck source=bench/lto-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lto-common.sh"
command -v /usr/bin/time >/dev/null || { echo "install GNU time (apt-get install time)" >&2; exit 1; }

if [[ -z "${RLD_PLUGIN:-}" ]]; then
    cargo build --release -p rld-plugin --manifest-path "$repo/Cargo.toml" >&2
    RLD_PLUGIN="${CARGO_TARGET_DIR:-$repo/target}/release/librld_plugin.so"
fi
export RLD_PLUGIN
# The wrapper under each host's name.
wrappers="$work/wrappers"
mkdir -p "$wrappers"
for name in rld-plugin-ld.bfd rld-plugin-ld.gold rld-plugin-mold; do
    ln -sfn "$repo/scripts/rld-plugin-ld" "$wrappers/$name"
done

programs=("$@")
((${#programs[@]})) || programs=(bzip2 lua sqlite)

printf '%-7s %-16s %10s %9s %11s %9s %13s\n' program config "link (s)" "RSS (MB)" "size (B)" \
    "run (s)" "vs LLVMgold"
for prog in "${programs[@]}"; do
    mapfile -t objs < <(corpus_bitcode "$prog" "$work/$prog" -flto)
    ldflags="$(conf_get "$prog" ldflags)"
    libs="$(conf_get "$prog" libs)"
    declare -A link_of=() run_of=()
    for cfg in bfd-llvmgold bfd-rld gold-llvmgold gold-rld mold-llvmgold mold-rld rld; do
        case $cfg in
            bfd-llvmgold) ld=(-fuse-ld=bfd) ;;
            gold-llvmgold) ld=(-fuse-ld=gold) ;;
            mold-llvmgold) ld=(-fuse-ld=mold) ;;
            bfd-rld) ld=(--ld-path="$wrappers/rld-plugin-ld.bfd") ;;
            gold-rld) ld=(--ld-path="$wrappers/rld-plugin-ld.gold") ;;
            mold-rld) ld=(--ld-path="$wrappers/rld-plugin-mold") ;;
            rld) ld=(--ld-path="$RLD" -Wl,--no-fork) ;;
        esac
        out="$work/$prog.$cfg"
        time_link "${ld[@]}" $ldflags "${objs[@]}" -o "$out" $libs
        link_of[$cfg]=$link_time
        run_of[$cfg]=$(best_run "$prog" "$out")
        base=${cfg%-rld}-llvmgold
        vs=""
        [[ $cfg == *-rld ]] &&
            vs="$(ratio "${link_of[$cfg]}" "${link_of[$base]}")/$(ratio "${run_of[$cfg]}" "${run_of[$base]}")"
        printf '%-7s %-16s %10s %9d %11d %9s %13s\n' "$prog" "$cfg" "${link_of[$cfg]}" \
            $((rss / 1024)) "$(stat -c %s "$out")" "${run_of[$cfg]}" "$vs"
    done
    unset link_of run_of
done
echo "(vs LLVMgold: the host with rld's plugin over the same host with LLVMgold.so, link time / run time)"
