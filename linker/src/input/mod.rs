//! Turning the command line's inputs into files: library search, mapping, recognizing each
//! file by its contents, expanding GNU ld scripts, and listing archive members.
//!
//! Nothing here resolves symbols; that needs the order this module preserves.

pub mod archive;
pub mod binary;
pub mod just_symbols;
pub mod remap;
pub mod script;
pub mod search;

use crate::error::{LinkError, Result};
use crate::options::{InputArg, InputState, Options};
use std::path::{Path, PathBuf};

pub use archive::Archive;

/// A file ready for symbol resolution, in command-line order.
pub enum InputFile {
    Object {
        name: String,
        data: &'static [u8],
    },
    /// LLVM bitcode (from `clang -flto`), compiled by the LTO backend.
    Bitcode {
        name: String,
        data: &'static [u8],
    },
    Archive(Archive),
    Shared {
        name: String,
        soname: String,
        data: &'static [u8],
        as_needed: bool,
    },
}

/// Maps a file for the rest of the process's life; inputs are read in place, never copied.
/// A file named again (gcc's and clang's command lines name libgcc.a four times, counting
/// the `-lgcc` in libgcc_s.so's script) is the same mapping: every mapping of it would
/// count the pages read in the process's resident memory once more.
pub fn map_file(path: &Path) -> Result<&'static [u8]> {
    use std::os::unix::fs::MetadataExt;
    let file = std::fs::File::open(path).map_err(|e| LinkError::cannot_open(path, e))?;
    crate::read_log::note(path);
    let meta = file.metadata().map_err(|e| LinkError::io(path, e))?;
    if meta.len() == 0 {
        return Ok(&[]);
    }
    let id = (meta.dev(), meta.ino());
    let mut mapped = MAPPED.lock().unwrap_or_else(|e| e.into_inner());
    let mapped = mapped.get_or_insert_with(Mapped::default);
    if let Some(&data) = mapped.get(&id) {
        if data.len() as u64 == meta.len() {
            return Ok(data);
        }
    }
    // SAFETY: inputs are not expected to change during the link; a concurrent writer could
    // change what we read but not break memory safety of the bounds-checked parsers.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| LinkError::io(path, e))?;
    let data: &'static [u8] = Box::leak(Box::new(map));
    mapped.insert(id, data);
    Ok(data)
}

type Mapped = std::collections::HashMap<(u64, u64), &'static [u8]>;
/// Every file `map_file` mapped, by (device, inode).
static MAPPED: std::sync::Mutex<Option<Mapped>> = std::sync::Mutex::new(None);

/// Gives back the memory pages holding `bytes`, part of a mapped input that the link will
/// not read again (or rarely: a later read brings the same bytes back from the file). They
/// stay in the kernel's page cache; they leave the process's resident memory, whose peak
/// is reached later, while the output is written. Bytes outside a mapped input are left
/// alone.
pub fn release_pages(bytes: &'static [u8]) {
    const PAGE: usize = 4096;
    let (start, end) = (
        bytes.as_ptr() as usize,
        bytes.as_ptr() as usize + bytes.len(),
    );
    let mapped = MAPPED.lock().unwrap_or_else(|e| e.into_inner());
    let inside_a_mapping = mapped.iter().flat_map(|m| m.values()).any(|data| {
        let base = data.as_ptr() as usize;
        base <= start && end <= base + data.len()
    });
    // Whole pages only: the pages at either end may hold bytes still in use.
    let (first, last) = (start.next_multiple_of(PAGE), end / PAGE * PAGE);
    if inside_a_mapping && first < last {
        // SAFETY: [first, last) lies inside a private, read-only file mapping that lives as
        // long as the process. MADV_DONTNEED only drops its page table entries: the next
        // read of any byte there faults in the file's same bytes, so every slice into the
        // mapping stays valid and reads what it read before.
        unsafe {
            libc::madvise(
                first as *mut libc::c_void,
                last - first,
                libc::MADV_DONTNEED,
            );
        }
    }
}

