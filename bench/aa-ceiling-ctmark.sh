#!/usr/bin/env bash
# bench/aa-ceiling.sh's table for the CTMark programs of the LLVM test-suite (run by hand;
# needs llvm-22-dev for the opt plugin, and a test-suite tree configured with clang-22
# -O2 -flto and built, whose objects are bitcode).
#
# Per program: its link command (`ninja -t commands -s`) is run again from the build tree
# with --ld-path=$RLD, -Wl,--save-temps -Wl,--lto-partitions=1 -Wl,--time, with and without
# -Wl,--no-wpa-aa-metadata (off/ and on/ in the work directory). Then, as in
# bench/aa-ceiling.sh: aat-eval (bench/aa-ceiling/plugin.cpp) on both `*.0.0.preopt.bc`, the
# "on" bitcode instrumented, compiled at -O0 with bench/aa-ceiling/runtime.cpp and the
# original link's libraries, run on the test's own workload (its lit `.test` RUN lines, in
# a copy of its build directory: run/PROG), and bench/aa-ceiling/ceiling.py (its output in
# on/PROG.ceiling). The columns are bench/aa-ceiling.sh's (see there).
#
# The instrumented run's output (stdout and stderr, then "exit N", as the test-suite's
# timeit writes it) is checked by the test's VERIFY lines against its reference output
# (run/PROG.out; the result and the run's time go to stderr and to PROG.log), or, where the
# workload is cut down (`smaller` below), against the output of the test's own program (the
# build tree's) on the same input.
#
#   TS_BUILD=/path/to/build/rld bench/aa-ceiling-ctmark.sh     # the ten CTMark programs
#   TS_BUILD=... PROGRAMS="7zip lencod" bench/aa-ceiling-ctmark.sh
#   TS_BUILD=... RLD=/path/to/rld bench/aa-ceiling-ctmark.sh
#   LINK_FLAGS="-Wl,--some-option" bench/aa-ceiling-ctmark.sh   # rld's analysis configured otherwise
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tool="$repo/bench/aa-ceiling"
work="${BENCH_DIR:-$repo/target/bench-aa-ceiling-ctmark}"
ts="${TS_BUILD:?set TS_BUILD to a test-suite build configured by scripts/difftest/test-suite.sh (its rld configuration)}"
RLD="${RLD:-$repo/target/release/rld}"
programs="${PROGRAMS:-7zip Bullet ClamAV consumer-typeset kimwitu++ lencod mafft SPASS sqlite3 tramp3d-v4}"
read -ra link_flags <<<"${LINK_FLAGS:-}"
mkdir -p "$work"
# shellcheck source=bench/aa-ceiling/table.sh
source "$tool/table.sh"

target_of() { # CTMark name -> the test-suite's target (its path in the build tree)
    case $1 in
        7zip) echo MultiSource/Benchmarks/7zip/7zip-benchmark ;;
        Bullet) echo MultiSource/Benchmarks/Bullet/bullet ;;
        ClamAV) echo MultiSource/Applications/ClamAV/clamscan ;;
        consumer-typeset) echo MultiSource/Benchmarks/MiBench/consumer-typeset/consumer-typeset ;;
        kimwitu++) echo MultiSource/Applications/kimwitu++/kc ;;
        lencod) echo MultiSource/Applications/JM/lencod/lencod ;;
        mafft) echo MultiSource/Benchmarks/mafft/pairlocalalign ;;
        SPASS) echo MultiSource/Applications/SPASS/SPASS ;;
        sqlite3) echo MultiSource/Applications/sqlite3/sqlite3 ;;
        tramp3d-v4) echo MultiSource/Benchmarks/tramp3d-v4/tramp3d-v4 ;;
        *) echo "unknown CTMark program $1" >&2; return 1 ;;
    esac
}

# Workloads cut down so that the instrumented run takes at most ~10 minutes, as sed scripts
# on the RUN line (the test's own input otherwise; the times are on 2 busy cores). Their
# output is checked against that of the test's own program on the same input.
#   7zip   `b` compresses and decompresses with a 4 MB and an 8 MB dictionary (~15 minutes
#          instrumented); `b -md22` only the first (its output has timings and no
#          reference output either way)
#   mafft  all pairs of 100 sequences (~30 minutes, and 20 GB, instrumented): of the first 50
#   SPASS  the proof takes 3652 given-clause loops (~50 minutes and well over 20 GB
#          instrumented, the later loops costing most): the first 1000 (-Loops=1000)
smaller() {
    case $1 in
        7zip) echo 's/7zip-benchmark b *$/7zip-benchmark b -md22/' ;;
        mafft) # (a file: the program rewinds its standard input)
            echo "s|< *pyruvate_decarboxylase.fasta|< first50.fasta|
                  s|cd %S ;|& awk '/^>/ { n++ } n <= 50' pyruvate_decarboxylase.fasta >first50.fasta ;|" ;;
        SPASS) echo 's|SPASS problem.dfg|SPASS -Loops=1000 problem.dfg|' ;;
        *) echo '' ;;
    esac
}

