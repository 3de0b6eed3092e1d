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
#   gcc-lto-ld    gcc -flto=auto, GNU ld (the reference for the next one)
#   gcc-lto-rld   the same with rld: rld hosts gcc's LTO plugin
#   clang-lto-lld clang-22 -flto, lld-22 (the reference for the next one)
#   clang-lto-rld clang-22 -flto --ld-path=rld: rld's own LTO
#   gcc-rld-O2, clang-lto-rld-O2
#                 the same two rld configurations linking with -Wl,-O2 (strings tail-merged,
#                 --branch-to-branch); not in the default list
#
# (default: all six). Each prints `debian PACKAGE CONFIG: configure RC, build RC, check
# RC, N links by rld`; the trees stay in WORKDIR/PACKAGE-CONFIG with log-*.txt, and every
# command line rld was given in rld-calls.log. A link through the wrapper is counted so
# that a configuration claiming rld really used it. Then every shared library an rld
# configuration built is compared with its reference's: defined dynamic symbols (binding
# and name), NEEDED and SONAME; a difference prints `differs:` and the lines. RLD (default
# target/release/rld, with its librld_plugin.so beside it) is the linker under test.
#
# Packages with a recipe below: gmp, xz-utils, expat, pcre2, nettle, jq, libyaml, json-c,
# libffi, snappy, double-conversion, re2, leveldb, libjsoncpp, tinyxml2, fmtlib,
# libsodium, zlib, lz4, libuv1, libpng1.6, yaml-cpp, pugixml, libzstd, brotli, libcap2, libxcrypt,
# mpfr4, acl, libunwind, libbsd, libgc, libsigsegv, libgcrypt20, libtasn1-6, libevent, elfutils,
# e2fsprogs, busybox, gawk, libarchive, tcl8.6, and three variants of other packages' sources: leveldb-static (its
# static build, whose test programs are the large ones), busybox-static (Debian's static
# busybox) and zlib-uv (libz.so with --undefined-version: zlib's configure probe links its version script
# against a stub, which rld and lld refuse by default, and zlib then builds libz.a only).
# Each recipe is the package's plain ./configure (or cmake) build and its check target,
# static libraries off, so that the shared libraries are the ones rld links.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,38p' "$0"; exit 2; }
work=$(realpath -m "$1"); package=$2; shift 2
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(gcc-ld gcc-rld gcc-lto-ld gcc-lto-rld clang-lto-lld clang-lto-rld)
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

# A variant builds another package's source.
case "$package" in
  leveldb-static) source=leveldb ;;
  zlib-uv) source=zlib ;;
  busybox-static) source=busybox ;;
  *) source=$package ;;
esac
# The unpacked tree: NAME-VERSION, VERSION starting with a digit.
find_tree() { ls -d "$work/src/$source"-[0-9]*/ 2>/dev/null | head -1; }
if [ -z "$(find_tree)" ]; then
  (cd "$work/src" && apt-get source "$source") || {
    echo "debian.sh: apt-get source $source failed (is deb-src enabled?)" >&2; exit 1; }
fi
tree=$(find_tree)

