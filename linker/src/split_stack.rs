//! gcc's `-fsplit-stack` (gccgo's goroutine stacks): each function of an object with a
//! `.note.GNU-split-stack` section checks its stack in its prologue and, when the stack
//! segment is short, calls `__morestack` for a new one, which holds the function's frame
//! and little more. A function without the check (from an object compiled without the
//! option, or a shared library's) would run past such a segment: so, as gold and lld do,
//! the prologue of every split-stack function that calls one is changed to ask for 16 KiB
//! more (`--split-stack-adjust-size`), and its calls of `__morestack` go to
//! `__morestack_non_split`. Without this the program overflows its segment into whatever
//! lies next (a program that crashed, linked by rld, runs linked by gold or lld).
//!
//! lld's rules, kept: a call's callee matters if it is a function (`STT_FUNC`) not defined
//! in a split-stack object (undefined and shared ones included: how they were compiled
//! cannot be known); the caller is the function symbol of the section around the call;
//! its prologue is `cmp %fs:0x70,%rsp`, which becomes `stc` (the check always fails, so
//! `__morestack_non_split` always runs), or `lea X(%rsp),%r10|%r11`, whose X is lowered; a
//! prologue that is neither is an error, unless the object says some of its functions do
//! not split their stack (`.note.GNU-no-split-stack`).

use crate::branch_to_branch::Branch;
use crate::context::{Link, Target};
use crate::error::{LinkError, Result};
use crate::object_file::{FileId, LE};
use crate::reloc_action::Action;
use crate::scan::RelocPlan;
use object::elf::STT_FUNC;
use object::read::elf::Rela as _;
use object::read::elf::Sym as _;
use rustc_hash::FxHashMap;

/// Bytes written at an offset of a section.
type Patch = (u64, Vec<u8>);

/// Bytes written over sections' contents before they are relocated, by (file, section).
#[derive(Default)]
pub struct Patches {
    by_section: FxHashMap<(FileId, u32), Vec<Patch>>,
}

impl Patches {
    pub fn is_empty(&self) -> bool {
        self.by_section.is_empty()
    }

    /// Writes the patches of section `sec` of `file` into its bytes `buf`.
    pub fn apply(&self, file: FileId, sec: u32, buf: &mut [u8]) {
        for (at, bytes) in self.by_section.get(&(file, sec)).into_iter().flatten() {
            let at = *at as usize;
            if let Some(place) = buf.get_mut(at..at + bytes.len()) {
                place.copy_from_slice(bytes);
            }
        }
    }
}

/// Adjusts the split-stack functions that call functions without the check (see the
/// module's comment): their prologues become patches, their `__morestack` calls
/// redirects, both in `plan`.
pub fn adjust(link: &Link, plan: &mut RelocPlan) -> Result<()> {
    let mut errors = Vec::new();
    let mut patches = Patches::default();
    let mut redirects = Vec::new();
    for (file, obj) in link.objects.iter().enumerate() {
        if !obj.split_stack {
            continue;
        }
        let file = file as FileId;
        for (sec, s) in obj.sections.iter().enumerate() {
            let sec = sec as u32;
            let actions = plan.actions(file, sec);
            if actions.is_empty() || s.flags & u64::from(object::elf::SHF_EXECINSTR) == 0 {
                continue;
            }
            let mut attempted: Vec<(u64, u64)> = Vec::new();
            // The section's functions, read once it calls something without the check.
            let mut functions = None;
            let mut morestack_calls = Vec::new();
            for (i, r) in s.relocs().iter().enumerate() {
                let target = link.target(file, r.r_sym(LE, false) as usize);
                let name = target_name(link, target);
                if name.starts_with(b"__morestack") {
                    if name == b"__morestack" {
                        morestack_calls.push((i, r.r_offset(LE), r.r_addend(LE)));
                    }
                    continue;
                }
                if link.target_type(target) != STT_FUNC || checks_its_stack(link, target) {
                    continue;
                }
                let offset = r.r_offset(LE);
                if attempted
                    .iter()
                    .any(|&(v, size)| offset >= v && offset < v + size)
                {
                    continue;
                }
                let functions = functions.get_or_insert_with(|| section_functions(link, file, sec));
                let Some(&(caller, value, size)) = functions
                    .iter()
                    .find(|&&(_, v, size)| offset >= v && offset < v + size)
                else {
                    continue;
                };
                attempted.push((value, size));
                match adjusted_prologue(s.data(), value, link.opts.split_stack_adjust_size) {
                    Some(patch) => {
                        patches
                            .by_section
                            .entry((file, sec))
                            .or_default()
                            .push(patch);
                    }
                    None if !obj.some_no_split_stack => errors.push(format!(
                        "{}:({}): {} (with -fsplit-stack) calls {} (without -fsplit-stack), \
                         but couldn't adjust its prologue",
                        obj.name,
                        s.name(),
                        String::from_utf8_lossy(caller),
                        String::from_utf8_lossy(name)
                    )),
                    None => {}
                }
            }
            let switched: Vec<_> = morestack_calls
                .into_iter()
                .filter(|&(_, at, _)| attempted.iter().any(|&(v, size)| at >= v && at < v + size))
                .collect();
            if switched.is_empty() {
                continue;
            }
            let Some(non_split) = morestack_non_split(link) else {
                errors.push(
                    "mixing split-stack objects requires a definition of __morestack_non_split"
                        .into(),
                );
                continue;
            };
            for (i, _, addend) in switched {
                let now = Branch {
                    target: non_split,
                    addend,
                    action: Action::Pc32,
                };
                redirects.push((file, sec, i as u32, now));
            }
        }
    }
    if !errors.is_empty() {
        return Err(LinkError::Many(errors));
    }
    plan.patches = patches;
    plan.redirects.add(redirects);
    Ok(())
}

