//! What functions outside the LTO unit may do comes from LLVM's attributes on their
//! declarations, plus a few models the C standard justifies (summaries/src/library.rs).
//! Each program in `cases/library/` calls C library functions whose effects a wrong model
//! would hide from the alias analysis (a pointer stored through an argument, a callback's
//! result handed back, a pointer into an argument returned); linked by rld with its alias
//! metadata and called-value propagation, each must print what the lld-22 build prints.
//! (`byval_varargs` checks the same for a call's `byval` arguments, which the call itself
//! reads; `own_memcpy`, built with `-fno-builtin`, that a call to a function named `memcpy`
//! is not taken for the library's.)

use rld_tests::Compiler::Clang;
use rld_tests::*;

/// Each case with its compile flags (beyond `-flto -O2`) and the output the lld-linked
/// program must print.
const CASES: &[(&str, &[&str], &str)] = &[
    ("pthread_join", &[], "7 17 27 37\n"),
    ("thread_result", &[], "5 15\n"),
    ("qsort", &[], "2 1 3 0\n"),
    ("bsearch", &[], "5 50\n"),
    ("strtol", &[], "123 a 123Xbc\n"),
    ("getline", &[], "170 Lecond\n"),
    ("atexit", &[], "42 2\n"),
    // Not a library call: what a call passes by value in memory (a struct to a variadic
    // function: gcc-c-torture's va-arg-22, reduced) is read by the call itself.
    ("byval_varargs", &[], "3940\n"),
    // Not the library's memcpy: the program's own, which counts its calls.
    ("own_memcpy", &["-fno-builtin"], "1 abc\n"),
];

#[test]
fn library_calls_are_modelled_soundly() {
    let t = Test::new();
    for &(name, cflags, expected) in CASES {
        let flags: Vec<&str> = ["-flto", "-O2"].iter().chain(cflags).copied().collect();
        let obj = t.compile(Clang, &format!("library/{name}.c"), &flags);
        let objs = [obj.as_path()];
        let lld = t.link(
            Driver::ClangLld,
            &objs,
            &strs(&lto_flags(None, &[])),
            &format!("lld/{name}"),
        );
        for (config, extra) in [("rld", &[][..]), ("nocvp", &["-Wl,--no-cvp"][..])] {
            let exe = t.link(
                Driver::ClangRld,
                &objs,
                &strs(&lto_flags(None, extra)),
                &format!("{config}/{name}"),
            );
            assert_same_output(&exe, &lld, &[], &[], Some(expected));
        }
    }
}
