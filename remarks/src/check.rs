//! `rld remarks check`: remarks checked against a [`Policy`], one at a time, so that a file
//! of a million remarks is checked in the memory of the violations and a few counts.
//!
//! - `deny`: each matching remark is a violation.
//! - `require`: a violation when fewer than `min_count` remarks match.
//! - `keep`: each baseline remark that matches must still be in the checked set. Line
//!   numbers move with every edit, so a remark is known by its *key*: kind, pass, name,
//!   function and the values of its `Callee`/`Caller` arguments. A key is still there when
//!   the checked set has at least as many remarks with it as the baseline's matching ones;
//!   one violation per key that has fewer, shown at the first baseline remark with it.
//!
//! Only the first [`DEFAULT_VIOLATION_LIMIT`] violations of a rule are kept (see
//! [`Checker::with_violation_limit`]); the rest are counted.

use crate::model::{DebugLoc, Remark, RemarkKind};
use crate::names::display_name;
use crate::policy::{Policy, PolicyError, Rule, RuleKind};
use crate::select::Selector;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, DefaultHasher, Hash, Hasher};
use std::io::{self, Write};
use std::sync::Arc;

/// How many violations of one rule a [`Checker`] keeps unless told otherwise.
pub const DEFAULT_VIOLATION_LIMIT: usize = 1000;

/// The longest one-line remark text kept in a violation, in characters.
const MAX_TEXT: usize = 400;

/// What a violation shows of a remark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemarkSummary {
    pub kind: RemarkKind,
    pub pass: String,
    pub name: String,
    /// The function's symbol; reports show it with [`display_name`].
    pub function: String,
    pub debug_loc: Option<DebugLoc>,
    /// [`remark_text`].
    pub text: String,
}

impl RemarkSummary {
    pub fn of(r: &Remark) -> Self {
        RemarkSummary {
            kind: r.kind,
            pass: r.pass.clone(),
            name: r.name.clone(),
            function: r.function.clone(),
            debug_loc: r.debug_loc.clone(),
            text: remark_text(r),
        }
    }
}

/// The remark's message on one line: its arguments' values concatenated, as LLVM prints it
/// but with Rust symbols demangled ([`display_name`]), with line breaks and tabs made spaces,
/// trimmed, and cut at 400 characters.
pub fn remark_text(r: &Remark) -> String {
    let mut text = String::new();
    for a in &r.args {
        text.extend(
            display_name(&a.value)
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c }),
        );
    }
    let text = text.trim();
    match text.char_indices().nth(MAX_TEXT) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}

/// Why a rule failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// A remark that a `deny` rule matches.
    Denied(RemarkSummary),
    /// A `keep` rule's key with fewer remarks than in the baseline; `remark` is the first
    /// baseline remark with the key.
    Gone {
        remark: RemarkSummary,
        baseline: u64,
        found: u64,
    },
    /// A `require` rule with too few matching remarks.
    TooFew { found: u64, required: u64 },
}

impl Finding {
    /// The remark the finding is about (none for `require`).
    pub fn remark(&self) -> Option<&RemarkSummary> {
        match self {
            Finding::Denied(r) | Finding::Gone { remark: r, .. } => Some(r),
            Finding::TooFew { .. } => None,
        }
    }
}

/// One violation of one rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Index into [`CheckReport::rules`].
    pub rule: usize,
    pub finding: Finding,
}

/// A rule and how it fared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleReport {
    /// `deny-1`, ... ([`Rule::id`]).
    pub id: String,
    pub kind: RuleKind,
    /// 1-based among the rules of its kind.
    pub index: usize,
    pub message: String,
    /// The selector's [`Selector::describe`].
    pub selector: String,
    /// Remarks that matched: of the checked set for `deny` and `require`, of the baseline for
    /// `keep`.
    pub matched: u64,
    /// All of the rule's violations, including those past the limit that aren't kept.
    pub violations: u64,
    /// How many of them [`CheckReport::violations`] has.
    pub shown: usize,
}

/// The outcome of a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckReport {
    pub rules: Vec<RuleReport>,
    /// By rule, then in the order of the remarks (of the baseline, for `keep`).
    pub violations: Vec<Violation>,
    /// Remarks checked ([`Checker::add`]).
    pub remarks: u64,
    /// Baseline remarks read ([`Checker::add_baseline`]).
    pub baseline_remarks: u64,
}

