#!/usr/bin/env bash
# Differential testing over the LLVM test-suite: builds and runs it with clang-22 -O2 -flto
# (CC=clang-14 for LLVM 14's bitcode), linked by lld-22 or by rld, so that the results of the configurations can be compared
# (scripts/difftest/compare.sh).
#
# Usage: scripts/difftest/test-suite.sh SRC BUILD_ROOT CONFIG [SUBDIRS]
#   SRC         a checkout of https://github.com/llvm/llvm-test-suite
#   BUILD_ROOT  the objects are compiled once, in BUILD_ROOT/objects; each CONFIG then is
#               BUILD_ROOT/CONFIG, a fresh copy of it configured with the CONFIG's link flags
#   CONFIG      lld       --ld-path=ld.lld-22 (lld-22 and its own LTO)
#               rld       --ld-path=$RLD (default: this repo's target/release/rld)
#               rld-p1    rld -Wl,--lto-partitions=1
#               rld-p16   rld -Wl,--lto-partitions=16
#               rld-noaa  rld -Wl,--no-wpa-aa
#               rld-nocvp rld -Wl,--no-cvp
#               rld-t1    rld -Wl,--threads=1
#               rld-gc    rld -Wl,--gc-sections (lld-gc: lld-22 with it, for comparison)
#               rld-O0, rld-O2
#                         rld -Wl,-O0 (mergeable sections copied whole) and -Wl,-O2 (strings
#                         tail-merged, --branch-to-branch)
#               rld-dist  rld -Wl,--thinlto-distributor=scripts/dtlto-local (distributed LTO:
#                         every partition is a job run by a separate process)
#               plugin-bfd, plugin-gold, plugin-mold
#                         rld's LTO as a plugin (librld_plugin.so beside $RLD, or
#                         $RLD_PLUGIN) in GNU ld, gold or mold, through scripts/rld-plugin-ld
#   SUBDIRS     the test-suite's TEST_SUITE_SUBDIRS (default CTMark; e.g. "MultiSource;SingleSource")
#
# Needs cmake, ninja and lit (pip install lit). Every configuration compiles with the same
# flags and only its link flags differ, so BUILD_ROOT/objects (configured as lld) builds
# just the object files, and the copy keeps ninja's log of them: in BUILD_ROOT/CONFIG ninja
# only links (it recompiles only a command that does differ, e.g. one naming the build
# directory). Compile times are not collected: the timeit wrapper would put the build
# directory into every compile command. Run the configurations one after the other.
# The build keeps going past failures (ninja -k 0); a program that fails to compile or link
# counts as a failed test. Then `lit -v -j2 -o results.json .` runs in BUILD_ROOT/CONFIG.
# Writes the test names (e.g. CTMark/7zip/7zip-benchmark) to BUILD_ROOT/CONFIG/passed.txt
# and failed.txt, the build's log to ninja.log and lit's to lit.log, prints every failing
# test and ends with the line "test-suite CONFIG: N passed, N failed". Exits 1 if a test
# failed.
set -euo pipefail
export LC_ALL=C # one sort order for sort and comm

if [ $# -lt 3 ] || [ $# -gt 4 ]; then
  sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0" >&2
  exit 2
fi
src=$(realpath "$1")
config=$3
subdirs=${4:-CTMark}
build=$(realpath -m "$2/$config")
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rld=$(realpath -m "${RLD:-$repo/target/release/rld}")
cc=${CC:-clang-22}
cxx=${CXX:-${cc/clang/clang++}}

case $config in
  lld) ldflags="--ld-path=$(command -v ld.lld-22)" ;;
  rld) ldflags="--ld-path=$rld" ;;
  rld-p1) ldflags="--ld-path=$rld -Wl,--lto-partitions=1" ;;
  rld-p16) ldflags="--ld-path=$rld -Wl,--lto-partitions=16" ;;
  rld-noaa) ldflags="--ld-path=$rld -Wl,--no-wpa-aa" ;;
  rld-nocvp) ldflags="--ld-path=$rld -Wl,--no-cvp" ;;
  rld-t1) ldflags="--ld-path=$rld -Wl,--threads=1" ;;
  rld-gc) ldflags="--ld-path=$rld -Wl,--gc-sections" ;;
  lld-gc) ldflags="--ld-path=$(command -v ld.lld-22) -Wl,--gc-sections" ;;
  rld-O0) ldflags="--ld-path=$rld -Wl,-O0" ;;
  rld-O2) ldflags="--ld-path=$rld -Wl,-O2" ;;
  rld-dist) ldflags="--ld-path=$rld -Wl,--thinlto-distributor=$repo/scripts/dtlto-local" ;;
  plugin-bfd | plugin-gold | plugin-mold)
    # The wrapper picks its linker by its own name.
    host=${config#plugin-}
    name=rld-plugin-ld.$host
    [ "$host" = mold ] && name=rld-plugin-mold
    bin=$(realpath -m "$2/plugin-bin")
    mkdir -p "$bin" && ln -sf "$repo/scripts/rld-plugin-ld" "$bin/$name"
    export RLD_PLUGIN=${RLD_PLUGIN:-$(dirname "$rld")/librld_plugin.so}
    [ -f "$RLD_PLUGIN" ] || { echo "no rld plugin at $RLD_PLUGIN (set RLD_PLUGIN)" >&2; exit 2; }
    ldflags="--ld-path=$bin/$name" ;;
  *) echo "unknown CONFIG '$config'" >&2; exit 2 ;;
