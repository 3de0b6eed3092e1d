# Shared by bench/lto.sh and bench/cvp.sh (sourced, not run): where the corpus is, the rld
# under test, and compiling a corpus program to LLVM bitcode. Expects `work` to be set.

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
corpus="$repo/tests/corpus"
conf="$corpus/programs.conf"
mkdir -p "$work"

if [[ -z "${RLD:-}" ]]; then
    cargo build --release -p rld --manifest-path "$repo/Cargo.toml" >&2
    RLD="${CARGO_TARGET_DIR:-$repo/target}/release/rld"
fi

conf_get() { sed -n "s/^$1\.$2=//p" "$conf"; }
mapfile -t dirs < <(bash "$corpus/fetch.sh")
source_dir() {
    local line
    for line in "${dirs[@]}"; do
        [[ "$line" == "$1="* ]] && { echo "${line#*=}"; return; }
    done
}

# corpus_bitcode PROG OUTDIR LTOFLAG [FLAG...]: compiles PROG (tests/corpus/programs.conf)
# with clang-14 -O2 LTOFLAG FLAG... into OUTDIR (objects reused while present), prints the
# objects.
corpus_bitcode() {
    local prog="$1" obj="$2" flag="$3" dir src ex o
    local extra=("${@:4}")
    dir="$(source_dir "$(conf_get "$prog" dir)")"
    mkdir -p "$obj"
    local srcs=()
    for src in $(cd "$dir" && eval echo "$(conf_get "$prog" sources)"); do
        ex=" $(conf_get "$prog" exclude) "
        [[ "$ex" == *" $src "* ]] || srcs+=("$dir/$src")
    done
    for src in $(conf_get "$prog" driver); do srcs+=("$corpus/$src"); done
    for src in "${srcs[@]}"; do
        o="$obj/$(basename "${src%.c}").o"
        [[ -f "$o" ]] || clang-14 -O2 "$flag" "${extra[@]}" $(conf_get "$prog" cflags) -I"$dir" -w -c "$src" -o "$o"
        echo "$o"
    done
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