/// A `keep` rule's key: kind, pass, name, function, `Callee`/`Caller` values, hashed to 128
/// bits (a collision among a million keys has odds of about 1 in 10^26).
type KeepKey = u128;

/// Maps keyed by [`KeepKey`]s, which are hashes already: their low bits are the map's hash.
type KeyMap<V> = HashMap<KeepKey, V, BuildHasherDefault<KeyHasher>>;

#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u128` is used; this is for completeness.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u128(&mut self, key: u128) {
        self.0 = key as u64;
    }
}

fn keep_key(r: &Remark) -> KeepKey {
    let mut a = DefaultHasher::new();
    let mut b = DefaultHasher::new();
    b.write_u8(0x5a);
    for h in [&mut a, &mut b] {
        r.kind.tag().hash(h);
        r.pass.hash(h);
        r.name.hash(h);
        r.function.hash(h);
        for arg in &r.args {
            if arg.key == "Callee" || arg.key == "Caller" {
                arg.key.hash(h);
                arg.value.hash(h);
            }
        }
    }
    (u128::from(a.finish()) << 64) | u128::from(b.finish())
}

/// Strings that repeat from remark to remark (passes, names, files, functions), stored once.
#[derive(Default)]
struct Interner {
    ids: HashMap<Arc<str>, u32>,
    strings: Vec<Arc<str>>,
}

impl Interner {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = u32::try_from(self.strings.len()).expect("fewer than 2^32 strings");
        let s: Arc<str> = Arc::from(s);
        self.strings.push(s.clone());
        self.ids.insert(s, id);
        id
    }

    fn get(&self, id: u32) -> &str {
        &self.strings[id as usize]
    }
}

/// The first baseline remark of a key, as a `keep` violation shows it: compact, since there
/// is one per key that some `keep` rule selects.
struct Sample {
    kind: RemarkKind,
    pass: u32,
    name: u32,
    function: u32,
    /// File, line, column.
    loc: Option<(u32, u32, u32)>,
    text: Box<str>,
}

/// What `keep` rules share: one entry per key, of the baseline remarks that some `keep` rule
/// selects and of the checked remarks that could have one of their keys.
#[derive(Default)]
struct KeepData {
    strings: Interner,
    /// Key -> index into `entries`.
    index: KeyMap<u32>,
    entries: Vec<KeyEntry>,
    /// Entries with a sample, in the order the baseline first has their key.
    baseline_order: Vec<u32>,
}

#[derive(Default)]
struct KeyEntry {
    /// Checked remarks with the key.
    found: u32,
    /// The first baseline remark with the key that a `keep` rule selects.
    sample: Option<Sample>,
}

impl KeepData {
    fn entry(&mut self, key: KeepKey) -> u32 {
        let next = u32::try_from(self.entries.len()).expect("fewer than 2^32 keys");
        let i = *self.index.entry(key).or_insert(next);
        if i == next {
            self.entries.push(KeyEntry::default());
        }
        i
    }

    /// Gives the entry its sample if it has none; whether it did.
    fn add_sample(&mut self, i: u32, r: &Remark) -> bool {
        if self.entries[i as usize].sample.is_some() {
            return false;
        }
        let sample = self.make_sample(r);
        self.entries[i as usize].sample = Some(sample);
        self.baseline_order.push(i);
        true
    }

    fn make_sample(&mut self, r: &Remark) -> Sample {
        let s = &mut self.strings;
        Sample {
            kind: r.kind,
            pass: s.id(&r.pass),
            name: s.id(&r.name),
            function: s.id(&r.function),
            loc: r
                .debug_loc
                .as_ref()
                .map(|l| (s.id(&l.file), l.line, l.column)),
            text: remark_text(r).into_boxed_str(),
        }
    }

    fn summary(&self, s: &Sample) -> RemarkSummary {
        let get = |id| self.strings.get(id).to_string();
        RemarkSummary {
            kind: s.kind,
            pass: get(s.pass),
            name: get(s.name),
            function: get(s.function),
            debug_loc: s.loc.map(|(file, line, column)| DebugLoc {
                file: get(file),
                line,
                column,
            }),
            text: s.text.to_string(),
        }
    }
}

