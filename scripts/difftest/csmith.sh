#!/usr/bin/env bash
# Differential testing of rld's LTO against lld-22 with random C programs from csmith.
#
# Usage: scripts/difftest/csmith.sh [--seeds FIRST..LAST | --hours H] [--variant default|nobitfields]
#                                   [--out DIR] [--timeout S] [-j N]
#   --seeds FIRST..LAST  the csmith seeds to run (default 1..100)
#   --hours H            run consecutive seeds for H hours (e.g. 0.5): from FIRST when given
#                        as `--seeds FIRST..`, else from a seed taken from the clock
#   --variant V          default: csmith's own defaults; nobitfields: csmith --no-bitfields
#                        --no-volatiles
#   --out DIR            where the files of each difference are kept (default ./csmith-out)
#   --timeout S          time limit of a program's run, in seconds (default 10)
#   -j N                 seeds at a time (default: the number of cores)
#
# Each seed: `csmith --seed S` writes prog.c; clang-22 -O2 -flto compiles it with its main
# renamed csmith_main, and main.c, whose main calls csmith_main, so that the LTO link has two
# modules. The two are linked by lld-22 (clang-22 -flto -O2 -fuse-ld=lld), the reference, and
# through clang-22 --ld-path=$RLD (default: this repo's target/release/rld) in seven
# configurations:
#   rld        rld's defaults             rld-noaa   -Wl,--no-wpa-aa
#   rld-p1     -Wl,--lto-partitions=1     rld-nocvp  -Wl,--no-cvp
#   rld-p16    -Wl,--lto-partitions=16    rld-t1     -Wl,--threads=1
#   rld-O2     -Wl,-O2 (strings tail-merged, --branch-to-branch)
# The programs print a checksum of their global variables. A seed whose lld build does not end
# within the time limit is skipped (csmith programs may loop for hours), as is one whose lld
# build crashes or ends without printing its checksum (undefined behaviour, such as recursion
# or a loop without end), one that does not compile and one that lld fails to link. An rld
# build is a difference when rld fails to link it or prints anything while linking, when it
# does not end within 3x the limit, or when its stdout or exit status are not the lld build's.
# For a seed with a difference, prog.c is also built with clang-22 -O0
# -fsanitize=undefined,address and run (for 20x the limit): only if that build runs clean and
# prints what the lld build printed is the program's behaviour known, and the difference
# rld's. Each such difference prints one line,
#   seed S CONFIG: WHAT
# and the seed's files (prog.c, main.c, objects, programs, outputs, link messages and
# repro.sh, which rebuilds and runs both) are kept in DIR/diff-S/. Otherwise the seed is
# skipped as undefined behaviour (a sanitizer's report, or an -O0 build that does not end:
# a loop without end that -O2 deletes or turns into a trap, as the C standard allows), with
# one line "seed S: not compared, ..." and its files in DIR/ub-S/.
# Ends with the line "csmith: N programs, N differences" (programs: seeds whose lld build ran
# to its end; differences: seed and configuration pairs), after a line counting the seeds
# skipped, if any. Exits 1 if there was a difference, 2 on bad usage.
set -euo pipefail
export LC_ALL=C

usage() {
  sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0" >&2
  exit 2
}

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
first="" last="" hours="" variant=default out=./csmith-out timeout_s=10
jobs=$(nproc)
while [ $# -gt 0 ]; do
  case $1 in
    --seeds) [ $# -ge 2 ] || usage
      [[ $2 =~ ^([0-9]+)\.\.([0-9]*)$ ]] || usage
      first=${BASH_REMATCH[1]} last=${BASH_REMATCH[2]}
      shift 2 ;;
    --hours) { [ $# -ge 2 ] && [[ $2 =~ ^[0-9]*\.?[0-9]+$ ]]; } || usage; hours=$2; shift 2 ;;
    --variant) [ $# -ge 2 ] || usage; variant=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    --timeout) { [ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]*$ ]]; } || usage; timeout_s=$2; shift 2 ;;
    -j) { [ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]*$ ]]; } || usage; jobs=$2; shift 2 ;;
    -j[1-9]*) [[ $1 =~ ^-j[1-9][0-9]*$ ]] || usage; jobs=${1#-j}; shift ;;
    *) usage ;;
  esac
