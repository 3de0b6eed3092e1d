#!/usr/bin/env bash
# Rust crates' own test suites built as one program with their C code, linked by rld's LTO
# (run by hand; never in CI).
#
#   scripts/difftest/crates.sh WORKDIR NAME@VERSION [CONFIG...]
#
# downloads the crate's published source from static.crates.io into WORKDIR/src, and builds
# its library, binaries and test programs (`cargo test --release --lib --bins --tests
# --no-fail-fast`) with cross-language LTO: rustc writes bitcode (`-Clinker-plugin-lto`),
# the C and C++ of its build scripts (the `cc` crate) is compiled by clang-22 `-flto` and
# archived by llvm-ar-22, and clang-22 links with --ld-path naming the linker of the
# configuration:
#
#   lld      ld.lld-22 (the reference)
#   rld      rld as it is
#   rld-p1   rld --lto-partitions=1
#   rld-p16  rld --lto-partitions=16
#   rld-noaa rld --no-wpa-aa --no-cvp (the whole-program analyses off)
#   rld-t1   rld --threads=1
#
# (default: rld lld rld-p1 rld-noaa). The first configuration builds everything (its linker
# also links the build scripts and proc-macro libraries); each later one rebuilds only the
# crate itself (`cargo clean -p`), so that its test programs are linked again by its linker
# from the same dependencies. Each prints `crate NAME@VERSION CONFIG: build RC, tests RC, N
# passed, N failed, N links by rld` and the names of the failing tests; the logs stay in
# WORKDIR/NAME-VERSION/log-CONFIG.txt, every command line rld was given in rld-calls.log.
# At the end, every test that passes with lld and fails in an rld configuration is listed.
# RLD (default target/release/rld) is the linker under test; FEATURES, if set, is passed to
# cargo's --features (rusqlite's `bundled`, say).
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,29p' "$0"; exit 2; }
work=$(realpath -m "$1"); spec=$2; shift 2
name=${spec%@*}; version=${spec#*@}
[ "$name" != "$spec" ] && [ -n "$version" ] || { echo "crates.sh: give NAME@VERSION" >&2; exit 2; }
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(rld lld rld-p1 rld-noaa)
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rld=$(realpath "${RLD:-$repo/target/release/rld}")
[ -x "$rld" ] || { echo "crates.sh: no rld at $rld (cargo build --release -p rld)" >&2; exit 1; }
lld=$(command -v ld.lld-22) || { echo "crates.sh: ld.lld-22 not found" >&2; exit 1; }

mkdir -p "$work/src" "$work/bin"
src="$work/src/$name-$version"
if [ ! -d "$src" ]; then
  curl -fsSL "https://static.crates.io/crates/$name/$name-$version.crate" | tar -xz -C "$work/src" || {
    echo "crates.sh: could not download $name $version" >&2; exit 1; }
fi
tree="$work/$name-$version"
[ -d "$tree" ] || cp -a "$src" "$tree"

# The linker rustc runs: clang-22 with the configuration's linker, chosen by environment
# so that cargo's fingerprints (and so the compiled crates) are the same in every one.
cat > "$work/bin/cc-link" <<'EOF'
#!/bin/sh
case "$CRATES_LINKER" in
  lld) exec clang-22 --ld-path="$CRATES_LLD" "$@" ;;
  *) printf '%s\n' "$*" >> "$CRATES_CALLS"
     exec clang-22 --ld-path="$CRATES_RLD" $CRATES_RLD_ARGS "$@" ;;
esac
EOF
chmod +x "$work/bin/cc-link"

extra_args() {
  case "$1" in
    lld|rld) ;;
    rld-p1) echo "-Wl,--lto-partitions=1" ;;
    rld-p16) echo "-Wl,--lto-partitions=16" ;;
    rld-noaa) echo "-Wl,--no-wpa-aa -Wl,--no-cvp" ;;
    rld-t1) echo "-Wl,--threads=1" ;;
    *) echo "crates.sh: unknown configuration $1" >&2; return 1 ;;
  esac
}
for c in "${configs[@]}"; do extra_args "$c" >/dev/null; done

export RUSTFLAGS="-Clinker-plugin-lto -Clinker=$work/bin/cc-link"
export CC=clang-22 CXX=clang++-22 AR=llvm-ar-22 CFLAGS="-O2 -flto" CXXFLAGS="-O2 -flto"
export CRATES_LLD="$lld" CRATES_RLD="$rld" CRATES_CALLS="$tree/rld-calls.log"
first=1
declare -A passed failures
for c in "${configs[@]}"; do
  cd "$tree"
  log="$tree/log-$c.txt"
  export CRATES_LINKER=$c CRATES_RLD_ARGS; CRATES_RLD_ARGS=$(extra_args "$c")
  [ $first = 1 ] || cargo clean --release -p "$name" >/dev/null 2>&1 || true
  first=0
  before=$( [ -f "$CRATES_CALLS" ] && wc -l < "$CRATES_CALLS" || echo 0)
  targets=(--release --lib --bins --tests ${FEATURES:+--features "$FEATURES"})
  build=0; cargo test "${targets[@]}" --no-run >"$log" 2>&1 || build=$?
  tests=0
  [ $build = 0 ] && { cargo test "${targets[@]}" --no-fail-fast >>"$log" 2>&1 || tests=$?; }
  after=$( [ -f "$CRATES_CALLS" ] && wc -l < "$CRATES_CALLS" || echo 0)
  read -r np nf < <(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($i ~ /^passed/) p += $(i-1); if ($i ~ /^failed/) f += $(i-1) } }
    END { print p + 0, f + 0 }' "$log")
  # A test binary's name, then its failing tests: "binary::test".
  failures[$c]=$(awk '/Running / { bin = $2 } / \.\.\. FAILED$/ { sub(/^test /, ""); sub(/ \.\.\. FAILED$/, ""); print bin "::" $0 }' "$log" | sort)
  passed[$c]=$np
  echo "crate $name@$version $c: build $build, tests $tests, $np passed, $nf failed, $((after - before)) links by rld"
  [ -z "${failures[$c]}" ] || printf '  failed: %s\n' ${failures[$c]}
done

# What passes with lld and fails with rld.
if [ -n "${failures[lld]+x}" ]; then
  for c in "${configs[@]}"; do
    [ "$c" = lld ] && continue
    only=$(comm -13 <(printf '%s\n' ${failures[lld]}) <(printf '%s\n' ${failures[$c]}) | sed '/^$/d')
    [ -z "$only" ] || printf 'passes with lld, fails with %s: %s\n' "$c" $only
    [ "${passed[$c]}" = "${passed[lld]}" ] || echo "differs: $c passed ${passed[$c]}, lld ${passed[lld]}"
  done
fi