/// A `keep` rule's own part.
struct KeepState {
    /// Per [`KeepData`] entry, how many baseline remarks with its key the rule selects.
    baseline: Vec<u32>,
    /// The rule's first remark of a key, where the entry's sample is another rule's: a
    /// remark that this rule does not select.
    own_samples: HashMap<u32, Sample>,
    /// The selector's parts that a key determines (kind, pass, name, function): a checked
    /// remark that fails them has none of this rule's baseline keys.
    key_filter: Selector,
}

struct RuleState {
    rule: Rule,
    matched: u64,
    violations: u64,
    kept: Vec<Finding>,
    keep: Option<KeepState>,
}

impl RuleState {
    fn violation(&mut self, limit: usize, finding: impl FnOnce() -> Finding) {
        self.violations += 1;
        if self.kept.len() < limit {
            self.kept.push(finding());
        }
    }
}

/// Checks remarks against a policy as they stream by.
///
/// It keeps the violations (up to the limit per rule) and counts; `keep` rules also keep,
/// per distinct key they select in the baseline, a count and a compact first remark, and per
/// key of the checked remarks that could be one of those, a count. The checked remarks and
/// the baseline may come in either order, even interleaved.
pub struct Checker {
    rules: Vec<RuleState>,
    keep: KeepData,
    limit: usize,
    remarks: u64,
    baseline_remarks: u64,
}

impl Checker {
    /// A checker for the policy; `has_baseline` tells whether baseline remarks will be given
    /// ([`Checker::add_baseline`]), which `keep` rules need.
    pub fn new(policy: &Policy, has_baseline: bool) -> Result<Checker, PolicyError> {
        if !has_baseline {
            if let Some(r) = policy.rules.iter().find(|r| r.kind == RuleKind::Keep) {
                return Err(PolicyError::NeedsBaseline {
                    rule: r.id(),
                    message: r.message.clone(),
                });
            }
        }
        let rules = policy
            .rules
            .iter()
            .map(|rule| RuleState {
                keep: (rule.kind == RuleKind::Keep).then(|| KeepState {
                    baseline: Vec::new(),
                    own_samples: HashMap::new(),
                    key_filter: Selector {
                        kinds: rule.selector.kinds.clone(),
                        pass: rule.selector.pass.clone(),
                        name: rule.selector.name.clone(),
                        function: rule.selector.function.clone(),
                        ..Default::default()
                    },
                }),
                rule: rule.clone(),
                matched: 0,
                violations: 0,
                kept: Vec::new(),
            })
            .collect();
        Ok(Checker {
            rules,
            keep: KeepData::default(),
            limit: DEFAULT_VIOLATION_LIMIT,
            remarks: 0,
            baseline_remarks: 0,
        })
    }

    /// Keeps at most `limit` violations per rule (the others are only counted).
    pub fn with_violation_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// One remark of the set being checked.
    pub fn add(&mut self, r: &Remark) {
        self.remarks += 1;
        let limit = self.limit;
        let mut keep_candidate = false;
        for s in &mut self.rules {
            match s.rule.kind {
                RuleKind::Deny => {
                    if s.rule.selector.matches(r) {
                        s.matched += 1;
                        s.violation(limit, || Finding::Denied(RemarkSummary::of(r)));
                    }
                }
                RuleKind::Require => {
                    if s.rule.selector.matches(r) {
                        s.matched += 1;
                    }
                }
                RuleKind::Keep => {
                    keep_candidate = keep_candidate
                        || s.keep.as_ref().expect("keep state").key_filter.matches(r);
                }
            }
        }
        if keep_candidate {
            let i = self.keep.entry(keep_key(r));
            let found = &mut self.keep.entries[i as usize].found;
            *found = found.saturating_add(1);
        }
    }

    /// One remark of the baseline (only `keep` rules look at them).
    pub fn add_baseline(&mut self, r: &Remark) {
        self.baseline_remarks += 1;
        let mut entry = None;
        for s in &mut self.rules {
            let Some(k) = s.keep.as_mut() else { continue };
            if !s.rule.selector.matches(r) {
                continue;
            }
            s.matched += 1;
            let (i, new_sample) = *entry.get_or_insert_with(|| {
                let i = self.keep.entry(keep_key(r));
                (i, self.keep.add_sample(i, r))
            });
            let i = i as usize;
            if k.baseline.len() <= i {
                k.baseline.resize(i + 1, 0);
            }
            if k.baseline[i] == 0 && !new_sample {
                // The sample is of an earlier remark, which this rule did not select.
                k.own_samples.insert(i as u32, self.keep.make_sample(r));
            }
            k.baseline[i] = k.baseline[i].saturating_add(1);
        }
    }

