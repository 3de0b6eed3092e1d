//! `--branch-to-branch` (lld's, on by default at `-O2`): a call or jump to an instruction
//! that only jumps on (`jmp target`, a thunk, a tail call left alone) goes straight to the
//! final target. The program does what it did, a jump sooner.
//!
//! lld's rules, kept exactly, since they decide the output's bytes: the branch is an
//! `R_X86_64_PLT32` relocation (its addend only places the field: the branch goes to the
//! symbol, or for a section symbol to the addend + 4 within it), whose target is defined
//! here, cannot be preempted, is no IFUNC, and lies in a read-only executable section
//! the linker copies as it is. The instruction there is `jmp rel32` (0xe9) with an
//! `R_X86_64_PC32` or `R_X86_64_PLT32` relocation on its field; the branch is redirected
//! to that relocation's target, followed through at most five more such jumps (a jump to
//! itself ends the chain). Relocations are taken in input order, and a redirected one is
//! followed as redirected.
//!
//! Only what the writer needs changes: the relocation's target, addend and action. The
//! scan has already made whatever the final jump needs (its PLT entry).

use crate::context::{Link, Target};
use crate::object_file::{FileId, SectionKind, LE};
use crate::reloc_action::Action;
use crate::scan::RelocPlan;
use object::elf::*;
use object::read::elf::Rela as _;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// lld's bound on the jumps followed after the first.
const MORE_JUMPS: usize = 5;

/// A relocation as the writer computes it: what it refers to, with which addend, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Branch {
    pub target: Target,
    pub addend: i64,
    pub action: Action,
}

/// A relocation: file, section, and its position in the section's relocations.
type RelocId = (FileId, u32, u32);

/// Every redirected relocation, by file: `(section, relocation, now)`, in order.
#[derive(Default)]
pub struct Redirects {
    files: Vec<Vec<(u32, u32, Branch)>>,
}

impl Redirects {
    /// Adds redirected relocations `(file, section, relocation, now)`; one already there
    /// is replaced.
    pub fn add(&mut self, more: Vec<(FileId, u32, u32, Branch)>) {
        let mut touched = Vec::new();
        for (file, sec, i, now) in more {
            if self.files.len() <= file as usize {
                self.files.resize_with(file as usize + 1, Vec::new);
            }
            let list = &mut self.files[file as usize];
            list.retain(|&(s, r, _)| (s, r) != (sec, i));
            list.push((sec, i, now));
            touched.push(file);
        }
        for file in touched {
            self.files[file as usize].sort_by_key(|&(s, r, _)| (s, r));
        }
    }

    /// The redirected relocations of one section, for a walk of its relocations in order
    /// ([`SectionRedirects::at`]).
    pub fn of_section(&self, file: FileId, sec: u32) -> SectionRedirects<'_> {
        let list = self.files.get(file as usize).map_or(&[][..], |v| &v[..]);
        let start = list.partition_point(|&(s, _, _)| s < sec);
        let end = start + list[start..].partition_point(|&(s, _, _)| s == sec);
        SectionRedirects(list[start..end].iter().peekable())
    }
}

/// One section's redirected relocations, taken in relocation order.
pub struct SectionRedirects<'a>(std::iter::Peekable<std::slice::Iter<'a, (u32, u32, Branch)>>);

impl SectionRedirects<'_> {
    /// What relocation `i` now is, if redirected; relocations are asked for in order.
    pub fn at(&mut self, i: usize) -> Option<Branch> {
        self.0
            .next_if(|&&(_, at, _)| at as usize == i)
            .map(|&(_, _, now)| now)
    }
}

/// Finds every branch to a branch and where it goes instead (see the module's comment).
pub fn find(link: &Link, plan: &RelocPlan) -> Redirects {
    // A branch's first jump does not depend on what is redirected (a relocation changes
    // only when it is itself taken, below): found in parallel.
    let candidates: Vec<Vec<(RelocId, Branch, Jump)>> = (0..link.objects.len() as FileId)
        .into_par_iter()
        .map(|file| first_jumps(link, plan, file))
        .collect();
    let mut redirected: FxHashMap<RelocId, Branch> = FxHashMap::default();
    let mut files = vec![Vec::new(); link.objects.len()];
    let now = |redirected: &FxHashMap<RelocId, Branch>, jump: Jump| {
        redirected.get(&jump.id).copied().unwrap_or(jump.branch)
    };
    for (id, branch, first) in candidates.into_iter().flatten() {
        let mut last = now(&redirected, first);
        for _ in 0..MORE_JUMPS {
            match jump_at(link, plan, last.target, last.addend + 4) {
                Some(next) => last = now(&redirected, next),
                None => break,
            }
        }
        // A section symbol's addend placed the branch; a symbol's only its field.
        let addend = if is_section_symbol(link, branch.target) {
            last.addend
        } else {
            branch.addend + last.addend + 4
        };
        let redirect = Branch { addend, ..last };
        redirected.insert(id, redirect);
        files[id.0 as usize].push((id.1, id.2, redirect));
    }
    Redirects { files }
}

