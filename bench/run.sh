#!/usr/bin/env bash
# Link-time benchmark: rld against ld.bfd, ld.gold, ld.lld-22, Debian's mold, and mold
# 2.42 and wild 0.8 built from their sources (bench/anchors.sh), on the
# real-program corpus (bzip2, Lua 5.4, SQLite; see tests/corpus/) and on a
# large C++ link, "llvm-api", the same program with every LLVM library
# linked whole ("llvm-whole"), and SQLite with debug info ("sqlite-g"); see
# below. A program name ending in "+gc" is that program linked by every linker
# with --gc-sections. wild collects unused sections unless told otherwise, so
# it is given --no-gc-sections in the other rows (the same link as the others').
#
# Run by hand (not in CI):
#   bench/run.sh                 # all programs, 10 runs per linker
#   bench/run.sh -n 30 sqlite    # 30 runs, only sqlite
#   bench/run.sh llvm-api        # only the large link
#   bench/run.sh llvm-whole sqlite-g
#   bench/run.sh -n 5 llvm-api llvm-whole llvm-api+gc llvm-whole+gc   # the four big rows
#   RLD=/tmp/fake-rld/rld bench/run.sh
#
# What it does:
#   1. fetches the sources (tests/corpus/fetch.sh) and compiles each program
#      with clang-22 -O2 and the flags in tests/corpus/programs.conf (objects
#      are reused while sources and flags are unchanged);
#   2. asks `clang-22 -###` (`clang++-22 -###` for llvm-api) once per
#      program for the linker command line
#      (crt files, -L paths, libraries, ...), then for each linker replaces
#      argv[0] with that linker: only the linker itself is timed, not the
#      compiler driver;
#   3. links once with each linker (a failing or missing linker is skipped
#      with a note), then times N rounds in which every linker links once, in
#      turn (so that a machine whose speed drifts over minutes slows them all
#      alike, rather than one linker's block of runs), each run timed with
#      bash's $EPOCHREALTIME after bench/quiesce.sh has waited for the child
#      process rld, mold and wild leave freeing memory after they return; then
#      measures peak RSS and CPU time (user + system, all threads) with
#      /usr/bin/time (mold's, wild's and rld's with --no-fork, since by default
#      they link in a child process);
#   4. prints a table: program, linker, median wall time, peak RSS, CPU time
#      (the least of three runs: the work done, whatever the threads) and the
#      ratio to the fastest linker for that program (rld's is the one to
#      watch). "rld-1t" is rld with --threads=1 (the parallel speed-up is its
#      ratio to rld's), and "cp" copies rld's output (the floor: writing that
#      many bytes, in the same rounds). Each linker's command line is left in
#      target/bench/link/<program>/<linker>.cmd, to rerun by hand (or with
#      bench/interleaved.sh).
#
# Environment:
#   RLD        the linker under test; default: `cargo build --release -p rld`
#              and use target/release/rld ($CARGO_TARGET_DIR honoured)
#   LINKERS    the linkers to run, by the names rld rld1t bfd gold lld mold
#              mold2 wild (default: all of them)
#   MOLD2, WILD  mold 2.42 and wild 0.8 (default: where bench/anchors.sh puts
#              them, target/anchors; skipped when absent)
#   RUNS       runs per linker (default 10; -n overrides)
#   BENCH_DIR  scratch directory (default: <repo>/target/bench)
#
# The large link, "llvm-api": tests/cases/cxx/llvm_api.cpp (a small program
# using LLVM's C API) compiled with clang++-22 and `llvm-config-22
# --cxxflags`, linked statically against llvm-14-dev's archives
# (`llvm-config-22 --link-static --libs core target x86 bitwriter bitreader
# passes ipo`: 45 archives, 120 MB, 1200 members) into a ~45 MB program,
# where symbol resolution, parallelism and memory use dominate. It is
# defined in this script rather than in programs.conf: its flags come from
# llvm-config-22 and tests/tests/corpus.rs does not build it
# (tests/tests/cxx.rs does).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
corpus="$repo/tests/corpus"
conf="$corpus/programs.conf"
runs="${RUNS:-10}"
work="${BENCH_DIR:-$repo/target/bench}"

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
    exit "${1:-0}"
}

