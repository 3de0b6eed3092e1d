# shellcheck shell=bash
# Sourced by bench/aa-ceiling-ctmark.sh and bench/runtime-ctmark.sh: the CTMark programs of a
# configured LLVM test-suite build tree, their link commands and their lit lines.

ctmark_programs="7zip Bullet ClamAV consumer-typeset kimwitu++ lencod mafft SPASS sqlite3 tramp3d-v4"

target_of() { # CTMark name -> the test-suite's target (its path in the build tree)
    case $1 in
        7zip) echo MultiSource/Benchmarks/7zip/7zip-benchmark ;;
        Bullet) echo MultiSource/Benchmarks/Bullet/bullet ;;
        ClamAV) echo MultiSource/Applications/ClamAV/clamscan ;;
        consumer-typeset) echo MultiSource/Benchmarks/MiBench/consumer-typeset/consumer-typeset ;;
        kimwitu++) echo MultiSource/Applications/kimwitu++/kc ;;
        lencod) echo MultiSource/Applications/JM/lencod/lencod ;;
        mafft) echo MultiSource/Benchmarks/mafft/pairlocalalign ;;
        SPASS) echo MultiSource/Applications/SPASS/SPASS ;;
        sqlite3) echo MultiSource/Applications/sqlite3/sqlite3 ;;
        tramp3d-v4) echo MultiSource/Benchmarks/tramp3d-v4/tramp3d-v4 ;;
        *) echo "unknown CTMark program $1" >&2; return 1 ;;
    esac
}

# link_command TREE TARGET: sets `driver`, `args` (its flags and objects, --ld-path=$RLD in
# place of the tree's) and `libs` (what follows `-o TARGET`) from the build's link command
# (": && DRIVER FLAGS... OBJECTS... -o TARGET LIBS... && cd ... && llvm-size ...").
link_command() {
    local line i words
    line="$(ninja -C "$1" -t commands -s "$2")"
    line="${line#: && }"
    read -ra words <<<"${line%% && *}"
    driver="${words[0]}"
    args=() libs=()
    for ((i = 1; i < ${#words[@]}; i++)); do
        case ${words[i]} in
            --ld-path=*) args+=("--ld-path=$RLD") ;;
            -o) libs=("${words[@]:i+2}"); break ;;
            *) args+=("${words[i]}") ;;
        esac
    done
}

subst() { # DIR TOOLS LINE: a lit RUN or VERIFY line of the test run in DIR, substituted
    local s="$3"
    s="${s//%S/$1}" s="${s//%s/$1}" s="${s//%b/$2}" s="${s//%o/$1.out}"
    printf '%s' "$s"
}