fn target_name(link: &Link, t: Target) -> &'static [u8] {
    match t {
        Target::Global(id) => link.symtab.get(id).name,
        Target::Local(f, i) => link.objects[f as usize].symbol_name(i as usize),
    }
}

/// Whether a called function checks its stack: defined in a split-stack object, or where
/// there is nothing to run (an absolute or linker-defined symbol, as lld counts them).
fn checks_its_stack(link: &Link, t: Target) -> bool {
    match link.defined_in_section(t) {
        Some((file, _, _)) => link.objects[file as usize].split_stack,
        None => match t {
            Target::Global(id) => matches!(
                link.symtab.get(id).def,
                crate::symbols::SymbolDef::Defined { .. } | crate::symbols::SymbolDef::Synthetic
            ),
            Target::Local(..) => true,
        },
    }
}

/// The function symbols of section `sec` of `file`, in the object's symbol table order
/// (lld takes the first whose bytes hold a call): name, value and size. A global counts
/// where this object's definition is the one linked.
fn section_functions(link: &Link, file: FileId, sec: u32) -> Vec<(&'static [u8], u64, u64)> {
    let obj = &link.objects[file as usize];
    (1..obj.symbols.len())
        .filter(|&i| obj.symbols[i].st_type() == STT_FUNC)
        .filter_map(|i| {
            let t = link.target(file, i);
            let (f, s, value) = link.defined_in_section(t)?;
            (f == file && s == sec)
                .then(|| (target_name(link, t), value, obj.symbols[i].st_size(LE)))
        })
        .collect()
}

/// The prologue at `at` in `code`, changed to ask for `extra` more bytes of stack: `cmp
/// %fs:0x70,%rsp` (and the branch after it) becomes `stc; nopl 0x0(%rax,%rax,1)`, and
/// `lea X(%rsp),%r10|%r11` gets X - `extra`. None for any other prologue.
fn adjusted_prologue(code: &[u8], at: u64, extra: u32) -> Option<Patch> {
    let start = usize::try_from(at).ok()?;
    let prologue = code.get(start..start.checked_add(9)?)?;
    if prologue.starts_with(b"\x64\x48\x3b\x24\x25") {
        return Some((at, b"\xf9\x0f\x1f\x84\x00\x00\x00\x00".to_vec()));
    }
    if prologue.starts_with(b"\x4c\x8d\x94\x24") || prologue.starts_with(b"\x4c\x8d\x9c\x24") {
        let x = u32::from_le_bytes(prologue[4..8].try_into().ok()?);
        return Some((at + 4, x.wrapping_sub(extra).to_le_bytes().to_vec()));
    }
    None
}

/// `__morestack_non_split`, where the link defines it (libgcc's `morestack.o`, beside
/// `__morestack`), and nothing can take its place.
fn morestack_non_split(link: &Link) -> Option<Target> {
    let id = link.symtab.lookup(b"__morestack_non_split")?;
    let target = Target::Global(id);
    (link.defined_in_section(target).is_some() && !link.is_preemptible(target)).then_some(target)
}

#[cfg(test)]
mod tests {
    use super::adjusted_prologue;

    #[test]
    fn prologues_are_adjusted_as_gold_and_lld_adjust_them() {
        // cmp %fs:0x70,%rsp; jb ...
        let cmp = b"\x64\x48\x3b\x24\x25\x70\x00\x00\x00\x72\x66";
        assert_eq!(
            adjusted_prologue(cmp, 0, 0x4000),
            Some((0, b"\xf9\x0f\x1f\x84\x00\x00\x00\x00".to_vec()))
        );
        // lea -0x1000(%rsp),%r11
        let lea = b"\x90\x4c\x8d\x9c\x24\x00\xf0\xff\xff\x64";
        assert_eq!(
            adjusted_prologue(lea, 1, 0x4000),
            Some((5, (-0x5000i32).to_le_bytes().to_vec()))
        );
        assert_eq!(
            adjusted_prologue(b"\x55\x48\x89\xe5\x00\x00\x00\x00\x00", 0, 0x4000),
            None
        );
        // Too near the end of the section to be a prologue lld would read.
        assert_eq!(adjusted_prologue(&cmp[..8], 0, 0x4000), None);
    }
}
