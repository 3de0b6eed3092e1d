//! `rld remarks diff OLD NEW`: what changed between two builds' remarks, matched by what each
//! remark is about rather than by where it is, so an edit that only moves code shows nothing.
//!
//! Remarks are grouped by (pass, function). Within a group, a remark is identified by its
//! subject — the `Callee`/`Caller` arguments of an inlining remark — and described by its
//! state, (kind, name). Matching goes in three rounds: same subject and state (unchanged),
//! same subject with another state (changed: `Inlined` became `TooCostly`), and, for remarks
//! without a subject (rld's `cvp` remarks list the targets they found as `Callee`, which is an
//! outcome, not an identity), position within the group. What is left appeared or
//! disappeared. Line numbers, columns, hotness and other arguments (costs, thresholds) are
//! not compared.
//!
//! Functions are grouped by their symbols (two instances of a Rust generic differ only in
//! the hash that the demangled name leaves out) and shown demangled ([`display_name`]).
//!
//! A change is a regression when an optimization is lost: `Passed` became something else, a
//! `Passed` remark disappeared, or a `Missed`/`Failure` remark appeared.

use crate::model::{Remark, RemarkKind};
use crate::names::display_name;
use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};

/// Strings interned once for both builds.
#[derive(Default)]
struct Strings {
    ids: HashMap<String, u32>,
    names: Vec<String>,
}

impl Strings {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(s.to_string());
        self.ids.insert(s.to_string(), id);
        id
    }

    fn get(&self, id: u32) -> &str {
        &self.names[id as usize]
    }
}

/// One remark, compactly: its state, subject (0 = none) and where it was.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Entry {
    kind: RemarkKind,
    name: u32,
    subject: u32,
    file: u32,
    line: u32,
}