/// A jump's relocation: where it is, and what it holds in the input.
#[derive(Clone, Copy)]
struct Jump {
    id: RelocId,
    branch: Branch,
}

/// One file's branches whose target is a jump: the branch's relocation, what it holds,
/// and the jump.
fn first_jumps(link: &Link, plan: &RelocPlan, file: FileId) -> Vec<(RelocId, Branch, Jump)> {
    let obj = &link.objects[file as usize];
    let mut found = Vec::new();
    for (sec, s) in obj.sections.iter().enumerate() {
        let actions = plan.actions(file, sec as u32);
        if actions.is_empty() || s.flags & u64::from(SHF_EXECINSTR) == 0 {
            continue;
        }
        for (i, (r, &action)) in s.relocs().iter().zip(actions).enumerate() {
            if r.r_type(LE, false) != R_X86_64_PLT32 || !is_direct(action) {
                continue;
            }
            let branch = Branch {
                target: link.target(file, r.r_sym(LE, false) as usize),
                addend: r.r_addend(LE),
                action,
            };
            // A PLT32 branch goes to its symbol whatever the addend, but to the addend + 4
            // within a section symbol's section (the assembler's form for local labels).
            let goes_to = if is_section_symbol(link, branch.target) {
                branch.addend + 4
            } else {
                0
            };
            if let Some(jump) = jump_at(link, plan, branch.target, goes_to) {
                found.push(((file, sec as u32, i as u32), branch, jump));
            }
        }
    }
    found
}

/// Whether an action is a PC-relative value the writer computes (no dynamic relocation
/// left in the place).
fn is_direct(action: Action) -> bool {
    matches!(action, Action::Pc32 | Action::PltPc32)
}

fn is_section_symbol(link: &Link, t: Target) -> bool {
    matches!(t, Target::Local(..)) && link.target_type(t) == STT_SECTION
}

/// The jump at `target` + `offset`, if `target` qualifies (defined here, not preemptible,
/// no IFUNC, in a read-only executable section copied as it is) and a `jmp rel32` with a
/// PC32 or PLT32 relocation on its field is there.
fn jump_at(link: &Link, plan: &RelocPlan, target: Target, offset: i64) -> Option<Jump> {
    if link.is_preemptible(target) || link.target_type(target) == STT_GNU_IFUNC {
        return None;
    }
    let (file, sec, value) = link.defined_in_section(target)?;
    // Code folded by ICF is read where it was kept: the same bytes and relocations.
    let (file, sec) = link.kept_copy(file, sec);
    let s = link.objects[file as usize].sections.get(sec as usize)?;
    let flags = s.flags;
    if !s.is_kept()
        || s.kind != SectionKind::Regular
        || s.sh_type == SHT_NOBITS
        || flags & u64::from(SHF_EXECINSTR) == 0
        || flags & u64::from(SHF_WRITE) != 0
    {
        return None;
    }
    let at = usize::try_from((value as i64).checked_add(offset)?).ok()?;
    if s.data().get(at) != Some(&0xe9) {
        return None;
    }
    let field = at as u64 + 1;
    let relocs = s.relocs();
    let i = relocs.partition_point(|r| r.r_offset(LE) < field);
    let r = relocs.get(i).filter(|r| r.r_offset(LE) == field)?;
    if !matches!(r.r_type(LE, false), R_X86_64_PC32 | R_X86_64_PLT32) {
        return None;
    }
    let action = *plan.actions(file, sec).get(i)?;
    if !is_direct(action) {
        return None;
    }
    Some(Jump {
        id: (file, sec, i as u32),
        branch: Branch {
            target: link.target(file, r.r_sym(LE, false) as usize),
            addend: r.r_addend(LE),
            action,
        },
    })
}
