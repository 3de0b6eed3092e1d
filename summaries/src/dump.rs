//! A readable text form of a [`ModuleSummary`], for `--save-temps`-style debugging and tests.
//!
//! Indices are shown as the names they stand for, so a dump reads like the source. The dump
//! never panics, even on a summary that [`ModuleSummary::validate`] would refuse: a number
//! that points nowhere is printed as `#N?`.

use crate::model::*;
use std::fmt::Write;

/// Renders the summary: a header line, one block per global, then constructors, destructors,
/// call sites, initializer pointers and the number of value-flow facts of each kind.
pub fn dump(s: &ModuleSummary) -> String {
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = write_dump(s, &mut out);
    out
}

fn write_dump(s: &ModuleSummary, out: &mut String) -> std::fmt::Result {
    let name = |i: u32| -> String {
        match s.globals.get(i as usize) {
            Some(g) if g.name.is_empty() => format!("<unnamed #{i}>"),
            Some(g) => g.name.clone(),
            None => format!("#{i}?"),
        }
    };
    let names = |list: &[u32]| list.iter().map(|&i| name(i)).collect::<Vec<_>>().join(", ");

    writeln!(out, "module {} (source {})", s.module_id, s.source_file)?;
    for (i, g) in s.globals.iter().enumerate() {
        writeln!(out)?;
        writeln!(out, "global {}", name(i as u32))?;
        writeln!(
            out,
            "  {}, {}, {}",
            g.kind.name(),
            g.linkage.name(),
            g.visibility.name()
        )?;
        let flags: Vec<&str> = GlobalFlags::NAMES
            .iter()
            .filter(|(bit, _)| g.flags.contains(*bit))
            .map(|(_, n)| *n)
            .collect();
        if !flags.is_empty() {
            writeln!(out, "  flags: {}", flags.join(" "))?;
        }
        let unknown = g.flags.0 & !GlobalFlags::NAMES.iter().fold(0, |a, (b, _)| a | b);
        if unknown != 0 {
            writeln!(out, "  unknown flags: {unknown:#x}")?;
        }
        if let Some(section) = &g.section {
            writeln!(out, "  section: {section}")?;
        }
        if let Some(comdat) = &g.comdat {
            writeln!(out, "  comdat: {comdat}")?;
        }
        if !g.refs.is_empty() {
            writeln!(out, "  refs: {}", names(&g.refs))?;
        }
        if !g.calls.is_empty() {
            writeln!(out, "  calls: {}", names(&g.calls))?;
        }
        if let Some(a) = g.aliasee {
            let what = if g.kind == GlobalKind::IFunc {
                "resolver"
            } else {
                "aliasee"
            };
            writeln!(out, "  {what}: {}", name(a))?;
        }
        if let Some(l) = &g.debug_loc {
            writeln!(out, "  at {}:{}:{}", l.file, l.line, l.column)?;
        }
        for d in s.declared.iter().filter(|d| d.function as usize == i) {
            writeln!(out, "  declared: {}", declared_effects(d))?;
        }
    }

    for (title, list) in [("constructors", &s.ctors), ("destructors", &s.dtors)] {
        writeln!(out)?;
        writeln!(out, "{title}: {}", list.len())?;
        for st in list {
            writeln!(out, "  priority {} {}", st.priority, name(st.function))?;
        }
    }

    writeln!(out)?;
    writeln!(out, "call sites: {}", s.call_sites.len())?;
    for cs in &s.call_sites {
        let callee = match cs.callee {
            Callee::Direct(g) => name(g),
            Callee::Indirect(v) => format!("indirect %{v}"),
        };
        write!(out, "  #{} {} -> {}", cs.id, name(cs.caller), callee)?;
        if let Some(l) = &cs.debug_loc {
            write!(out, " at {}:{}:{}", l.file, l.line, l.column)?;
        }
        writeln!(out)?;
    }

    writeln!(out)?;
    writeln!(out, "inline asm symbols: {}", s.asm_symbols.len())?;
    for a in &s.asm_symbols {
        let what = if a.defined { "defines" } else { "names" };
        let weak = if a.weak { " (weak)" } else { "" };
        writeln!(out, "  {what} {}{weak}", a.name)?;
    }
    if !s.dependent_libraries.is_empty() {
        writeln!(
            out,
            "dependent libraries: {}",
            s.dependent_libraries.join(" ")
        )?;
    }
    if s.type_tests {
        writeln!(out, "type tests: yes (the link is one partition)")?;
    }

    writeln!(out)?;
    writeln!(out, "initializer pointers: {}", s.initializers.len())?;
    for ip in &s.initializers {
        writeln!(
            out,
            "  {}+{} -> {}",
            name(ip.global),
            ip.offset,
            name(ip.target)
        )?;
    }

    writeln!(out)?;
    let mut counts = [0usize; ValueFact::KIND_NAMES.len()];
    for f in &s.facts {
        counts[f.kind_index()] += 1;
    }
    let by_kind: Vec<String> = ValueFact::KIND_NAMES
        .iter()
        .zip(counts)
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    write!(out, "facts: {}", s.facts.len())?;
    if !by_kind.is_empty() {
        write!(out, " ({})", by_kind.join(", "))?;
    }
    writeln!(out, " over {} values", s.value_count)?;

    let mut kinds = [0usize; AccessKind::ALL.len()];
    for a in &s.accesses {
        kinds[AccessKind::ALL
            .iter()
            .position(|k| *k == a.kind)
            .unwrap_or(0)] += 1;
    }
    let by_kind: Vec<String> = AccessKind::ALL
        .iter()
        .zip(kinds)
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| format!("{} {n}", k.name()))
        .collect();
    write!(out, "memory accesses: {}", s.accesses.len())?;
    if !by_kind.is_empty() {
        write!(out, " ({})", by_kind.join(", "))?;
    }
    writeln!(out, " in {} functions", s.shapes.len())
}

