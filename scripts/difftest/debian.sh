#!/usr/bin/env bash
# Debian source packages' own test suites, with rld as the linker (run by hand; never in CI).
#
#   scripts/difftest/debian.sh WORKDIR PACKAGE [CONFIG...]
#
# fetches PACKAGE's source with `apt-get source` into WORKDIR (deb-src must be enabled:
# `Types: deb deb-src` in /etc/apt/sources.list.d/debian.sources, then `apt-get update`;
# `apt-get build-dep PACKAGE` installs what it needs), and for each CONFIG builds a fresh
# copy of the tree with the package's own build system and runs its own tests:
#
#   gcc-ld        gcc, GNU ld (the reference for the gcc configurations)
#   gcc-rld       gcc -B<dir with ld = rld>
#   gcc-lto-rld   the same with -flto=auto: rld hosts gcc's LTO plugin
#   clang-lto-lld clang-22 -flto, lld-22 (the reference for the next one)
#   clang-lto-rld clang-22 -flto --ld-path=rld: rld's own LTO
#
# (default: all five). Each prints `debian PACKAGE CONFIG: configure RC, build RC, check
# RC, N links by rld`; the trees stay in WORKDIR/PACKAGE-CONFIG with log-*.txt, and every
# command line rld was given in rld-calls.log. A link through the wrapper is counted so
# that a configuration claiming rld really used it. RLD (default target/release/rld, with
# its librld_plugin.so beside it) is the linker under test.
#
# Packages with a recipe below: gmp, xz-utils, expat, pcre2, nettle, jq, libyaml, json-c,
# libffi. Each recipe is the package's plain ./configure (or cmake) build and its check
# target, static libraries off, so that the shared libraries are the ones rld links.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,24p' "$0"; exit 2; }
work=$(realpath -m "$1"); package=$2; shift 2
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(gcc-ld gcc-rld gcc-lto-rld clang-lto-lld clang-lto-rld)
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rld=$(realpath "${RLD:-$repo/target/release/rld}")
[ -x "$rld" ] || { echo "debian.sh: no rld at $rld (cargo build --release -p rld -p rld-plugin)" >&2; exit 1; }

mkdir -p "$work/src" "$work/ldbin"
# The wrapper gcc and clang call as `ld`: records the command line, then is rld.
cat > "$work/ldbin/ld" <<EOF
#!/bin/sh
[ -n "\$RLD_CALLS" ] && printf '%s\n' "\$*" >> "\$RLD_CALLS"
exec "$rld" "\$@"
EOF
chmod +x "$work/ldbin/ld"

if ! ls -d "$work/src/$package"-*/ > /dev/null 2>&1; then
  (cd "$work/src" && apt-get source "$package") || {
    echo "debian.sh: apt-get source $package failed (is deb-src enabled?)" >&2; exit 1; }
fi
tree=$(ls -d "$work/src/$package"-*/ | head -1)

# The package's build and tests: configure, build, check (run inside the copied tree).
recipe() {
  # Some Debian tarballs ship configure.ac only.
  ac() { [ -x ./configure ] || autoreconf -fi; }
  case "$package" in
    gmp) configure() { ac && ./configure --enable-cxx --disable-static; } ;;
    xz-utils) configure() { ac && ./configure --disable-static --disable-doc --disable-nls; } ;;
    expat) configure() { cd expat && ac && ./configure --disable-static --without-docbook; } ;;
    pcre2) configure() { ac && ./configure --disable-static --enable-jit --enable-pcre2-16 --enable-pcre2-32; } ;;
    nettle) configure() { ac && ./configure --disable-static --disable-documentation; } ;;
    jq) configure() { ac && ./configure --disable-static --disable-docs --disable-maintainer-mode --with-oniguruma=yes --disable-valgrind; } ;;
    libyaml) configure() { ac && ./configure --disable-static; } ;;
    libffi) configure() { ac && ./configure --disable-static --disable-docs; } ;;
    json-c)
      # json-c.sym names json_number_chars, which nothing defines: lld-22 and rld refuse
      # that by default (GNU ld does not); valgrind cannot read clang-22's DWARF 5.
      configure() { mkdir -p bld && cd bld && cmake .. -DCMAKE_BUILD_TYPE=None -DDISABLE_WERROR=ON \
        -DCMAKE_SHARED_LINKER_FLAGS="$LDFLAGS -Wl,--undefined-version" \
        ${AR:+-DCMAKE_AR=$(command -v "$AR")} ${RANLIB:+-DCMAKE_RANLIB=$(command -v "$RANLIB")}; }
      check() { USE_VALGRIND=0 ctest -j2 --output-on-failure; } ;;
    *) echo "debian.sh: no recipe for $package" >&2; exit 1 ;;
  esac
  declare -F check > /dev/null || check() { make -j2 -k check; }
  build() { make -j2; }
}

for config in "${configs[@]}"; do
  dir="$work/$package-$config"
  rm -rf "$dir"; cp -a "$tree" "$dir"
  export RLD_CALLS="$dir/rld-calls.log"; : > "$RLD_CALLS"
  unset AR RANLIB NM
  lb="$work/ldbin"
  case "$config" in
    gcc-ld) cc="gcc" cxx="g++" flags="" ;;
    gcc-rld) cc="gcc -B$lb/" cxx="g++ -B$lb/" flags="" ;;
    gcc-lto-rld) cc="gcc -B$lb/" cxx="g++ -B$lb/" flags="-flto=auto"
      export AR=gcc-ar RANLIB=gcc-ranlib NM=gcc-nm ;;
    clang-lto-lld) cc="clang-22 -Qunused-arguments -fuse-ld=lld" cxx="clang++-22 -Qunused-arguments -fuse-ld=lld" flags="-flto"
      export AR=llvm-ar-22 RANLIB=llvm-ranlib-22 NM=llvm-nm-22 ;;
    clang-lto-rld) cc="clang-22 -Qunused-arguments --ld-path=$lb/ld" cxx="clang++-22 -Qunused-arguments --ld-path=$lb/ld" flags="-flto"
      export AR=llvm-ar-22 RANLIB=llvm-ranlib-22 NM=llvm-nm-22 ;;
    *) echo "debian.sh: unknown configuration $config" >&2; exit 2 ;;
  esac
  export CC="$cc" CXX="$cxx" CFLAGS="-O2 -g $flags" CXXFLAGS="-O2 -g $flags" LDFLAGS="$flags"
  # One shell for the three steps: a recipe's configure may change directory for the rest.
  (
    cd "$dir"
    unset -f configure build check
    recipe
    for step in configure build check; do
      rc=0
      $step > "$dir/log-$step.txt" 2>&1 || rc=$?
      echo "$step $rc" >> "$dir/steps.txt"
      [ "$rc" -eq 0 ] || [ "$step" = check ] || break
    done
  )
  echo "debian $package $config: $(paste -sd, "$dir/steps.txt" | sed 's/,/, /g'), $(wc -l < "$RLD_CALLS") links by rld"
done
