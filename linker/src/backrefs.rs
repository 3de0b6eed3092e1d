//! `--warn-backrefs` (lld's): a reference that loads an archive member from a group
//! earlier on the command line than the referencing file's. lld and rld load it; GNU ld
//! does not (it searches an archive only where the archive stands), so such a link fails
//! with GNU ld unless the two are in one `--start-group`. The groups are lld's numbering
//! ([`crate::input::Inputs::groups`]): each file its own, or one per `--start-group`,
//! script `GROUP` or `--start-lib` run; an archive's members share the archive's.

use crate::symbols::{SymbolId, SymbolTable};
use std::collections::BTreeMap;

/// What resolution needs to find backward references, and what it found.
#[derive(Default)]
pub struct Backrefs {
    /// The group of each file of the command line, in order.
    input_groups: Vec<u32>,
    /// How many inputs have been added (those of the command line, then the libraries
    /// `.deplibs` sections name).
    inputs_added: usize,
    /// The group of each archive, by the resolver's archive number.
    archive_groups: Vec<u32>,
    /// The group of the file about to be added.
    pub loading: u32,
    /// The group of the file whose symbols are being resolved.
    pub current: u32,
    /// Per symbol, the first backward reference to it: the referencing file, and the
    /// archive and member it loaded.
    found: BTreeMap<SymbolId, (String, u32, u32)>,
}

impl Backrefs {
    /// For inputs in `input_groups`.
    pub fn new(input_groups: Vec<u32>) -> Self {
        Backrefs {
            input_groups,
            ..Default::default()
        }
    }

    /// The next input is being added: its group is the loading one. Inputs past the
    /// command line's (the libraries `.deplibs` names) are groups of their own after all
    /// of its, as in lld.
    pub fn next_input(&mut self) {
        let k = self.inputs_added;
        self.inputs_added += 1;
        self.loading = match self.input_groups.get(k) {
            Some(&group) => group,
            None => {
                let last = self.input_groups.last().map_or(0, |&g| g + 1);
                let extra = k - self.input_groups.len();
                last.saturating_add(u32::try_from(extra).unwrap_or(u32::MAX))
            }
        };
    }

    /// Archive `archive` (numbered in order) was added, from the group being loaded.
    pub fn archive_added(&mut self, archive: u32) {
        let i = archive as usize;
        if self.archive_groups.len() <= i {
            self.archive_groups.resize(i + 1, 0);
        }
        self.archive_groups[i] = self.loading;
    }

    /// Archive `archive`'s group (the group its members load in).
    pub fn archive_group(&self, archive: u32) -> u32 {
        self.archive_groups
            .get(archive as usize)
            .copied()
            .unwrap_or(0)
    }

    /// A reference from `from` (in group `current`) to `id` loads `member` of `archive`:
    /// noted if the archive's group is earlier (the first such reference per symbol).
    pub fn reference(&mut self, id: SymbolId, from: &str, archive: u32, member: u32) {
        if from.is_empty() || self.archive_group(archive) >= self.current {
            return;
        }
        self.found
            .entry(id)
            .or_insert_with(|| (from.to_string(), archive, member));
    }

    /// A later archive also defines `id`, already defined: GNU ld would not have failed
    /// (the "linking sandwich" `-ldef1 -lref -ldef2`), so nothing is reported for it.
    pub fn defined_again(&mut self, id: SymbolId) {
        self.found.remove(&id);
    }

    /// The warnings, in lld's words, by symbol: references to a symbol left weak are not
    /// reported (a later definition may take its place), nor members `exclude` (globs over
    /// `archive(member)`) names.
    pub fn report(
        &self,
        symtab: &SymbolTable,
        member_name: impl Fn(u32, u32) -> String,
        exclude: &[String],
    ) -> Vec<String> {
        let mut out = Vec::new();
        for (&id, (from, archive, member)) in &self.found {
            let sym = symtab.get(id);
            if sym.weak {
                continue;
            }
            let to = member_name(*archive, *member);
            let excluded = exclude
                .iter()
                .any(|p| crate::dynamic_list::glob_match(p.as_bytes(), to.as_bytes()));
            if !excluded {
                // lld names the symbol as the objects do (not demangled).
                out.push(format!(
                    "backward reference detected: {} in {from} refers to {to}",
                    String::from_utf8_lossy(sym.name)
                ));
            }
        }
        out
    }
}
