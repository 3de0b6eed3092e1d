#!/usr/bin/env bash
# Run time of the LLVM test-suite's CTMark programs linked by `rld -flto` against the same
# programs linked by `lld -flto` from the same bitcode objects (run by hand).
#
# Needs two test-suite build trees configured alike with clang -O2 -flto (objects are
# bitcode) and built: TS_LLD linked by ld.lld, TS_RLD linked by (any) rld. Nothing in them
# is written:
#   - rld side: each program's link command (`ninja -C $TS_RLD -t commands -s TARGET`, as
#     bench/aa-ceiling-ctmark.sh finds it) is run again from $TS_RLD with
#     --ld-path=$RLD and the output in $work/rld/PROG. Its bitcode objects are checked to
#     be byte-identical to $TS_LLD's (`objects` in PROG.log).
#   - lld side: the program of $TS_LLD, copied to $work/lld/PROG.
# Each program's lit RUN lines (its real test input) run, as lit runs them (cd %S; stdin
# /dev/null unless redirected; LC_ALL=C; stdout and stderr then "exit N" in one file), in
# a fresh copy of $TS_LLD's test build directory per run ($work/run/SIDE/PROG; inputs
# copied, not linked: some programs write beside them), ROUNDS rounds interleaved
# (lld, rld, lld, rld, ...), one run at a time. A program whose first run takes more than
# LONG seconds gets 3 rounds.
#
# Time: wall clock of the RUN lines, by /usr/bin/time -f %e (0.01 s resolution: the
# table's column). PROG.log has per run also a ns-resolution wall clock (date +%s%N
# around the same command) and user+sys (%U + %S), and a second table gives the medians
# of those.
#
# Outputs identical: per round, the lld run's output file and its whole run directory
# (every file the program wrote, the executable aside) against the rld run's (cmp /
# diff -r). 7zip prints its speed ratings (timings): for it the comparison masks the
# digits of the rating lines (`NN:`, `Avr:`, `Tot:`); files written beside the output with
# a PID or timings are masked or left out (side_mask below); the table says which. The last round's
# outputs are also checked by the test's VERIFY lines (reference output), in PROG.log.
#
#   TS_LLD=/work/ts/b22/lld TS_RLD=/work/ts/b22/rld bench/runtime-ctmark.sh
#   TS_LLD=... TS_RLD=... PROGRAMS="7zip lencod" ROUNDS=3 bench/runtime-ctmark.sh
#   TS_LLD=... TS_RLD=... RLD=/path/to/rld bench/runtime-ctmark.sh
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${BENCH_DIR:-$repo/target/bench-runtime-ctmark}"
ts_lld="${TS_LLD:?set TS_LLD to a test-suite build tree linked by ld.lld (e.g. /work/ts/b22/lld)}"
ts_rld="${TS_RLD:?set TS_RLD to a test-suite build tree linked by rld (e.g. /work/ts/b22/rld)}"
RLD="${RLD:-$repo/target/release/rld}"
# shellcheck source=bench/ctmark-common.sh
source "$repo/bench/ctmark-common.sh"
programs="${PROGRAMS:-$ctmark_programs}"
rounds="${ROUNDS:-5}"
long="${LONG:-20}"
mkdir -p "$work/lld" "$work/rld" "$work/run/lld" "$work/run/rld"

# mask PROG: a sed script hiding the output's timings (empty: compared exactly)
mask() {
    case $1 in
        7zip) echo '/^\([0-9][0-9]\|Avr\|Tot\):/ s/[0-9]/#/g' ;;
        *) echo '' ;;
    esac
}


median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# ---- links ----
for prog in $programs; do
    target="$(target_of "$prog")"
    log="$work/$prog.log"
    : >"$log"
    link_command "$ts_rld" "$target"
    objs_differ=0 nobj=0
    for w in "${args[@]}"; do
        case $w in
            *.o | *.a)
                nobj=$((nobj + 1))
                cmp -s "$ts_rld/$w" "$ts_lld/$w" ||
                    { objs_differ=$((objs_differ + 1)); echo "objects: $w differs" >>"$log"; } ;;
        esac
    done
    echo "objects: $nobj, $objs_differ differ between TS_RLD and TS_LLD" >>"$log"
    # The lld link, for the record: the same but for --ld-path and the tree.
    rld_link="$driver ${args[*]} -o $target ${libs[*]}"
    link_command "$ts_lld" "$target"
    if [[ "$driver ${args[*]} -o $target ${libs[*]}" != "$rld_link" ]]; then
        echo "link commands differ (beyond --ld-path): lld: $driver ${args[*]} ${libs[*]}" >>"$log"
        echo "$prog: link command of TS_LLD differs beyond --ld-path (see $log)" >&2
    fi
    link_command "$ts_rld" "$target"
    echo "link: (cd $ts_rld && $driver ${args[*]} -o $work/rld/$prog ${libs[*]})" >>"$log"
    start=$(date +%s.%N)
    (cd "$ts_rld" && "$driver" "${args[@]}" -o "$work/rld/$prog" "${libs[@]}") >>"$log" 2>&1 ||
        { echo "$prog: rld link failed (see $log)" >&2; exit 1; }
    cp "$ts_lld/$target" "$work/lld/$prog"
    echo "$prog: linked by rld in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f s", b - a }');" \
        "objects: $nobj, $objs_differ differ from TS_LLD's" | tee -a "$log" >&2
