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
    symbol
        .demangle(&cpp_demangle::DemangleOptions::default())
        .ok()
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
    fn rust_v0_names() {
        assert_eq!(
            demangle(b"_RNvCs2OpA4fNwd7R_1r4find").as_deref(),
            Some("r::find")
        );
        assert_eq!(demangle(b"_Rgarbage"), None);
    }
}
