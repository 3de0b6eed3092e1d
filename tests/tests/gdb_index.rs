//! `--gdb-index`: the `.gdb_index` rld writes, compared with lld-22's entry by entry (units,
//! the unit of each function's address, names with their units and kinds), and read by gdb.

use rld_tests::Compiler::Clang;
use rld_tests::*;
use std::collections::BTreeMap;
use std::path::Path;

const MAIN: &str = r#"#include <stdio.h>
struct point { int x, y; };
int helper(struct point *p);
static int local_fn(int v) { return v * 3; }
int main(void) { struct point p = {1, 2}; printf("%d\n", helper(&p) + local_fn(2)); return 0; }
"#;

const HELPER: &str = r#"struct point { int x, y; };
typedef unsigned long my_size;
my_size global_counter;
int helper(struct point *p) {
    global_counter++;
    return p->x + p->y;
}
"#;

const TEMPLATES: &str = r#"#include <vector>
template <class T> T twice(T x) { return x + x; }
int from_templates(int n) {
    std::vector<int> v;
    for (int i = 0; i < n; i++) v.push_back(twice(i));
    return v.empty() ? 0 : v.back();
}
"#;

/// What `readelf --debug-dump=gdb_index` shows: the unit table, the address table and
/// the symbol table (name → its units with their kinds, sorted).
struct Index {
    units: Vec<String>,
    addresses: Vec<(u64, u64, u32)>,
    symbols: BTreeMap<String, Vec<String>>,
}

fn index(path: &Path) -> Index {
    let text = tool_stdout("readelf", &["--debug-dump=gdb_index"], path);
    assert!(text.contains("Version 7"), "{}: {text}", path.display());
    let mut part = "";
    let mut out = Index {
        units: Vec::new(),
        addresses: Vec::new(),
        symbols: BTreeMap::new(),
    };
    let mut current = String::new();
    for line in text.lines() {
        if line.ends_with("table:") {
            part = line;
            continue;
        }
        match part {
            "CU table:" if line.starts_with('[') => out.units.push(line.to_string()),
            "Address table:" if !line.is_empty() => {
                let f: Vec<&str> = line.split_whitespace().collect();
                let hex = |s: &str| u64::from_str_radix(s, 16).unwrap();
                out.addresses
                    .push((hex(f[0]), hex(f[1]), f[2].parse().unwrap()));
            }
            "Symbol table:" if line.starts_with('[') => {
                // "[slot] name: unit [kind]" or "[slot] name:" with the units below.
                let rest = line.split_once("] ").unwrap().1;
                let (name, units) = rest.rsplit_once(':').unwrap();
                current = name.to_string();
                let entry = out.symbols.entry(current.clone()).or_default();
                if !units.trim().is_empty() {
                    entry.push(units.trim().to_string());
                }
            }
            "Symbol table:" if line.starts_with('\t') => {
                out.symbols
                    .get_mut(&current)
                    .unwrap()
                    .push(line.trim().to_string());
            }
            _ => {}
        }
    }
    for units in out.symbols.values_mut() {
        units.sort();
    }
    out
}

/// Per function of the output (from `.symtab`), the unit whose address range holds it.
fn unit_of_functions(path: &Path, index: &Index) -> BTreeMap<String, Option<u32>> {
    symbols(path)
        .into_iter()
        .filter(|s| s.table == ".symtab" && s.typ == "FUNC" && s.is_defined() && s.size > 0)
        .map(|s| {
            let unit = index
                .addresses
                .iter()
                .find(|&&(lo, hi, _)| s.value >= lo && s.value < hi)
                .map(|a| a.2);
            (s.name, unit)
        })
        .collect()
}

/// Units, the unit of every function's address and every public name with its units and
/// kinds are those of lld's index; gdb finds a function's source line through it.
#[test]
fn gdb_index_as_lld() {
    let t = Test::new();
    let flags = ["-O1", "-g", "-ggnu-pubnames"];
    let main = t.compile(Clang, MAIN, &flags);
    let helper = t.compile(Clang, HELPER, &flags);
    let templates = t.compile_cxx(Clang, TEMPLATES, &flags);
    let objs = [main.as_path(), helper.as_path(), templates.as_path()];
    let lld = t.link_cxx(
        Driver::ClangLld,
        &objs,
        &["-Wl,--gdb-index"],
        "lld/prog",
        false,
    );
    let rld = t.link_cxx(
        Driver::ClangRld,
        &objs,
        &["-Wl,--gdb-index"],
        "rld/prog",
        true,
    );
    assert_same_output(&rld, &lld, &[], &[], Some("9\n"));
    let (ours, theirs) = (index(&rld), index(&lld));
    assert_eq!(ours.units, theirs.units);
    assert_eq!(ours.units.len(), 3);
    assert_eq!(ours.symbols, theirs.symbols);
    for (name, kind) in [
        ("helper", "1 [global, function]"),
        ("global_counter", "1 [global, variable]"),
        ("my_size", "1 [static, type]"),
    ] {
        assert_eq!(ours.symbols[name], [kind], "{name}");
    }
    assert_eq!(ours.addresses.len(), theirs.addresses.len());
    let functions = unit_of_functions(&rld, &ours);
    assert_eq!(functions, unit_of_functions(&lld, &theirs));
    assert_eq!(functions["helper"], Some(1));
    assert_eq!(functions["_Z14from_templatesi"], Some(2));

    let gdb = std::process::Command::new("gdb")
        .args(["-batch", "-nx", "-ex", "info line helper"])
        .arg(&rld)
        .output()
        .expect("gdb");
    let (out, err) = (
        String::from_utf8_lossy(&gdb.stdout),
        String::from_utf8_lossy(&gdb.stderr),
    );
    assert!(
        out.contains("Line 5 of \"") && out.contains("<helper>"),
        "{out}{err}"
    );
    assert!(!err.to_lowercase().contains("index"), "{err}");
}

/// Without `-ggnu-pubnames` the index has units and addresses only, as lld's; without the
/// option (or after `--no-gdb-index`) there is none.
#[test]
fn gdb_index_without_public_names() {
    let t = Test::new();
    let main = t.compile(Clang, MAIN, &["-O1", "-g"]);
    let helper = t.compile(Clang, HELPER, &["-O1", "-g"]);
    let (lld, rld) = (
        t.link(
            Driver::ClangLld,
            &[&main, &helper],
            &["-Wl,--gdb-index"],
            "lld/prog",
        ),
        t.link(
            Driver::ClangRld,
            &[&main, &helper],
            &["-Wl,--gdb-index"],
            "rld/prog",
        ),
    );
    let (ours, theirs) = (index(&rld), index(&lld));
    assert_eq!(ours.units, theirs.units);
    assert!(ours.symbols.is_empty() && theirs.symbols.is_empty());
    assert_eq!(
        unit_of_functions(&rld, &ours),
        unit_of_functions(&lld, &theirs)
    );
    let none = t.link(
        Driver::ClangRld,
        &[&main, &helper],
        &["-Wl,--gdb-index", "-Wl,--no-gdb-index"],
        "rld/none",
    );
    assert!(find_section(&sections(&none), ".gdb_index").is_none());
}
