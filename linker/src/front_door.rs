//! `rld` typed by a person: `rld -flto a.o b.o -o main` links a program that runs.
//!
//! GNU ld (and lld) link exactly what they are given: without a C runtime start file and
//! libc, `ld a.o -o main` makes a file that crashes at once. Compiler drivers add those
//! (crt files, libc, libgcc, the dynamic linker, PIE). When rld is run under its own name
//! with a command line no driver would pass (no start file, no `-m` emulation, no
//! `-dynamic-linker`, not `-r` or `-shared`, no `-nostdlib`, no entry point, linker script
//! or `_start` of its own), it adds what `clang-14` adds on this machine, and `-lstdc++ -lm` when
//! an input needs the C++ runtime. Under the GNU ld names (`ld`, `ld.rld`) and whenever a
//! driver calls it, nothing is added. `--print-driver` prints the resulting command line.

use crate::options::{InputArg, Options};
use object::read::elf::Sym as _;
use std::path::{Path, PathBuf};

/// The C runtime's start files: a command line naming one came from a compiler driver.
const START_FILES: &[&str] = &[
    "crt1.o", "Scrt1.o", "rcrt1.o", "gcrt1.o", "grcrt1.o", "Mcrt1.o", "crti.o",
];

/// Options only a compiler driver or someone doing a low-level link passes.
const DRIVER_OPTIONS: &[&str] = &[
    "-m",
    "-dynamic-linker",
    "--dynamic-linker",
    "-r",
    "--relocatable",
    "-shared",
    "-Bshareable",
    "-nostdlib",
    "-plugin",
    "-e",
    "--entry",
    "-T",
    "--script",
];

/// Whether rld, run as `program`, adds a compiler driver's arguments to `args`.
pub fn applies(program: &str, args: &[String]) -> bool {
    let name = Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(program);
    if name != "rld" {
        return false;
    }
    !args.iter().any(|a| {
        let file = Path::new(a).file_name().and_then(|n| n.to_str());
        file.is_some_and(|f| START_FILES.contains(&f) || f.starts_with("crtbegin"))
            || DRIVER_OPTIONS
                .iter()
                .any(|o| a == o || a.strip_prefix(o).is_some_and(|r| r.starts_with('=')))
            // Attached forms: `-melf_x86_64`, `-Tscript.ld` (and -Ttext=...).
            || a.starts_with("-melf")
            || a.starts_with("-T")
    })
}

/// What `clang-14` passes around the user's inputs for a program: PIE by default,
/// non-PIE with `-no-pie`, static with `-static`; the C++ runtime when an input needs it.
pub struct DriverArguments {
    pub before: Vec<String>,
    pub after: Vec<String>,
}

impl DriverArguments {
    pub fn new(args: &[String], opts: &Options, cxx: bool) -> Result<DriverArguments, String> {
        let gcc = gcc_installation().ok_or(
            "cannot find GCC's runtime (/usr/lib/gcc/x86_64-linux-gnu/N/crtbegin.o) to link a \
             program; pass the C runtime files yourself, or link through a compiler driver",
        )?;
        let libc_dir = [
            "/lib/x86_64-linux-gnu",
            "/usr/lib/x86_64-linux-gnu",
            "/usr/lib64",
        ]
        .into_iter()
        .map(PathBuf::from)
        .find(|d| d.join("crti.o").is_file())
        .ok_or("cannot find the C library's start files (crti.o)")?;
        // PIE unless asked otherwise, as clang-14 on Debian.
        let pie = !opts.static_link
            && !args
                .iter()
                .any(|a| a == "-no-pie" || a == "--no-pic-executable");
        let path = |p: PathBuf| p.display().to_string();
        let (start, begin, end) = if opts.static_link {
            ("crt1.o", "crtbeginT.o", "crtend.o")
        } else if pie {
            ("Scrt1.o", "crtbeginS.o", "crtendS.o")
        } else {
            ("crt1.o", "crtbegin.o", "crtend.o")
        };
        let mut before: Vec<String> = vec![
            "--hash-style=both".into(),
            "--build-id".into(),
            "--eh-frame-hdr".into(),
        ];
        if pie {
            before.insert(0, "-pie".into());
        }
        if !opts.static_link {
            before.push("-dynamic-linker".into());
            before.push("/lib64/ld-linux-x86-64.so.2".into());
        }
        before.push(path(libc_dir.join(start)));
        before.push(path(libc_dir.join("crti.o")));
        before.push(path(gcc.join(begin)));
        for dir in [
            gcc.clone(),
            PathBuf::from("/lib/x86_64-linux-gnu"),
            PathBuf::from("/usr/lib/x86_64-linux-gnu"),
            PathBuf::from("/lib64"),
            PathBuf::from("/usr/lib64"),
            PathBuf::from("/lib"),
            PathBuf::from("/usr/lib"),
        ] {
            if dir.is_dir() {
                before.push(format!("-L{}", dir.display()));
            }
        }
        let mut after: Vec<String> = Vec::new();
        if cxx {
            after.extend(["-lstdc++".into(), "-lm".into()]);
        }
        let libs: &[&str] = if opts.static_link {
            &["--start-group", "-lgcc", "-lgcc_eh", "-lc", "--end-group"]
        } else if cxx {
            &["-lgcc_s", "-lgcc", "-lc", "-lgcc_s", "-lgcc"]
        } else {
            &[
                "-lgcc",
                "--as-needed",
                "-lgcc_s",
                "--no-as-needed",
                "-lc",
                "-lgcc",
                "--as-needed",
                "-lgcc_s",
                "--no-as-needed",
            ]
        };
        after.extend(libs.iter().map(|s| s.to_string()));
        after.push(path(gcc.join(end)));
        after.push(path(libc_dir.join("crtn.o")));
        Ok(DriverArguments { before, after })
    }
}