    /// The report, once every remark has been added.
    pub fn finish(self) -> CheckReport {
        let limit = self.limit;
        let data = self.keep;
        let mut rules = Vec::with_capacity(self.rules.len());
        let mut violations = Vec::new();
        for (i, mut s) in self.rules.into_iter().enumerate() {
            match s.rule.kind {
                RuleKind::Deny => {}
                RuleKind::Require => {
                    if s.matched < s.rule.min_count {
                        let (found, required) = (s.matched, s.rule.min_count);
                        s.violation(limit, || Finding::TooFew { found, required });
                    }
                }
                RuleKind::Keep => {
                    let k = s.keep.take().expect("keep state");
                    // In the order of the baseline.
                    for &e in &data.baseline_order {
                        let baseline = k.baseline.get(e as usize).copied().unwrap_or(0);
                        let found = data.entries[e as usize].found;
                        if found < baseline {
                            s.violation(limit, || Finding::Gone {
                                remark: data.summary(k.own_samples.get(&e).unwrap_or_else(|| {
                                    data.entries[e as usize].sample.as_ref().expect("a sample")
                                })),
                                baseline: u64::from(baseline),
                                found: u64::from(found),
                            });
                        }
                    }
                }
            }
            rules.push(RuleReport {
                id: s.rule.id(),
                kind: s.rule.kind,
                index: s.rule.index,
                message: s.rule.message.clone(),
                selector: s.rule.selector.describe(),
                matched: s.matched,
                violations: s.violations,
                shown: s.kept.len(),
            });
            violations.extend(
                s.kept
                    .into_iter()
                    .map(|finding| Violation { rule: i, finding }),
            );
        }
        CheckReport {
            rules,
            violations,
            remarks: self.remarks,
            baseline_remarks: self.baseline_remarks,
        }
    }
}

/// `file:line:col`, leaving out a line or column of 0 (LLVM's "unknown"); `<unknown>` for a
/// remark without a location.
pub fn location_text(loc: Option<&DebugLoc>) -> String {
    match loc {
        None => "<unknown>".into(),
        Some(l) if l.line == 0 => l.file.clone(),
        Some(l) if l.column == 0 => format!("{}:{}", l.file, l.line),
        Some(l) => format!("{}:{}:{}", l.file, l.line, l.column),
    }
}

impl CheckReport {
    /// True when no rule is violated.
    pub fn passed(&self) -> bool {
        self.violation_count() == 0
    }

    /// Violations of every rule, including those past the limit.
    pub fn violation_count(&self) -> u64 {
        self.rules.iter().map(|r| r.violations).sum()
    }

    /// What a violation says, after its location and function: the rule's message, the rule
    /// and its selector, and the remark or the counts.
    pub fn describe(&self, v: &Violation) -> String {
        let rule = &self.rules[v.rule];
        let head = format!("{} [{} {}]", rule.message, rule.id, rule.selector);
        match &v.finding {
            Finding::Denied(r) => format!("{head} {}/{}: {}", r.pass, r.name, r.text),
            Finding::Gone {
                remark: r,
                baseline,
                found,
            } => format!(
                "{head} {}/{}: {} ({baseline} like it in the baseline, {found} now)",
                r.pass, r.name, r.text
            ),
            Finding::TooFew { found, required } => format!(
                "{head} {found} matching remark{}, at least {required} required",
                if *found == 1 { "" } else { "s" }
            ),
        }
    }

