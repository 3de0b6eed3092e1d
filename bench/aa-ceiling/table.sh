# Sourced by bench/aa-ceiling.sh and bench/aa-ceiling-ctmark.sh: the table they print.

ceiling_pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f%%", b ? 100 * a / b : 0 }'; }

ceiling_header() {
    printf '| program | pairs | MayAlias, LLVM | MayAlias, rld | ran (LLVM / rld) | overlap (ceiling) | rld left: instances / fields / objects | unsound | rld analysis |\n'
    printf '|---|---|---|---|---|---|---|---|---|\n'
}

# ceiling_row PROG EVAL_WITHOUT EVAL_WITH TRACE TIME: joins with ceiling.py (its output kept
# in TRACE's directory as PROG.ceiling), prints the row and any unsound pair.
ceiling_row() {
    local prog=$1 off=$2 on=$3 trace=$4 time=$5 kv ms out
    out="$(dirname "$trace")/$prog.ceiling"
    declare -A f=()
    while read -r kv; do f[${kv%%=*}]=${kv#*=}; done < <(
        python3 "$(dirname "${BASH_SOURCE[0]}")/ceiling.py" "$off" "$on" "$trace" --suspects 20 |
            tee "$out" | head -1 | tr ' ' '\n')
    # points-to + mod/ref + alias scopes + metadata, from --time.
    ms=$(awk '/LTO: (points-to analysis|mod\/ref analysis|alias scopes|alias metadata written)/ { t += $2 }
              END { printf "%.0f ms", t }' "$time")
    printf '| %s | %s | %s (%s) | %s (%s) | %s / %s | %s (%s of ran) | %s / %s / %s | %s | %s |\n' \
        "$prog" "${f[pairs]}" "${f[may_default]}" "$(ceiling_pct "${f[may_default]}" "${f[pairs]}")" \
        "${f[may_rld]}" "$(ceiling_pct "${f[may_rld]}" "${f[pairs]}")" \
        "${f[exec_may_default]}" "${f[exec_may_rld]}" \
        "${f[overlap]}" "$(ceiling_pct "${f[overlap]}" "${f[exec_may_default]}")" \
        "${f[rld_same_slot]}" "${f[rld_same_object_other_slots]}" "${f[rld_other_objects]}" \
        "${f[unsound]}" "$ms"
    sed -n '2,$p' "$out"
}

# static_row PROG EVAL_WITHOUT EVAL_WITH: pairs and MayAlias answers without and with rld's
# metadata, from aat-eval's output alone (its totals line and its MayAlias pairs).
static_row() {
    local pairs off on
    pairs=$(awk '$1 == "T" { print $2 + $3 + $4 + $5 }' "$2")
    off=$(grep -c '^M ' "$2" || true)
    on=$(grep -c '^M ' "$3" || true)
    printf '| %s | %s | %s (%s) | %s (%s) | %s |\n' "$1" "$pairs" \
        "$off" "$(ceiling_pct "$off" "$pairs")" "$on" "$(ceiling_pct "$on" "$pairs")" \
        "$(ceiling_pct $((off - on)) "$off")"
}
