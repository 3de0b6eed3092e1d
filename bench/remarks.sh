#!/usr/bin/env bash
# Remark tools benchmark (run by hand, not in CI), on SQLite's complete -flto remark set:
# SQLite (tests/corpus) compiled with clang-22 -O2 -flto -g and linked by rld and by lld-22
# with every pass's remarks written (--opt-remarks-filename, no pass filter).
#
#   bench/remarks.sh
#   RUNS=5 LINK_RUNS=3 bench/remarks.sh
#
# Reports:
# - the links: wall time and peak RSS of rld and lld-22 with and without remarks, and the
#   remark files' sizes (YAML, and rld's bitstream);
# - reading them: `rld remarks summary` and `rld remarks diff` (rld's set against lld's)
#   against what LLVM 22's opt-viewer needs to only parse the file (optrecord.get_remarks,
#   PyYAML with its C loader), wall time and peak RSS, best of RUNS.
set -euo pipefail

work="${BENCH_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target/bench-remarks}"
runs="${RUNS:-3}"
# An SQLite -g LTO link takes about two minutes on 2 cores: once each by default.
link_runs="${LINK_RUNS:-1}"
# shellcheck source=bench/lto-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lto-common.sh"
command -v /usr/bin/time >/dev/null || { echo "install GNU time (apt-get install time)" >&2; exit 1; }
optrecord_dir=/usr/lib/llvm-22/share/opt-viewer
[[ -f $optrecord_dir/optrecord.py ]] || { echo "needs llvm-22-tools (opt-viewer)" >&2; exit 1; }

mapfile -t objs < <(corpus_bitcode sqlite "$work/sqlite-g" -flto -g)
libs=(-lm -lpthread -ldl)

measure() { # label command... -> "label  seconds  MB" (best wall time of n runs; its RSS)
    local label="$1" best="" rss="" t m
    shift
    for ((r = 0; r < n; r++)); do
        /usr/bin/time -f '%e %M' -o "$work/time.txt" "$@" >/dev/null
        read -r t m <"$work/time.txt"
        if [[ -z $best ]] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
            best=$t rss=$m
        fi
    done
    printf '%-44s %8.2f s %8.0f MB\n' "$label" "$best" "$((rss / 1024))"
}

echo "== links (SQLite, -O2 -flto -g)"
n=$link_runs
measure "rld, no remarks" "$cc" -fuse-ld="$RLD" -Wl,--no-fork -O2 -flto "${objs[@]}" "${libs[@]}" -o "$work/s.rld"
measure "rld, every remark (YAML)" "$cc" -fuse-ld="$RLD" -Wl,--no-fork -O2 -flto "${objs[@]}" "${libs[@]}" -o "$work/s.rld" \
    -Wl,--opt-remarks-filename,"$work/rld.yaml"
measure "rld, every remark (bitstream)" "$cc" -fuse-ld="$RLD" -Wl,--no-fork -O2 -flto "${objs[@]}" "${libs[@]}" -o "$work/s.rld" \
    -Wl,--opt-remarks-filename,"$work/rld.bitstream" -Wl,--opt-remarks-format,bitstream
measure "lld-22, no remarks" "$cc" --ld-path="$lld" -O2 -flto "${objs[@]}" "${libs[@]}" -o "$work/s.lld"
measure "lld-22, every remark (YAML)" "$cc" --ld-path="$lld" -O2 -flto "${objs[@]}" "${libs[@]}" -o "$work/s.lld" \
    -Wl,--opt-remarks-filename,"$work/lld.yaml"
for f in rld.yaml rld.bitstream lld.yaml; do
    printf '%-44s %8.1f MB\n' "size of $f" "$(awk -v b="$(stat -c %s "$work/$f")" 'BEGIN { print b / 1048576 }')"
done

echo "== reading"
n=$runs
count=$("$RLD" remarks summary --format json "$work/rld.yaml" | sed -n 's/^  "total": \([0-9]*\),*$/\1/p')
echo "rld.yaml holds $count remarks"
measure "opt-viewer optrecord: parse rld.yaml" python3 -c "
import sys; sys.path.insert(0, '$optrecord_dir')
import optrecord
optrecord.get_remarks('$work/rld.yaml')"
measure "rld remarks summary rld.yaml" "$RLD" remarks summary "$work/rld.yaml"
measure "rld remarks summary rld.bitstream" "$RLD" remarks summary "$work/rld.bitstream"
measure "rld remarks diff rld.yaml lld.yaml" "$RLD" remarks diff "$work/rld.yaml" "$work/lld.yaml"
measure "rld remarks view rld.yaml" "$RLD" remarks view "$work/rld.yaml" -o "$work/rld.html"
printf '%-44s %8.1f MB\n' "size of rld.html" "$(awk -v b="$(stat -c %s "$work/rld.html")" 'BEGIN { print b / 1048576 }')"