    /// One line per violation (`file:line:col: function: message [rule selector] ...`), a
    /// line per rule whose violations were not all kept, and a summary line.
    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        for v in &self.violations {
            match v.finding.remark() {
                Some(r) => writeln!(
                    out,
                    "{}: {}: {}",
                    location_text(r.debug_loc.as_ref()),
                    display_name(&r.function),
                    self.describe(v)
                )?,
                None => writeln!(out, "<policy>: {}", self.describe(v))?,
            }
        }
        for r in &self.rules {
            if (r.shown as u64) < r.violations {
                writeln!(
                    out,
                    "<policy>: {}: {} more violations not shown",
                    r.id,
                    r.violations - r.shown as u64
                )?;
            }
        }
        writeln!(out, "{}", self.summary())
    }

    /// `rld remarks check: FAILED, 3 violations (deny-1: 2, require-1: 1, keep-1: 0); ...`.
    pub fn summary(&self) -> String {
        let n = self.violation_count();
        let per_rule: Vec<String> = self
            .rules
            .iter()
            .map(|r| format!("{}: {}", r.id, r.violations))
            .collect();
        let mut s = format!(
            "rld remarks check: {}, {n} violation{} ({}); {} remark{} checked",
            if n == 0 { "passed" } else { "FAILED" },
            if n == 1 { "" } else { "s" },
            per_rule.join(", "),
            self.remarks,
            if self.remarks == 1 { "" } else { "s" },
        );
        if self.rules.iter().any(|r| r.kind == RuleKind::Keep) {
            s.push_str(&format!(", {} baseline", self.baseline_remarks));
        }
        s
    }

    /// GitHub Actions workflow commands: an `::error` per violation (with `file`, `line`
    /// and `col` when the remark has them), a `::warning` per rule whose violations were not
    /// all kept.
    pub fn write_github(&self, out: &mut dyn Write) -> io::Result<()> {
        for v in &self.violations {
            let mut props = Vec::new();
            let message = match v.finding.remark() {
                Some(r) => {
                    if let Some(l) = &r.debug_loc {
                        props.push(format!("file={}", github_escape_property(&l.file)));
                        if l.line > 0 {
                            props.push(format!("line={}", l.line));
                            if l.column > 0 {
                                props.push(format!("col={}", l.column));
                            }
                        }
                    }
                    format!("{}: {}", display_name(&r.function), self.describe(v))
                }
                None => self.describe(v),
            };
            props.push(format!("title={}", github_escape_property("rld remarks")));
            writeln!(
                out,
                "::error {}::{}",
                props.join(","),
                github_escape_data(&message)
            )?;
        }
        for r in &self.rules {
            if (r.shown as u64) < r.violations {
                let msg = format!(
                    "{}: {} more violations not shown",
                    r.id,
                    r.violations - r.shown as u64
                );
                writeln!(
                    out,
                    "::warning title={}::{}",
                    github_escape_property("rld remarks"),
                    github_escape_data(&msg)
                )?;
            }
        }
        Ok(())
    }
}

