// Compiles the C half with the compiler in $CC (clang-22) and -flto: the archive's
// members are LLVM bitcode, optimized with the Rust code at link time.
fn main() {
    println!("cargo:rerun-if-changed=csrc/table.c");
    cc::Build::new()
        .file("csrc/table.c")
        .flag("-flto")
        .opt_level(2)
        .compile("table");
}
