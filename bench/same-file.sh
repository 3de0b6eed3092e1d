#!/usr/bin/env bash
# Whether rld writes lld's file: links each workload of bench/run.sh with the command
# lines it saved (target/bench/link/<workload>/{lld,rld}.cmd) and compares the two outputs
# section by section: the section list, every header field but the file offset, and every
# section's bytes, leaving out `.comment` (which names the linker) and the build ID (a
# hash of the whole file). Prints "same as lld" or the sections that differ. Run by hand,
# after bench/run.sh has run once (it writes the command lines).
#
#   bench/same-file.sh                       # llvm-api llvm-whole llvm-api+gc llvm-whole+gc
#   bench/same-file.sh llvm-api sqlite       # the workloads named
#
# Environment: RLD (default: target/release/rld), BENCH_DIR (default: target/bench).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bench=${BENCH_DIR:-$repo/target/bench}
rld=${RLD:-$repo/target/release/rld}
workloads=("$@")
[ ${#workloads[@]} -gt 0 ] || workloads=(llvm-api llvm-whole llvm-api+gc llvm-whole+gc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Section headers without the file offset: name type address size entsize flags link info align.
headers() {
    readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] //p' | awk '$1 != "NULL" {
        if ($2 == "NULL") next; $4 = ""; print }'
}

status=0
for w in "${workloads[@]}"; do
    dir=$bench/link/$w
    if [ ! -f "$dir/lld.cmd" ] || [ ! -f "$dir/rld.cmd" ]; then
        echo "$w: no saved command lines in $dir (run bench/run.sh $w first)"
        status=1
        continue
    fi
    for l in lld rld; do
        # The saved line writes into the bench directory; this run writes here (and runs
        # this rld).
        cmd=$(sed "s# -o [^ ]*# -o $tmp/$l#" "$dir/$l.cmd")
        [ "$l" = rld ] && cmd="$rld ${cmd#* }"
        (cd "$dir" && eval "$cmd") >/dev/null 2>&1 || {
            echo "$w: $l failed to link"; status=1; continue 2; }
    done
    differ=()
    # Sections whose header lines differ (`.comment`'s size names the linker).
    for s in $(diff <(headers "$tmp/lld" | grep -v '^\.comment ') \
        <(headers "$tmp/rld" | grep -v '^\.comment ') | sed -n 's/^[<>] \([^ ]*\) .*/\1/p' | sort -u); do
        differ+=("$s(header)")
    done
    for s in $(readelf -SW "$tmp/lld" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) .*/\1/p'); do
        case $s in .comment | .note.gnu.build-id | NULL) continue ;; esac
        objcopy -O binary --only-section="$s" "$tmp/lld" "$tmp/a" 2>/dev/null || true
        objcopy -O binary --only-section="$s" "$tmp/rld" "$tmp/b" 2>/dev/null || true
        cmp -s "$tmp/a" "$tmp/b" || differ+=("$s")
    done
    if [ ${#differ[@]} -eq 0 ]; then
        echo "$w: same as lld (but for .comment and the build ID)"
    else
        echo "$w: differs in ${differ[*]}"
        status=1
    fi
done
exit $status