/// A workflow command's message: `%`, `\r`, `\n` escaped.
pub fn github_escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value: as [`github_escape_data`], and `:`, `,` too.
pub fn github_escape_property(s: &str) -> String {
    github_escape_data(s)
        .replace(':', "%3A")
        .replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RemarkArg;

    fn arg(key: &str, value: &str) -> RemarkArg {
        RemarkArg {
            key: key.into(),
            value: value.into(),
            debug_loc: None,
        }
    }

    fn remark(kind: RemarkKind, pass: &str, name: &str, function: &str, line: u32) -> Remark {
        Remark {
            kind,
            pass: pass.into(),
            name: name.into(),
            debug_loc: Some(DebugLoc {
                file: "src/vm/run.c".into(),
                line,
                column: 5,
            }),
            function: function.into(),
            hotness: Some(200),
            args: vec![],
        }
    }

    fn missed_inline(caller: &str, callee: &str, line: u32) -> Remark {
        let mut r = remark(RemarkKind::Missed, "inline", "TooCostly", caller, line);
        r.args = vec![
            arg("String", "'"),
            arg("Callee", callee),
            arg("String", "' not inlined into '"),
            arg("Caller", caller),
            arg("String", "' because too costly to inline\n"),
        ];
        r
    }

    #[test]
    fn messages_show_rust_symbols_as_paths() {
        let r = missed_inline(
            "_ZN10remarks_rs3run17h05813c08e676a53cE",
            "_RNvNtCsgEmfK2I1SDS_4core9panicking18panic_nounwind_fmt",
            1,
        );
        assert_eq!(
            remark_text(&r),
            "'core::panicking::panic_nounwind_fmt' not inlined into 'remarks_rs::run' because \
             too costly to inline"
        );
        // What a violation keeps is the symbol; reports show the path.
        assert_eq!(RemarkSummary::of(&r).function, r.function);
    }

    #[test]
    fn deny_reports_each_matching_remark() {
        let policy = Policy::parse(
            r#"
[[deny]]
message = "hot_* functions must be inlined into their callers"
kind = "Missed"
pass = "inline"
file = "src/vm/*"
args = { Callee = "hot_*" }
min_hotness = 100
"#,
        )
        .unwrap();
        let mut c = Checker::new(&policy, false).unwrap();
        c.add(&missed_inline("run", "hot_add", 10));
        c.add(&missed_inline("run", "cold_path", 11));
        let mut cool = missed_inline("run", "hot_sub", 12);
        cool.hotness = Some(99);
        c.add(&cool);
        let mut no_loc = missed_inline("step", "hot_mul", 0);
        no_loc.debug_loc = None;
        c.add(&no_loc);
        let report = c.finish();
        assert!(!report.passed());
        assert_eq!(report.violation_count(), 1);
        assert_eq!(report.rules[0].matched, 1);
        let Finding::Denied(r) = &report.violations[0].finding else {
            panic!()
        };
        assert_eq!(r.function, "run");
        assert_eq!(
            r.text,
            "'hot_add' not inlined into 'run' because too costly to inline"
        );
        let mut text = Vec::new();
        report.write_text(&mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "src/vm/run.c:10:5: run: hot_* functions must be inlined into their callers \
             [deny-1 kind=Missed pass=inline file=src/vm/* Callee=hot_* hotness>=100] \
             inline/TooCostly: 'hot_add' not inlined into 'run' because too costly to inline"
        );
        assert_eq!(
            lines[1],
            "rld remarks check: FAILED, 1 violation (deny-1: 1); 4 remarks checked"
        );
        assert_eq!(lines.len(), 2);
    }

    #[test]
    fn remarks_without_location_and_zero_lines() {
        let policy = Policy::parse("[[deny]]\nmessage = \"no\"\npass = \"inline\"\n").unwrap();
        let mut c = Checker::new(&policy, false).unwrap();
        let mut r = missed_inline("step", "f", 0);
        c.add(&r);
        r.debug_loc = None;
        c.add(&r);
        r.debug_loc = Some(DebugLoc {
            file: "a.c".into(),
            line: 3,
            column: 0,
        });
        c.add(&r);
        let report = c.finish();
        let mut text = Vec::new();
        report.write_text(&mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let starts: Vec<&str> = text
            .lines()
            .map(|l| l.split(" no ").next().unwrap())
            .collect();
        assert_eq!(
            starts[..3],
            ["src/vm/run.c: step:", "<unknown>: step:", "a.c:3: step:"]
        );
        let mut gh = Vec::new();
        report.write_github(&mut gh).unwrap();
        let gh = String::from_utf8(gh).unwrap();
        let heads: Vec<&str> = gh.lines().map(|l| l.split("::").nth(1).unwrap()).collect();
        assert_eq!(
            heads,
            [
                "error file=src/vm/run.c,title=rld remarks",
                "error title=rld remarks",
                "error file=a.c,line=3,title=rld remarks",
            ]
        );
    }

    #[test]
    fn require_counts_matches() {
        let policy = Policy::parse(
            r#"
[[require]]
message = "LTO must drop at least 3 dead functions"
pass = "lto"
name = "deadfunction"
min_count = 3

[[require]]
message = "something must be inlined"
name = "Inlined"
"#,
        )
        .unwrap();
        let mut c = Checker::new(&policy, false).unwrap();
        for f in ["a", "b"] {
            c.add(&crate::model::dead_function_remark(f, None));
        }
        c.add(&remark(RemarkKind::Passed, "inline", "Inlined", "main", 3));
        let report = c.finish();
        assert_eq!(report.violation_count(), 1);
        assert_eq!(report.rules[0].matched, 2);
        assert_eq!(report.rules[1].matched, 1);
        assert_eq!(
            report.violations[0],
            Violation {
                rule: 0,
                finding: Finding::TooFew {
                    found: 2,
                    required: 3
                }
            }
        );
        let mut text = Vec::new();
        report.write_text(&mut text).unwrap();
        assert_eq!(
            String::from_utf8(text).unwrap(),
            "<policy>: LTO must drop at least 3 dead functions [require-1 pass=lto name=deadfunction] \
             2 matching remarks, at least 3 required\n\
             rld remarks check: FAILED, 1 violation (require-1: 1, require-2: 0); 3 remarks checked\n"
        );
    }

    const KEEP: &str = r#"
[[keep]]
message = "what was inlined stays inlined"
kind = "Passed"
pass = "inline"
file = "src/*"
"#;

    fn inlined(caller: &str, callee: &str, line: u32) -> Remark {
        let mut r = remark(RemarkKind::Passed, "inline", "Inlined", caller, line);
        r.args = vec![
            arg("Callee", callee),
            arg("String", " inlined into "),
            arg("Caller", caller),
        ];
        r
    }

    #[test]
    fn keep_needs_a_baseline() {
        let policy = Policy::parse(KEEP).unwrap();
        let err = Checker::new(&policy, false).err().unwrap();
        assert_eq!(
            err.to_string(),
            "keep-1 (\"what was inlined stays inlined\"): a keep rule needs --baseline"
        );
        assert!(Checker::new(&policy, true).is_ok());
    }

    #[test]
    fn keep_ignores_lines_and_counts_per_key() {
        let policy = Policy::parse(KEEP).unwrap();
        let baseline = [
            inlined("main", "f", 10),
            inlined("main", "f", 20), // the same key twice
            inlined("main", "g", 30),
            inlined("run", "f", 40),
            remark(RemarkKind::Missed, "inline", "NoDefinition", "main", 5), // not selected
        ];
        let check = |new: &[Remark]| {
            let mut c = Checker::new(&policy, true).unwrap();
            // Interleaved on purpose: the order of the two sets doesn't matter.
            let mut b = baseline.iter();
            for r in new {
                c.add(r);
                if let Some(br) = b.next() {
                    c.add_baseline(br);
                }
            }
            b.for_each(|br| c.add_baseline(br));
            c.finish()
        };
        // Every line moved, the order changed: nothing is gone.
        let shifted = [
            inlined("run", "f", 41),
            inlined("main", "g", 33),
            inlined("main", "f", 11),
            inlined("main", "f", 25),
        ];
        let report = check(&shifted);
        assert!(report.passed(), "{:?}", report.violations);
        assert_eq!(report.rules[0].matched, 4);
        assert_eq!(report.baseline_remarks, 5);

        // One of the two main <- f inlines is gone: one violation, at the first of them.
        let report = check(
            &shifted[1..3]
                .iter()
                .chain(&shifted[..1])
                .cloned()
                .collect::<Vec<_>>(),
        );
        assert_eq!(report.violation_count(), 1);
        let Finding::Gone {
            remark,
            baseline,
            found,
        } = &report.violations[0].finding
        else {
            panic!()
        };
        assert_eq!((baseline, found), (&2, &1));
        assert_eq!(remark.debug_loc.as_ref().unwrap().line, 10);
        assert_eq!(remark.text, "f inlined into main");

        // A remark of the key elsewhere (another file, no hotness) still counts: only the key
        // identifies it. Another kind does not.
        let mut moved = inlined("main", "g", 1);
        moved.debug_loc = None;
        moved.hotness = None;
        let mut missed = inlined("run", "f", 41);
        missed.kind = RemarkKind::Missed;
        let report = check(&[shifted[2].clone(), shifted[3].clone(), moved, missed]);
        assert_eq!(report.violation_count(), 1);
        let Finding::Gone { remark, .. } = &report.violations[0].finding else {
            panic!()
        };
        assert_eq!(remark.function, "run");
        let mut text = Vec::new();
        report.write_text(&mut text).unwrap();
        assert_eq!(
            String::from_utf8(text).unwrap(),
            "src/vm/run.c:40:5: run: what was inlined stays inlined [keep-1 kind=Passed pass=inline file=src/*] \
             inline/Inlined: f inlined into run (1 like it in the baseline, 0 now)\n\
             rld remarks check: FAILED, 1 violation (keep-1: 1); 4 remarks checked, 5 baseline\n"
        );
    }

    #[test]
    fn keep_rules_count_their_own_baseline_remarks() {
        let policy = Policy::parse(
            "[[keep]]\nname = \"Inlined\"\n\n[[keep]]\nname = \"Inlined\"\nfile = \"a.c\"\n",
        )
        .unwrap();
        let at = |file: &str, line| {
            let mut r = inlined("main", "f", line);
            r.debug_loc.as_mut().unwrap().file = file.into();
            r
        };
        let mut c = Checker::new(&policy, true).unwrap();
        c.add(&at("c.c", 99));
        c.add_baseline(&at("b.c", 1));
        c.add_baseline(&at("a.c", 2));
        c.add_baseline(&inlined("main", "g", 3));
        let report = c.finish();
        // keep-1 had 2 of main <- f and 1 of main <- g; keep-2 only the one in a.c.
        assert_eq!(
            report.rules.iter().map(|r| r.matched).collect::<Vec<_>>(),
            [3, 1]
        );
        assert_eq!(
            report
                .rules
                .iter()
                .map(|r| r.violations)
                .collect::<Vec<_>>(),
            [2, 0]
        );
        let gone: Vec<(String, u64, u64)> = report
            .violations
            .iter()
            .map(|v| match &v.finding {
                Finding::Gone {
                    remark,
                    baseline,
                    found,
                } => (location_text(remark.debug_loc.as_ref()), *baseline, *found),
                f => panic!("{f:?}"),
            })
            .collect();
        assert_eq!(
            gone,
            [
                ("b.c:1:5".to_string(), 2, 1),
                ("src/vm/run.c:3:5".to_string(), 1, 0)
            ]
        );

        // keep-2's violation is shown at its own remark (a.c), not at keep-1's first (b.c).
        let mut c = Checker::new(&policy, true).unwrap();
        c.add_baseline(&at("b.c", 1));
        c.add_baseline(&at("a.c", 2));
        let report = c.finish();
        let locs: Vec<String> = report
            .violations
            .iter()
            .map(|v| {
                let r = v.finding.remark().unwrap();
                format!(
                    "{} {}",
                    report.rules[v.rule].id,
                    location_text(r.debug_loc.as_ref())
                )
            })
            .collect();
        assert_eq!(locs, ["keep-1 b.c:1:5", "keep-2 a.c:2:5"]);
    }

    #[test]
    fn violations_past_the_limit_are_counted() {
        let policy = Policy::parse("[[deny]]\nmessage = \"no\"\npass = \"inline\"\n").unwrap();
        let mut c = Checker::new(&policy, false)
            .unwrap()
            .with_violation_limit(2);
        for line in 1..=5 {
            c.add(&missed_inline("run", "f", line));
        }
        let report = c.finish();
        assert_eq!(report.violation_count(), 5);
        assert_eq!(report.violations.len(), 2);
        assert_eq!(report.rules[0].shown, 2);
        let mut text = Vec::new();
        report.write_text(&mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(
            text.contains("\n<policy>: deny-1: 3 more violations not shown\n"),
            "{text}"
        );
        assert!(text.ends_with("FAILED, 5 violations (deny-1: 5); 5 remarks checked\n"));
        let mut gh = Vec::new();
        report.write_github(&mut gh).unwrap();
        let gh = String::from_utf8(gh).unwrap();
        assert!(gh.ends_with("::warning title=rld remarks::deny-1: 3 more violations not shown\n"));
    }

    #[test]
    fn github_escaping() {
        assert_eq!(
            github_escape_data("50% a\r\nb: c, d"),
            "50%25 a%0D%0Ab: c, d"
        );
        assert_eq!(
            github_escape_property("C:\\a,b%\n.c"),
            "C%3A\\a%2Cb%25%0A.c"
        );
        let policy =
            Policy::parse("[[deny]]\nmessage = \"100% bad: no, never\"\npass = \"inline\"\n")
                .unwrap();
        let mut c = Checker::new(&policy, false).unwrap();
        let mut r = missed_inline("run", "f", 7);
        r.debug_loc.as_mut().unwrap().file = "dir,x/a:b%.c".into();
        c.add(&r);
        let mut gh = Vec::new();
        c.finish().write_github(&mut gh).unwrap();
        assert_eq!(
            String::from_utf8(gh).unwrap(),
            "::error file=dir%2Cx/a%3Ab%25.c,line=7,col=5,title=rld remarks::run: 100%25 bad: no, never \
             [deny-1 pass=inline] inline/TooCostly: 'f' not inlined into 'run' because too costly to inline\n"
        );
    }

    #[test]
    fn remark_text_is_one_line() {
        let mut r = remark(
            RemarkKind::Analysis,
            "asm-printer",
            "InstructionMix",
            "f",
            1,
        );
        r.args = vec![
            arg("String", "BasicBlock: "),
            arg("BasicBlock", "entry"),
            arg("String", "\n"),
            arg("INST_add", "2"),
            arg("String", "\n"),
        ];
        assert_eq!(remark_text(&r), "BasicBlock: entry 2");
        r.args = vec![arg("String", &"é".repeat(500))];
        let t = remark_text(&r);
        assert_eq!(t.chars().count(), 403);
        assert!(t.ends_with("é..."));
    }
}
