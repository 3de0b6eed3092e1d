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
#   REMARKS=1 TS_BUILD=... bench/aa-ceiling-ctmark.sh           # what LLVM's passes did, instead
#   STATIC=1 TS_BUILD=... bench/aa-ceiling-ctmark.sh            # the static columns only
#
# STATIC=1: no instrumented build or run; per program the pairs and the MayAlias answers
# without and with rld's metadata (the first three columns of the table), in minutes rather
# than hours: for comparing builds of rld's analysis (RLD=...).
#
# REMARKS=1: no instrumented build or run (nor aat-eval, nor --save-temps). Both links of each
# program (the two run at once) write LLVM's optimization remarks of licm, gvn,
# loop-vectorize, slp-vectorizer and dse (-Wl,--opt-remarks-filename=on/PROG.remarks.yaml,
# off/PROG.remarks.yaml), and a markdown table gives the counts of their Passed remarks,
# without -> with rld's alias metadata, per program and summed: gvn LoadElim, gvn LoadPRE,
# licm Hoisted, licm PromoteLoopAccessesToScalar, loop-vectorize Vectorized, slp-vectorizer
# (all its remarks: VectorizedList, StoresVectorized, ...) and dse (all its remarks; with
# clang-22 it writes none, not even Missed: 0 -> 0), as bench/aa.sh's "What LLVM's passes
# did". Every pass:name, summed, follows the table; per program they are in PROG.log. The
# remarks take ~700 MB for the ten programs.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tool="$repo/bench/aa-ceiling"
work="${BENCH_DIR:-$repo/target/bench-aa-ceiling-ctmark}"
ts="${TS_BUILD:?set TS_BUILD to a test-suite build configured by scripts/difftest/test-suite.sh (its rld configuration)}"
RLD="${RLD:-$repo/target/release/rld}"
# shellcheck source=bench/ctmark-common.sh
source "$repo/bench/ctmark-common.sh"
programs="${PROGRAMS:-$ctmark_programs}"
read -ra link_flags <<<"${LINK_FLAGS:-}"
remarks="${REMARKS:-}"
static="${STATIC:-}"
passes='licm|gvn|loop-vectorize|slp-vectorizer|dse'
mkdir -p "$work"
# shellcheck source=bench/aa-ceiling/table.sh
source "$tool/table.sh"

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

if [[ -z $remarks ]]; then
    clang++-22 -O2 -shared -fPIC $(llvm-config-22 --cxxflags) "$tool/plugin.cpp" -o "$work/plugin.so"
    clang++-22 -O2 -c "$tool/runtime.cpp" -o "$work/runtime.o"
fi
plugin=(-load-pass-plugin="$work/plugin.so")

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f s", b - a }'; }

# remark_counts FILE: "pass:name count" for the passes' Passed remarks (bench/aa.sh's,
# copied: aa.sh runs when sourced).
remark_counts() {
    awk '/^--- !Passed/ { p = 1; next } /^--- / { p = 0 }
         p && /^Pass:/ { pass = $2 } p && /^Name:/ { print pass ":" $2; p = 0 }' "$1" |
        sort | uniq -c | awk '{ print $2, $1 }'
}

# remark_columns: remark_counts' lines on stdin -> the table's seven counts.
remark_columns() {
    awk '$1 == "gvn:LoadElim" { c[1] += $2 }
         $1 == "gvn:LoadPRE" { c[2] += $2 }
         $1 == "licm:Hoisted" { c[3] += $2 }
         $1 == "licm:PromoteLoopAccessesToScalar" { c[4] += $2 }
         $1 == "loop-vectorize:Vectorized" { c[5] += $2 }
         $1 ~ /^slp-vectorizer:/ { c[6] += $2 }
         $1 ~ /^dse:/ { c[7] += $2 }
         END { for (i = 1; i <= 7; i++) printf "%d%s", c[i], i < 7 ? " " : "\n" }'
}

# remark_row NAME OFF_COUNTS ON_COUNTS: a row of the table, cells "without -> with".
remark_row() {
    local -a a b
    local i
    read -ra a < <(remark_columns <<<"$2")
    read -ra b < <(remark_columns <<<"$3")
    printf '| %s |' "$1"
    for i in 0 1 2 3 4 5 6; do printf ' %s -> %s |' "${a[i]}" "${b[i]}"; done
    printf '\n'
}