done
case $variant in
  default) csmith_flags=() ;;
  nobitfields) csmith_flags=(--no-bitfields --no-volatiles) ;;
  *) echo "unknown variant '$variant'" >&2; exit 2 ;;
esac
if [ -n "$hours" ]; then
  [ -z "$last" ] || { echo "--hours takes --seeds FIRST.. (no LAST)" >&2; exit 2; }
  [ -n "$first" ] || first=$(($(date +%s) % 1000000000))
  deadline=$(awk -v now="$(date +%s)" -v h="$hours" 'BEGIN { printf "%d", now + h * 3600 }')
else
  [ -n "$first" ] || { first=1 last=100; }
  { [ -n "$last" ] && [ "$last" -ge "$first" ]; } || usage
fi

command -v csmith >/dev/null || { echo "csmith not found (apt-get install csmith)" >&2; exit 2; }
include=""
for d in "${CSMITH_INCLUDE:-}" /usr/include/csmith /usr/local/include/csmith /usr/local/include/csmith-*; do
  if [ -n "$d" ] && [ -f "$d/csmith.h" ]; then include=$d; break; fi
done
[ -n "$include" ] ||
  { echo "csmith.h not found (apt-get install libcsmith-dev, or set CSMITH_INCLUDE)" >&2; exit 2; }
rld=$(realpath -m "${RLD:-$repo/target/release/rld}")
[ -x "$rld" ] || { echo "no rld at $rld (build it, or set RLD)" >&2; exit 2; }

configs=(rld rld-p1 rld-p16 rld-noaa rld-nocvp rld-t1 rld-O2)
declare -A config_flags=(
  [rld]="" [rld-p1]="-Wl,--lto-partitions=1" [rld-p16]="-Wl,--lto-partitions=16"
  [rld-noaa]="-Wl,--no-wpa-aa" [rld-nocvp]="-Wl,--no-cvp" [rld-t1]="-Wl,--threads=1"
  [rld-O2]="-Wl,-O2"
)