clang++-22 -O2 -shared -fPIC $(llvm-config-22 --cxxflags) "$tool/plugin.cpp" -o "$work/plugin.so"
clang++-22 -O2 -c "$tool/runtime.cpp" -o "$work/runtime.o"
plugin=(-load-pass-plugin="$work/plugin.so")

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f s", b - a }'; }
subst() { # DIR LINE: a lit RUN or VERIFY line of the test run in DIR, substituted
    local s="$2"
    s="${s//%S/$1}" s="${s//%s/$1}" s="${s//%b/$ts/tools}" s="${s//%o/$1.out}"
    printf '%s' "$s"
}

# workload DIR PROGRAM: the test's RUN lines (cut down by `smaller`) in DIR, a fresh copy of
# the test's build directory $src (inputs copied, not linked: some programs write beside
# them) with PROGRAM as the test's program $exe, as lit runs them: output and errors, then
# "exit N", in DIR.out; stdin /dev/null unless redirected; locale C (lit's environment).
# Sets rc, the last exit status.
workload() {
    local dir="$1" f cmd
    rm -rf "$dir" "$dir.out"
    mkdir -p "$dir/Output" # lit's directory of the test's outputs (lencod writes there)
    for f in "$src"/*; do
        case $(basename "$f") in
            CMakeFiles | Output | cmake_install.cmake | "$exe" | "$exe".size | "$exe".test) ;;
            *) cp -rL "$f" "$dir/" ;;
        esac
    done
    cp "$2" "$dir/$exe"
    rc=0
    while IFS= read -r cmd; do
        cmd="$(sed -e "$(smaller "$prog")" <<<"${cmd#RUN:}")"
        echo "$prog: running$cmd" >>"$log"
        rc=0
        LC_ALL=C bash -c "$(subst "$dir" "$cmd")" >>"$dir.out" 2>&1 </dev/null || rc=$?
        echo "exit $rc" >>"$dir.out"
    done < <(grep '^RUN:' "$src/$exe.test")
}

ceiling_header
for prog in $programs; do
    start=$(now)
    log="$work/$prog.log"
    : >"$log"
    target="$(target_of "$prog")"
    exe="$(basename "$target")"
    # The link: ": && DRIVER FLAGS... OBJECTS... -o TARGET LIBS... && cd ... && llvm-size ...".
    line="$(ninja -C "$ts" -t commands -s "$target")"
    line="${line#: && }"
    read -ra words <<<"${line%% && *}"
    driver="${words[0]}"
    args=() libs=()
    for ((i = 1; i < ${#words[@]}; i++)); do
        case ${words[i]} in
            --ld-path=*) args+=("--ld-path=$RLD") ;;
            -o) ((i++)); libs=("${words[@]:i+1}"); break ;;
            *) args+=("${words[i]}") ;;
        esac
    done
    for mode in off on; do
        out="$work/$mode/$prog"
        mkdir -p "$(dirname "$out")"
        extra=("${link_flags[@]}")
        [[ $mode == off ]] && extra+=(-Wl,--no-wpa-aa-metadata)
        (cd "$ts" && "$driver" "${args[@]}" -o "$out" "${libs[@]}" \
            -Wl,--save-temps -Wl,--lto-partitions=1 -Wl,--time "${extra[@]}" 2>"$out.time") ||
            { tail -5 "$out.time" >&2; exit 1; }
        opt-22 "${plugin[@]}" -passes=aat-eval -aat-eval-out="$out.eval" -disable-output \
            "$out.0.0.preopt.bc"
    done
    echo "$prog: linked and evaluated in $(since "$start")" | tee -a "$log" >&2
    on="$work/on/$prog"
    opt-22 "${plugin[@]}" -passes=aat-instrument "$on.0.0.preopt.bc" -o "$on.inst.bc"
    "$driver" -O0 "$on.inst.bc" "$work/runtime.o" -lstdc++ "${libs[@]}" -o "$on.inst"

    src="$ts/$(dirname "$target")"
    run="$work/run/$prog"
    rm -f "$on.trace"
    run_start=$(now)
    AAT_OUT="$on.trace" workload "$run" "$on.inst"
    echo "$prog: instrumented run took $(since "$run_start") (exit $rc)" | tee -a "$log" >&2
    if ! grep -q '^VERIFY:' "$src/$exe.test"; then
        echo "$prog: no reference output to check (exit $rc)" | tee -a "$log" >&2
    elif [[ -n $(smaller "$prog") ]]; then
        workload "$run.ref" "$src/$exe"
        verdict=passed
        "$ts/tools/fpcmp-target" "$run.out" "$run.ref.out" >>"$log" 2>&1 || verdict=FAILED
        echo "$prog: output check against the test's own program on the smaller input $verdict" |
            tee -a "$log" >&2
    else
        # The VERIFY lines may rewrite %o (HashProgramOutput.sh): they check a copy.
        cp "$run.out" "$run.out.orig"
        verdict=passed
        while IFS= read -r cmd; do
            bash -c "$(subst "$run" "${cmd#VERIFY:}")" >>"$log" 2>&1 || verdict=FAILED
        done < <(grep '^VERIFY:' "$src/$exe.test")
        mv "$run.out" "$run.out.verified"
        mv "$run.out.orig" "$run.out"
        echo "$prog: output check against the reference output $verdict" | tee -a "$log" >&2
    fi

    ceiling_row "$prog" "$work/off/$prog.eval" "$on.eval" "$on.trace" "$on.time"
    echo "$prog: $(since "$start") in all" | tee -a "$log" >&2
done
