#!/usr/bin/env bash
# Regressions between configurations of scripts/difftest/test-suite.sh.
#
# Usage: scripts/difftest/compare.sh BUILD_ROOT REF_CONFIG CONFIG...
#   e.g. scripts/difftest/compare.sh /work/ts/build lld rld rld-p1
# For each CONFIG, prints the tests that pass under REF_CONFIG but not under CONFIG
# (BUILD_ROOT/*/passed.txt), then "CONFIG: N regressions against REF_CONFIG".
# Exits 1 if there is a regression.
set -euo pipefail
export LC_ALL=C

if [ $# -lt 3 ]; then
  sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0" >&2
  exit 2
fi
root=$1 ref=$2
shift 2
# A configuration that did not run has no passed.txt: that is no result, not "0 regressions"
# (process substitution would hide sort's failure from set -e).
for config in "$ref" "$@"; do
  if [ ! -f "$root/$config/passed.txt" ]; then
    echo "no results for $config ($root/$config/passed.txt is missing)" >&2
    exit 2
  fi
done
status=0
for config in "$@"; do
  lost=$(comm -23 <(sort "$root/$ref/passed.txt") <(sort "$root/$config/passed.txt"))
  n=0
  if [ -n "$lost" ]; then
    n=$(wc -l <<<"$lost")
    sed 's/^/  /' <<<"$lost"
    status=1
  fi
  echo "$config: $n regressions against $ref"
done
exit "$status"