done

# ---- runs ----
# run SIDE: one run of the test's RUN lines with $work/SIDE/$prog, in a fresh $work/run/SIDE/$prog.
# Sets wall (time %e), wall_ns (s, from date), cpu (user+sys), summed over the RUN lines.
run() {
    local side="$1" dir="$work/run/$1/$prog" f cmd rc t0 t1
    rm -rf "$dir" "$dir.out"
    mkdir -p "$dir/Output"
    for f in "$src"/*; do
        case $(basename "$f") in
            CMakeFiles | Output | cmake_install.cmake | "$exe" | "$exe".size | "$exe".test) ;;
            *) cp -rL "$f" "$dir/" ;;
        esac
    done
    cp "$work/$side/$prog" "$dir/$exe"
    wall=0 wall_ns=0 cpu=0
    while IFS= read -r cmd; do
        cmd="$(subst "$dir" "$ts_lld/tools" "${cmd#RUN:}")"
        rc=0
        t0=$(date +%s%N)
        LC_ALL=C /usr/bin/time -f '%e %U %S' -o "$dir.time" bash -c "$cmd" >>"$dir.out" 2>&1 </dev/null || rc=$?
        t1=$(date +%s%N)
        echo "exit $rc" >>"$dir.out"
        read -r e u s <"$dir.time"
        wall=$(awk -v a="$wall" -v b="$e" 'BEGIN { print a + b }')
        cpu=$(awk -v a="$cpu" -v u="$u" -v s="$s" 'BEGIN { print a + u + s }')
        wall_ns=$(awk -v a="$wall_ns" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.4f", a + (t1 - t0) / 1e9 }')
    done < <(grep '^RUN:' "$src/$exe.test")
}

# side_mask PROG: "FILE SED" lines: files the program writes beside its output with
# volatile contents, compared with those masked (an empty SED: not compared)
#   mafft   trace starts with "PID = N"
#   lencod  data.txt and log.dat (statistics appended per session) hold encoding times
side_mask() {
    case $1 in
        mafft) echo 'trace s/^PID = [0-9]*$/PID = #/' ;;
        lencod) printf '%s\n' 'data.txt' 'log.dat' ;;
        *) echo '' ;;
    esac
}

# same: whether the last lld and rld runs' outputs and directories are identical
same() {
    local a="$work/run/lld/$prog" b="$work/run/rld/$prog" m f x
    local -a excl=(--exclude="$exe")
    m="$(mask "$prog")"
    if [[ -n $m ]]; then
        cmp -s <(sed -e "$m" "$a.out") <(sed -e "$m" "$b.out") || return 1
    else
        cmp -s "$a.out" "$b.out" || return 1
    fi
    while read -r f x; do
        [[ -n $f ]] || continue
        excl+=(--exclude="$f")
        if [[ -n $x ]]; then
            cmp -s <(sed -e "$x" "$a/$f") <(sed -e "$x" "$b/$f") || return 1
        fi
    done < <(side_mask "$prog")
    diff -r "${excl[@]}" "$a" "$b" >/dev/null
}

echo >&2
echo "runs: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
table="" table2="" ratios="" ratios_ns="" ratios_cpu="" used=""
for prog in $programs; do
    target="$(target_of "$prog")"
    exe="$(basename "$target")"
    src="$ts_lld/$(dirname "$target")"
    log="$work/$prog.log"
    n=$rounds identical=yes
    declare -a w_lld=() w_rld=() ns_lld=() ns_rld=() c_lld=() c_rld=()
    for ((r = 1; r <= n; r++)); do
        run lld
        w_lld+=("$wall") ns_lld+=("$wall_ns") c_lld+=("$cpu")
        if ((r == 1)) && awk -v w="$wall" -v l="$long" 'BEGIN { exit !(w > l) }' && ((n > 3)); then
            n=3
            echo "$prog: first run took $wall s > $long s: 3 rounds" | tee -a "$log" >&2
        fi
        run rld
        w_rld+=("$wall") ns_rld+=("$wall_ns") c_rld+=("$cpu")
        if same; then s=same; else s=DIFFERENT; identical=NO; fi
        echo "$prog round $r: lld wall ${w_lld[-1]} s (${ns_lld[-1]} s, cpu ${c_lld[-1]} s)," \
            "rld wall ${w_rld[-1]} s (${ns_rld[-1]} s, cpu ${c_rld[-1]} s), outputs $s" | tee -a "$log" >&2
        if [[ $s == DIFFERENT ]]; then
            { diff "$work/run/lld/$prog.out" "$work/run/rld/$prog.out" | head -20
              diff -rq --exclude="$exe" "$work/run/lld/$prog" "$work/run/rld/$prog" | head -20; } >>"$log" || true
        fi
    done
    # The test's VERIFY lines on the last round's outputs (they may rewrite %o: on a copy).
    for side in lld rld; do
        d="$work/run/$side/$prog"
        if ! grep -q '^VERIFY:' "$src/$exe.test"; then
            echo "$prog $side: no VERIFY lines (no reference output)" >>"$log"
            continue
        fi
        cp "$d.out" "$d.out.orig"
        v=passed
        while IFS= read -r cmd; do
            bash -c "$(subst "$d" "$ts_lld/tools" "${cmd#VERIFY:}")" >>"$log" 2>&1 || v=FAILED
        done < <(grep '^VERIFY:' "$src/$exe.test")
        mv "$d.out" "$d.out.verified"
        mv "$d.out.orig" "$d.out"
        echo "$prog $side: VERIFY against the reference output $v" | tee -a "$log" >&2
    done
    ml=$(printf '%s\n' "${w_lld[@]}" | median) mr=$(printf '%s\n' "${w_rld[@]}" | median)
    nl=$(printf '%s\n' "${ns_lld[@]}" | median) nr=$(printf '%s\n' "${ns_rld[@]}" | median)
    cl=$(printf '%s\n' "${c_lld[@]}" | median) cr=$(printf '%s\n' "${c_rld[@]}" | median)
    ratio=$(awk -v a="$mr" -v b="$ml" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
    ratio_ns=$(awk -v a="$nr" -v b="$nl" 'BEGIN { printf "%.3f", a / b }')
    ratio_cpu=$(awk -v a="$cr" -v b="$cl" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
    if [[ $identical == yes ]]; then
        [[ -n $(mask "$prog") ]] && identical="yes (timing figures masked)"
        case $prog in
            mafft) identical="yes (trace's PID line masked)" ;;
            lencod) identical="yes (data.txt, log.dat: timings, not compared)" ;;
        esac
    fi
    table+="| $prog | $ml s | $mr s | $ratio | $identical |"$'\n'
    table2+="| $prog | $nl s | $nr s | $ratio_ns | $cl s | $cr s | $ratio_cpu |"$'\n'
    ratios+="$ratio"$'\n' ratios_ns+="$ratio_ns"$'\n' ratios_cpu+="$ratio_cpu"$'\n'
    used+="$prog: $n rounds"$'\n'
done
echo "runs ended: $(date -u '+%Y-%m-%d %H:%M:%S UTC')" >&2

geomean() { awk '$1 > 0 { s += log($1); n++ } END { printf "%.3f (%d programs)", exp(s / n), n }'; }
echo
echo "Wall clock (/usr/bin/time -f %e), median of the rounds:"
echo
echo '| program | lld-22 -flto | rld -flto | rld/lld | outputs identical |'
echo '|---|---|---|---|---|'
printf '%s' "$table"
echo
echo "geometric mean of rld/lld: $(printf '%s' "$ratios" | geomean)"
echo
echo "Wall clock at ns resolution (date +%s%N around the run) and user+sys (%U + %S), medians:"
echo
echo '| program | lld wall | rld wall | rld/lld | lld user+sys | rld user+sys | rld/lld |'
echo '|---|---|---|---|---|---|---|'
printf '%s' "$table2"
echo
echo "geometric mean of rld/lld: wall (ns) $(printf '%s' "$ratios_ns" | geomean)," \
    "user+sys $(printf '%s' "$ratios_cpu" | geomean)"
echo
printf '%s' "$used"