# The package's build and tests: configure, build, check (run inside the copied tree).
recipe() {
  # Some Debian tarballs ship configure.ac only.
  ac() { [ -x ./configure ] || autoreconf -fi; }
  # A command run as nobody when this runs as root (for test runners that refuse root).
  as_user() {
    if [ "$(id -u)" = 0 ]; then
      chown -R nobody: . && setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$PWD" "$@"
    else env "$@"; fi
  }
  # cmake out of tree in bld/, shared libraries, the configuration's archiver.
  cm() { mkdir -p bld && cd bld && cmake .. -DCMAKE_BUILD_TYPE=None -DBUILD_SHARED_LIBS=ON \
    ${AR:+-DCMAKE_AR=$(command -v "$AR")} ${RANLIB:+-DCMAKE_RANLIB=$(command -v "$RANLIB")} "$@"; }
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
    # C++ packages (cmake, shared libraries, the package's own ctest suite).
    # snappy appends -Werror for clang unless CXXFLAGS already matches it; clang-22 warns in snappy-test.cc.
    snappy) configure() { CXXFLAGS="$CXXFLAGS -Werror -Wno-error" cm -DSNAPPY_BUILD_BENCHMARKS=OFF -DSNAPPY_USE_BUNDLED_GTEST=OFF \
        -DSNAPPY_USE_BUNDLED_BENCHMARK_LIB=OFF -DSNAPPY_ENABLE_RTTI=ON; }
      check() { ctest -j2 --output-on-failure; } ;;
    double-conversion) configure() { cm -DBUILD_TESTING=ON; }
      check() { ctest -j2 --output-on-failure; } ;;
    # re2 (+dfsg) ships without its generated tables: make them as Debian's build does (REBUILD_TABLES=1,
    # unicode-data from /usr/share/unicode).
    re2) configure() { perl re2/make_perl_groups.pl > re2/perl_groups.cc &&
        python3 re2/make_unicode_groups.py > re2/unicode_groups.cc &&
        python3 re2/make_unicode_casefold.py > re2/unicode_casefold.cc && cm -DRE2_BUILD_TESTING=ON; }
      check() { ctest -j2 --output-on-failure; } ;;
    leveldb) configure() { cm -DLEVELDB_BUILD_BENCHMARKS=OFF; }
      check() { ctest -j2 --output-on-failure; } ;;
    # jsoncpp's two readerwriter tests write the same test/data/*.actual files: run them serially (as Debian does).
    # leveldb-static (leveldb's source): leveldb builds its big leveldb_tests only without
    # BUILD_SHARED_LIBS, so this variant links the static library into the test programs.
    leveldb-static) configure() { cm -DBUILD_SHARED_LIBS=OFF -DLEVELDB_BUILD_BENCHMARKS=OFF; }
      check() { ctest -j2 --output-on-failure; } ;;
    libjsoncpp) configure() { cm -DBUILD_STATIC_LIBS=OFF -DBUILD_OBJECT_LIBS=OFF -DJSONCPP_WITH_POST_BUILD_UNITTEST=OFF; }
      check() { ctest -j1 --output-on-failure; } ;;
    tinyxml2) configure() { cm -Dtinyxml2_BUILD_TESTING=ON -DBUILD_TESTING=ON; }
      check() { ctest -j2 --output-on-failure; } ;;
    fmtlib) configure() { cm -DFMT_DOC=OFF -DFMT_TEST=ON -DCMAKE_POSITION_INDEPENDENT_CODE=ON; }
      check() { ctest -j2 --output-on-failure; } ;;
    # C packages.
    libsodium) configure() { ac && ./configure --disable-static; } ;;
    # zlib's own configure (reads CC/CFLAGS/LDFLAGS/AR): libz.so with zlib.map; `make test` runs
    # example/minigzip static, shared and 64-bit-offset builds.
    zlib) configure() { ./configure; }
      check() { make test; } ;;
    # zlib-uv (zlib's source): zlib's configure probes shared-library support by linking a stub with
    # zlib.map, which names symbols the stub lacks; rld (like lld >= 16) refuses that by default, and zlib then
    # silently builds libz.a only. --undefined-version gets the shared library built and tested (testshared).
    zlib-uv) configure() { LDSHARED="$CC -shared -Wl,-soname,libz.so.1,--version-script,zlib.map -Wl,--undefined-version" ./configure; }
      check() { make test; } ;;
    # lz4: plain Makefiles; liblz4.so is linked -fvisibility=hidden; the lz4 CLI links the objects.
    # check = the package's `make check` (test-lz4-essentials) + frametest/fuzzer (time-boxed) + the
    # lz4 CLI relinked against liblz4.so (lz4-wlib) round-tripping a file.
    lz4) configure() { :; }
      build() { export CPPFLAGS="-DLZ4F_PUBLISH_STATIC_FUNCTIONS -DLZ4_PUBLISH_STATIC_FUNCTIONS"  # as Debian
        make -j2 lib lz4 && make -C programs lz4-wlib; }
      check() { make check && make -C tests test-frametest test-fuzzer FUZZER_TIME=-T15s &&
        LD_LIBRARY_PATH=$PWD/lib programs/lz4-wlib -9 -f lib/lz4.c /tmp/lz4-wlib.$$.lz4 &&
        LD_LIBRARY_PATH=$PWD/lib programs/lz4-wlib -d -f /tmp/lz4-wlib.$$.lz4 /tmp/lz4-wlib.$$ &&
        cmp lib/lz4.c /tmp/lz4-wlib.$$ && echo lz4-wlib roundtrip ok; } ;;
    # libuv's configure.ac needs the m4 file its autogen.sh writes; its test runner refuses
    # to run as root, so as root the tests run as nobody (the tree given to nobody first).
    libuv1) configure() { { [ -x ./configure ] || ./autogen.sh; } && ./configure --disable-static; }
      check() { as_user RES_OPTIONS=attempts:0 UV_TEST_TIMEOUT_MULTIPLIER=2 make check; } ;;
    libpng1.6) configure() { ac && ./configure --disable-static; } ;;
    # yaml-cpp: libyaml-cpp.so and its gtest/gmock suite (yaml-cpp-tests, one ctest test); the system
    # googletest sources (/usr/src/googletest) are built alongside, shared too.
    yaml-cpp) configure() { cm -DYAML_BUILD_SHARED_LIBS=ON -DYAML_CPP_BUILD_TESTS=ON -DYAML_CPP_BUILD_TOOLS=ON; }
      check() { ctest -j2 --output-on-failure; } ;;
    # pugixml: libpugixml.so (shared only) and its pugixml-check suite (one ctest test, run in the source tree).
    pugixml) configure() { cm -DPUGIXML_BUILD_TESTS=ON; }
      check() { ctest -j2 --output-on-failure; } ;;
    # libzstd: plain Makefiles. libzstd.so (lib/, -fvisibility=hidden, with the x86-64 .S decoder), and the
    # zstd CLI relinked against it (zstd-dll, kept as programs/zstd-dll; 1.5.4's zstd-dll target needs the
    # hidden pool/threading/common/error objects linked in locally, with any linker: upstream fixed it in
    # 1.5.5). check = the package's `make check` (playTests.sh, short, object-linked zstd) + fuzzer and
    # zstreamtest (time-boxed) + zstreamtest-dll on libzstd.so + playTests.sh again with zstd-dll. lib/ builds
    # in a fixed obj/shared (by default its directory is named by a hash of CC, so the comparison missed it).
    libzstd) configure() { :; }
      build() { make -j2 -C lib libzstd BUILD_DIR=obj/shared && make -j2 -C programs zstd-dll \
          ZSTDLIB_LOCAL_SRC="xxhash.c pool.c threading.c zstd_common.c error_private.c" && cp programs/zstd programs/zstd-dll; }
      check() { make check && make -C tests test-fuzzer test-zstream test-pool FUZZERTEST=-T15s ZSTREAM_TESTTIME=-T15s &&
        make -C tests zstreamtest-dll && LD_LIBRARY_PATH=$PWD/lib tests/zstreamtest-dll -T15s &&
        (top=$PWD && cd tests && LD_LIBRARY_PATH=$top/lib ZSTD_BIN=$top/programs/zstd-dll DATAGEN_BIN=./datagen ./playTests.sh) &&
        echo zstd-dll playTests ok; } ;;
    # brotli: upstream's autotools build (./bootstrap writes configure; Debian's cmake build always adds static
    # libraries and links the CLI statically): libbrotli{common,dec,enc}.so, the brotli CLI linked against
    # them. check = the package's compatibility and roundtrip scripts (they run bin/brotli) + its Python
    # tests (the _brotli extension built with setup.py build_ext, linked by CXX, as Debian's pybuild does).
    brotli) configure() { ./bootstrap && ./configure --disable-static; }
      check() { mkdir -p bin/tmp && printf '#!/bin/sh\nexec "%s/brotli" "$@"\n' "$PWD" > bin/brotli && chmod +x bin/brotli &&
        tests/compatibility_test.sh && tests/roundtrip_test.sh && echo brotli cli tests ok &&
        python3 setup.py build_ext --inplace && (cd python && python3 -m unittest discover -v -p '*_test.py'); } ;;
    # libcap2: plain Makefiles (Make.Rules sets CC with :=, so it is given on make's command line, with
    # Debian's GOLANG=no FORCELINKPAM=yes). libcap.so and libpsx.so are also programs (linked -e __so_start,
    # run by `make test` as libcapsotest/libpsxsotest); psx wraps pthread_create (--wrap); pam_cap.so.
    libcap2) configure() { :; }
      capmake() { make CC="$CC" BUILD_CC="$CC" AR="${AR:-ar}" RANLIB="${RANLIB:-ranlib}" GOLANG=no FORCELINKPAM=yes "$@"; }
      build() { capmake -j2; }
      check() { capmake test; } ;;
    # libxcrypt: libcrypt.so with glibc's compatibility symbols (crypt@GLIBC_2.2.5 beside crypt@@XCRYPT_2.0,
    # .symver in its objects); its ~50 test programs (-Werror off: clang-22 warns in its tests).
    libxcrypt) configure() { ac && ./configure --disable-static --disable-failure-tokens --disable-werror; } ;;
    # mpfr4: libmpfr.so (thread-local caches: TLS in a shared library) and its ~190 test programs.
    mpfr4) configure() { ac && ./configure --disable-static; } ;;
    # acl: libacl.so and the getfacl/setfacl tools; its tests run the tools (on this tree's filesystem).
    acl) configure() { ac && ./configure --disable-static; } ;;
    # libunwind: libunwind.so and friends unwind through .eh_frame/.eh_frame_hdr (and .debug_frame) of the
    # programs the linker wrote; its ~35 test programs (Gtest-*/Ltest-*, crasher, signal frames, TLS).
    # libunwind-ptrace.so calls liblzma without linking it (libunwind.so does): lld-22 and rld refuse
    # a program linked against it (--no-allow-shlib-undefined, the executables' default); GNU ld finds the
    # symbols in the libraries the other libraries need. Every configuration links with
    # --allow-shlib-undefined.
    libunwind) configure() { ac && LDFLAGS="$LDFLAGS -Wl,--allow-shlib-undefined" ./configure --disable-static --disable-documentation; } ;;
    # libbsd: libbsd.so with a version script of twelve nodes (LIBBSD_0.0 .. LIBBSD_0.11) and its tests.
    # Its configure probes version scripts with one naming a symbol the probe does not define, which lld-22
    # and rld refuse by default (GNU ld does not): libbsd.so is then built without its script and its
    # .symver aliases name versions nothing defines. Every configuration links with --undefined-version.
    libbsd) configure() { ac && LDFLAGS="$LDFLAGS -Wl,--undefined-version" ./configure --disable-static; } ;;
    # libgc (Boehm GC): finds its roots through the linker's symbols (__data_start, _end, ...) and
    # dl_iterate_phdr; libgc.so, libgccpp.so, libcord.so and its gctest/threads tests.
    libgc) configure() { ac && ./configure --disable-static --enable-cplusplus; } ;;
    # libsigsegv: stack-overflow and page-fault handlers (signals on an alternate stack); its tests.
    libsigsegv) configure() { ac && ./configure --disable-static --enable-shared; } ;;
    # libgcrypt20: libgcrypt.so (x86-64 assembly, CPU-feature dispatch, a version script) and its tests.
    # Its libgcrypt.vers names gcry_md_get and gcry_pk_register, which nothing defines: lld-22 and rld
    # refuse that by default (GNU ld does not), so every configuration links with --undefined-version.
    libgcrypt20) configure() { ac && LDFLAGS="$LDFLAGS -Wl,--undefined-version" ./configure --disable-static --disable-doc; } ;;
    # libtasn1-6: libtasn1.so and its tests.
    # Its configure (gnulib's version-script probe) defines no symbol its script names: with lld-22 and rld
    # (default --no-undefined-version) the library would be built unversioned; --undefined-version everywhere.
    # Its tests run without valgrind, which cannot read clang-22's DWARF 5.
    libtasn1-6) configure() { ac && LDFLAGS="$LDFLAGS -Wl,--undefined-version" ./configure --disable-static --disable-doc --disable-valgrind-tests; } ;;
    # libevent: libevent{,_core,_extra,_pthreads,_openssl}.so and its regression suite.
    # Debian's patches touch configure.ac: regenerated first (the tarball's is of another automake).
    libevent) configure() { autoreconf -fi && ./configure --disable-static --disable-samples; } ;;
    # elfutils: libelf.so, libdw.so (version scripts with many nodes, symbol versions) and the eu- tools;
    # its ~230 tests run the tools on themselves and on the libraries the linker wrote (elflint among
    # them). elfutils needs gcc's C extensions: its configure refuses clang, in both clang configurations.
    # libelf.map names elf_scncnt, which nothing defines: lld-22 and rld refuse that by default (GNU ld
    # does not), so every configuration links with --undefined-version.
    elfutils) configure() { ac && LDFLAGS="$LDFLAGS -Wl,--undefined-version" ./configure --disable-debuginfod --disable-libdebuginfod; } ;;
    # e2fsprogs: libext2fs.so, libcom_err.so, libe2p.so, libss.so, ... (--enable-elf-shlibs; its own
    # makefiles link them with version scripts) and its ~380 tests of e2fsck/mke2fs/debugfs on images.
    e2fsprogs) configure() { ac && ./configure --enable-elf-shlibs --disable-fuse2fs; } ;;
    # busybox: Debian's configuration of the one program (kbuild: `-r` links of each directory's
    # built-in.o, then scripts/trylink with --gc-sections, --sort-common, --sort-section=alignment and a
    # --start-group of archives) and its own testsuite, run as Debian runs it.
    # busybox-static (busybox's source): Debian's static flavour (glibc's static archive: IFUNCs
    # through IRELATIVE relocations, TLS without a dynamic loader).
    busybox|busybox-static) configure() { local flavour=deb; [ "$package" = busybox ] || flavour=static
        cp debian/config/pkg/$flavour .config && { yes '' || :; } | bbmake oldconfig; }
      bbmake() { make CC="$CC" HOSTCC=gcc AR="${AR:-ar}" SKIP_STRIP=y CONFIG_EXTRA_CFLAGS="$CFLAGS" \
        CONFIG_EXTRA_LDFLAGS="$CFLAGS $LDFLAGS" V=1 "$@"; }
      build() { bbmake -j2 all && bbmake busybox.links; }
      check() { rm -f testsuite/mdev.tests && { [ ! -f debian/testsuite-linux.diff ] || patch -p1 < debian/testsuite-linux.diff; } &&
        cd testsuite && SKIP_KNOWN_BUGS=y LANG=C.UTF-8 LC_ALL=C.UTF-8 SKIP_INTERNET_TESTS=y SHELL=/bin/sh ECHO=/bin/echo ./runtest; } ;;
    # gawk: the gawk program (exports its API to extensions: -Wl,-E) and the extensions it loads at run
    # time (filefuncs.so, ordchr.so, ... with `gawk -l`); its ~500 tests, the extensions' among them.
    # Debian's tarball leaves out the manual's sources, so doc/ is not built.
    # awklib/ extracts its programs from the manual's sources too: left out as well. (SUBDIRS
    # given to make would reach extension/'s own make too: the top Makefile is edited.)
    gawk) configure() { ac && ./configure && sed -i '/^SUBDIRS = /s/ doc\| awklib//g' Makefile; }
      build() { make -j2; }
      check() { make -k check; } ;;
    # libarchive: libarchive.so (version script-less, many optional codecs: zlib, bz2, lzma, zstd, xml2,
    # acl, crypto) and its four test programs (libarchive_test, bsdtar_test, bsdcpio_test, bsdcat_test).
    # Debian's patches touch the build files: regenerated first (its libtool is another's).
    libarchive) configure() { autoreconf -fi && ./configure --disable-static; } ;;
    # tcl8.6: libtcl8.6.so with its stubs library libtclstub8.6.a (-fPIC objects linked into loadable
    # extensions), tclsh, and the test suite (`make test`: ~150 files of tcltest, dlopen of tcltest's
    # own extension among them).
    tcl8.6) configure() { cd unix && ./configure --enable-shared --enable-threads; }
      check() { make test; } ;;
    *) echo "debian.sh: no recipe for $package" >&2; exit 1 ;;
  esac
  declare -F check > /dev/null || check() { make -j2 -k check; }
  declare -F build > /dev/null || build() { make -j2; }
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
    gcc-rld-O2) cc="gcc -B$lb/ -Wl,-O2" cxx="g++ -B$lb/ -Wl,-O2" flags="" ;;
    gcc-lto-rld) cc="gcc -B$lb/" cxx="g++ -B$lb/" flags="-flto=auto"
      export AR=gcc-ar RANLIB=gcc-ranlib NM=gcc-nm ;;
    gcc-lto-ld) cc="gcc" cxx="g++" flags="-flto=auto"   # reference for gcc-lto-rld (not in the default list)
      export AR=gcc-ar RANLIB=gcc-ranlib NM=gcc-nm ;;
    clang-lto-lld) cc="clang-22 -Qunused-arguments -fuse-ld=lld" cxx="clang++-22 -Qunused-arguments -fuse-ld=lld" flags="-flto"
      export AR=llvm-ar-22 RANLIB=llvm-ranlib-22 NM=llvm-nm-22 ;;
    clang-lto-rld) cc="clang-22 -Qunused-arguments --ld-path=$lb/ld" cxx="clang++-22 -Qunused-arguments --ld-path=$lb/ld" flags="-flto"
      export AR=llvm-ar-22 RANLIB=llvm-ranlib-22 NM=llvm-nm-22 ;;
    clang-lto-rld-O2) cc="clang-22 -Qunused-arguments --ld-path=$lb/ld -Wl,-O2" cxx="clang++-22 -Qunused-arguments --ld-path=$lb/ld -Wl,-O2" flags="-flto"
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

