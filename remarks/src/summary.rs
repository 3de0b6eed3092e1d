//! `rld remarks summary`: what a remark set holds, counted by kind, pass and name, by source
//! file and function, and the most frequent reasons for missed optimizations.

use crate::model::{Remark, RemarkKind};
use crate::names::display_name;
use std::collections::HashMap;
use std::io::{self, Write};

/// Counts, added one remark at a time (memory grows with distinct names, not with remarks).
#[derive(Debug, Default)]
pub struct Summary {
    pub total: u64,
    pub files: u64,
    by_kind: [u64; RemarkKind::ALL.len()],
    /// (pass, name) → counts by kind.
    by_pass_name: HashMap<(String, String), [u64; RemarkKind::ALL.len()]>,
    by_file: HashMap<String, u64>,
    /// function → (remarks, missed ones).
    by_function: HashMap<String, (u64, u64)>,
}

fn kind_index(k: RemarkKind) -> usize {
    RemarkKind::ALL.iter().position(|&x| x == k).unwrap_or(0)
}

fn kind_name(k: RemarkKind) -> &'static str {
    &k.tag()[1..]
}

/// A count and what it counts, sorted by count (descending), then by name.
fn top<K: Clone + Ord>(map: impl Iterator<Item = (K, u64)>, n: usize) -> Vec<(K, u64)> {
    let mut v: Vec<(K, u64)> = map.collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v.truncate(n);
    v
}

impl Summary {
    pub fn add(&mut self, r: &Remark) {
        self.total += 1;
        let k = kind_index(r.kind);
        self.by_kind[k] += 1;
        // Look up before inserting, so the common case allocates no key.
        match self.by_pass_name.get_mut(&(r.pass.clone(), r.name.clone())) {
            Some(c) => c[k] += 1,
            None => {
                let mut c = [0; RemarkKind::ALL.len()];
                c[k] = 1;
                self.by_pass_name
                    .insert((r.pass.clone(), r.name.clone()), c);
            }
        }
        if let Some(loc) = &r.debug_loc {
            bump(&mut self.by_file, &loc.file, 1);
        }
        let missed = u64::from(matches!(r.kind, RemarkKind::Missed | RemarkKind::Failure));
        match self.by_function.get_mut(r.function.as_str()) {
            Some(c) => {
                c.0 += 1;
                c.1 += missed;
            }
            None => {
                self.by_function.insert(r.function.clone(), (1, missed));
            }
        }
    }

    pub fn count(&self, kind: RemarkKind) -> u64 {
        self.by_kind[kind_index(kind)]
    }

    fn kinds(&self) -> Vec<(&'static str, u64)> {
        RemarkKind::ALL
            .iter()
            .map(|&k| (kind_name(k), self.count(k)))
            .filter(|&(_, n)| n > 0)
            .collect()
    }

    fn passes(&self) -> Vec<(String, u64)> {
        let mut by_pass: HashMap<&str, u64> = HashMap::new();
        for ((pass, _), c) in &self.by_pass_name {
            *by_pass.entry(pass).or_default() += c.iter().sum::<u64>();
        }
        top(
            by_pass.into_iter().map(|(p, n)| (p.to_string(), n)),
            usize::MAX,
        )
    }

    /// (pass, name, kind, count), most frequent first.
    fn names(&self, n: usize) -> Vec<((String, String, &'static str), u64)> {
        let rows = self.by_pass_name.iter().flat_map(|((p, name), c)| {
            RemarkKind::ALL
                .iter()
                .zip(c)
                .filter(|(_, &n)| n > 0)
                .map(move |(&k, &n)| ((p.clone(), name.clone(), kind_name(k)), n))
        });
        top(rows, n)
    }

    /// The most frequent reasons an optimization was missed: (pass, name) of Missed and
    /// Failure remarks (`inline`/`TooCostly`, `loop-vectorize`/`MissedDetails`...).
    fn missed(&self, n: usize) -> Vec<((String, String), u64)> {
        let missed = [RemarkKind::Missed, RemarkKind::Failure].map(kind_index);
        let rows = self.by_pass_name.iter().filter_map(|(key, c)| {
            let n: u64 = missed.iter().map(|&i| c[i]).sum();
            (n > 0).then(|| (key.clone(), n))
        });
        top(rows, n)
    }

    fn files_top(&self, n: usize) -> Vec<(String, u64)> {
        top(self.by_file.iter().map(|(f, &c)| (f.clone(), c)), n)
    }

    fn functions_top(&self, n: usize) -> Vec<(String, (u64, u64))> {
        let mut v: Vec<(String, (u64, u64))> = self
            .by_function
            .iter()
            .map(|(f, &c)| (f.clone(), c))
            .collect();
        v.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then_with(|| a.0.cmp(&b.0)));
        v.truncate(n);
        v
    }

    pub fn write_text(&self, out: &mut dyn Write, n: usize) -> io::Result<()> {
        writeln!(out, "{} remarks in {} file(s)", self.total, self.files)?;
        let kinds: Vec<String> = self
            .kinds()
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        writeln!(out, "  by kind: {}", kinds.join(", "))?;
        writeln!(out, "\nby pass:")?;
        for (p, c) in self.passes() {
            writeln!(out, "  {c:>10}  {p}")?;
        }
        writeln!(out, "\ntop {n} remark names:")?;
        for ((p, name, k), c) in self.names(n) {
            writeln!(out, "  {c:>10}  {p} {name} ({k})")?;
        }
        writeln!(out, "\nmost frequent missed reasons:")?;
        for ((p, name), c) in self.missed(n) {
            writeln!(out, "  {c:>10}  {p} {name}")?;
        }
        writeln!(out, "\ntop {n} source files:")?;
        for (f, c) in self.files_top(n) {
            writeln!(out, "  {c:>10}  {f}")?;
        }
        writeln!(out, "\ntop {n} functions (remarks, missed):")?;
        for (f, (c, m)) in self.functions_top(n) {
            writeln!(out, "  {c:>10} {m:>8}  {}", display_name(&f))?;
        }
        Ok(())
    }