programs=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        -n) runs="$2"; shift 2 ;;
        -n*) runs="${1#-n}"; shift ;;
        -h|--help) usage 0 ;;
        -*) echo "unknown option $1" >&2; usage 2 ;;
        *) programs+=("$1"); shift ;;
    esac
done
if [[ ${#programs[@]} -eq 0 ]]; then
    programs=(bzip2 lua sqlite llvm-api llvm-whole sqlite-g)
fi
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
    echo "bad run count: $runs" >&2
    exit 2
fi

note() { echo "note: $*" >&2; }
die() { echo "error: $*" >&2; exit 1; }

command -v clang-22 >/dev/null || die "clang-22 is not installed"

# /usr/bin/time (not the shell keyword) for peak RSS.
time_bin=/usr/bin/time
if [[ ! -x "$time_bin" ]]; then
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
        note "installing GNU time for peak RSS"
        apt-get install -y -qq time >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq time >/dev/null 2>&1; } || true
    fi
    if [[ ! -x "$time_bin" ]]; then
        note "/usr/bin/time not available: peak RSS is not measured"
        time_bin=""
    fi
fi

# ---------------------------------------------------------------------------
# The linkers

if [[ -n "${RLD:-}" ]]; then
    rld="$RLD"
else
    rld="${CARGO_TARGET_DIR:-$repo/target}/release/rld"
    echo "building rld (cargo build --release -p rld)..." >&2
    mkdir -p "$work"
    if ! (cd "$repo" && cargo build --release -p rld) >"$work/cargo-build.log" 2>&1; then
        note "cargo build of rld failed (see $work/cargo-build.log)"
    fi
fi
[[ "$rld" = /* ]] || rld="$PWD/$rld"

read -r -a linkers <<<"${LINKERS:-rld rld1t bfd gold lld mold mold2 wild}"
declare -A linker_path=(
    [rld]="$rld"
    [rld1t]="$rld"
    [bfd]="$(command -v ld.bfd || true)"
    [gold]="$(command -v ld.gold || true)"
    [lld]="$(command -v ld.lld-22 || true)"
    [mold]="$(command -v mold || true)"
    [mold2]="${MOLD2:-$repo/target/anchors/mold-build/mold}"
    [wild]="${WILD:-$repo/target/anchors/wild/target/release/wild}"
)
declare -A linker_tool=([cp]=cp [rld]=rld [rld1t]=rld-1t [bfd]=ld.bfd [gold]=ld.gold [lld]=ld.lld-22 [mold]=mold [mold2]=mold-2.42 [wild]=wild)
available=()
for l in "${linkers[@]}"; do
    p="${linker_path[$l]}"
    if [[ -n "$p" && -x "$p" ]]; then
        available+=("$l")
    else
        note "${linker_tool[$l]} not found${p:+ at $p}: skipped"
    fi
done

# ---------------------------------------------------------------------------
# Sources and objects

declare -A src_dir
while IFS='=' read -r key value; do
    [[ -n "$key" ]] && src_dir[$key]="$value"
done < <("$corpus/fetch.sh")

# conf PROGRAM KEY: a value from programs.conf ("" if absent).
conf() {
    local line
    line="$(grep -m1 "^$1\.$2=" "$conf" || true)"
    printf '%s' "${line#*=}"
}

jobs="$(nproc 2>/dev/null || echo 2)"
mkdir -p "$work"

# build_objects PROGRAM: compiles into $work/obj/PROGRAM, prints the objects.
build_objects() {
    local prog="$1" dir src f
    dir="${src_dir[$(conf "$prog" dir)]:-}"
    [[ -n "$dir" ]] || die "fetch.sh printed no directory for $prog"
    local obj="$work/obj/$prog"
    mkdir -p "$obj"
    local cflags
    cflags="-O2 $(conf "$prog" cflags) -I$dir"
    # Rebuild everything when the flags changed.
    if [[ "$(cat "$obj/flags" 2>/dev/null)" != "$cflags" ]]; then
        rm -f "$obj"/*.o
        printf '%s' "$cflags" >"$obj/flags"
    fi

    local sources=() exclude patterns drivers
    read -r -a exclude <<<"$(conf "$prog" exclude)"
    read -r -a patterns <<<"$(conf "$prog" sources)"
    read -r -a drivers <<<"$(conf "$prog" driver)"
    for src in "${patterns[@]}"; do
        # Unquoted on purpose: a pattern like *.c globs in $dir.
        for f in "$dir"/$src; do
            [[ -f "$f" ]] || die "$prog: no $src in $dir"
            local name="${f##*/}" skip=""
            for e in "${exclude[@]}"; do [[ "$name" == "$e" ]] && skip=1; done
            [[ -z "$skip" ]] && sources+=("$f")
        done
    done
    for src in "${drivers[@]}"; do
        sources+=("$corpus/$src")
    done

    # Compile what is missing or older than its source, largest first, in
    # parallel.
    local todo=() o
    for f in "${sources[@]}"; do
        o="$obj/$(basename "${f%.c}").o"
        [[ -f "$o" && "$o" -nt "$f" ]] || todo+=("$(stat -c '%s' "$f") $f")
    done
    if [[ ${#todo[@]} -gt 0 ]]; then
        echo "compiling $prog (${#todo[@]} files, clang-22 -O2)..." >&2
        # shellcheck disable=SC2016 # $1 etc. are for the inner sh
        printf '%s\n' "${todo[@]}" | sort -rn | cut -d' ' -f2- \
            | CFLAGS="$cflags" OBJ="$obj" xargs -d '\n' -P "$jobs" -I{} \
                sh -c 'f="$1"; b="${f##*/}"; exec clang-22 $CFLAGS -w -c "$f" -o "$OBJ/${b%.c}.o"' sh {} \
            || die "compiling $prog failed"
    fi
    for f in "${sources[@]}"; do
        printf '%s\n' "$obj/$(basename "${f%.c}").o"
    done
}

# The large link (see the header): its object and link flags.
llvm_api_src="$repo/tests/cases/cxx/llvm_api.cpp"
llvm_api_components=(core target x86 bitwriter bitreader passes ipo)

# build_llvm_api: compiles llvm_api.cpp into $work/obj/llvm-api, prints the object.
build_llvm_api() {
    command -v clang++-22 >/dev/null || die "clang++-22 is not installed"
    command -v llvm-config-22 >/dev/null || die "llvm-config-22 is not installed (llvm-14-dev)"
    local obj="$work/obj/llvm-api" cxxflags
    mkdir -p "$obj"
    cxxflags="-O2 $(llvm-config-22 --cxxflags)"
    if [[ "$(cat "$obj/flags" 2>/dev/null)" != "$cxxflags" ]]; then
        rm -f "$obj"/*.o
        printf '%s' "$cxxflags" >"$obj/flags"
    fi
    if [[ ! "$obj/llvm_api.o" -nt "$llvm_api_src" ]]; then
        echo "compiling llvm-api (clang++-22 -O2)..." >&2
        # shellcheck disable=SC2086 # word splitting of the flags is intended
        clang++-22 $cxxflags -w -c "$llvm_api_src" -o "$obj/llvm_api.o" || die "compiling llvm-api failed"
    fi
    printf '%s\n' "$obj/llvm_api.o"
}

# build_polly_stub: an object defining getPollyPluginInfo(), which libLLVMLTO
# names although Debian ships Polly only as a plugin; prints the object.
build_polly_stub() {
    local obj="$work/obj/llvm-api/polly_stub.o"
    if [[ ! -f "$obj" ]]; then
        echo 'void _Z18getPollyPluginInfov(void) {}' | clang-22 -O2 -x c -c - -o "$obj" \
            || die "compiling the Polly stub failed"
    fi
    printf '%s\n' "$obj"
}

# llvm_whole_libs: every LLVM 14 static library, whole (--whole-archive),
# and the system libraries they need. Left out: Polly (not shipped as a
# static library), LineEditor (libedit has no development link on Debian)
# and Extensions (Polly's registration).
llvm_whole_libs() {
    echo -Wl,--whole-archive
    llvm-config-22 --link-static --ldflags
    llvm-config-22 --link-static --libs all | tr ' ' '\n' | grep -v -i -E 'polly|LineEditor|Extensions'
    echo -Wl,--no-whole-archive
    llvm-config-22 --link-static --system-libs
    echo /usr/lib/x86_64-linux-gnu/libffi.so.8
}

# build_sqlite_g: SQLite (programs.conf's sqlite) compiled with -O2 -g into
# $work/obj/sqlite-g; prints the objects.
build_sqlite_g() {
    local dir="${src_dir[$(conf sqlite dir)]:-}" obj="$work/obj/sqlite-g" f o
    [[ -n "$dir" ]] || die "fetch.sh printed no directory for sqlite"
    mkdir -p "$obj"
    for f in "$dir/sqlite3.c" "$corpus/$(conf sqlite driver)"; do
        o="$obj/$(basename "${f%.c}").o"
        if [[ ! "$o" -nt "$f" ]]; then
            echo "compiling $(basename "$f") for sqlite-g (clang-22 -O2 -g)..." >&2
            # shellcheck disable=SC2046 # the flags are words
            clang-22 -O2 -g $(conf sqlite cflags) -I"$dir" -w -c "$f" -o "$o" || die "compiling sqlite-g failed"
        fi
        printf '%s\n' "$o"
    done
}

# llvm_api_libs: the libraries of the static LLVM link, one word each.
llvm_api_libs() {
    llvm-config-22 --link-static --ldflags --libs "${llvm_api_components[@]}"
    llvm-config-22 --link-static --system-libs
    echo -lpthread
}

# ---------------------------------------------------------------------------
# Timing

# median_ms FILE: median of the numbers (seconds) in FILE, in milliseconds.
median_ms() {
    sort -g "$1" | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "-"; exit }
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.2f", m * 1000 }'
}

# peak_rss NAME OUTDIR ARGS...: prints the largest peak RSS of three runs, in
# KiB, and the least CPU time (user + system) of them, in ms ("- -" without GNU
# time). mold, wild and rld by default fork and link in the
# child, which GNU time does not see: they are measured with --no-fork.
peak_rss() {
    local name="$1" dir="$2"
    shift 2
    local rss_cmd=("$@") i r cpu max=0 least=""
    [[ -n "$time_bin" ]] || { echo "- -"; return; }
    [[ "$name" == mold* || "$name" == rld* || "$name" == wild ]] && rss_cmd=("$1" --no-fork "${@:2}")
    for i in 1 2 3; do
        "$time_bin" -f '%M %U %S' -o "$dir/$name.rss" "${rss_cmd[@]}" >/dev/null 2>&1 || true
        read -r r u s <<<"$(tail -n1 "$dir/$name.rss")"
        [[ "$r" =~ ^[0-9]+$ ]] || continue
        ((r > max)) && max="$r"
        cpu="$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%d", (u + s) * 1000 }')"
        if [[ -z "$least" ]] || ((cpu < least)); then least="$cpu"; fi
    done
    if ((max > 0)); then echo "$max $least"; else echo "- -"; fi
}

# time_in_turn OUTDIR NAME...: times $runs rounds of NAME's commands (each in
# OUTDIR/NAME.cmd), one run of each per round, in turn; the wall times (in
# seconds) go to OUTDIR/NAME.times.
time_in_turn() {
    local dir="$1" name i t0 t1
    shift
    declare -A cmd=()
    for name in "$@"; do
        cmd[$name]="$(cat "$dir/$name.cmd")"
        : >"$dir/$name.times"
        eval "args=(${cmd[$name]})"
        "${args[@]}" >/dev/null 2>&1 || true # warm-up
    done
    for ((i = 0; i < runs; i++)); do
        for name in "$@"; do
            eval "args=(${cmd[$name]})"
            "$repo/bench/quiesce.sh"
            t0="$EPOCHREALTIME"
            "${args[@]}" >/dev/null 2>&1
            t1="$EPOCHREALTIME"
            awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >>"$dir/$name.times"
        done
    done
}

# ---------------------------------------------------------------------------
# Main loop

results=()   # "program linker median_ms rss_kb"
for row in "${programs[@]}"; do
    dir="$work/link/$row"
    mkdir -p "$dir"
    prog="${row%+gc}"
    gc=()
    [[ "$row" == *+gc ]] && gc=(--gc-sections)
    if [[ "$prog" == llvm-api ]]; then
        build_llvm_api >"$dir/objects" || exit 1
        driver=clang++-22
        ldflags=()
        read -r -a libs <<<"$(llvm_api_libs | tr '\n' ' ')"
    elif [[ "$prog" == llvm-whole ]]; then
        { build_llvm_api && build_polly_stub; } >"$dir/objects" || exit 1
        driver=clang++-22
        ldflags=()
        read -r -a libs <<<"$(llvm_whole_libs | tr '\n' ' ')"
    elif [[ "$prog" == sqlite-g ]]; then
        build_sqlite_g >"$dir/objects" || exit 1
        driver=clang-22
        read -r -a ldflags <<<"$(conf sqlite ldflags)"
        read -r -a libs <<<"$(conf sqlite libs)"
    else
        grep -q "^$prog\.sources=" "$conf" || die "unknown program $prog (see $conf, or llvm-api)"
        build_objects "$prog" >"$dir/objects" || exit 1
        driver=clang-22
        read -r -a ldflags <<<"$(conf "$prog" ldflags)"
        read -r -a libs <<<"$(conf "$prog" libs)"
    fi
    mapfile -t objects <"$dir/objects"

    # The linker command line the driver would run, with a placeholder output.
    placeholder="$dir/@OUT@"
    line="$("$driver" -### "${ldflags[@]}" "${objects[@]}" "${libs[@]}" -o "$placeholder" 2>&1 | tail -n1)"
    # -### quotes every argument in double quotes, escaping " \ and $.
    ld_args=()
    eval "ld_args=($line)"
    [[ "${ld_args[*]}" == *"$placeholder"* ]] || die "cannot find the link line in $driver -### output: $line"

    timed=()
    for l in "${available[@]}"; do
        out="$dir/$prog.$l"
        args=("${linker_path[$l]}")
        [[ "$l" == rld1t ]] && args+=(--threads=1)
        if [[ ${#gc[@]} -gt 0 ]]; then
            args+=("${gc[@]}")
        elif [[ "$l" == wild ]]; then
            args+=(--no-gc-sections)
        fi
        for a in "${ld_args[@]:1}"; do
            args+=("${a//$placeholder/$out}")
        done
        rm -f "$out"
        if ! "${args[@]}" >"$dir/$l.log" 2>&1 || [[ ! -f "$out" ]]; then
            note "$prog: ${linker_tool[$l]} failed (see $dir/$l.log): skipped"
            continue
        fi
        # The exact command, to rerun by hand (`bash <dir>/<linker>.cmd`).
        printf '%q ' "${args[@]}" >"$dir/$l.cmd"
        timed+=("$l")
        if [[ "$l" == rld ]]; then
            printf '%q ' cp "$out" "$dir/copy.out" >"$dir/cp.cmd"
            timed+=(cp)
        fi
    done
    echo "timing $row: $runs rounds of ${timed[*]}..." >&2
    time_in_turn "$dir" "${timed[@]}"
    for l in "${timed[@]}"; do
        rss_cpu="- -"
        if [[ "$l" != cp ]]; then
            eval "args=($(cat "$dir/$l.cmd"))"
            rss_cpu="$(peak_rss "$l" "$dir" "${args[@]}")"
        fi
        results+=("$row $l $(median_ms "$dir/$l.times") $rss_cpu")
    done
done

# ---------------------------------------------------------------------------
# Report

echo
printf '%-14s %-10s %12s %14s %10s %10s\n' program linker "median (ms)" "peak RSS (MB)" "CPU (ms)" "vs fastest"
printf '%-14s %-10s %12s %14s %10s %10s\n' -------------- ---------- ------------ -------------- ---------- ----------
summary=()
for prog in "${programs[@]}"; do
    fastest="" fastest_linker=""
    for r in "${results[@]}"; do
        read -r p l ms _ <<<"$r"
        [[ "$p" == "$prog" && "$ms" != "-" && "$l" != cp ]] || continue
        if [[ -z "$fastest" ]] || awk -v a="$ms" -v b="$fastest" 'BEGIN { exit !(a < b) }'; then
            fastest="$ms" fastest_linker="$l"
        fi
    done
    for r in "${results[@]}"; do
        read -r p l ms rss cpu <<<"$r"
        [[ "$p" == "$prog" ]] || continue
        ratio="-"
        if [[ -n "$fastest" && "$ms" != "-" ]]; then
            ratio="$(awk -v a="$ms" -v b="$fastest" 'BEGIN { printf "%.2fx", a / b }')"
            if [[ "$l" == rld ]]; then
                summary+=("$prog: rld takes $ratio the time of the fastest (${linker_tool[$fastest_linker]})")
            fi
        fi
        rss_mb="-"
        [[ "$rss" != "-" ]] && rss_mb="$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')"
        printf '%-14s %-10s %12s %14s %10s %10s\n' "$prog" "${linker_tool[$l]}" "$ms" "$rss_mb" "$cpu" "$ratio"
    done
    # rld against mold, against the floor, and its parallel speed-up.
    declare -A ms_of=()
    for r in "${results[@]}"; do
        read -r p l ms _ <<<"$r"
        [[ "$p" == "$prog" && "$ms" != "-" ]] && ms_of[$l]="$ms"
    done
    ratio_of() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
    if [[ -n "${ms_of[rld]:-}" ]]; then
        [[ -n "${ms_of[mold]:-}" ]] && summary+=("$prog: rld / mold = $(ratio_of "${ms_of[rld]}" "${ms_of[mold]}")")
        [[ -n "${ms_of[mold2]:-}" ]] && summary+=("$prog: rld / mold 2.42 = $(ratio_of "${ms_of[rld]}" "${ms_of[mold2]}")")
        [[ -n "${ms_of[wild]:-}" ]] && summary+=("$prog: rld / wild = $(ratio_of "${ms_of[rld]}" "${ms_of[wild]}")")
        [[ -n "${ms_of[cp]:-}" ]] && summary+=("$prog: rld / floor (cp of the output) = $(ratio_of "${ms_of[rld]}" "${ms_of[cp]}")")
        [[ -n "${ms_of[rld1t]:-}" ]] && summary+=("$prog: rld --threads=1 / rld = $(ratio_of "${ms_of[rld1t]}" "${ms_of[rld]}")")
    fi
    unset ms_of
done
echo
if [[ ${#summary[@]} -gt 0 ]]; then
    printf '%s\n' "${summary[@]}"
else
    echo "rld: no timings (missing or failing)"
fi
