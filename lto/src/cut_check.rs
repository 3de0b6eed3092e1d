//! What the compiled partitions must be to link as one program, checked on their objects
//! (what LLVM actually emitted, whatever the plan said): no symbol is defined strongly by
//! two partitions, and every local shared across partitions (see
//! `rld_summaries::partition::shared_name`) that one partition refers to is defined by
//! exactly one. Otherwise the link would fail with a confusing duplicate, or — for a
//! shared local the linker could resolve elsewhere — run the wrong code.

use object::{Object, ObjectSymbol};
use rld_summaries::partition::split_shared_name;
use std::collections::HashMap;

/// The first inconsistency between the partitions' objects, in words.
pub(crate) fn check_objects(objects: &[Vec<u8>]) -> Result<(), String> {
    if objects.len() < 2 {
        return Ok(());
    }
    // Name → (partition, strong) of its definitions.
    let mut defined: HashMap<Vec<u8>, Vec<(usize, bool)>> = HashMap::new();
    let mut shared_refs: Vec<(usize, Vec<u8>)> = Vec::new();
    for (p, bytes) in objects.iter().enumerate() {
        let file = object::File::parse(bytes.as_slice())
            .map_err(|e| format!("partition {p}'s object cannot be read: {e}"))?;
        for sym in file.symbols() {
            let Ok(name) = sym.name_bytes() else { continue };
            if name.is_empty() || sym.is_local() {
                continue;
            }
            if sym.is_undefined() {
                if split_shared_name(name).is_some() {
                    shared_refs.push((p, name.to_vec()));
                }
            } else {
                defined
                    .entry(name.to_vec())
                    .or_default()
                    .push((p, !sym.is_weak()));
            }
        }
    }
    let show = |n: &[u8]| String::from_utf8_lossy(n).into_owned();
    let mut names: Vec<_> = defined.iter().collect();
    names.sort();
    for (name, defs) in names {
        let strong: Vec<usize> = defs.iter().filter(|d| d.1).map(|d| d.0).collect();
        let shared = split_shared_name(name).is_some();
        if strong.len() > 1 || (shared && defs.len() > 1) {
            let parts: Vec<String> = defs.iter().map(|d| d.0.to_string()).collect();
            return Err(format!(
                "'{}' is defined by partitions {}",
                show(name),
                parts.join(", ")
            ));
        }
    }
    for (p, name) in shared_refs {
        if !defined.contains_key(&name) {
            return Err(format!(
                "partition {p} refers to '{}', which no partition defines",
                show(&name)
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::write::{Object as Writer, Symbol, SymbolSection};
    use object::{Architecture, BinaryFormat, Endianness, SymbolFlags, SymbolKind, SymbolScope};

    /// An object defining `defs` (name, weak) in `.text` and referring to `refs`.
    fn object_with(defs: &[(&str, bool)], refs: &[&str]) -> Vec<u8> {
        let mut w = Writer::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
        let text = w.section_id(object::write::StandardSection::Text);
        w.append_section_data(text, &[0xc3; 16], 1);
        for (i, &(name, weak)) in defs.iter().enumerate() {
            w.add_symbol(Symbol {
                name: name.as_bytes().to_vec(),
                value: i as u64,
                size: 1,
                kind: SymbolKind::Text,
                scope: SymbolScope::Linkage,
                weak,
                section: SymbolSection::Section(text),
                flags: SymbolFlags::None,
            });
        }
        for &name in refs {
            w.add_symbol(Symbol {
                name: name.as_bytes().to_vec(),
                value: 0,
                size: 0,
                kind: SymbolKind::Text,
                scope: SymbolScope::Linkage,
                weak: false,
                section: SymbolSection::Undefined,
                flags: SymbolFlags::None,
            });
        }
        w.write().unwrap()
    }

    #[test]
    fn partitions_that_fit_together_pass() {
        let shared = rld_summaries::partition::shared_name("helper", 3, false);
        let objects = [
            object_with(&[("main", false), ("inl", true)], &[&shared, "puts"]),
            object_with(&[(&shared, false), ("inl", true)], &[]),
        ];
        assert_eq!(check_objects(&objects), Ok(()));
    }

    #[test]
    fn a_strong_symbol_in_two_partitions_is_refused() {
        let objects = [
            object_with(&[("f", false)], &[]),
            object_with(&[("f", false)], &[]),
        ];
        assert_eq!(
            check_objects(&objects),
            Err("'f' is defined by partitions 0, 1".to_string())
        );
    }

    #[test]
    fn a_shared_local_must_be_defined_once() {
        let shared = rld_summaries::partition::shared_name("counter", 0, false);
        let missing = [
            object_with(&[("main", false)], &[&shared]),
            object_with(&[("other", false)], &[]),
        ];
        let e = check_objects(&missing).unwrap_err();
        assert!(
            e.contains("partition 0 refers to") && e.contains("no partition defines"),
            "{e}"
        );
        let twice = [
            object_with(&[(&shared, true)], &[]),
            object_with(&[(&shared, true)], &[]),
        ];
        assert!(check_objects(&twice)
            .unwrap_err()
            .contains("defined by partitions 0, 1"));
    }
}