const ELF_MAGIC: &[u8] = b"\x7fELF";

/// What a file's first bytes say it is.
#[derive(Debug, PartialEq, Eq)]
enum FileType {
    Relocatable,
    SharedObject,
    OtherElf,
    Archive,
    Bitcode,
    Script,
    Unknown,
}

/// The global symbols of the object `bytes`: name, value, whether in a section (the
/// objects `binary` and `just_symbols` make, checked by their tests).
#[cfg(test)]
pub(crate) fn global_symbols(bytes: &[u8]) -> Vec<(String, u64, bool)> {
    use object::{Object as _, ObjectSymbol as _};
    let file = object::read::elf::ElfFile64::<object::LittleEndian>::parse(bytes).unwrap();
    file.symbols()
        .filter(|s| s.is_global())
        .map(|s| {
            let name = s.name().unwrap().to_string();
            (name, s.address(), s.section_index().is_some())
        })
        .collect()
}

fn identify(data: &[u8]) -> FileType {
    if data.starts_with(ELF_MAGIC) {
        let e_type = data.get(16..18).map(|b| u16::from_le_bytes([b[0], b[1]]));
        return match e_type {
            Some(object::elf::ET_REL) => FileType::Relocatable,
            Some(object::elf::ET_DYN) => FileType::SharedObject,
            _ => FileType::OtherElf,
        };
    }
    if data.starts_with(b"!<arch>\n") || data.starts_with(b"!<thin>\n") {
        return FileType::Archive;
    }
    if rld_lto_api::is_bitcode(data) {
        return FileType::Bitcode;
    }
    if script::looks_like_script(data) {
        return FileType::Script;
    }
    FileType::Unknown
}

/// What the linker scripts among the inputs ask for besides inputs.
#[derive(Default)]
pub struct ScriptFacts {
    /// `ENTRY(sym)`: the last one wins.
    pub entry: Option<String>,
    /// Symbol assignments in command-line and script order, each with its script's name.
    pub assignments: Vec<(String, script::Assignment)>,
    /// `ASSERT`s, each with its script's name.
    pub asserts: Vec<(String, crate::script_expr::Expr, String, usize)>,
    /// `VERSION { ... }` bodies, each with its script's name.
    pub versions: Vec<(String, String)>,
    /// `SECTIONS`, with its script's name.
    pub sections: Option<(String, Vec<script::SectionsCommand>)>,
    /// `MEMORY` regions.
    pub memory: Vec<script::MemoryRegion>,
    /// `PHDRS`.
    pub phdrs: Vec<script::PhdrSpec>,
    /// `INSERT AFTER|BEFORE SECTION` of the script with `SECTIONS`.
    pub insert: Option<(bool, String)>,
}

impl ScriptFacts {
    /// Whether a script's `SECTIONS` lays out the whole output (rather than being inserted
    /// into the usual layout with `INSERT`).
    pub fn lays_out(&self) -> bool {
        self.sections.is_some() && self.insert.is_none()
    }
}

/// The inputs in command-line order, and what their scripts ask for.
pub struct Inputs {
    pub files: Vec<InputFile>,
    /// Each file's group, numbered as lld numbers them for `--warn-backrefs`: a file of
    /// its own, or one `--start-group`/`--end-group` (or a script's `GROUP`, or a
    /// `--start-lib`/`--end-lib` run) shared by all its files; numbers grow with position.
    pub groups: Vec<u32>,
    pub scripts: ScriptFacts,
}

/// lld's group numbering of the inputs, as they are collected.
#[derive(Default)]
struct GroupIds {
    ids: Vec<u32>,
    next: u32,
    /// Inside `--start-group` or a script's `GROUP`.
    in_group: bool,
    /// Inside a run of `--start-lib` objects.
    in_lib: bool,
}

impl GroupIds {
    /// The group of the next file (`lazy`: between `--start-lib` and `--end-lib`).
    fn add(&mut self, lazy: bool) {
        if self.in_lib && !lazy {
            self.in_lib = false;
            self.next += 1;
        }
        self.in_lib = lazy;
        self.ids.push(self.next);
        if !self.in_group && !self.in_lib {
            self.next += 1;
        }
    }