# remark_join OFF_COUNTS ON_COUNTS: "pass:name without -> with" lines.
remark_join() {
    join -a1 -a2 -e0 -o 0,1.2,2.2 <(sort <<<"$1") <(sort <<<"$2") |
        awk 'NF == 3 { printf "  %-45s %6d -> %6d\n", $1, $2, $3 }'
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
        LC_ALL=C bash -c "$(subst "$dir" "$ts/tools" "$cmd")" >>"$dir.out" 2>&1 </dev/null || rc=$?
        echo "exit $rc" >>"$dir.out"
    done < <(grep '^RUN:' "$src/$exe.test")
}

if [[ -n $remarks ]]; then
    echo "LLVM's Passed remarks, without -> with rld's alias metadata:"
    echo
    echo '| program | gvn loads eliminated | gvn load PRE | licm hoisted | licm promoted | loops vectorized | SLP | dse |'
    echo '|---|---|---|---|---|---|---|---|'
    all_off='' all_on=''
else
    if [[ -n $static ]]; then
        echo '| program | pairs | MayAlias, LLVM | MayAlias, rld | removed |'
        echo '|---|---|---|---|---|'
    else
        ceiling_header
    fi
fi
remarks_start=$(now)
for prog in $programs; do
    start=$(now)
    log="$work/$prog.log"
    : >"$log"
    target="$(target_of "$prog")"
    exe="$(basename "$target")"
    link_command "$ts" "$target"
    declare -A pid=()
    for mode in off on; do
        out="$work/$mode/$prog"
        mkdir -p "$(dirname "$out")"
        extra=("${link_flags[@]}")
        [[ $mode == off ]] && extra+=(-Wl,--no-wpa-aa-metadata)
        if [[ -n $remarks ]]; then
            rm -f "$out.remarks.yaml"
            (cd "$ts" && "$driver" "${args[@]}" -o "$out" "${libs[@]}" \
                -Wl,--lto-partitions=1 -Wl,--time "${extra[@]}" \
                -Wl,--opt-remarks-filename="$out.remarks.yaml" -Wl,--opt-remarks-passes="$passes" \
                2>"$out.time") &
            pid[$mode]=$!
            continue
        fi
        (cd "$ts" && "$driver" "${args[@]}" -o "$out" "${libs[@]}" \
            -Wl,--save-temps -Wl,--lto-partitions=1 -Wl,--time "${extra[@]}" 2>"$out.time") ||
            { tail -5 "$out.time" >&2; exit 1; }
        opt-22 "${plugin[@]}" -passes=aat-eval -aat-eval-out="$out.eval" -disable-output \
            "$out.0.0.preopt.bc"
    done
    if [[ -n $remarks ]]; then
        failed=''
        for mode in off on; do # (both waited for, so that neither is left running)
            wait "${pid[$mode]}" || { tail -5 "$work/$mode/$prog.time" >&2; failed=1; }
        done
        [[ -z $failed ]] || exit 1
        echo "$prog: linked in $(since "$start")" | tee -a "$log" >&2
        c_off="$(remark_counts "$work/off/$prog.remarks.yaml")"
        c_on="$(remark_counts "$work/on/$prog.remarks.yaml")"
        remark_row "$prog" "$c_off" "$c_on"
        { echo "$prog: Passed remarks, without -> with rld's alias metadata:"
          remark_join "$c_off" "$c_on"; } >>"$log"
        all_off+="$c_off"$'\n' all_on+="$c_on"$'\n'
        continue
    fi
    echo "$prog: linked and evaluated in $(since "$start")" | tee -a "$log" >&2
    if [[ -n $static ]]; then
        static_row "$prog" "$work/off/$prog.eval" "$work/on/$prog.eval"
        continue
    fi
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
            bash -c "$(subst "$run" "$ts/tools" "${cmd#VERIFY:}")" >>"$log" 2>&1 || verdict=FAILED
        done < <(grep '^VERIFY:' "$src/$exe.test")
        mv "$run.out" "$run.out.verified"
        mv "$run.out.orig" "$run.out"
        echo "$prog: output check against the reference output $verdict" | tee -a "$log" >&2
    fi

    ceiling_row "$prog" "$work/off/$prog.eval" "$on.eval" "$on.trace" "$on.time"
    echo "$prog: $(since "$start") in all" | tee -a "$log" >&2
done
if [[ -n $remarks ]]; then
    # Summed over the programs (pass:name count lines, added up).
    sum() { awk 'NF == 2 { n[$1] += $2 } END { for (k in n) print k, n[k] }'; }
    all_off="$(sum <<<"$all_off")" all_on="$(sum <<<"$all_on")"
    remark_row "**all**" "$all_off" "$all_on"
    echo
    echo "Every pass:name, summed over the programs (without -> with):"
    remark_join "$all_off" "$all_on"
    echo "all linked in $(since "$remarks_start")" >&2
fi
