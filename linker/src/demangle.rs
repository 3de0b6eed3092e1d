//! C++ and Rust names in diagnostics, demangled as lld shows them (`--demangle`, the default;
//! `--no-demangle` keeps the mangled names).

use std::sync::atomic::{AtomicBool, Ordering};

/// Set once from the command line before the link starts; read by every diagnostic.
static ENABLED: AtomicBool = AtomicBool::new(true);

pub fn set_enabled(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
}

/// `name` as a diagnostic shows it: demangled if it is an Itanium C++ name (and demangling
/// is on), else as it is.
pub fn display(name: &[u8]) -> String {
    if ENABLED.load(Ordering::Relaxed) {
        if let Some(d) = demangle(name) {
            return d;
        }
    }
    String::from_utf8_lossy(name).into_owned()
}

/// The demangled form of an Itanium C++ name (`_Z...`) or a Rust v0 name (`_R...`), if it
/// is one (lld's LLVM demangler reads both; Rust's legacy names are Itanium ones).
pub fn demangle(name: &[u8]) -> Option<String> {
    if name.starts_with(b"_R") {
        let text = std::str::from_utf8(name).ok()?;
        // The alternate form leaves out the crates' disambiguating hashes, as LLVM does.
        return rustc_demangle::try_demangle(text)
            .ok()
            .map(|d| format!("{d:#}"));
    }
    if !name.starts_with(b"_Z") {
        return None;
    }
    let symbol = cpp_demangle::Symbol::new(name).ok()?;
    let text = symbol
        .demangle(&cpp_demangle::DemangleOptions::default())
        .ok()?;
    Some(special_names_as_llvm(name, closing_brackets_as_llvm(text)))
}

/// LLVM's demangler closes nested template argument lists without a space (`<a<b>>`,
/// as C++11 allows) and follows `operator<<` with its template arguments at once
/// (`operator<<<char>`); cpp_demangle puts a space in both.
fn closing_brackets_as_llvm(mut text: String) -> String {
    while text.contains("> >") {
        text = text.replace("> >", ">>");
    }
    text.replace("operator<< <", "operator<<<")
}

/// cpp_demangle words the special names (vtables, thunks, TLS helpers) its own way
/// (`{vtable(Foo)}`); lld, and so its messages and maps, word them as LLVM's demangler
/// and c++filt do (`vtable for Foo`).
fn special_names_as_llvm(name: &[u8], text: String) -> String {
    let inside = |open: &str| {
        text.strip_prefix(open)
            .and_then(|t| t.strip_suffix(")}"))
            .map(str::to_string)
    };
    if let Some(t) = inside("{vtable(") {
        return format!("vtable for {t}");
    }
    if let Some(t) = inside("{vtt(") {
        return format!("VTT for {t}");
    }
    if let Some(mut t) = inside("{virtual override thunk(") {
        // The offsets come first, each `{...}, `: the function is what follows them.
        while let Some(rest) = t.strip_prefix('{') {
            let Some(end) = rest.find("}, ") else { break };
            t = rest[end + 3..].to_string();
        }
        let kind = match name.get(3) {
            Some(b'h') => "non-virtual thunk to",
            Some(b'v') => "virtual thunk to",
            _ => "covariant return thunk to",
        };
        return format!("{kind} {t}");
    }
    for (theirs, llvm) in [
        (
            "TLS wrapper function for ",
            "thread-local wrapper routine for ",
        ),
        (
            "TLS init function for ",
            "thread-local initialization routine for ",
        ),
    ] {
        if let Some(t) = text.strip_prefix(theirs) {
            return format!("{llvm}{t}");
        }
    }
    // `construction vtable for A-in-B` names B's vtable for its A subobject: LLVM says it
    // the other way round.
    if let Some(t) = text.strip_prefix("construction vtable for ") {
        if let Some((part, whole)) = t.split_once("-in-") {
            return format!("construction vtable for {whole}-in-{part}");
        }
    }
    if let Some(t) = text.strip_prefix("reference temporary #") {
        if let Some((_, rest)) = t.split_once(" for ") {
            return format!("reference temporary for {rest}");
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn itanium_names_only() {
        assert_eq!(
            demangle(b"_Z10missing_fni").as_deref(),
            Some("missing_fn(int)")
        );
        assert_eq!(demangle(b"_ZN3foo3barEv").as_deref(), Some("foo::bar()"));
        assert_eq!(demangle(b"main"), None);
        assert_eq!(demangle(b"_Zgarbage"), None);
        assert_eq!(display(b"_Zgarbage"), "_Zgarbage");
    }

    #[test]
    fn special_names_read_as_llvm_s_demangler_reads_them() {
        for (mangled, llvm) in [
            ("_ZTV3Foo", "vtable for Foo"),
            ("_ZTI3Foo", "typeinfo for Foo"),
            ("_ZTS3Foo", "typeinfo name for Foo"),
            ("_ZTT3Foo", "VTT for Foo"),
            ("_ZThn8_N3Foo3barEv", "non-virtual thunk to Foo::bar()"),
            ("_ZTv0_n24_N3Foo3barEv", "virtual thunk to Foo::bar()"),
            (
                "_ZTcv0_n24_h8_N3Foo3barEv",
                "covariant return thunk to Foo::bar()",
            ),
            ("_ZGVZ4mainE1x", "guard variable for main::x"),
            ("_ZTW1x", "thread-local wrapper routine for x"),
            ("_ZTH1x", "thread-local initialization routine for x"),
            (
                "_ZTCN3Foo3BarE0_NS_3BazE",
                "construction vtable for Foo::Baz-in-Foo::Bar",
            ),
            ("_ZGR1x_", "reference temporary for x"),
            (
                "_ZTVN10__cxxabiv120__si_class_type_infoE",
                "vtable for __cxxabiv1::__si_class_type_info",
            ),
            (
                "_ZNSt6vectorISt4pairIiiESaIS1_EE9push_backERKS1_",
                "std::vector<std::pair<int, int>, std::allocator<std::pair<int, int>>>::push_back(std::pair<int, int> const&)",
            ),
            (
                "_ZStlsIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_c",
                "std::basic_ostream<char, std::char_traits<char>>& std::operator<<<char, std::char_traits<char>>(std::basic_ostream<char, std::char_traits<char>>&, char)",
            ),
        ] {
            assert_eq!(
                demangle(mangled.as_bytes()).as_deref(),
                Some(llvm),
                "{mangled}"
            );
        }
    }

    #[test]
    fn rust_v0_names() {
        assert_eq!(
            demangle(b"_RNvCs2OpA4fNwd7R_1r4find").as_deref(),
            Some("r::find")
        );
        assert_eq!(demangle(b"_Rgarbage"), None);
    }
}