    /// Starts a group: whether one was open already (then the two are one).
    fn start(&mut self) -> bool {
        std::mem::replace(&mut self.in_group, true)
    }

    /// Ends a group `start` began (`outer`: what it returned).
    fn end(&mut self, outer: bool) {
        self.in_group = outer;
        if !outer {
            self.next += 1;
        }
    }
}

struct Collector<'o> {
    opts: &'o Options,
    files: Vec<Collected>,
    groups: GroupIds,
    /// `--remap-inputs`: where inputs are read from.
    remap: &'o remap::Remap,
    scripts: ScriptFacts,
    search_dirs: Vec<PathBuf>,
    /// The existing output file's identity (device, inode), which no input may share.
    output: Option<(u64, u64)>,
}

/// An input as collection leaves it: archives are indexed afterwards, all at once in
/// parallel (reading every member's header of a large library is most of collection).
enum Collected {
    Ready(InputFile),
    Archive {
        display: String,
        path: PathBuf,
        data: &'static [u8],
        whole: bool,
    },
}

/// The inputs collected, in order, with their archives indexed. If collection stopped at an
/// error, `stopped` is it: an archive before it that is corrupt is the first error, though.
fn finish(opts: &Options, files: Vec<Collected>, stopped: Result<()>) -> Result<Vec<InputFile>> {
    use rayon::prelude::*;
    let files: Vec<Result<InputFile>> = files
        .into_par_iter()
        .map(|c| match c {
            Collected::Ready(file) => Ok(file),
            Collected::Archive {
                display,
                path,
                data,
                whole,
            } => {
                let mut archive = Archive::parse(display, &path, data, whole)?;
                if opts.fat_lto_objects {
                    archive.take_fat_lto_bitcode();
                }
                Ok(InputFile::Archive(archive))
            }
        })
        .collect();
    let files = files.into_iter().collect::<Result<Vec<_>>>()?;
    stopped.map(|()| files)
}

/// The (device, inode) of the file at `path`, if there is one.
fn file_identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some((m.dev(), m.ino()))
}

/// Resolves every input of the command line to a mapped, identified file.
pub fn collect_inputs(opts: &Options) -> Result<Inputs> {
    let output = file_identity(&opts.output).filter(|_| opts.output.as_os_str() != "-");
    let mut c = Collector::new(opts, opts.library_paths.clone(), output)?;
    let stopped = opts.inputs.iter().try_for_each(|input| {
        match input {
            InputArg::File { path, state } => {
                let display = path.display().to_string();
                c.add_path(path, display, None, *state, 0)?
            }
            InputArg::Library { name, state } => c.add_library(name, *state, 0)?,
            InputArg::JustSymbols { path } => {
                let display = path.display().to_string();
                let data = map_file(path)?;
                let object = just_symbols::object_for(data)
                    .map_err(|e| LinkError::bad_input(&display, e))?;
                c.push(
                    InputFile::Object {
                        name: display,
                        data: Box::leak(object.into_boxed_slice()),
                    },
                    false,
                );
            }
            InputArg::Script { path, state } => {
                // GNU ld looks for a `-T` script in the `-L` directories too.
                let found = search::find_script(path, &c.search_dirs, opts.sysroot.as_deref());
                if !found.exists() {
                    // lld's words.
                    return Err(LinkError::Link(format!(
                        "cannot find linker script {}",
                        path.display()
                    )));
                }
                let display = found.display().to_string();
                let data = map_file(&found)?;
                if !script::looks_like_script(data) {
                    return Err(LinkError::bad_input(display, "-T names no linker script"));
                }
                c.add_script(&found, &display, data, *state, 0)?;
            }
            // Symbol resolution treats every archive like lld does (all lazy symbols visible at
            // once), so a group needs no re-scanning: its bounds only number the files.
            InputArg::StartGroup => {
                c.groups.start();
            }
            InputArg::EndGroup => c.groups.end(false),
        }
        Ok(())
    });
    Ok(Inputs {
        files: finish(opts, std::mem::take(&mut c.files), stopped)?,
        groups: c.groups.ids,
        scripts: c.scripts,
    })
}

