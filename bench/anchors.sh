#!/usr/bin/env bash
# Builds the linkers the benchmarks compare rld with from their sources, at fixed releases
# (run by hand; nothing it builds is committed): mold 2.42.0 and wild 0.8.0.
#
#   bench/anchors.sh                 # clones and builds into target/anchors
#   ANCHORS=/some/dir bench/anchors.sh
#   MOLD_GIT=/path/to/mold.git WILD_GIT=/path/to/wild.git bench/anchors.sh   # local clones
#   JOBS=1 bench/anchors.sh   # build on one core (default: all of them)
#
# Prints the two binaries' paths; bench/run.sh takes them as MOLD2=... WILD=... . mold builds
# with CMake (its own release configuration: -O2, its vendored mimalloc, zstd and TBB), for
# x86-64 only (-DMOLD_TARGETS=X86_64: the same x86-64 code, a twentieth of the build time);
# wild with `cargo build --release` (its own profile). Each build is skipped when the
# binary is there already and reports the version it was asked for.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=$(realpath -m "${ANCHORS:-$repo/target/anchors}")
mold_tag=v2.42.0
wild_tag=0.8.0
jobs=${JOBS:-$(nproc)}
mkdir -p "$dir"

# The sources without their test directories: the builds do not need them (and a mirror
# may lack their larger files).
checkout() { # URL TAG DEST
    if [ ! -d "$3/.git" ]; then
        git clone --quiet --no-checkout "$1" "$3"
        git -C "$3" sparse-checkout set --no-cone '/*' '!/test/' '!**/tests/' '!**/test/'
    fi
    git -C "$3" fetch --quiet --tags "$1" 2>/dev/null || true
    git -C "$3" -c advice.detachedHead=false checkout --quiet "$2"
}

mold_bin="$dir/mold-build/mold"
if ! { [ -x "$mold_bin" ] && "$mold_bin" --version | grep -q "mold ${mold_tag#v} "; }; then
    checkout "${MOLD_GIT:-https://github.com/rui314/mold}" "$mold_tag" "$dir/mold"
    cmake -S "$dir/mold" -B "$dir/mold-build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DMOLD_TARGETS=X86_64 \
        -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ >"$dir/mold-cmake.log" 2>&1 ||
        { tail -20 "$dir/mold-cmake.log" >&2; exit 1; }
    cmake --build "$dir/mold-build" -j"$jobs" --target mold >"$dir/mold-build.log" 2>&1 ||
        { tail -20 "$dir/mold-build.log" >&2; exit 1; }
fi

wild_bin="$dir/wild/target/release/wild"
if ! { [ -x "$wild_bin" ] && "$wild_bin" --version | grep -q "$wild_tag"; }; then
    checkout "${WILD_GIT:-https://github.com/davidlattimore/wild}" "$wild_tag" "$dir/wild"
    (cd "$dir/wild" && cargo build --release --locked --bin wild -j"$jobs") \
        >"$dir/wild-build.log" 2>&1 || { tail -20 "$dir/wild-build.log" >&2; exit 1; }
fi

"$mold_bin" --version
"$wild_bin" --version
echo "MOLD2=$mold_bin"
echo "WILD=$wild_bin"