/// A function's name as the source wrote it: rld renames a file-local function that several
/// LTO partitions share `NAME.rld.N`, which depends on how the program was split, not on
/// what it is.
pub fn source_name(name: &str) -> &str {
    match name.rsplit_once(".rld.") {
        Some((base, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => name,
    }
}

/// The arguments that say what a remark is about, `Callee=f Caller=g`, with the symbols as
/// they are or, `shown`, as people read them. `cvp` lists its results as `Callee`.
fn subject(r: &Remark, shown: bool) -> String {
    if r.pass == "cvp" {
        return String::new();
    }
    let mut s = String::new();
    for a in &r.args {
        if a.key == "Callee" || a.key == "Caller" {
            if !s.is_empty() {
                s.push(' ');
            }
            s.push_str(&a.key);
            s.push('=');
            let name = source_name(&a.value);
            if shown {
                s.push_str(&display_name(name));
            } else {
                s.push_str(name);
            }
        }
    }
    s
}

/// Both builds' remarks, added one at a time, then compared.
pub struct Diff {
    strings: Strings,
    /// (pass, function) → remarks of the old and the new build.
    groups: HashMap<(u32, u32), [Vec<Entry>; 2]>,
    /// Subject → the subject as people read it (itself unless it names Rust symbols).
    shown_subjects: HashMap<u32, u32>,
    pub counts: [u64; 2],
}

impl Default for Diff {
    fn default() -> Self {
        let mut strings = Strings::default();
        strings.id(""); // id 0: no subject, no file
        Diff {
            strings,
            groups: HashMap::new(),
            shown_subjects: HashMap::new(),
            counts: [0; 2],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Direction {
    Regression,
    Improvement,
    Neutral,
}

/// Changes of one kind in one function, grouped: "3 calls no longer inlined into f".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeGroup {
    pub direction: Direction,
    pub pass: String,
    /// The function's symbol (without rld's partition suffix).
    pub function: String,
    /// (kind, name) before; `None`: the remarks appeared.
    pub from: Option<(RemarkKind, String)>,
    /// (kind, name) after; `None`: the remarks disappeared.
    pub to: Option<(RemarkKind, String)>,
    /// The subjects (callees) or, without one, the new (else old) locations `file:line`.
    pub items: Vec<String>,
    /// `items` as people read them: their symbols demangled ([`display_name`]).
    pub shown_items: Vec<String>,
}

impl ChangeGroup {
    /// A sentence for people: pass-specific for inlining and rld's call-site resolution.
    pub fn describe(&self) -> String {
        let n = self.items.len();
        let s = if n == 1 { "" } else { "s" };
        let state = |x: &Option<(RemarkKind, String)>| match x {
            Some((k, name)) => format!("{} {name}", &k.tag()[1..]),
            None => "nothing".into(),
        };
        let passed = |x: &Option<(RemarkKind, String)>| matches!(x, Some((RemarkKind::Passed, _)));
        let f = display_name(&self.function);
        let head = match (self.pass.as_str(), passed(&self.from), passed(&self.to)) {
            ("inline" | "always-inline", true, false) => {
                format!("{n} call{s} no longer inlined into `{f}`")
            }
            ("inline" | "always-inline", false, true) => {
                format!("{n} call{s} now inlined into `{f}`")
            }
            ("cvp", true, false) => {
                format!("cvp: {n} indirect call site{s} in `{f}` no longer resolved")
            }
            ("cvp", false, true) => format!("cvp: {n} indirect call site{s} in `{f}` now resolved"),
            (pass, _, _) => format!("{pass}: {n} remark{s} in `{f}`"),
        };
        format!(
            "{head} ({} → {}): {}",
            state(&self.from),
            state(&self.to),
            self.shown_items.join(", ")
        )
    }
}

/// What `diff` found.
#[derive(Debug, Default)]
pub struct DiffReport {
    pub old_total: u64,
    pub new_total: u64,
    pub unchanged: u64,
    pub groups: Vec<ChangeGroup>,
}

impl DiffReport {
    pub fn regressions(&self) -> usize {
        self.count(Direction::Regression)
    }

    fn count(&self, d: Direction) -> usize {
        self.groups
            .iter()
            .filter(|g| g.direction == d)
            .map(|g| g.items.len())
            .sum()
    }

    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(
            out,
            "{} remarks before, {} after; {} unchanged; {} regressions, {} improvements, {} other changes",
            self.old_total,
            self.new_total,
            self.unchanged,
            self.regressions(),
            self.count(Direction::Improvement),
            self.count(Direction::Neutral)
        )?;
        for (d, title) in [
            (Direction::Regression, "regressions"),
            (Direction::Improvement, "improvements"),
            (Direction::Neutral, "other changes"),
        ] {
            let groups: Vec<&ChangeGroup> =
                self.groups.iter().filter(|g| g.direction == d).collect();
            if groups.is_empty() {
                continue;
            }
            writeln!(out, "\n{title}:")?;
            for g in groups {
                writeln!(out, "  {}", g.describe())?;
            }
        }
        Ok(())
    }

    pub fn write_markdown(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(
            out,
            "### Remark diff\n\n{} remarks before, {} after: **{} regressions**, {} improvements, {} other changes\n",
            self.old_total,
            self.new_total,
            self.regressions(),
            self.count(Direction::Improvement),
            self.count(Direction::Neutral)
        )?;
        for g in &self.groups {
            let mark = match g.direction {
                Direction::Regression => ":x:",
                Direction::Improvement => ":white_check_mark:",
                Direction::Neutral => ":information_source:",
            };
            writeln!(out, "- {mark} {}", g.describe().replace('|', "\\|"))?;
        }
        Ok(())
    }

    /// The report as JSON: `function` and `items` with the symbols as the remarks name them
    /// (and, for a Rust symbol, the function's path as `demangled`), `summary` as
    /// [`ChangeGroup::describe`] says it to people.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        let state = |x: &Option<(RemarkKind, String)>| {
            x.as_ref()
                .map(|(k, n)| json!({"kind": &k.tag()[1..], "name": n}))
        };
        let change = |g: &ChangeGroup| {
            let mut c = json!({
                "direction": format!("{:?}", g.direction).to_lowercase(),
                "pass": g.pass,
                "function": g.function,
                "from": state(&g.from),
                "to": state(&g.to),
                "items": g.items,
                "summary": g.describe(),
            });
            if let std::borrow::Cow::Owned(shown) = display_name(&g.function) {
                c["demangled"] = json!(shown);
            }
            c
        };
        json!({
            "old_total": self.old_total,
            "new_total": self.new_total,
            "unchanged": self.unchanged,
            "regressions": self.regressions(),
            "changes": self.groups.iter().map(change).collect::<Vec<_>>(),
        })
    }
}

fn direction(from: Option<RemarkKind>, to: Option<RemarkKind>) -> Direction {
    let lost = |k: Option<RemarkKind>| matches!(k, Some(RemarkKind::Missed | RemarkKind::Failure));
    match (from, to) {
        (Some(RemarkKind::Passed), Some(RemarkKind::Passed)) => Direction::Neutral,
        (Some(RemarkKind::Passed), _) => Direction::Regression,
        (_, Some(RemarkKind::Passed)) if from.is_some() => Direction::Improvement,
        (None, to) if lost(to) => Direction::Regression,
        (None, Some(RemarkKind::Passed)) => Direction::Improvement,
        (from, None) if lost(from) => Direction::Improvement,
        _ => Direction::Neutral,
    }
}

impl Diff {
    /// Adds a remark of the old (`new == false`) or the new build.
    pub fn add(&mut self, new: bool, r: &Remark) {
        let side = usize::from(new);
        self.counts[side] += 1;
        let key = (
            self.strings.id(&r.pass),
            self.strings.id(source_name(&r.function)),
        );
        let raw = self.strings.id(&subject(r, false));
        if raw != 0 && !self.shown_subjects.contains_key(&raw) {
            let shown = self.strings.id(&subject(r, true));
            self.shown_subjects.insert(raw, shown);
        }
        let entry = Entry {
            kind: r.kind,
            name: self.strings.id(&r.name),
            subject: raw,
            file: r.debug_loc.as_ref().map_or(0, |l| self.strings.id(&l.file)),
            line: r.debug_loc.as_ref().map_or(0, |l| l.line),
        };
        self.groups.entry(key).or_default()[side].push(entry);
    }

    pub fn finish(self) -> DiffReport {
        let mut report = DiffReport {
            old_total: self.counts[0],
            new_total: self.counts[1],
            ..Default::default()
        };
        // (direction, pass, function, from, to) → items; sorted for a stable report.
        type Key = (
            Direction,
            String,
            String,
            Option<(u8, String)>,
            Option<(u8, String)>,
        );
        /// Each item as the remarks name it and as people read it.
        type Items = (
            Option<RemarkKind>,
            Option<RemarkKind>,
            Vec<(String, String)>,
        );
        let mut grouped: BTreeMap<Key, Items> = BTreeMap::new();
        let s = &self.strings;
        let item = |e: &Entry| {
            if e.subject != 0 {
                let shown = self.shown_subjects.get(&e.subject).copied();
                (
                    s.get(e.subject).to_string(),
                    s.get(shown.unwrap_or(e.subject)).to_string(),
                )
            } else if e.file != 0 {
                let at = format!("{}:{}", s.get(e.file), e.line);
                (at.clone(), at)
            } else {
                let unknown = "<unknown location>".to_string();
                (unknown.clone(), unknown)
            }
        };
        let state = |e: &Entry| (e.kind as u8, s.get(e.name).to_string());
        for (&(pass, function), [old, new]) in &self.groups {
            let (unchanged, pairs, gone, came) = match_group(old, new);
            report.unchanged += unchanged;
            let mut push = |from: Option<&Entry>, to: Option<&Entry>| {
                let d = direction(from.map(|e| e.kind), to.map(|e| e.kind));
                let key = (
                    d,
                    s.get(pass).to_string(),
                    s.get(function).to_string(),
                    from.map(state),
                    to.map(state),
                );
                let slot = grouped
                    .entry(key)
                    .or_insert_with(|| (from.map(|e| e.kind), to.map(|e| e.kind), Vec::new()));
                slot.2.push(item(to.or(from).expect("one side exists")));
            };
            for (o, n) in pairs {
                push(Some(o), Some(n));
            }
            for o in gone {
                push(Some(o), None);
            }
            for n in came {
                push(None, Some(n));
            }
        }
        for ((direction, pass, function, from, to), (fk, tk, mut items)) in grouped {
            items.sort();
            let (items, shown_items) = items.into_iter().unzip();
            report.groups.push(ChangeGroup {
                direction,
                pass,
                function,
                from: from.map(|(_, n)| (fk.expect("kind kept"), n)),
                to: to.map(|(_, n)| (tk.expect("kind kept"), n)),
                items,
                shown_items,
            });
        }
        report
    }
}

/// The three matching rounds of one (pass, function) group: the number unchanged, the
/// changed pairs, what disappeared and what appeared.
#[allow(clippy::type_complexity)]
fn match_group<'a>(
    old: &'a [Entry],
    new: &'a [Entry],
) -> (
    u64,
    Vec<(&'a Entry, &'a Entry)>,
    Vec<&'a Entry>,
    Vec<&'a Entry>,
) {
    let mut old_left: Vec<Option<&Entry>> = old.iter().map(Some).collect();
    let mut new_left: Vec<Option<&Entry>> = new.iter().map(Some).collect();
    let mut unchanged = 0;
    let mut pairs = Vec::new();
    // Round 1: same subject and state, in order.
    let mut by_state: HashMap<(u32, u8, u32), Vec<usize>> = HashMap::new();
    for (i, e) in new.iter().enumerate().rev() {
        by_state
            .entry((e.subject, e.kind as u8, e.name))
            .or_default()
            .push(i);
    }
    for o in old_left.iter_mut() {
        let e = o.expect("all old entries are left");
        if let Some(i) = by_state
            .get_mut(&(e.subject, e.kind as u8, e.name))
            .and_then(Vec::pop)
        {
            new_left[i] = None;
            *o = None;
            unchanged += 1;
        }
    }
    // Round 2: same subject, another state.
    let mut by_subject: HashMap<u32, Vec<usize>> = HashMap::new();
    for (i, e) in new_left.iter().enumerate().rev() {
        if let Some(e) = e.filter(|e| e.subject != 0) {
            by_subject.entry(e.subject).or_default().push(i);
        }
    }
    for o in old_left.iter_mut() {
        let Some(e) = o.filter(|e| e.subject != 0) else {
            continue;
        };
        if let Some(i) = by_subject.get_mut(&e.subject).and_then(Vec::pop) {
            pairs.push((e, new_left[i].take().expect("indexed once")));
            *o = None;
        }
    }
    // Round 3: no subject: by position.
    let mut rest_new = new_left
        .iter_mut()
        .filter(|e| e.is_some_and(|e| e.subject == 0));
    for o in old_left.iter_mut() {
        let Some(e) = o.filter(|e| e.subject == 0) else {
            continue;
        };
        match rest_new.next() {
            Some(n) => {
                pairs.push((e, n.take().expect("filtered")));
                *o = None;
            }
            None => break,
        }
    }
    let gone = old_left.into_iter().flatten().collect();
    let came = new_left.into_iter().flatten().collect();
    (unchanged, pairs, gone, came)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DebugLoc, RemarkArg};

    fn remark(
        kind: RemarkKind,
        pass: &str,
        name: &str,
        f: &str,
        line: u32,
        args: &[(&str, &str)],
    ) -> Remark {
        Remark {
            kind,
            pass: pass.into(),
            name: name.into(),
            debug_loc: Some(DebugLoc {
                file: "a.c".into(),
                line,
                column: 3,
            }),
            function: f.into(),
            hotness: None,
            args: args
                .iter()
                .map(|(k, v)| RemarkArg {
                    key: k.to_string(),
                    value: v.to_string(),
                    debug_loc: None,
                })
                .collect(),
        }
    }

    fn diff(old: &[Remark], new: &[Remark]) -> DiffReport {
        let mut d = Diff::default();
        old.iter().for_each(|r| d.add(false, r));
        new.iter().for_each(|r| d.add(true, r));
        d.finish()
    }

    use RemarkKind::{Missed, Passed};

    #[test]
    fn moved_code_is_no_change() {
        let old = [
            remark(
                Passed,
                "inline",
                "Inlined",
                "main",
                10,
                &[("Callee", "f"), ("Caller", "main"), ("Cost", "5")],
            ),
            remark(Passed, "cvp", "promoted", "main", 12, &[("Callee", "g")]),
        ];
        let new = [
            remark(
                Passed,
                "inline",
                "Inlined",
                "main",
                30,
                &[("Callee", "f"), ("Caller", "main"), ("Cost", "7")],
            ),
            remark(Passed, "cvp", "promoted", "main", 32, &[("Callee", "g")]),
        ];
        let r = diff(&old, &new);
        assert_eq!((r.unchanged, r.groups.len()), (2, 0), "{:?}", r.groups);
    }

    #[test]
    fn lost_inlining_and_devirtualization_are_regressions() {
        let old = [
            remark(
                Passed,
                "inline",
                "Inlined",
                "parse",
                10,
                &[("Callee", "a"), ("Caller", "parse")],
            ),
            remark(
                Passed,
                "inline",
                "Inlined",
                "parse",
                11,
                &[("Callee", "b"), ("Caller", "parse")],
            ),
            remark(Passed, "cvp", "promoted", "run", 5, &[("Callee", "g")]),
        ];
        let new = [
            remark(
                Missed,
                "inline",
                "TooCostly",
                "parse",
                10,
                &[("Callee", "a"), ("Caller", "parse")],
            ),
            remark(
                Missed,
                "inline",
                "TooCostly",
                "parse",
                11,
                &[("Callee", "b"), ("Caller", "parse")],
            ),
            remark(Missed, "cvp", "unresolved", "run", 5, &[("Reason", "x")]),
            remark(
                Missed,
                "licm",
                "LoadWithLoopInvariantAddressInvalidated",
                "run",
                7,
                &[],
            ),
        ];
        let r = diff(&old, &new);
        assert_eq!(r.regressions(), 4, "{:#?}", r.groups);
        let text: Vec<String> = r.groups.iter().map(ChangeGroup::describe).collect();
        assert!(
            text.iter()
                .any(|t| t.starts_with("2 calls no longer inlined into `parse`")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|t| t.starts_with("cvp: 1 indirect call site in `run` no longer resolved")),
            "{text:?}"
        );
        // And back: improvements.
        let back = diff(&new, &old);
        assert_eq!(back.regressions(), 0);
        assert_eq!(back.count(Direction::Improvement), 4);
    }

    #[test]
    fn partition_renames_are_not_changes() {
        let old = [remark(
            Passed,
            "inline",
            "Inlined",
            "f.rld.0",
            1,
            &[("Callee", "g.rld.12")],
        )];
        let new = [remark(
            Passed,
            "inline",
            "Inlined",
            "f",
            1,
            &[("Callee", "g")],
        )];
        assert_eq!(diff(&old, &new).unchanged, 1);
        assert_eq!(source_name("a.rld.x"), "a.rld.x");
        assert_eq!(source_name("a.rld."), "a.rld.");
    }

    #[test]
    fn rust_symbols_are_described_as_paths_and_kept_in_items() {
        let run = "_ZN10remarks_rs3run17h05813c08e676a53cE";
        let compute = "_ZN10remarks_rs7compute17h66b77482d666be50E";
        let args = [("Callee", compute), ("Caller", run)];
        let old = [remark(Passed, "inline", "Inlined", run, 16, &args)];
        let new = [remark(Missed, "inline", "NeverInline", run, 16, &args)];
        let r = diff(&old, &new);
        let g = &r.groups[0];
        assert_eq!(g.function, run);
        assert_eq!(g.items, [format!("Callee={compute} Caller={run}")]);
        assert_eq!(
            g.describe(),
            "1 call no longer inlined into `remarks_rs::run` (Passed Inlined → Missed \
             NeverInline): Callee=remarks_rs::compute Caller=remarks_rs::run"
        );
        let json = r.to_json();
        assert_eq!(json["changes"][0]["function"], run);
        assert_eq!(json["changes"][0]["demangled"], "remarks_rs::run");
        // An LTO partition's copy (`.rld.N`) is the same function.
        let renamed = [remark(
            Passed,
            "inline",
            "Inlined",
            &format!("{run}.rld.2"),
            3,
            &[("Callee", &format!("{compute}.rld.2")), ("Caller", run)],
        )];
        assert_eq!(diff(&old, &renamed).unchanged, 1);
    }

    #[test]
    fn repeated_callees_are_counted() {
        let a = remark(Passed, "inline", "Inlined", "f", 1, &[("Callee", "g")]);
        let r = diff(&[a.clone(), a.clone()], std::slice::from_ref(&a));
        assert_eq!((r.unchanged, r.regressions()), (1, 1));
    }
}