/// A library that `from`'s `.deplibs` section (or bitcode's `llvm.dependent-libraries`)
/// names, as lld finds it ([`search::find_dependent_library`]); none is an error in lld's
/// words.
pub fn collect_dependent_library(opts: &Options, name: &str, from: &str) -> Result<Vec<InputFile>> {
    let sysroot = opts.sysroot.as_deref();
    let found =
        search::find_dependent_library(name, &opts.library_paths, opts.static_link, sysroot)
            .ok_or_else(|| {
                LinkError::Link(format!(
                    "{from}: unable to find library from dependent library specifier: {name}"
                ))
            })?;
    let mut c = Collector::new(opts, opts.library_paths.clone(), None)?;
    let display = found.display().to_string();
    let stopped = c.add_path(&found, display, None, InputState::default(), 0);
    finish(opts, c.files, stopped)
}

/// A library a linker plugin asked for (`add_input_library`), searched in `extra_dirs`
/// first, unless it is already one of `loaded` (gcc's plugin names the libraries the
/// command line already has, so that code it generates can use them).
pub fn collect_plugin_library(
    opts: &Options,
    name: &str,
    extra_dirs: &[PathBuf],
    loaded: &dyn Fn(&str) -> bool,
) -> Result<Vec<InputFile>> {
    let dirs = extra_dirs
        .iter()
        .chain(&opts.library_paths)
        .cloned()
        .collect();
    let mut c = Collector::new(opts, dirs, None)?;
    let static_only = opts.static_link;
    let found = search::find_library(name, &c.search_dirs, static_only, opts.sysroot.as_deref())
        .ok_or_else(|| missing_library(opts, name))?;
    if loaded(&found.display().to_string()) {
        return Ok(Vec::new());
    }
    let state = InputState {
        as_needed: true,
        ..InputState::default()
    };
    let stopped = c.add_library(name, state, 0);
    finish(opts, c.files, stopped)
}

/// lld's error for `-lNAME` found nowhere (after `--error-handling-script` has run).
fn missing_library(opts: &Options, name: &str) -> LinkError {
    let error = format!("unable to find library -l{name}");
    let script = opts.error_handling_script.as_deref();
    LinkError::Many(crate::error_script::report(
        script,
        crate::error_script::Tag::MissingLib,
        name,
        error,
    ))
}

