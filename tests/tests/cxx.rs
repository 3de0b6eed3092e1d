//! C++ programs (sources in `tests/cases/cxx/`): COMDAT templates, exceptions
//! (across objects and across a shared library), RTTI, virtual dispatch,
//! static initialization order, `thread_local` destructors, iostream and
//! std::thread, each built with clang++-22, clang++-22 -flto, g++-12 and g++-12
//! -flto (GCC's IR, compiled by gcc's LTO plugin that rld hosts; compared with GNU
//! ld's build), linked with libstdc++ shared, `-static-libstdc++` and `-static`; and
//! clang++-22 -flto linked by GNU ld, gold and mold running rld's LTO plugin. Every
//! rld-linked program (through `clang++-22 --ld-path` and `g++ -B`) must behave
//! exactly like the lld-linked one. Tests are named `<feature>::<build>`
//! (`clang`, `clang_lto`, `gcc`, `gcc_lto`, `plugin_bfd`, `plugin_gold`, `plugin_mold`)
//! with `_static_libstdcxx` or `_static` for the runtime variants.
//!
//! Also a large C++ link: a program using LLVM's C API, linked statically
//! against llvm-22-dev's archives.

use rld_tests::Compiler::{Clang, Gcc};
use rld_tests::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How the objects are compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Build {
    Clang,
    ClangLto,
    /// clang++ -flto, linked by rld with `--lto-partitions=N` (2 or 4; lld: one module).
    ClangLtoPartitions(u32),
    Gcc,
    /// g++ -flto: GCC's IR, compiled by gcc's linker plugin (which rld hosts); GNU ld is
    /// the reference.
    GccLto,
    /// clang++ -flto linked by another linker running rld's LTO plugin.
    ClangLtoPlugin(PluginHost),
}

impl Build {
    fn compiler(self) -> Compiler {
        match self {
            Build::Clang
            | Build::ClangLto
            | Build::ClangLtoPartitions(_)
            | Build::ClangLtoPlugin(_) => Clang,
            Build::Gcc | Build::GccLto => Gcc,
        }
    }

    fn is_lto(self) -> bool {
        matches!(
            self,
            Build::ClangLto
                | Build::ClangLtoPartitions(_)
                | Build::GccLto
                | Build::ClangLtoPlugin(_)
        )
    }

    fn cflags(self) -> Vec<&'static str> {
        let mut f = vec!["-O2", "-std=c++17", "-pthread"];
        if self.is_lto() {
            f.push("-flto");
        }
        f
    }

    fn link_flags(self) -> Vec<&'static str> {
        let mut f = vec!["-pthread"];
        if self.is_lto() {
            f.extend(["-flto", "-O2"]);
        }
        match self {
            // lld-22 takes the option too (it splits code generation only).
            Build::ClangLtoPartitions(2) => f.push("-Wl,--lto-partitions=2"),
            Build::ClangLtoPartitions(4) => f.push("-Wl,--lto-partitions=4"),
            Build::ClangLtoPartitions(n) => panic!("no flag for {n} partitions"),
            _ => {}
        }
        f
    }
}

/// How the C++ runtime (and libc) is linked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Runtime {
    Shared,
    StaticLibstdcxx,
    Static,
}

impl Runtime {
    fn flags(self) -> &'static [&'static str] {
        match self {
            Runtime::Shared => &[],
            Runtime::StaticLibstdcxx => &["-static-libstdc++"],
            Runtime::Static => &["-static"],
        }
    }
}

fn compile_all(t: &Test, b: Build, sources: &[&str], extra: &[&str]) -> Vec<PathBuf> {
    let flags = [b.cflags().as_slice(), extra].concat();
    sources
        .iter()
        .map(|s| t.compile_cxx(b.compiler(), &format!("cxx/{s}"), &flags))
        .collect()
}

/// Compiles `sources`, links them with lld and with rld (both drivers) and
/// requires the programs to behave alike, printing `expected`.
fn check_cxx(t: &Test, b: Build, r: Runtime, sources: &[&str], expected: &str) {
    check_cxx_against(t, b, r, sources, Some(expected));
}

/// [`check_cxx`], where `expected: None` trusts the reference's output.
fn check_cxx_against(t: &Test, b: Build, r: Runtime, sources: &[&str], expected: Option<&str>) {
    let objs = compile_all(t, b, sources, &[]);
    let flags = [b.link_flags().as_slice(), r.flags()].concat();
    check_linked(t, b, &paths(&objs), &flags, expected);
}

