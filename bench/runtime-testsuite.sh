#!/usr/bin/env bash
# Run time of the LLVM test-suite's benchmark programs linked by `rld -flto` against the
# same programs linked by `lld -flto` (run by hand, on a quiet machine).
#
# Needs two test-suite build trees made by scripts/difftest/test-suite.sh from the same
# objects (e.g. /work/ts/b22/lld and /work/ts/b22/rld): TS_LLD linked by lld, TS_RLD by rld.
# Each round runs the suite's own `lit -j1` over SUBDIRS in the lld tree, then in the rld
# tree (so a machine whose speed drifts slows both alike); lit runs every program on its
# own input through the suite's timeit wrapper and checks its output against the reference
# output. Then, per program, the median exec_time of the rounds on each side, the ratio
# rld / lld, their geometric mean, the programs slower than 1.02x, and any program that
# failed on one side.
#
#   TS_LLD=/work/ts/b22/lld TS_RLD=/work/ts/b22/rld bench/runtime-testsuite.sh
#   ROUNDS=3 SUBDIRS="SingleSource/Benchmarks" TS_LLD=... TS_RLD=... bench/runtime-testsuite.sh
#   MIN=0.5 ...   # leave out programs running under 0.5 s (default 0.1): too short to rank
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${BENCH_DIR:-$repo/target/bench-runtime-testsuite}"
ts_lld="${TS_LLD:?set TS_LLD to a test-suite build tree linked by lld}"
ts_rld="${TS_RLD:?set TS_RLD to a test-suite build tree linked by rld}"
rounds="${ROUNDS:-5}"
min="${MIN:-0.1}"
read -ra subdirs <<<"${SUBDIRS:-MultiSource/Benchmarks SingleSource/Benchmarks MultiSource/Applications}"
mkdir -p "$work"

for ((r = 1; r <= rounds; r++)); do
    for side in lld rld; do
        tree=$ts_lld
        [[ $side == rld ]] && tree=$ts_rld
        echo "round $r/$rounds: $side" >&2
        (cd "$tree" && lit -j1 -q -o "$work/$side.$r.json" "${subdirs[@]}") >"$work/$side.$r.log" 2>&1 || true
    done
done

python3 - "$work" "$rounds" "$min" <<'EOF'
import json, math, statistics, sys
work, rounds, floor = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
times = {"lld": {}, "rld": {}}
failed = {"lld": set(), "rld": set()}
for side in times:
    for r in range(1, rounds + 1):
        for t in json.load(open(f"{work}/{side}.{r}.json"))["tests"]:
            name = t["name"].split(" :: ")[-1]
            if t["code"] != "PASS":
                failed[side].add(name)
            et = t.get("metrics", {}).get("exec_time")
            if et is not None:
                times[side].setdefault(name, []).append(et)
rows = []
for name in sorted(set(times["lld"]) & set(times["rld"])):
    if name in failed["lld"] | failed["rld"]:
        continue
    lld, rld = statistics.median(times["lld"][name]), statistics.median(times["rld"][name])
    if lld < floor:
        continue
    rows.append((name, lld, rld, rld / lld))
for side in ("lld", "rld"):
    for name in sorted(failed[side]):
        print(f"failed with {side}: {name}")
print(f"{'program':70} {'lld s':>8} {'rld s':>8} {'rld/lld':>8}")
for name, lld, rld, ratio in rows:
    print(f"{name:70} {lld:8.3f} {rld:8.3f} {ratio:8.3f}")
geo = math.exp(sum(math.log(r) for *_, r in rows) / len(rows)) if rows else float("nan")
slower = [(n, r) for n, _, _, r in rows if r > 1.02]
print(f"\n{len(rows)} programs running at least {floor} s, {rounds} rounds: "
      f"geometric mean rld/lld {geo:.3f}; slower than 1.02x: {len(slower)}")
for n, r in sorted(slower, key=lambda x: -x[1]):
    print(f"  {n}: {r:.3f}")
EOF