/// `memory(argmem: readwrite, ...) nofree params(nocapture readonly, -)`.
fn declared_effects(d: &DeclaredEffects) -> String {
    const PLACES: [(&str, u8, u8); 3] = [
        ("argmem", MemoryEffects::ARG_READ, MemoryEffects::ARG_WRITE),
        (
            "inaccessiblemem",
            MemoryEffects::INACCESSIBLE_READ,
            MemoryEffects::INACCESSIBLE_WRITE,
        ),
        (
            "other",
            MemoryEffects::OTHER_READ,
            MemoryEffects::OTHER_WRITE,
        ),
    ];
    let places: Vec<String> = PLACES
        .iter()
        .filter_map(|&(place, r, w)| {
            let how = match (d.memory.has(r), d.memory.has(w)) {
                (true, true) => "readwrite",
                (true, false) => "read",
                (false, true) => "write",
                (false, false) => return None,
            };
            Some(format!("{place}: {how}"))
        })
        .collect();
    const PARAMS: [(u8, &str); 5] = [
        (ParamEffects::NOCAPTURE, "nocapture"),
        (ParamEffects::READONLY, "readonly"),
        (ParamEffects::WRITEONLY, "writeonly"),
        (ParamEffects::READNONE, "readnone"),
        (ParamEffects::RETURNED, "returned"),
    ];
    let params: Vec<String> = d
        .params
        .iter()
        .map(|p| {
            let names: Vec<&str> = PARAMS
                .iter()
                .filter(|(bit, _)| p.has(*bit))
                .map(|(_, n)| *n)
                .collect();
            if names.is_empty() {
                "-".to_string()
            } else {
                names.join(" ")
            }
        })
        .collect();
    format!(
        "memory({}){} params({})",
        places.join(", "),
        if d.nofree { " nofree" } else { "" },
        params.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::full_summary;

    #[test]
    fn dump_shows_names_flags_and_counts() {
        let text = dump(&full_summary());
        for expected in [
            "module libfoo.a(tu1.o) (source /src/tu1.c)",
            "global main\n  function, external, default\n  flags: dso_local\n  refs: table\n  calls: helper, ext\n  at dir/tu1.c:3:0\n",
            "global helper\n  function, linkonce_odr, hidden\n  flags: unnamed_addr in_comdat can_omit\n  comdat: helper\n",
            "  section: .data.rel.ro.tables\n",
            "global alias_of_helper\n  alias, weak_odr, protected\n  aliasee: helper\n",
            "global memcpy_ifunc\n  ifunc, weak, default\n  resolver: resolve_memcpy\n",
            "flags: used compiler_used",
            "flags: declaration",
            "constructors: 1\n  priority 65535 main\n",
            "destructors: 1\n  priority 101 helper\n",
            "  #0 main -> helper at dir/tu1.c:4:12\n  #1 main -> indirect %7\n",
            "  table+0 -> helper\n  table+18446744073709551615 -> ext\n",
            "inline asm symbols: 2\n  defines helper@@V_2\n  names asm_ref (weak)\n",
            "facts: 16 (address_of 1, copy 1, field_addr 4, load 1, store 1, argument 1, \
             call_argument 1, call_result 1, return 1, escape 1, stack_object 2, \
             array_element 1) over 8 values\n",
            "memory accesses: 2 (read 1, read_write 1) in 1 functions\n",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in\n{text}");
        }
    }

    #[test]
    fn dump_of_an_invalid_summary_does_not_panic() {
        let mut s = full_summary();
        s.globals[0].calls.push(99);
        s.globals[0].flags.insert(1 << 20);
        s.globals[1].name.clear();
        let text = dump(&s);
        assert!(text.contains("calls: <unnamed #1>, ext, #99?"), "{text}");
        assert!(text.contains("unknown flags: 0x100000"), "{text}");
    }
}