/// Links with the reference and with rld, and requires the programs to behave alike;
/// returns rld's outputs and the reference's.
fn check_linked(
    t: &Test,
    b: Build,
    objs: &[&Path],
    flags: &[&str],
    expected: Option<&str>,
) -> (Vec<PathBuf>, PathBuf) {
    if b == Build::GccLto {
        let rld = t.check_gcc_lto_cxx_program(objs, flags, expected);
        (rld, t.path("gcc-ld.out"))
    } else if let Build::ClangLtoPlugin(host) = b {
        let out = t.check_plugin_program(true, host, objs, flags, expected);
        (vec![out], t.path("clang-lld.out"))
    } else {
        let rld = t.check_cxx_program(objs, flags, expected);
        (rld, t.path("clang-lld.out"))
    }
}

/// One `#[test]` per (compiler, runtime) combination for a feature function
/// `fn(Build, Runtime)`, in a module named after it.
macro_rules! matrix {
    ($feature:ident) => {
        mod $feature {
            use super::{Build, PluginHost, Runtime};
            #[test]
            fn clang() {
                super::$feature(Build::Clang, Runtime::Shared)
            }
            #[test]
            fn clang_static_libstdcxx() {
                super::$feature(Build::Clang, Runtime::StaticLibstdcxx)
            }
            #[test]
            fn clang_static() {
                super::$feature(Build::Clang, Runtime::Static)
            }
            #[test]
            fn clang_lto() {
                super::$feature(Build::ClangLto, Runtime::Shared)
            }
            #[test]
            fn clang_lto_static_libstdcxx() {
                super::$feature(Build::ClangLto, Runtime::StaticLibstdcxx)
            }
            #[test]
            fn clang_lto_static() {
                super::$feature(Build::ClangLto, Runtime::Static)
            }
            #[test]
            fn clang_lto_2_partitions() {
                super::$feature(Build::ClangLtoPartitions(2), Runtime::Shared)
            }
            #[test]
            fn clang_lto_4_partitions_static() {
                super::$feature(Build::ClangLtoPartitions(4), Runtime::Static)
            }
            #[test]
            fn gcc() {
                super::$feature(Build::Gcc, Runtime::Shared)
            }
            #[test]
            fn gcc_static_libstdcxx() {
                super::$feature(Build::Gcc, Runtime::StaticLibstdcxx)
            }
            #[test]
            fn gcc_static() {
                super::$feature(Build::Gcc, Runtime::Static)
            }
            #[test]
            fn gcc_lto() {
                super::$feature(Build::GccLto, Runtime::Shared)
            }
            #[test]
            fn plugin_bfd() {
                super::$feature(Build::ClangLtoPlugin(PluginHost::Bfd), Runtime::Shared)
            }
            #[test]
            fn plugin_gold() {
                super::$feature(Build::ClangLtoPlugin(PluginHost::Gold), Runtime::Shared)
            }
            #[test]
            fn plugin_mold() {
                super::$feature(Build::ClangLtoPlugin(PluginHost::Mold), Runtime::Shared)
            }
        }
    };
}

// ---------------------------------------------------------------------------
// Templates: one copy of each COMDAT

const TMPL_FN: &str = "_Z15tmpl_accumulateIiET_PKS0_m";
const TMPL_VAR: &str = "_ZN8RegistryIiE5callsE";
/// The constant only tmpl_accumulate<int>'s body holds (see tmpl.h).
const TMPL_MARKER: u64 = 0x05ae_1c0d_e0dd_ba11;

fn nm_count(path: &Path, name: &str) -> usize {
    nm(path).iter().filter(|s| s.name == name).count()
}