impl<'o> Collector<'o> {
    fn new(
        opts: &'o Options,
        search_dirs: Vec<PathBuf>,
        output: Option<(u64, u64)>,
    ) -> Result<Collector<'o>> {
        Ok(Collector {
            opts,
            files: Vec::new(),
            groups: GroupIds::default(),
            remap: remap::Remap::of(opts)?,
            scripts: ScriptFacts::default(),
            search_dirs,
            output,
        })
    }

    /// `lazy`: between `--start-lib` and `--end-lib`.
    fn push(&mut self, file: InputFile, lazy: bool) {
        self.files.push(Collected::Ready(file));
        self.groups.add(lazy);
    }

    fn add_library(&mut self, name: &str, state: InputState, depth: u32) -> Result<()> {
        let static_only = state.static_only || self.opts.static_link;
        let found = search::find_library(
            name,
            &self.search_dirs,
            static_only,
            self.opts.sysroot.as_deref(),
        )
        .ok_or_else(|| missing_library(self.opts, name))?;
        let display = found.display().to_string();
        // DT_NEEDED for a library without DT_SONAME is its file name, as GNU ld records it.
        let soname = found.file_name().map(|n| n.to_string_lossy().into_owned());
        self.add_path(&found, display, soname, state, depth)
    }

    fn add_path(
        &mut self,
        path: &Path,
        display: String,
        soname: Option<String>,
        state: InputState,
        depth: u32,
    ) -> Result<()> {
        let remapped;
        let (path, display) = match self.remap.apply(path) {
            remap::Remapped::Dropped => return Ok(()),
            remap::Remapped::Read(to) if to != path => {
                remapped = to;
                (remapped.as_path(), remapped.display().to_string())
            }
            remap::Remapped::Read(_) => (path, display),
        };
        // GNU ld's rule: linking would destroy the input while it is being read.
        if self.output.is_some() && self.output == file_identity(path) {
            return Err(LinkError::bad_input(
                display,
                "input file is the same as the output file",
            ));
        }
        let data = map_file(path)?;
        if state.binary {
            let object = binary::object_for(&display, data)
                .map_err(|e| LinkError::bad_input(&display, e))?;
            self.push(
                InputFile::Object {
                    name: display,
                    data: Box::leak(object.into_boxed_slice()),
                },
                state.lazy,
            );
            return Ok(());
        }
        let fat_bitcode = || {
            let fat = self.opts.fat_lto_objects;
            fat.then(|| crate::object_file::fat_lto_bitcode(data))
                .flatten()
        };
        let kind = match identify(data) {
            FileType::Relocatable if fat_bitcode().is_some() => FileType::Bitcode,
            kind => kind,
        };
        let data = fat_bitcode().map_or(data, |(bitcode, _)| bitcode);
        match kind {
            FileType::Relocatable if state.lazy => {
                let archive = Archive::of_lazy_object(display, path, data)?;
                self.push(InputFile::Archive(archive), true);
            }
            FileType::Bitcode if state.lazy => {
                crate::diag::warn(&format!(
                    "{display}: bitcode between --start-lib and --end-lib is linked whether \
                     needed or not"
                ));
                self.push(
                    InputFile::Bitcode {
                        name: display,
                        data,
                    },
                    true,
                )
            }
            FileType::Relocatable => self.push(
                InputFile::Object {
                    name: display,
                    data,
                },
                state.lazy,
            ),
            FileType::Bitcode => self.push(
                InputFile::Bitcode {
                    name: display,
                    data,
                },
                state.lazy,
            ),
            // A thin archive's members are files of their own, read in command-line order.
            FileType::Archive if data.starts_with(b"!<thin>\n") => {
                let archive = Archive::parse(display, path, data, state.whole_archive)?;
                self.push(InputFile::Archive(archive), state.lazy);
            }
            FileType::Archive => {
                self.files.push(Collected::Archive {
                    display,
                    path: path.to_path_buf(),
                    data,
                    whole: state.whole_archive,
                });
                self.groups.add(state.lazy);
            }
            FileType::SharedObject => {
                if self.opts.static_link {
                    return Err(LinkError::bad_input(
                        display,
                        "attempted static link of a shared object",
                    ));
                }
                let soname = soname.unwrap_or_else(|| display.clone());
                self.push(
                    InputFile::Shared {
                        name: display,
                        soname,
                        data,
                        as_needed: state.as_needed,
                    },
                    state.lazy,
                );
            }
            FileType::Script => self.add_script(path, &display, data, state, depth)?,
            FileType::OtherElf => {
                return Err(LinkError::bad_input(
                    display,
                    "is an ELF file but neither a relocatable object nor a shared library",
                ))
            }
            FileType::Unknown => {
                return Err(LinkError::bad_input(
                    display,
                    if data.is_empty() {
                        "file is empty"
                    } else {
                        "unknown file type (not ELF, an archive, bitcode or a linker script)"
                    },
                ))
            }
        }
        Ok(())
    }

    fn add_script(
        &mut self,
        path: &Path,
        display: &str,
        data: &[u8],
        state: InputState,
        depth: u32,
    ) -> Result<()> {
        if depth > 16 {
            return Err(LinkError::bad_input(
                display,
                "linker scripts nest too deeply",
            ));
        }
        let text = std::str::from_utf8(data)
            .map_err(|_| LinkError::bad_input(display, "linker script is not valid UTF-8"))?;
        let parsed = script::parse_script(text)
            .map_err(|e| LinkError::Link(format!("{display}:{}: {e}", e.line())))?;
        for dir in &parsed.search_dirs {
            self.search_dirs.push(PathBuf::from(dir));
        }
        let script_dir = path.parent().unwrap_or(Path::new("."));
        let name = display.to_string();
        if parsed.entry.is_some() {
            self.scripts.entry = parsed.entry.clone();
        }
        let facts = &mut self.scripts;
        facts
            .assignments
            .extend(parsed.assignments.iter().map(|a| (name.clone(), a.clone())));
        facts.asserts.extend(
            parsed
                .asserts
                .iter()
                .map(|(e, m, l)| (name.clone(), e.clone(), m.clone(), *l)),
        );
        facts
            .versions
            .extend(parsed.versions.iter().map(|v| (name.clone(), v.clone())));
        facts.memory.extend(parsed.memory.iter().cloned());
        facts.phdrs.extend(parsed.phdrs.iter().cloned());
        if let Some(commands) = &parsed.sections {
            if let Some((first, _)) = &facts.sections {
                return Err(LinkError::Link(format!(
                    "{display}: a second SECTIONS (the first is in {first})"
                )));
            }
            facts.sections = Some((name.clone(), commands.clone()));
            facts.insert = parsed.insert.clone();
        }
        for (file, line) in &parsed.includes {
            // GNU ld and lld look in the current directory, then the `-L` directories;
            // rld last in the including script's directory.
            let sysroot = self.opts.sysroot.as_deref();
            let found = Some(search::find_script(
                Path::new(file),
                &self.search_dirs,
                sysroot,
            ))
            .filter(|p| p.is_file())
            .or_else(|| search::resolve_script_path(file, script_dir, &self.search_dirs, sysroot))
            .ok_or_else(|| {
                LinkError::Link(format!("{display}:{line}: cannot find {file} to INCLUDE"))
            })?;
            let shown = found.display().to_string();
            let data = map_file(&found)?;
            self.add_script(&found, &shown, data, state, depth + 1)?;
        }
        // A script's GROUP numbers its files as `--start-group` does.
        let mut outer = None;
        for (i, input) in parsed.inputs.iter().enumerate() {
            if parsed.groups.iter().any(|g| g.start == i) {
                outer = Some(self.groups.start());
            }
            match input {
                script::ScriptInput::Path { path: p, as_needed } => {
                    let st = InputState {
                        as_needed: state.as_needed || *as_needed,
                        ..state
                    };
                    let found = search::resolve_script_path(
                        p,
                        script_dir,
                        &self.search_dirs,
                        self.opts.sysroot.as_deref(),
                    )
                    .ok_or_else(|| {
                        LinkError::bad_input(
                            display,
                            format!("cannot find {p} named by the script"),
                        )
                    })?;
                    let shown = found.display().to_string();
                    self.add_path(&found, shown, None, st, depth + 1)?;
                }
                script::ScriptInput::Library { name, as_needed } => {
                    let st = InputState {
                        as_needed: state.as_needed || *as_needed,
                        ..state
                    };
                    self.add_library(name, st, depth + 1)?;
                }
            }
            if parsed.groups.iter().any(|g| g.end == i + 1) {
                if let Some(outer) = outer.take() {
                    self.groups.end(outer);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn released_pages_of_a_mapped_input_read_the_same_and_other_memory_is_untouched() {
        let dir = std::env::temp_dir().join(format!("rld-release-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("input.bin");
        let bytes: Vec<u8> = (0..64 * 1024).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let mapped = map_file(&path).unwrap();
        assert_eq!(mapped, &bytes[..]);
        release_pages(&mapped[100..60_000]);
        assert_eq!(
            mapped,
            &bytes[..],
            "a released page read back the file's bytes"
        );
        // Heap memory is not a mapped input: releasing it would zero it.
        let heap: &'static [u8] = Box::leak(bytes.clone().into_boxed_slice());
        release_pages(heap);
        assert_eq!(heap, &bytes[..]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