# The shared libraries of each rld configuration against its reference's.
# (readelf names a GNU_UNIQUE binding so only when the header says GNU, as GNU ld's does;
# lld's and rld's say System V.)
exports() {
  readelf --dyn-syms -W "$1" | sed 's/<OS specific>: 10/UNIQUE/' |
    awk '$1 ~ /:$/ && $7 != "UND" && $8 != "" { print $5, $8 }' | sort -u
}
dynamic() { readelf -dW "$1" | grep -E '\((NEEDED|SONAME)\)' | awk '{ $1 = ""; print }' | sort; }
compare() { # REFERENCE RLD
  local a="$work/$package-$1" b="$work/$package-$2" f d
  [ -d "$a" ] && [ -d "$b" ] || return 0
  (cd "$a" && find . -name '*.so*' -type f | sort) | while read -r f; do
    file -L "$a/$f" | grep -q 'ELF.*shared object' || continue
    if [ ! -f "$b/$f" ]; then echo "debian $package $2: $f missing (built by $1)"; continue; fi
    d=$(diff <(exports "$a/$f"; dynamic "$a/$f") <(exports "$b/$f"; dynamic "$b/$f") | grep '^[<>]' || true)
    if [ -n "$d" ]; then
      echo "debian $package $2: $f differs from $1's:"; echo "$d" | head -20 | sed 's/^/  /'
    else
      echo "debian $package $2: $f as $1's ($(exports "$b/$f" | wc -l) exports)"
    fi
  done
}
compare gcc-ld gcc-rld
compare gcc-lto-ld gcc-lto-rld
compare clang-lto-lld clang-lto-rld
compare gcc-ld gcc-rld-O2
compare clang-lto-lld clang-lto-rld-O2