fn templates_one_copy(b: Build, r: Runtime) {
    let t = Test::new();
    let sources = ["tmpl_a.cpp", "tmpl_b.cpp", "tmpl_c.cpp", "tmpl_main.cpp"];
    let objs = compile_all(&t, b, &sources, &[]);
    let marker = TMPL_MARKER.to_le_bytes();
    if !b.is_lto() {
        // The test needs the instantiation (and its body) in three objects.
        for obj in &objs[..3] {
            assert_eq!(nm_count(obj, TMPL_FN), 1, "{TMPL_FN} in {}", obj.display());
            let bytes = std::fs::read(obj).unwrap();
            assert_eq!(count_occurrences(&bytes, &marker), 1, "{}", obj.display());
        }
    }
    let flags = [b.link_flags().as_slice(), r.flags()].concat();
    let (rld, lld) = check_linked(
        &t,
        b,
        &paths(&objs),
        &flags,
        Some(
            "a: 6 b: 15 c: 24\n\
             same address: yes\n\
             Registry<int>::calls=3\n\
             singleton constructed 1 time(s), uses=4\n",
        ),
    );
    for exe in rld.iter().chain([&lld]) {
        for name in [TMPL_FN, TMPL_VAR] {
            assert_eq!(
                nm_count(exe, name),
                1,
                "nm lists {name} more or less than once in {}",
                exe.display()
            );
        }
        let bytes = std::fs::read(exe).unwrap();
        assert_eq!(
            count_occurrences(&bytes, &marker),
            1,
            "{} does not hold exactly one body of {TMPL_FN}",
            exe.display()
        );
    }
}
matrix!(templates_one_copy);

// ---------------------------------------------------------------------------
// Exceptions across objects

const EXC_OUT: &str = "caught AppError: app error 42 (code 42)\n\
caught as runtime_error: parse: unexpected token, is AppError: yes, code 2\n\
caught int 5\n\
caught out_of_range\n\
caught invalid_argument: bad argument\n\
caught exception: logic\n\
throwing through 3 frames of exc_throw.cpp:\n  \
unwound level 0\n  \
unwound level 1\n  \
unwound level 2\n\
caught MainError: from main.cpp\n\
caught: wrapped <app error 7>\n\
rethrow_exception gives ParseError, rethrowing\n\
caught again as AppError: parse: saved\n\
uncaught exceptions now: 0\n";

fn exceptions_across_objects(b: Build, r: Runtime) {
    let t = Test::new();
    check_cxx(&t, b, r, &["exc_throw.cpp", "exc_main.cpp"], EXC_OUT);
}
matrix!(exceptions_across_objects);

// ---------------------------------------------------------------------------
// Exceptions across a shared library

const EXC_LIB_OUT: &str = "caught LibError code 17\n\
caught std::exception: runtime_error from the library\n\
caught out_of_range from the library\n\
caught a std::string\n  \
library frame destroyed\n\
lib_call(cb_ok, 21) = 42\n  \
library frame destroyed\n  \
library caught LibError 5 from the callback\n\
lib_call(cb_lib_error, 5) = -1\n  \
library frame destroyed\n\
caught ExeError 9 through the library\n\
library frames unwound: 3\n";

/// Links libcxxexc.so and the executable with `driver` into `<driver>/`.
fn link_exc_pair(t: &Test, driver: Driver, lib: &Path, main: &Path, flags: &[&str]) -> PathBuf {
    let d = driver.name();
    let so = t.link_cxx(
        driver,
        &[lib],
        &[&["-shared", "-Wl,-soname,libcxxexc.so"], flags].concat(),
        &format!("{d}/libcxxexc.so"),
        true,
    );
    let l = format!("-L{}", so.parent().unwrap().display());
    t.link_cxx(
        driver,
        &[main],
        &[&[l.as_str(), "-lcxxexc"], flags].concat(),
        &format!("{d}/main"),
        true,
    )
}

/// The library and the executable are both linked by rld (and both by lld
/// for the reference); exceptions go both ways across the boundary.
fn exceptions_across_shared_library(b: Build, r: Runtime) {
    let t = Test::new();
    let lib = compile_all(&t, b, &["exc_lib.cpp"], &["-fPIC"]).remove(0);
    let main = compile_all(&t, b, &["exc_lib_main.cpp"], &[]).remove(0);
    let flags = [b.link_flags().as_slice(), r.flags()].concat();
    let lld = link_exc_pair(&t, Driver::ClangLld, &lib, &main, &flags);
    for d in Driver::RLD_DRIVERS {
        let exe = link_exc_pair(&t, d, &lib, &main, &flags);
        assert_same_output(
            &exe,
            &lld,
            &[],
            &[("LD_LIBRARY_PATH", ".")],
            Some(EXC_LIB_OUT),
        );
    }
}

