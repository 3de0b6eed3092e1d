#!/usr/bin/env bash
# Fetch the C sources of the real-program corpus from crates.io and print
# where they are. This is the only implementation of the source lookup: both
# tests/tests/corpus.rs and bench/run.sh call it.
#
# The sources are never committed: tests/corpus/fetch/Cargo.toml is a dummy
# package whose dependencies (bzip2-sys, lua-src, libsqlite3-sys/bundled) ship
# them; `cargo fetch` downloads them into the cargo registry and
# `cargo metadata` tells where each package was unpacked.
#
# Output (stdout), one line each, absolute directories:
#   bzip2=<dir with blocksort.c ... bzip2.c, sample1-3.bz2/.ref>
#   lua=<dir with Lua 5.4's lapi.c ... (no lua.c/luac.c needed)>
#   sqlite=<dir with sqlite3.c and sqlite3.h>
# Exits non-zero with a message on stderr if anything is missing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
manifest="$here/fetch/Cargo.toml"
cargo="${CARGO:-cargo}"

# --locked: the versions (and so the sources) are pinned by fetch/Cargo.lock.
# If the registry cannot be reached but everything is already downloaded,
# --offline still works.
if ! err="$("$cargo" fetch --locked --quiet --manifest-path "$manifest" 2>&1 >/dev/null)"; then
    if ! "$cargo" fetch --locked --offline --quiet --manifest-path "$manifest" >/dev/null 2>&1; then
        printf '%s\n' "$err" >&2
        echo "fetch.sh: cargo fetch failed" >&2
        exit 1
    fi
fi

metadata="$("$cargo" metadata --format-version 1 --locked --offline --manifest-path "$manifest")"

# Directory of a package's Cargo.toml, from the metadata JSON (no jq needed:
# manifest paths are plain strings without escapes).
package_dir() {
    local name="$1" path
    path="$(printf '%s' "$metadata" \
        | grep -o "\"manifest_path\":\"[^\"]*/$name-[0-9][^\"/]*/Cargo.toml\"" \
        | head -n1 | sed 's/^"manifest_path":"//; s/"$//')"
    if [[ -z "$path" ]]; then
        echo "fetch.sh: package $name not found in cargo metadata" >&2
        exit 1
    fi
    dirname "$path"
}

# The directory below $1 (depth <= 2) that holds file $2; with $3 a glob the
# directory's name must match.
find_dir() {
    local root="$1" file="$2" pattern="${3:-*}" hit
    hit="$(find "$root" -maxdepth 2 -path "*/$pattern/$file" -print 2>/dev/null | sort | tail -n1)"
    if [[ -z "$hit" ]]; then
        hit="$(find "$root" -maxdepth 2 -name "$file" -print 2>/dev/null | sort | tail -n1)"
    fi
    if [[ -z "$hit" ]]; then
        echo "fetch.sh: no $file under $root" >&2
        exit 1
    fi
    dirname "$hit"
}

require() {
    local dir="$1"
    shift
    for f in "$@"; do
        if [[ ! -f "$dir/$f" ]]; then
            echo "fetch.sh: $dir/$f is missing" >&2
            exit 1
        fi
    done
}

bzip2_dir="$(find_dir "$(package_dir bzip2-sys)" bzlib.c 'bzip2-*')"
require "$bzip2_dir" blocksort.c huffman.c crctable.c randtable.c compress.c \
    decompress.c bzlib.c bzip2.c bzlib.h \
    sample1.bz2 sample2.bz2 sample3.bz2 sample1.ref sample2.ref sample3.ref

lua_dir="$(find_dir "$(package_dir lua-src)" lapi.c 'lua-5.4*')"
require "$lua_dir" lua.h lualib.h lauxlib.h lapi.c lvm.c linit.c

sqlite_dir="$(find_dir "$(package_dir libsqlite3-sys)" sqlite3.c)"
require "$sqlite_dir" sqlite3.c sqlite3.h

echo "bzip2=$bzip2_dir"
echo "lua=$lua_dir"
echo "sqlite=$sqlite_dir"
