//! What the driver needs from the linker it runs in, and nothing more: the facts of the link
//! as plain data ([`LinkFacts`]) and the outcome of symbol resolution through [`Host`].
//! rld answers from its own symbol table; a gold plugin answers from the `LDPR_*`
//! resolutions its host linker gives it. Everything ELF- or command-line-specific stays on
//! the host's side of this line.

use rld_summaries::GlobalId;
use std::path::PathBuf;

/// The link the LTO step is part of, as the host's options and inputs decide it.
#[derive(Debug, Clone, Default)]
pub struct LinkFacts {
    /// The output file: `--save-temps` names its intermediate files after it.
    pub output: PathBuf,
    /// `-r`: one object comes back, and every global stays visible to the objects it is
    /// later linked with.
    pub relocatable: bool,
    /// `-shared`: a default-visibility definition may be replaced at run time.
    pub shared: bool,
    /// The output is position independent (PIE or shared library).
    pub pic: bool,
    /// Names the program needs whatever the code says (entry point unless `-shared`/`-r`,
    /// `-u`, `-init`, `-fini`, both names of each `--wrap` pair): they and what they reach
    /// survive.
    pub roots: Vec<String>,
    /// The host's thread count (`--threads=N`); `-plugin-opt=jobs=N` overrides it, and
    /// without either every core is used.
    pub threads: Option<usize>,
    /// `--time`: each phase of the LTO step is reported through [`Host::note`].
    pub print_timing: bool,
}

/// How the host resolved one bitcode symbol: what lld's `InputFile::resolve` reads from its
/// symbol table, and what a plugin learns from `LDPR_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymbolFacts {
    /// The bitcode global whose definition prevails, if one does (else a native object's,
    /// a shared library's, or none).
    pub prevailing: Option<GlobalId>,
    /// A native (non-bitcode) object references or defines it: LTO must keep it visible.
    pub native_ref: bool,
    /// It is in the output's dynamic symbol table.
    pub in_dynsym: bool,
    /// It is exported from the output (a defined symbol in `.dynsym`).
    pub exported: bool,
    /// A shared library references or defines it, so the output must export it.
    pub dso_ref: bool,
    /// It may be bound to another module's definition at run time.
    pub preemptible: bool,
    /// Its most constraining visibility is STV_DEFAULT.
    pub default_visibility: bool,
}

/// The linker the driver runs in.
pub trait Host {
    /// How the link resolved the global symbol `name`; None if the link has no such symbol.
    fn symbol(&self, name: &[u8]) -> Option<SymbolFacts>;
    /// Whether the link refers to `__start_SECTION` or `__stop_SECTION` (asked only for
    /// sections named like a C identifier): those symbols reach into the section without
    /// naming what it holds, so its globals must survive as they are.
    fn section_bounds_referenced(&self, section: &str) -> bool;
    /// A warning, printed as the host prints its own.
    fn warning(&self, msg: &str);
    /// A line of `--time` output (a duration, then the phase), printed as the host prints
    /// its own.
    fn note(&self, msg: &str);
}