mod exceptions_across_shared_library {
    use super::{Build, Runtime};
    #[test]
    fn clang() {
        super::exceptions_across_shared_library(Build::Clang, Runtime::Shared)
    }
    #[test]
    fn clang_static_libstdcxx() {
        super::exceptions_across_shared_library(Build::Clang, Runtime::StaticLibstdcxx)
    }
    #[test]
    fn clang_lto() {
        super::exceptions_across_shared_library(Build::ClangLto, Runtime::Shared)
    }
    #[test]
    fn clang_lto_2_partitions() {
        super::exceptions_across_shared_library(Build::ClangLtoPartitions(2), Runtime::Shared)
    }
    #[test]
    fn gcc() {
        super::exceptions_across_shared_library(Build::Gcc, Runtime::Shared)
    }
    #[test]
    fn gcc_static_libstdcxx() {
        super::exceptions_across_shared_library(Build::Gcc, Runtime::StaticLibstdcxx)
    }
}

// ---------------------------------------------------------------------------
// RTTI

const RTTI_OUT: &str = "shape 0: typeid 6Circle (Circle), area 12.0\n  \
is Circle: yes, is Square: no, is Box<int>: no\n  \
dynamic_cast<void*> is the object: yes\n  \
typeid here == typeid in rtti_types.cpp: yes\n  \
reference cast to Circle ok, r=2\n\
shape 1: typeid 6Square (Square), area 9.0\n  \
is Circle: no, is Square: yes, is Box<int>: no\n  \
cross-cast to Printable: square, back to Shape: same object\n  \
dynamic_cast<void*> is the object: yes\n  \
typeid here == typeid in rtti_types.cpp: yes\n  \
reference cast to Circle threw std::bad_cast\n\
shape 2: typeid N3geo3BoxIiEE (geo::Box<int>), area 16.0\n  \
is Circle: no, is Square: no, is Box<int>: yes\n  \
dynamic_cast<void*> is the object: yes\n  \
typeid here == typeid in rtti_types.cpp: yes\n  \
reference cast to Circle threw std::bad_cast\n\
Box<int> typeinfo equal across objects: yes, same object: yes\n\
typeid(Circle) before typeid(Square): yes\n\
builtin: m (unsigned long)\n";

fn rtti_dynamic_cast_typeid(b: Build, r: Runtime) {
    let t = Test::new();
    check_cxx(&t, b, r, &["rtti_types.cpp", "rtti_main.cpp"], RTTI_OUT);
}
matrix!(rtti_dynamic_cast_typeid);

// ---------------------------------------------------------------------------
// Virtual dispatch

const VIRT_OUT: &str = "dog: dog says woof\n\
cat: the cat ignores you\n\
sheepdog: sheepdog says woof woof\n\
sheepdog as Pet: owner the farmer, as Worker: job herding, one Animal: yes\n\
robot: robot#7/vol11 / beep from robot#7/vol11, subobjects differ: yes\n\
~Robot (serial 7)\n\
~Dog\n\
~Animal(dog)\n\
~Animal(cat)\n\
~SheepDog\n\
~Animal(sheepdog)\n\
done\n";

fn virtual_dispatch_across_objects(b: Build, r: Runtime) {
    let t = Test::new();
    check_cxx(
        &t,
        b,
        r,
        &["virt_base.cpp", "virt_derived.cpp", "virt_main.cpp"],
        VIRT_OUT,
    );
}
matrix!(virtual_dispatch_across_objects);

// ---------------------------------------------------------------------------
// Static initialization order

const INIT_OUT: &str = "constructed: +b150 +a200 +m250 +b300 +a5000 +a_plain +b_plain +m_plain \n\
derived_b.value = 42 (config_a was ready: yes)\n\
main done\n\
destroy local_static\n\
destroy m_plain\n\
destroy b_plain\n\
destroy a_plain\n\
destroy a5000\n\
destroy b300\n\
destroy m250\n\
destroy a200\n\
destroy b150\n";

fn static_init_priority_order(b: Build, r: Runtime) {
    let t = Test::new();
    // gcc's LTO orders the constructors without a priority in a way of its own (the
    // prioritized ones keep their order): there GNU ld's build is the reference.
    let expected = (b != Build::GccLto).then_some(INIT_OUT);
    check_cxx_against(
        &t,
        b,
        r,
        &["init_a.cpp", "init_b.cpp", "init_main.cpp"],
        expected,
    );
}
matrix!(static_init_priority_order);

// ---------------------------------------------------------------------------
// thread_local with destructors