/// GCC's newest runtime directory (`/usr/lib/gcc/x86_64-linux-gnu/12`), where clang finds
/// crtbegin.o and libgcc too.
fn gcc_installation() -> Option<PathBuf> {
    let root = Path::new("/usr/lib/gcc/x86_64-linux-gnu");
    std::fs::read_dir(root)
        .ok()?
        .flatten()
        .filter(|e| e.path().join("crtbegin.o").is_file())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let version: Vec<u32> = name
                .split('.')
                .map(|p| p.parse().ok())
                .collect::<Option<_>>()?;
            Some((version, e.path()))
        })
        .max()
        .map(|(_, p)| p)
}

/// What the inputs say about the runtime they need.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct InputFacts {
    /// An object or bitcode file refers to a mangled name, the C++ ABI (`__cxa_*`) or the
    /// C++ personality routine: the program needs libstdc++ (and libm, as clang++ adds).
    cxx: bool,
    /// An object defines `_start`: it brings its own start-up code, so the link is a
    /// low-level one.
    start: bool,
}

fn input_facts(opts: &Options) -> InputFacts {
    let mut facts = InputFacts::default();
    for i in &opts.inputs {
        if let InputArg::File { path, .. } = i {
            // Mapped, not copied: the link maps the same files again, from the page cache.
            if let Ok(data) = crate::input::map_file(path) {
                let f = file_facts(data);
                facts.cxx |= f.cxx;
                facts.start |= f.start;
            }
        }
    }
    facts
}

fn is_cxx_name(name: &[u8]) -> bool {
    name.starts_with(b"_Z") || name.starts_with(b"__cxa_") || name == b"__gxx_personality_v0"
}

fn file_facts(data: &[u8]) -> InputFacts {
    if rld_lto_api::is_bitcode(data) {
        // The module's string table holds its symbol names as plain bytes.
        let cxx = [
            &b"__gxx_personality_v0"[..],
            b"__cxa_",
            b"_ZSt",
            b"_Znwm",
            b"_ZdlPv",
        ]
        .iter()
        .any(|n| data.windows(n.len()).any(|w| w == *n));
        return InputFacts { cxx, start: false };
    }
    let mut facts = InputFacts::default();
    let endian = object::LittleEndian;
    let Some(symbols) = crate::object_file::elf_symbol_table(data) else {
        return facts;
    };
    for s in symbols.iter() {
        let Ok(name) = symbols.symbol_name(endian, s) else {
            continue;
        };
        if s.st_shndx(endian) == object::elf::SHN_UNDEF {
            facts.cxx |= is_cxx_name(name);
        } else if s.st_bind() != object::elf::STB_LOCAL {
            facts.start |= name == b"_start";
        }
    }
    facts
}

/// `args` as rld links them: with a driver's arguments when [`applies`] (`opts` is `args`
/// parsed).
pub fn complete(program: &str, args: Vec<String>, opts: &Options) -> Result<Vec<String>, String> {
    if !applies(program, &args) || opts.inputs.is_empty() {
        return Ok(args);
    }
    let facts = input_facts(opts);
    if facts.start {
        return Ok(args);
    }
    let driver = DriverArguments::new(&args, opts, facts.cxx)?;
    Ok(driver
        .before
        .into_iter()
        .chain(args)
        .chain(driver.after)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn only_a_persons_command_line_gets_a_driver() {
        let person = strings(&["-flto", "a.o", "b.o", "-o", "main"]);
        assert!(applies("rld", &person));
        assert!(applies("/usr/local/bin/rld", &person));
        for name in ["ld", "ld.rld", "ld.lld", "rld-plugin-ld"] {
            assert!(!applies(name, &person), "{name}");
        }
        for extra in [
            &["/lib/x86_64-linux-gnu/Scrt1.o"][..],
            &["crti.o"],
            &["-m", "elf_x86_64"],
            &["-melf_x86_64"],
            &["-dynamic-linker", "/lib64/ld-linux-x86-64.so.2"],
            &["-shared"],
            &["-r"],
            &["-nostdlib"],
            &["-e", "main"],
            &["--entry=main"],
            &["-T", "x.ld"],
            &["-Tx.ld"],
            &["-plugin", "p.so"],
        ] {
            let args = [person.clone(), strings(extra)].concat();
            assert!(!applies("rld", &args), "{extra:?}");
        }
        // Options that merely start like a driver's are still a person's.
        let args = strings(&["-rpath", "/x", "-export-dynamic", "a.o", "-o", "m"]);
        assert!(applies("rld", &args));
    }

    #[test]
    fn cxx_names() {
        for n in [
            "_ZNSt6vectorIiSaIiEE9push_backERKi",
            "__cxa_throw",
            "__gxx_personality_v0",
        ] {
            assert!(is_cxx_name(n.as_bytes()), "{n}");
        }
        for n in ["main", "printf", "_start", "__libc_start_main"] {
            assert!(!is_cxx_name(n.as_bytes()), "{n}");
        }
    }
}