mkdir -p "$out"
out=$(realpath "$out")
work=$(mktemp -d "$out/.work.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'kill $(jobs -p) 2>/dev/null; exit 130' INT TERM
mkdir "$work/results"

# main.c: the second module; its main calls the program's.
cat >"$work/main.c" <<'EOF'
int csmith_main(int argc, char *argv[]);
int main(int argc, char *argv[]) { return csmith_main(argc, argv); }
EOF
clang-22 -O2 -flto -c "$work/main.c" -o "$work/main.o"

# What a program did, for a message: the first line of its stdout, or "no output".
said() {
  if [ -s "$1" ]; then head -n1 "$1" | cut -c1-80; else echo "no output"; fi
}

# Runs program $2 for at most $1 seconds, its output to $3.stdout and $3.stderr; returns its
# status as `timeout` does (124: timed out). The subshell keeps the shell's own report of a
# program killed by a signal out of the log.
run() {
  (timeout "$1" "$2" >"$3.stdout" 2>"$3.stderr"; exit $?) 2>/dev/null
}

# The first line where outputs $1 and $2 differ, of each: "line N: A | B".
first_difference() {
  local n
  n=$(cmp "$1" "$2" 2>&1 | grep -o 'line [0-9]*' | grep -o '[0-9]*' || true)
  n=${n:-1}
  echo "line $n: $(line_of "$1" "$n") | $(line_of "$2" "$n")"
}
line_of() {
  if [ "$(sed -n "$2p" "$1" | wc -c)" = 0 ]; then
    echo "(end of output)"
  else
    sed -n "$2p" "$1" | cut -c1-60
  fi
}

# "exit status N", "status N (signal N-128?)", "timed out" for a status from `timeout` (which
# reports a program killed by signal N as status 128+N, as if it had exited with it).
status_text() {
  if [ "$1" = 124 ]; then echo "timed out"
  elif [ "$1" -gt 128 ]; then echo "status $1 (signal $(($1 - 128))?)"
  else echo "exit status $1"; fi
}

# The sanitizer build of prog.c in the current directory: "clean" or what went wrong.
sanitizers() {
  if ! timeout 300 clang-22 -O0 -fsanitize=undefined,address -fno-sanitize-recover=all -w \
    -I"$include" prog.c -o ubsan.out 2>ubsan.build; then
    echo "does not build"; return
  fi
  local rc=0
  ASAN_OPTIONS=detect_leaks=0 run $((timeout_s * 20)) ./ubsan.out ubsan || rc=$?
  if [ "$rc" = 124 ]; then
    echo "timed out after $((timeout_s * 20)) s"
  elif [ "$rc" != 0 ]; then
    echo "$(status_text "$rc"): $(grep -m1 -E 'runtime error|ERROR: AddressSanitizer' ubsan.stderr | cut -c1-120)"
  elif [ -s ubsan.stderr ]; then
    echo "stderr: $(head -n1 ubsan.stderr | cut -c1-120)"
  elif ! cmp -s ubsan.stdout lld.stdout; then
    echo "prints $(said ubsan.stdout)"
  else
    echo clean
  fi
}

# Runs seed $1 in $work/$1; writes $work/results/$1: "ok", "skip REASON" or "diff N".
run_seed() {
  local s=$1 d="$work/$1" cfg rc lrc msg
  local -a diffs=()
  mkdir "$d" && cd "$d"
  result() { echo "$*" >"$work/results/$s"; cd /; rm -rf "$d"; }
  if ! timeout 60 csmith --seed "$s" "${csmith_flags[@]}" >prog.c 2>csmith.err; then
    result skip "csmith failed"; return
  fi
  cp "$work/main.c" "$work/main.o" .
  if ! timeout 300 clang-22 -O2 -flto -w -I"$include" -Dmain=csmith_main -c prog.c -o prog.o \
    2>compile.err; then
    result skip "does not compile"; return
  fi
  if ! timeout 300 clang-22 -flto -O2 -fuse-ld=lld prog.o main.o -o lld.out 2>lld.link; then
    result skip "lld fails to link it"; return
  fi
  lrc=0
  run "$timeout_s" ./lld.out lld || lrc=$?
  if [ "$lrc" = 124 ]; then
    result skip "lld build timed out"; return
  elif [ "$lrc" -gt 128 ]; then
    # Undefined behaviour, typically (e.g. recursion without end, compiled into a trap).
    result skip "lld build crashed"; return
  elif ! grep -q '^checksum = ' lld.stdout; then
    # It did not run to its end: e.g. an endless loop without side effects, which clang may
    # compile into nothing (main falls through into whatever the linker placed after it).
    result skip "lld build printed no checksum"; return
  fi
  for cfg in "${configs[@]}"; do
    # shellcheck disable=SC2086 # the flags are words
    if ! timeout 300 clang-22 -flto -O2 --ld-path="$rld" ${config_flags[$cfg]} prog.o main.o \
      -o "$cfg.out" 2>"$cfg.link"; then
      diffs+=("$cfg: link failed: $(head -n1 "$cfg.link" | cut -c1-120)")
      continue
    fi
    if [ -s "$cfg.link" ]; then
      diffs+=("$cfg: link printed: $(head -n1 "$cfg.link" | cut -c1-120)")
    fi
    rc=0
    run $((timeout_s * 3)) "./$cfg.out" "$cfg" || rc=$?
    msg=""
    if [ "$rc" = 124 ]; then
      msg="timed out after $((timeout_s * 3)) s (lld build: $(status_text "$lrc"), $(said lld.stdout))"
    elif ! cmp -s "$cfg.stdout" lld.stdout; then
      msg="stdout differs (lld | $cfg: $(first_difference lld.stdout "$cfg.stdout"))"
      [ "$rc" = "$lrc" ] || msg+=", $(status_text "$rc") (lld: $(status_text "$lrc"))"
    elif [ "$rc" != "$lrc" ]; then
      msg="$(status_text "$rc") (lld: $(status_text "$lrc")), same stdout"
    fi
    [ -z "$msg" ] || diffs+=("$cfg: $msg")
  done
  if [ ${#diffs[@]} = 0 ]; then
    result ok; return
  fi
  local ub line keep="$out/diff-$s"
  ub=$(sanitizers)
  if [ "$ub" != clean ]; then
    # The program's own behaviour is not established (it has undefined behaviour, or it
    # does not end at -O0: an endless loop that -O2 may delete or turn into a trap), so the
    # builds may rightly differ. Kept for a look, not counted.
    keep="$out/ub-$s"
    echo "seed $s: not compared, the -O0 sanitizer build $ub (${diffs[0]})"
  else
    for line in "${diffs[@]}"; do
      echo "seed $s $line"
    done
  fi
  cat >repro.sh <<EOF
#!/bin/sh
# csmith seed $s (variant $variant$([ ${#csmith_flags[@]} = 0 ] || echo ": csmith ${csmith_flags[*]}")):
# builds prog.c + main.c with clang-22 -O2 -flto, links them with lld-22 and with rld in
# each configuration that differed, and runs each program.
# Usage: RLD=/path/to/rld ./repro.sh   (default RLD: $rld)
cd "\$(dirname "\$0")"
rld=\${RLD:-$rld}
clang-22 -O2 -flto -w -I$include -Dmain=csmith_main -c prog.c -o prog.o
clang-22 -O2 -flto -c main.c -o main.o
clang-22 -flto -O2 -fuse-ld=lld prog.o main.o -o lld.out
echo "lld:"; timeout $timeout_s ./lld.out; echo "  (\$?)"
EOF
  for line in "${diffs[@]}"; do
    cfg=${line%%:*}
    printf '%s\n' "clang-22 -flto -O2 --ld-path=\"\$rld\" ${config_flags[$cfg]} prog.o main.o -o $cfg.out" \
      "echo \"$cfg:\"; timeout $((timeout_s * 3)) ./$cfg.out; echo \"  (\$?)\"" >>repro.sh
  done
  chmod +x repro.sh
  printf '%s\n' "${diffs[@]}" >differences.txt
  echo "$ub" >sanitizers.txt
  rm -rf "$keep"
  cd /
  mv "$d" "$keep"
  if [ "$ub" = clean ]; then
    echo "diff ${#diffs[@]}" >"$work/results/$s"
  else
    echo "skip undefined behaviour (-O0 sanitizer build)" >"$work/results/$s"
  fi
}

# Seeds, $jobs at a time; with --hours, none is started after the deadline.
s=$first
while :; do
  if [ -n "$last" ]; then
    [ "$s" -le "$last" ] || break
  else
    [ "$(date +%s)" -lt "$deadline" ] || break
  fi
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    wait -n || true
  done
  (run_seed "$s") &
  s=$((s + 1))
done
wait

programs=0 differences=0 skipped=0
declare -A reasons=()
for f in "$work"/results/*; do
  [ -e "$f" ] || continue
  read -r kind rest <"$f"
  case $kind in
    ok) programs=$((programs + 1)) ;;
    diff) programs=$((programs + 1)) differences=$((differences + rest)) ;;
    skip) skipped=$((skipped + 1)) reasons[$rest]=$((${reasons[$rest]:-0} + 1)) ;;
  esac
done
if [ "$skipped" -gt 0 ]; then
  detail=""
  for r in "${!reasons[@]}"; do detail+="${detail:+, }${reasons[$r]} $r"; done
  echo "csmith: seeds $first..$((s - 1)) ($variant), $skipped skipped: $detail"
fi
echo "csmith: $programs programs, $differences differences"
[ "$differences" = 0 ]
