//! rld's fuzz targets: what each one does with one input.
//!
//! Every reader of untrusted input has a target, and one target links a fuzzed file with fixed
//! valid objects. A target returns normally whatever the input is; errors are expected, and a
//! panic, a crash, a hang or a huge allocation is a finding. The AFL++ harness (`fuzz/`) runs
//! them under coverage guidance; `tests/replay.rs` runs the seeds it builds and every saved
//! finding through them on each test run, so a fixed finding stays fixed.

mod link;

use std::path::{Path, PathBuf};

/// One fuzz target, named as on the harness's command line and in `fuzz/` directories.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// An ELF relocatable object (`ObjectFile::parse`).
    ElfObject,
    /// An archive or thin archive, with its members' symbol checks.
    Archive,
    /// An ELF shared library's dynamic symbols and versions.
    SharedLibrary,
    /// A GNU ld script given as an input (`libc.so`'s kind).
    LdScript,
    /// `--version-script FILE`.
    VersionScript,
    /// `--dynamic-list FILE`.
    DynamicList,
    /// `@FILE` on the command line.
    ResponseFile,
    /// A module summary as the summary cache stores it.
    Summary,
    /// An optimization remark file, YAML or bitstream.
    Remarks,
    /// A policy file of `rld remarks check`.
    RemarkPolicy,
    /// LLVM bitcode, raw or in the bitcode wrapper, summarized as `rld -flto` does (in a
    /// child process).
    Bitcode,
    /// A whole link: fixed valid objects and the fuzzed file, as an executable and as a shared
    /// library.
    Link,
}

impl Target {
    pub const ALL: [Target; 12] = [
        Target::ElfObject,
        Target::Archive,
        Target::SharedLibrary,
        Target::LdScript,
        Target::VersionScript,
        Target::DynamicList,
        Target::ResponseFile,
        Target::Summary,
        Target::Remarks,
        Target::RemarkPolicy,
        Target::Bitcode,
        Target::Link,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Target::ElfObject => "elf_object",
            Target::Archive => "archive",
            Target::SharedLibrary => "shared_library",
            Target::LdScript => "ld_script",
            Target::VersionScript => "version_script",
            Target::DynamicList => "dynamic_list",
            Target::ResponseFile => "response_file",
            Target::Summary => "summary",
            Target::Remarks => "remarks",
            Target::RemarkPolicy => "remark_policy",
            Target::Bitcode => "bitcode",
            Target::Link => "link",
        }
    }

    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// Where targets that read files write their input, and where `link` writes its outputs:
/// one private directory per process.
pub struct Scratch {
    dir: PathBuf,
    link: link::Fixtures,
    /// The process that made the directory: AFL's forked children share it and must not
    /// remove it when they end.
    owner: u32,
}

impl Scratch {
    /// A fresh directory under `parent`, with the link target's fixed objects built in it
    /// (by `clang-22`, once per process).
    pub fn new(parent: &Path) -> std::io::Result<Scratch> {
        let dir = parent.join(format!("rld-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let link = link::Fixtures::build(&dir)?;
        // Bitcode read in children, as `rld` does, by the LTO driver linked in (`rld`
        // loads it from its library).
        rld_lto::work_in_children(true);
        rld::lto_backend::install(&rld_lto_driver::InProcess);
        Ok(Scratch {
            dir,
            link,
            owner: std::process::id(),
        })
    }

    fn write(&self, name: &str, data: &[u8]) -> PathBuf {
        let path = self.dir.join(name);
        std::fs::write(&path, data).expect("scratch directory is writable");
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::process::id() == self.owner {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Bytes that live as long as the readers' `&'static` views need: the linker maps its inputs
/// for the whole process, so its readers borrow for `'static`.
fn leak(data: &[u8]) -> &'static [u8] {
    Box::leak(data.to_vec().into_boxed_slice())
}

/// One worker thread, for deterministic coverage. Made on first use, not with the scratch
/// directory: AFL forks the process after setting up, and a pool whose thread stayed in the
/// parent would never run anything in the child.
fn pool() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a one-thread pool")
    })
}

/// Runs `target` on `data`. Returns whether the input was accepted (for corpus statistics);
/// anything but returning is a finding.
pub fn run(target: Target, data: &[u8], scratch: &Scratch) -> bool {
    pool().install(|| run_in_pool(target, data, scratch))
}

fn run_in_pool(target: Target, data: &[u8], scratch: &Scratch) -> bool {
    match target {
        Target::ElfObject => {
            rld::object_file::ObjectFile::parse("fuzz.o".into(), leak(data)).is_ok()
        }
        Target::Archive => {
            let path = scratch.write("fuzz.a", data);
            let data = leak(data);
            let parsed = rld::input::Archive::parse("fuzz.a".into(), &path, data, false);
            // The member check `--whole-archive`-less resolution makes for COMMON symbols.
            let _ = rld::input::archive::defines_non_common(data, b"main");
            match parsed {
                Ok(archive) => archive
                    .members
                    .iter()
                    .all(|m| rld::object_file::ObjectFile::parse(m.name.clone(), m.data).is_ok()),
                Err(_) => false,
            }
        }
        Target::SharedLibrary => rld::shared_file::SharedFile::parse(
            "fuzz.so".into(),
            "fuzz.so".into(),
            leak(data),
            false,
        )
        .is_ok(),
        Target::LdScript => std::str::from_utf8(data)
            .ok()
            .is_some_and(|text| rld::input::script::parse_script(text).is_ok()),
        Target::VersionScript => {
            let path = scratch.write("fuzz.ver", data);
            match rld::version_script::VersionScript::load(&[path]) {
                Ok(Some(script)) => {
                    for name in [&b"main"[..], b"foo", b"_ZN3foo3barEv", b""] {
                        let _ = script.assign(name);
                    }
                    let _ = script.named_globals().count();
                    true
                }
                _ => false,
            }
        }
        Target::DynamicList => {
            let path = scratch.write("fuzz.list", data);
            match rld::dynamic_list::DynamicList::load(&[path], &[], &[]) {
                Ok(list) => {
                    let _ = list.contains(b"main") || list.contains(b"");
                    true
                }
                Err(_) => false,
            }
        }
        Target::ResponseFile => {
            let path = scratch.write("fuzz.rsp", data);
            rld::args::parse_args([format!("@{}", path.display())]).is_ok()
        }
        Target::Summary => rld_summaries::decode(data).is_ok(),
        Target::Remarks => {
            let path = scratch.write("fuzz.remarks", data);
            rld_remarks::source::read_file(&path, &mut |_| {}).is_ok()
        }
        Target::RemarkPolicy => std::str::from_utf8(data)
            .ok()
            .is_some_and(|text| rld_remarks::Policy::parse(text).is_ok()),
        Target::Bitcode => {
            let input = rld_lto::BitcodeInput {
                name: "fuzz.bc",
                data,
            };
            rld_lto::summarize_all(&[input], None, &|_| {}).is_ok()
        }
        Target::Link => scratch
            .link
            .run(&scratch.dir, &scratch.write("fuzz.o", data)),
    }
}