esac
if [ "${config#lld}" = "$config" ] && [ ! -x "$rld" ]; then
  echo "no rld at $rld (build it, or set RLD)" >&2
  exit 2
fi

# -O2 from CMAKE_<LANG>_FLAGS; the Release flags are reduced to -DNDEBUG (the test-suite
# needs it) so that the build type's -O3 does not override -O2.
configure() { # DIR LDFLAGS
  cmake -G Ninja -S "$src" -B "$1" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_C_FLAGS="-O2 -flto" -DCMAKE_CXX_FLAGS="-O2 -flto" \
    -DCMAKE_C_FLAGS_RELEASE=-DNDEBUG -DCMAKE_CXX_FLAGS_RELEASE=-DNDEBUG \
    -DCMAKE_EXE_LINKER_FLAGS="-flto $2" -DTEST_SUITE_COLLECT_COMPILE_TIME=OFF \
    -DTEST_SUITE_SUBDIRS="$subdirs" -DTEST_SUITE_BENCHMARKING_ONLY=OFF >"$1/cmake.log" 2>&1 ||
    { tail -30 "$1/cmake.log" >&2; echo "cmake failed: see $1/cmake.log" >&2; exit 2; }
  local_cfgs "$1"
}

# A subdirectory named below its top (MultiSource/Benchmarks) skips the top's CMakeLists,
# which copies the top's lit.local.cfg (traditional_output: lit captures the program's
# output for the reference comparison); copy those of every enclosing directory.
local_cfgs() { # DIR
  local sub dir
  IFS=';' read -ra subs <<<"$subdirs"
  for sub in "${subs[@]}"; do
    dir=$sub
    while [ "$dir" != . ] && [ -n "$dir" ]; do
      if [ -f "$src/$dir/lit.local.cfg" ] && [ ! -f "$1/$dir/lit.local.cfg" ]; then
        mkdir -p "$1/$dir" && cp "$src/$dir/lit.local.cfg" "$1/$dir/"
      fi
      dir=$(dirname "$dir")
    done
  done
}

# Compile: build the targets of the compile rules (C_COMPILER__..., CXX_COMPILER__...).
objects=$(realpath -m "$2/objects")
mkdir -p "$objects"
configure "$objects" "--ld-path=$(command -v ld.lld-22)"
(cd "$objects" && ninja -t targets all | awk -F': ' '$2 ~ /_COMPILER__/ { print $1 }' |
  xargs -r ninja -k 0 >ninja.log 2>&1) || true

# Link and run, in a fresh copy of the objects.
rm -rf "$build"
cp -a "$objects" "$build"
rm -rf "$build/CMakeCache.txt" "$build/CMakeFiles"
configure "$build" "$ldflags"
cd "$build"
ninja -v -k 0 >ninja.log 2>&1 || true
lit -v -j2 -o results.json . >lit.log 2>&1 || true
[ -f results.json ] || { tail -30 lit.log >&2; echo "lit wrote no results.json" >&2; exit 2; }

# Tests by lit's verdict, named without "test-suite :: " and ".test".
python3 - <<'EOF'
import json
tests = json.load(open("results.json"))["tests"]
verdict = {"PASS": "passed", "XFAIL": "passed", "UNSUPPORTED": None}
out = {"passed": [], "failed": []}
for t in tests:
    kind = verdict.get(t["code"], "failed")
    if kind:
        name = t["name"].split(" :: ", 1)[-1]
        out[kind].append(name[:-5] if name.endswith(".test") else name)
for kind, names in out.items():
    open(f"lit-{kind}.txt", "w").write("".join(n + "\n" for n in sorted(names)))
EOF
# Targets ninja could not build, as the test names of their programs:
# DIR/PROG, or DIR/CMakeFiles/PROG.dir/FILE.o for a compile failure.
awk '/^FAILED: / { for (i = 2; i <= NF; i++) if ($i !~ /^\[code=/) print $i }' ninja.log |
  sed 's|^\(.*/\)\{0,1\}CMakeFiles/\([^/]*\)\.dir/.*|\1\2|' | sort -u >build-failed.txt
sort -u lit-failed.txt build-failed.txt >failed.txt
comm -23 lit-passed.txt failed.txt >passed.txt

if [ -s build-failed.txt ]; then
  echo "could not build (see $build/ninja.log):"
  sed 's/^/  /' build-failed.txt
fi
sed 's/^/FAIL: /' failed.txt
npass=$(wc -l <passed.txt)
nfail=$(wc -l <failed.txt)
echo "test-suite $config: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
