//! How a symbol name in a remark (a `Function`, a `Callee`, a `Caller`) is shown to people.
//!
//! LLVM's remarks name functions by their symbols, so a Rust program's remarks say
//! `_ZN10remarks_rs7compute17h66b77482d666be50E` (rustc's legacy mangling) or
//! `_RNvCs1234_10remarks_rs7compute` (v0) where the source says `remarks_rs::compute`. What
//! people read (summaries, diffs, policy reports, the HTML view) shows the Rust path, without
//! the legacy hash and the v0 crate disambiguators (`rustc-demangle`'s `{:#}` form); what
//! tools read (the YAML and bitstream that `filter` writes, the `function` fields of JSON
//! and SARIF) keeps the symbol, since llvm-opt-report and other readers match it against
//! object files. Patterns (`filter --function`, a policy's `function` and `args`) match
//! either form.
//!
//! Other names are shown as they are: C names, and C++ (Itanium) names, which rld does not
//! demangle anywhere in the remark tools. A C++ symbol is not taken for a Rust one:
//! `_ZN3foo3barEv` has the parameter types after the `E`, which rustc never writes.

use std::borrow::Cow;

/// `name` as people read it: a Rust symbol demangled (`remarks_rs::compute`), anything else
/// unchanged. A suffix LLVM or rld appended (`.rld.2`) is kept after the path, except
/// `.llvm.` + hex, which `rustc-demangle` drops as ThinLTO's renaming. The result is
/// `Cow::Owned` exactly when the name was a Rust symbol, which is how callers tell whether
/// there is a path to show beside the symbol.
pub fn display_name(name: &str) -> Cow<'_, str> {
    if !is_rust_symbol(name) {
        return Cow::Borrowed(name);
    }
    match rustc_demangle::try_demangle(name) {
        Ok(demangled) => Cow::Owned(format!("{demangled:#}")),
        Err(_) => Cow::Borrowed(name),
    }
}

/// Whether `name` starts as rustc's symbols do (`_ZN`, `_R`, or with macOS's extra `_`).
/// `rustc-demangle` also takes `ZN...`/`R...` without the underscore (for Windows' debug
/// helpers), which could be a C function's name.
fn is_rust_symbol(name: &str) -> bool {
    let name = name.strip_prefix("__").or_else(|| name.strip_prefix('_'));
    name.is_some_and(|n| n.starts_with("ZN") || n.starts_with('R'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_symbols_are_shown_as_paths() {
        // As rustc 1.95 names them (remarks/tests/rust_names.rs compiles real ones).
        assert_eq!(
            display_name("_ZN10remarks_rs7compute17h66b77482d666be50E"),
            "remarks_rs::compute"
        );
        assert_eq!(
            display_name("_RNvMs7_NtCsgEmfK2I1SDS_4core3numy11rotate_left"),
            "<u64>::rotate_left"
        );
        assert_eq!(
            display_name("_RNvNtCsgEmfK2I1SDS_4core9panicking18panic_nounwind_fmt"),
            "core::panicking::panic_nounwind_fmt"
        );
        assert_eq!(
            display_name("_ZN47_$LT$u64$u20$as$u20$core..iter..range..Step$GT$17forward_unchecked17hd7b367a40e604736E"),
            "<u64 as core::iter::range::Step>::forward_unchecked"
        );
        // macOS's extra underscore; suffixes.
        assert_eq!(display_name("__ZN3foo3barE"), "foo::bar");
        assert_eq!(display_name("_ZN3foo3barE.rld.2"), "foo::bar.rld.2");
        assert_eq!(
            display_name("_ZN3foo3bar17h0123456789abcdefE.llvm.A5310EB9"),
            "foo::bar"
        );
    }

    #[test]
    fn other_names_are_unchanged() {
        for name in [
            "main",
            "c_entry",
            "sum_squares.rld.3",
            // C++ (Itanium): functions have their parameter types after the `E`.
            "_ZN3foo3barEv",
            "_ZN5Shape4areaEv",
            "_Z6squarei",
            "_ZNK3Vec4sizeEv",
            // Not rustc's: the underscore-less forms rustc-demangle would also take.
            "ZN3fooE",
            "RNvC3foo3bar",
            // Looks like a start, is not a symbol.
            "_ZN",
            "_R",
            "_Rust_helper",
            "",
        ] {
            assert_eq!(display_name(name), name);
            assert!(matches!(display_name(name), Cow::Borrowed(_)), "{name}");
        }
    }
}