const TLS_OUT: &str = "  Local(5) in main\n  \
Tracked() in main\n  \
main: main hits=1 tl_plain=6 local=5\n\
start thread 1\n  \
Local(10) in thread1\n  \
Tracked() in thread1\n  \
worker: thread1 hits=1 tl_plain=11 local=10\n  \
~Tracked() in thread1 after 1 hit(s), tl_plain=11\n  \
~Local(10) in thread1\n\
joined thread 1\n\
start thread 2\n  \
Local(20) in thread2\n  \
Tracked() in thread2\n  \
worker: thread2 hits=1 tl_plain=21 local=20\n  \
worker: thread2 hits=2 tl_plain=22 local=20\n  \
~Tracked() in thread2 after 2 hit(s), tl_plain=22\n  \
~Local(20) in thread2\n\
joined thread 2\n\
start thread 3\n  \
Local(30) in thread3\n  \
Tracked() in thread3\n  \
worker: thread3 hits=1 tl_plain=31 local=30\n  \
worker: thread3 hits=2 tl_plain=32 local=30\n  \
worker: thread3 hits=3 tl_plain=33 local=30\n  \
~Tracked() in thread3 after 3 hit(s), tl_plain=33\n  \
~Local(30) in thread3\n\
joined thread 3\n\
main exits, tl_plain=6\n  \
~Tracked() in main after 1 hit(s), tl_plain=6\n  \
~Local(5) in main\n";

fn thread_local_destructors(b: Build, r: Runtime) {
    let t = Test::new();
    check_cxx(&t, b, r, &["tls_def.cpp", "tls_main.cpp"], TLS_OUT);
}
matrix!(thread_local_destructors);

// ---------------------------------------------------------------------------
// iostream

const IOS_OUT: &str = "hello from iostream 42 2.5 1\n\
true 0xff 010 (3, -4)\n\
answer  |   42.000\n\
e       |    2.718\n\
pi      |    3.142\n\
parsed 5 ints, sorted: 1 3 5 7 9, sum 25\n\
THE QUICK BROWN FOX (10)\n\
wide 12\n";

fn iostream(b: Build, r: Runtime) {
    let t = Test::new();
    // check_cxx_program also compares stderr ("to stderr: *****7", "clog line").
    check_cxx(&t, b, r, &["ios_fmt.cpp", "ios_main.cpp"], IOS_OUT);
}
matrix!(iostream);

// ---------------------------------------------------------------------------
// std::thread

const THR_OUT: &str = "threads started: 4, total: 8002000, call_once ran 1 time(s)\n\
consumed: 125250\n\
async sum: 499999500000\n\
future rethrew: promise broken\n\
hardware_concurrency > 0: yes\n";

fn std_thread(b: Build, r: Runtime) {
    let t = Test::new();
    check_cxx(&t, b, r, &["thr_work.cpp", "thr_main.cpp"], THR_OUT);
}
matrix!(std_thread);

// ---------------------------------------------------------------------------
// A large link: LLVM's C API against llvm-22-dev's static archives

fn llvm_config(args: &[&str]) -> Vec<String> {
    let out = run_checked(Command::new("llvm-config-22").args(args));
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

const LLVM_API_OUT: &str = r#"verify: ok
; ModuleID = 'rld_demo'
source_filename = "rld_demo"

define i32 @mul_add(i32 %0, i32 %1) {
entry:
  %prod = mul i32 %0, %1
  %sum = add i32 %prod, 7
  ret i32 %sum
}

define i32 @square(i32 %0) {
entry:
  %slot = alloca i32, align 4
  store i32 %0, ptr %slot, align 4
  %x1 = load i32, ptr %slot, align 4
  %x2 = load i32, ptr %slot, align 4
  %sq = mul i32 %x1, %x2
  ret i32 %sq
}
bitcode: ok (magic 42 43 C0 DE)
read back: mul_add square (2 functions), verify: ok
same functions after the round trip: yes
after default<O2>:
; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(none)
define i32 @square(i32 %0) local_unnamed_addr #0 {
entry:
  %sq = mul i32 %0, %0
  ret i32 %sq
}
x86-64 object: ELF64
"#;