    pub fn write_markdown(&self, out: &mut dyn Write, n: usize) -> io::Result<()> {
        let cell = |s: &str| s.replace('|', "\\|").replace('`', "'");
        writeln!(out, "### Optimization remarks\n")?;
        writeln!(
            out,
            "**{}** remarks in {} file(s): {}\n",
            self.total,
            self.files,
            self.kinds()
                .iter()
                .map(|(k, c)| format!("{k} {c}"))
                .collect::<Vec<_>>()
                .join(", ")
        )?;
        writeln!(out, "| pass | remarks |\n|---|---:|")?;
        for (p, c) in self.passes() {
            writeln!(out, "| `{}` | {c} |", cell(&p))?;
        }
        writeln!(out, "\n| missed reason (pass, name) | count |\n|---|---:|")?;
        for ((p, name), c) in self.missed(n) {
            writeln!(out, "| `{}` `{}` | {c} |", cell(&p), cell(&name))?;
        }
        writeln!(out, "\n| function | remarks | missed |\n|---|---:|---:|")?;
        for (f, (c, m)) in self.functions_top(n) {
            writeln!(out, "| `{}` | {c} | {m} |", cell(&display_name(&f)))?;
        }
        writeln!(out, "\n| source file | remarks |\n|---|---:|")?;
        for (f, c) in self.files_top(n) {
            writeln!(out, "| `{}` | {c} |", cell(&f))?;
        }
        Ok(())
    }

    /// The counts as JSON. A function is its symbol, as the remarks name it, with the Rust
    /// path as `demangled` when it is a Rust symbol.
    pub fn to_json(&self, n: usize) -> serde_json::Value {
        use serde_json::json;
        let function = |f: String, c: u64, m: u64| {
            let mut row = json!({"function": f, "count": c, "missed": m});
            if let std::borrow::Cow::Owned(shown) = display_name(&f) {
                row["demangled"] = json!(shown);
            }
            row
        };
        json!({
            "total": self.total,
            "files": self.files,
            "kinds": self.kinds().into_iter().map(|(k, c)| (k.to_string(), json!(c))).collect::<serde_json::Map<_, _>>(),
            "passes": self.passes().into_iter().map(|(p, c)| json!({"pass": p, "count": c})).collect::<Vec<_>>(),
            "names": self.names(n).into_iter().map(|((p, name, k), c)| json!({"pass": p, "name": name, "kind": k, "count": c})).collect::<Vec<_>>(),
            "missed": self.missed(n).into_iter().map(|((p, name), c)| json!({"pass": p, "name": name, "count": c})).collect::<Vec<_>>(),
            "source_files": self.files_top(n).into_iter().map(|(f, c)| json!({"file": f, "count": c})).collect::<Vec<_>>(),
            "functions": self.functions_top(n).into_iter().map(|(f, (c, m))| function(f, c, m)).collect::<Vec<_>>(),
        })
    }
}

fn bump(map: &mut HashMap<String, u64>, key: &str, n: u64) {
    match map.get_mut(key) {
        Some(c) => *c += n,
        None => {
            map.insert(key.to_string(), n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_yaml;

    #[test]
    fn counts_add_up() {
        let remarks = parse_yaml(include_str!("../tests/data/clang-O2-pgo.opt.yaml")).unwrap();
        let mut s = Summary::default();
        for r in &remarks {
            s.add(r);
        }
        assert_eq!(s.total, remarks.len() as u64);
        let kinds: u64 = RemarkKind::ALL.iter().map(|&k| s.count(k)).sum();
        assert_eq!(kinds, s.total);
        let passes: u64 = s.passes().iter().map(|p| p.1).sum();
        assert_eq!(passes, s.total);
        let missed = remarks
            .iter()
            .filter(|r| r.kind == RemarkKind::Missed)
            .count() as u64;
        assert_eq!(s.count(RemarkKind::Missed), missed);
        let json = s.to_json(5);
        assert_eq!(json["total"], s.total);
        let mut text = Vec::new();
        s.write_text(&mut text, 5).unwrap();
        assert!(String::from_utf8(text)
            .unwrap()
            .starts_with(&format!("{} remarks", s.total)));
    }

    #[test]
    fn rust_functions_are_shown_as_paths() {
        let run = "_ZN10remarks_rs3run17h05813c08e676a53cE";
        let mut s = Summary::default();
        for function in [run, run, "c_entry"] {
            s.add(&crate::dead_function_remark(function, None));
        }
        let mut text = Vec::new();
        s.write_text(&mut text, 5).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(
            text.contains("         2        0  remarks_rs::run\n"),
            "{text}"
        );
        assert!(
            text.contains("  c_entry\n") && !text.contains("_ZN"),
            "{text}"
        );
        let mut markdown = Vec::new();
        s.write_markdown(&mut markdown, 5).unwrap();
        let markdown = String::from_utf8(markdown).unwrap();
        assert!(
            markdown.contains("| `remarks_rs::run` | 2 | 0 |"),
            "{markdown}"
        );
        let json = s.to_json(5);
        assert_eq!(json["functions"][0]["function"], run);
        assert_eq!(json["functions"][0]["demangled"], "remarks_rs::run");
        assert_eq!(json["functions"][1]["function"], "c_entry");
        assert!(json["functions"][1].get("demangled").is_none());
    }
}
