#!/usr/bin/env bash
# Whether two builds of a program have the same code: the instructions of their `.text`,
# with addresses, branch targets, padding and function order set aside (objdump, each
# side's lines sorted). Tells a run-time difference that comes from code placement alone
# from one the optimizer made (see docs/analyses.md). "identical" is more: the `.text`
# sections are the same bytes at the same address (the same code where lld puts it).
# Run by hand.
#
#   bench/same-code.sh A B            # prints "identical", "same", or "differ N of M" (lines)
#   TS_LLD=/work/ts/b22/lld TS_RLD=/work/ts/b22/rld bench/same-code.sh --tests LOG
#       # for each "<test> <lld s> <rld s> <ratio>" line of bench/runtime-testsuite.sh's
#       # output LOG, appends the verdict on the two trees' programs, then the geometric
#       # mean of the ratios and the count slower than 1.02x, per verdict (from the log's
#       # three-decimal ratios: one printed as 1.020 is not counted)
set -euo pipefail

normalized() { # PROGRAM
    objdump -d -j .text --no-show-raw-insn "$1" |
        sed -E 's/^ *[0-9a-f]+:\s*//; s/[0-9a-f]+ <([^>+]*)(\+0x[0-9a-f]+)?>/<\1>/g;
                s/#.*//; s/-?0x[0-9a-f]+\(%rip\)/X(%rip)/g; s/\s+$//' |
        grep -v -e 'file format' -e '^int3$' -e '^\s*\.\.\.$' -e '^$' -e 'nop' \
            -e 'add    %al,(%rax)' -e '^<.*>:$' -e '^Disassembly' |
        sed -E 's/(j[a-z]+|call)\s+<[^>]*>/\1 L/' | sort
}

text_at() { # PROGRAM: .text's address, then its bytes in hex
    readelf -SW "$1" | sed -E 's/^ *\[ *[0-9]+\]//' | awk '$1 == ".text" { print $3 }'
    objcopy -O binary --only-section=.text "$1" /dev/stdout | od -An -tx1 -v
}

verdict() { # A B
    [[ -x $1 && -x $2 ]] || { echo "missing"; return; }
    if cmp -s <(text_at "$1") <(text_at "$2"); then echo identical; return; fi
    local n
    n=$(diff <(normalized "$1") <(normalized "$2") | grep -c '^[<>]' || true)
    if [[ $n == 0 ]]; then echo same; else echo "differ $n of $(normalized "$1" | wc -l)"; fi
}

if [[ ${1:-} != --tests ]]; then
    [[ $# == 2 ]] || { sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0" >&2; exit 2; }
    verdict "$1" "$2"
    exit
fi
log=${2:?a log of bench/runtime-testsuite.sh}
lld=${TS_LLD:?the tree linked by lld}
rld=${TS_RLD:?the tree linked by rld}
grep -E '^\S+\.test\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+$' "$log" | while read -r test a b ratio; do
    dir=$(dirname "$test") exe=$(basename "$test" .test)
    echo "$test $a $b $ratio $(verdict "$lld/$dir/$exe" "$rld/$dir/$exe")"
done | tee /dev/stderr | awk '{ n[$5]++; s[$5] += log($4); if ($4 > 1.02) slow[$5]++ }
    END { for (k in n) printf "%s: %d programs, geometric mean %.3f, slower than 1.02x: %d\n",
          k, n[k], exp(s[k] / n[k]), slow[k] }'