/// `cxx/llvm_api.cpp` compiled, and the flags that link it statically against LLVM 22's
/// archives (tens of MB, thousands of members, C++ throughout).
fn llvm_c_api_program(t: &Test) -> (PathBuf, Vec<String>) {
    let cxxflags = llvm_config(&["--cxxflags"]);
    let cxxflags: Vec<&str> = cxxflags.iter().map(String::as_str).collect();
    let flags = [&["-O2"], cxxflags.as_slice()].concat();
    let obj = t.compile_cxx(Clang, "cxx/llvm_api.cpp", &flags);
    let mut libs = llvm_config(&[
        "--link-static",
        "--ldflags",
        "--libs",
        "core",
        "target",
        "x86",
        "bitwriter",
        "bitreader",
        "passes",
        "ipo",
    ]);
    libs.extend(llvm_config(&["--link-static", "--system-libs"]));
    libs.push("-lpthread".into());
    (obj, libs)
}

/// `cxx/llvm_api.cpp` statically linked against LLVM 22: rld's program must run like
/// lld's and pass `readelf -a` (objdump -d is skipped: it takes minutes).
#[test]
fn llvm_c_api_static_link() {
    let t = Test::new();
    let (obj, libs) = llvm_c_api_program(&t);
    let flags: Vec<&str> = libs.iter().map(String::as_str).collect();
    let lld = t.link_cxx(Driver::ClangLld, &[&obj], &flags, "clang-lld.out", false);
    for d in Driver::RLD_DRIVERS {
        let exe = t.link_cxx(d, &[&obj], &flags, &format!("{}.out", d.name()), false);
        assert_same_output(&exe, &lld, &[], &[], Some(LLVM_API_OUT));
    }
}

/// The same link with `--gc-sections`, where rld marks what is reachable on many threads:
/// one thread and several give the same bytes and remove the same sections
/// (`--print-gc-sections`), the program runs like lld's, and rld removes what lld removes
/// (22,000 sections, `.eh_frame` keeping LSDAs and personalities) but for the copies of
/// COMDAT groups: lld keeps the copy of the member it loaded first, rld (loading members in
/// another order) sometimes another member's, so a few sections (1% on 2026-11-29) differ by
/// file; under 2% is asserted.
#[test]
fn llvm_c_api_static_link_with_gc_sections() {
    let t = Test::new();
    let (obj, libs) = llvm_c_api_program(&t);
    let mut flags: Vec<&str> = libs.iter().map(String::as_str).collect();
    flags.extend([
        "-lstdc++",
        "-lm",
        "-Wl,--gc-sections",
        "-Wl,--print-gc-sections",
    ]);
    let link = |driver: Driver, extra: &[&str], out: &str| {
        let all = [flags.as_slice(), extra].concat();
        let (res, cmd) = t.try_link(driver, &[&obj], &all, out);
        assert!(
            res.status.success(),
            "{cmd}: {}",
            String::from_utf8_lossy(&res.stderr)
        );
        let mut removed: Vec<String> = String::from_utf8_lossy(&res.stdout)
            .lines()
            .chain(String::from_utf8_lossy(&res.stderr).lines())
            .filter(|l| l.contains("removing unused section"))
            .map(|l| l.trim_start_matches("ld.lld: ").to_string())
            .collect();
        removed.sort();
        (t.path(out), removed)
    };
    let (lld, lld_removed) = link(Driver::ClangLld, &[], "lld-gc.out");
    let (rld, rld_removed) = link(Driver::ClangRld, &["-Wl,--threads=4"], "rld-gc.out");
    let (rld1, rld1_removed) = link(Driver::ClangRld, &["-Wl,--threads=1"], "rld-gc-1.out");
    assert!(
        lld_removed.len() > 1000,
        "lld removed only {} sections",
        lld_removed.len()
    );
    let only = |a: &[String], b: &[String]| -> Vec<String> {
        a.iter()
            .filter(|l| b.binary_search(l).is_err())
            .cloned()
            .collect()
    };
    let (rld_only, lld_only) = (
        only(&rld_removed, &lld_removed),
        only(&lld_removed, &rld_removed),
    );
    assert!(
        (rld_only.len() + lld_only.len()) * 50 < lld_removed.len(),
        "{} sections only rld removed (e.g. {:?}), {} only lld (e.g. {:?}), of {}",
        rld_only.len(),
        rld_only.first(),
        lld_only.len(),
        lld_only.first(),
        lld_removed.len()
    );
    assert_eq!(rld1_removed, rld_removed);
    assert!(
        std::fs::read(&rld1).unwrap() == std::fs::read(&rld).unwrap(),
        "{} and {} differ",
        rld1.display(),
        rld.display()
    );
    assert_same_output(&rld, &lld, &[], &[], Some(LLVM_API_OUT));
}
