#!/usr/bin/env bash
# Distributed LTO benchmark (run by hand, as root: it makes network namespaces). SQLite
# (the corpus) and 7zip (the largest program of the LLVM test-suite's CTMark) linked:
#   - by rld in process, and through a Dask cluster (scripts/dtlto-dask.py) of 1, 2 and 3
#     worker hosts, each in a network namespace of its own and pinned to one core
#     (scripts/dask-cluster ... each);
#   - by lld-22 with ThinLTO in process, and with its DTLTO through the same cluster
#     (--shared-fs: lld's jobs name the modules they import by their paths here).
# Median of RUNS links each (clang-22 -O2 -flto; clang++-22 for 7zip). Then, from the
# jobs' own times in the workers' logs and rld's --time, the per-job costs and a model of
# a link the size of Chromium on 100 workers (bench/dtlto-model.py).
#
#   TS_BUILD=/path/to/test-suite-build bench/dtlto.sh    # a build dir of
#       scripts/difftest/test-suite.sh (its compile_commands.json gives 7zip's compiles);
#       without it only SQLite is measured
#   RUNS=5 bench/dtlto.sh
#   TS_BUILD=... bench/dtlto.sh 7zip       # one program
set -euo pipefail

work="${BENCH_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target/bench-dtlto}"
runs="${RUNS:-3}"
# shellcheck source=bench/lto-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lto-common.sh"
"$repo/scripts/setup-dask"
python="${RLD_DASK_VENV:-$repo/target/dask-venv}/bin/python"
cluster="$work/cluster"
trap '"$repo/scripts/dask-cluster" stop "$cluster"' EXIT

# 7zip's objects, compiled as the test-suite build compiles them, with -flto or -flto=thin.
sevenzip_objects() { # mode(full|thin) -> prints the objects
    local out="$work/7zip-$1"
    mkdir -p "$out"
    "$python" - "$TS_BUILD/compile_commands.json" "$out" "$1" <<'EOF'
import json, os, shlex, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
entries = [e for e in json.load(open(sys.argv[1])) if "/7zip/" in e["file"]]
out, mode = sys.argv[2], sys.argv[3]
def compile(i_e):
    i, e = i_e
    args = shlex.split(e["command"])
    o = os.path.join(out, f"{i:03d}-{os.path.basename(e['file'])}.o")
    if not os.path.exists(o):
        args[args.index("-o") + 1] = o
        args = [a for a in args if not a.startswith("-flto")]
        args.insert(1, "-flto=thin" if mode == "thin" else "-flto")
        subprocess.run(args, cwd=e["directory"], check=True, stdout=subprocess.DEVNULL)
    return o
with ThreadPoolExecutor(os.cpu_count()) as pool:
    for o in pool.map(compile, enumerate(entries)):
        print(o)
EOF
}

programs=("$@")
if ((${#programs[@]} == 0)); then
    programs=(sqlite)
    [[ -z "${TS_BUILD:-}" ]] || programs+=(7zip)
fi

printf '%-7s %-28s %9s %7s\n' program configuration "link (s)" jobs
results="$work/results.tsv"
: >"$results"
for prog in "${programs[@]}"; do
    if [[ $prog == 7zip ]]; then
        mapfile -t full < <(sevenzip_objects full)
        mapfile -t thin < <(sevenzip_objects thin)
        driver=clang++-22
        ldflags="" libs="-pthread"
    else
        mapfile -t full < <(corpus_bitcode sqlite "$work/sqlite-full" -flto)
        mapfile -t thin < <(corpus_bitcode sqlite "$work/sqlite-thin" -flto=thin)
        driver="$cc"
        ldflags="$(conf_get sqlite ldflags)" libs="$(conf_get sqlite libs)"
    fi
    for workers in 0 1 2 3; do
        if ((workers > 0)); then
            "$repo/scripts/dask-cluster" start "$cluster" "$workers" each >/dev/null
        fi
        address="$( ((workers == 0)) || cat "$cluster/address")"
        for linker in rld lld; do
            objs=("${full[@]}")
            ld=(--ld-path="$RLD" -Wl,--no-fork)
            name="rld"
            if [[ $linker == lld ]]; then
                objs=("${thin[@]}")
                ld=(--ld-path="$lld")
                name="lld-22 ThinLTO"
            fi
            dist=()
            if ((workers > 0)); then
                dist=(-Wl,--thinlto-distributor="$python"
                    -Wl,--thinlto-distributor-arg="$repo/scripts/dtlto-dask.py"
                    -Wl,--thinlto-distributor-arg=--scheduler="$address")
                [[ $linker == lld ]] && dist+=(-Wl,--thinlto-distributor-arg=--shared-fs
                    -Wl,--thinlto-remote-compiler="$(command -v clang-22)")
                name="$name, $workers worker$( ((workers == 1)) || echo s)"
            else
                name="$name, in process"
            fi
            times=()
            for ((r = 0; r < runs; r++)); do
                declare -A seen=()
                for f in "$cluster"/worker-*.log; do
                    [[ -f $f ]] && seen[$f]=$(wc -l <"$f")
                done
                log="$work/$prog.$linker.$workers.time"
                start=$EPOCHREALTIME
                # shellcheck disable=SC2086 # ldflags and libs are words
                "$driver" -O2 -flto "${ld[@]}" "${dist[@]}" $ldflags "${objs[@]}" $libs \
                    -o "$work/$prog.$linker.$workers" \
                    $([[ $linker == rld ]] && echo -Wl,--time) 2>"$log"
                end=$EPOCHREALTIME
                times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')")
                # This run's jobs, from the workers' own logs: their seconds.
                : >"$work/$prog.$linker.$workers.jobs"
                for f in "${!seen[@]}"; do
                    tail -n +"$((seen[$f] + 1))" "$f" | grep ': end ' | sed 's/.*seconds=//' \
                        >>"$work/$prog.$linker.$workers.jobs" || true
                done
                unset seen
            done
            t=$(printf '%s\n' "${times[@]}" | median)
            jobs=$(wc -l <"$work/$prog.$linker.$workers.jobs")
            printf '%-7s %-28s %9s %7s\n' "$prog" "$name" "$t" "$jobs"
            printf '%s\t%s\t%s\t%s\t%s\n' "$prog" "$linker" "$workers" "$t" "$jobs" >>"$results"
        done
        ((workers == 0)) || "$repo/scripts/dask-cluster" stop "$cluster"
    done
    if [[ $prog == sqlite ]]; then
        "$python" "$repo/bench/dtlto-model.py" "$work" "$prog"
    fi
done
