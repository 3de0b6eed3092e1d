//! The policy that `rld remarks check` enforces: a TOML file of rules, each a remark
//! selector ([`Selector`]) with a message.
//!
//! ```toml
//! [[deny]]        # fails for every remark that matches
//! message = "hot_* functions must be inlined into their callers"
//! kind = "Missed"            # or a list: kind = ["Missed", "Failure"]
//! pass = "inline"
//! name = "..."               # optional, like every field below
//! function = "run"
//! file = "src/vm/*"
//! args = { Callee = "hot_*" }
//! min_hotness = 100
//!
//! [[require]]     # fails when fewer than `min_count` (default 1) remarks match
//! message = "LTO must drop at least 3 dead functions"
//! pass = "lto"
//! name = "deadfunction"
//! min_count = 3
//!
//! [[keep]]        # needs a baseline: every baseline remark that matches must still be there
//! message = "a loop that vectorized must stay vectorized"
//! pass = "loop-vectorize"
//! kind = "Passed"
//! file = "kernel.c"
//! ```
//!
//! Patterns are globs, or regular expressions written `re:...` ([`Pattern`]). Unknown keys,
//! bad patterns and unknown kinds are errors that name the line.

use crate::model::RemarkKind;
use crate::select::{parse_kind, Pattern, Selector};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;

/// What a rule asks of the remarks it selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleKind {
    /// No remark may match.
    Deny,
    /// At least `min_count` remarks must match.
    Require,
    /// Every matching remark of the baseline must still be in the checked set.
    Keep,
}

impl RuleKind {
    /// `deny`, `require`, `keep`: the TOML table name.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::Deny => "deny",
            RuleKind::Require => "require",
            RuleKind::Keep => "keep",
        }
    }
}

impl fmt::Display for RuleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One rule of a policy.
#[derive(Debug, Clone)]
pub struct Rule {
    pub kind: RuleKind,
    /// 1-based, among the rules of the same kind, in file order.
    pub index: usize,
    pub message: String,
    pub selector: Selector,
    /// For [`RuleKind::Require`]: how many remarks must match (1 unless given). 0 for the
    /// other kinds.
    pub min_count: u64,
}

impl Rule {
    /// `deny-1`, `require-2`, ...: how reports and SARIF name the rule.
    pub fn id(&self) -> String {
        format!("{}-{}", self.kind, self.index)
    }
}

/// A parsed policy: its `deny`, then `require`, then `keep` rules, each in file order.
#[derive(Debug, Clone)]
pub struct Policy {
    pub rules: Vec<Rule>,
}

/// Why a policy can't be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// Bad TOML, an unknown key, a bad pattern or kind, a rule without sense.
    #[error("{}{message}", at(*.line, *.column))]
    Syntax {
        /// 1-based, when known.
        line: Option<usize>,
        /// 1-based, when known.
        column: Option<usize>,
        message: String,
    },
    /// A `keep` rule, and no baseline to compare with.
    #[error("{rule} (\"{message}\"): a keep rule needs --baseline")]
    NeedsBaseline { rule: String, message: String },
}

fn at(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!("line {l}, column {c}: "),
        (Some(l), None) => format!("line {l}: "),
        _ => String::new(),
    }
}

impl Policy {
    /// Reads a policy from its TOML text.
    pub fn parse(text: &str) -> Result<Policy, PolicyError> {
        let raw: RawPolicy = toml::from_str(text).map_err(|e| {
            let (line, column) = match e.span() {
                Some(span) => {
                    let (l, c) = line_column(text, span.start);
                    (Some(l), Some(c))
                }
                None => (None, None),
            };
            PolicyError::Syntax {
                line,
                column,
                message: e.message().trim_end().to_string(),
            }
        })?;
        let mut rules = Vec::new();
        for (i, r) in raw.deny.into_iter().enumerate() {
            rules.push(r.into_rule(RuleKind::Deny, i + 1, 0));
        }
        for (i, r) in raw.require.into_iter().enumerate() {
            let min_count = r.min_count.unwrap_or(1);
            rules.push(r.rule.into_rule(RuleKind::Require, i + 1, min_count));
        }
        for (i, r) in raw.keep.into_iter().enumerate() {
            rules.push(r.into_rule(RuleKind::Keep, i + 1, 0));
        }
        if rules.is_empty() {
            return Err(PolicyError::Syntax {
                line: None,
                column: None,
                message: "the policy has no rules ([[deny]], [[require]] or [[keep]])".into(),
            });
        }
        Ok(Policy { rules })
    }

    /// Whether some rule is a `keep` rule, which compares with a baseline.
    pub fn needs_baseline(&self) -> bool {
        self.rules.iter().any(|r| r.kind == RuleKind::Keep)
    }
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    #[serde(default)]
    deny: Vec<RawRule>,
    #[serde(default)]
    require: Vec<RawRequire>,
    #[serde(default)]
    keep: Vec<RawRule>,
}

/// The selector fields every rule has. `require` repeats them (with `min_count`) rather than
/// flattening, since serde's `flatten` and `deny_unknown_fields` don't mix.
macro_rules! raw_rule {
    ($name:ident { $($extra:ident : $ty:ty),* }) => {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct $name {
            message: Option<String>,
            kind: Option<Kinds>,
            pass: Option<PatternField>,
            name: Option<PatternField>,
            function: Option<PatternField>,
            file: Option<PatternField>,
            #[serde(default)]
            args: BTreeMap<String, PatternField>,
            min_hotness: Option<u64>,
            $(#[serde(default)] $extra: $ty,)*
        }
    };
}

raw_rule!(RawRule {});
raw_rule!(RawRequireFields { min_count: Option<MinCount> });

/// A `[[require]]` table: the common fields and `min_count`.
struct RawRequire {
    rule: RawRule,
    min_count: Option<u64>,
}

impl<'de> Deserialize<'de> for RawRequire {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let r = RawRequireFields::deserialize(d)?;
        Ok(RawRequire {
            rule: RawRule {
                message: r.message,
                kind: r.kind,
                pass: r.pass,
                name: r.name,
                function: r.function,
                file: r.file,
                args: r.args,
                min_hotness: r.min_hotness,
            },
            min_count: r.min_count.map(|m| m.0),
        })
    }
}

impl RawRule {
    fn into_rule(self, kind: RuleKind, index: usize, min_count: u64) -> Rule {
        let selector = Selector {
            kinds: self.kind.map(|k| k.0).unwrap_or_default(),
            pass: self.pass.map(|p| p.0),
            name: self.name.map(|p| p.0),
            function: self.function.map(|p| p.0),
            file: self.file.map(|p| p.0),
            args: self.args.into_iter().map(|(k, v)| (k, v.0)).collect(),
            min_hotness: self.min_hotness,
        };
        // Reports show the selector next to the message anyway.
        let message = self.message.unwrap_or_else(|| {
            match kind {
                RuleKind::Deny => "denied remark",
                RuleKind::Require => "too few remarks",
                RuleKind::Keep => "baseline remark is gone",
            }
            .to_string()
        });
        Rule {
            kind,
            index,
            message,
            selector,
            min_count,
        }
    }
}

/// A pattern field, checked while parsing so that a bad one names its line.
struct PatternField(Pattern);

impl<'de> Deserialize<'de> for PatternField {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Pattern::new(&text)
            .map(PatternField)
            .map_err(de::Error::custom)
    }
}

/// `min_count`: a positive number.
struct MinCount(u64);

impl<'de> Deserialize<'de> for MinCount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match u64::deserialize(d)? {
            0 => Err(de::Error::custom(
                "min_count must be at least 1 (a require rule with 0 can't fail)",
            )),
            n => Ok(MinCount(n)),
        }
    }
}

/// `kind = "Missed"` or `kind = ["Missed", "Failure"]`.
struct Kinds(Vec<RemarkKind>);

impl<'de> Deserialize<'de> for Kinds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KindsVisitor;

        impl<'de> Visitor<'de> for KindsVisitor {
            type Value = Kinds;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a remark kind (\"Missed\") or a list of them")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Kinds, E> {
                Ok(Kinds(vec![parse_kind(v).map_err(E::custom)?]))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Kinds, A::Error> {
                let mut kinds = Vec::new();
                while let Some(k) = seq.next_element::<String>()? {
                    let k = parse_kind(&k).map_err(de::Error::custom)?;
                    if !kinds.contains(&k) {
                        kinds.push(k);
                    }
                }
                if kinds.is_empty() {
                    return Err(de::Error::custom(
                        "an empty list of kinds; leave `kind` out to match every kind",
                    ));
                }
                Ok(Kinds(kinds))
            }
        }

        d.deserialize_any(KindsVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DebugLoc, Remark, RemarkArg};

    const EXAMPLE: &str = r#"
[[deny]]        # fails for every remark that matches
message = "hot_* functions must be inlined into their callers"
kind = "Missed"
pass = "inline"
function = "run"
file = "src/vm/*"
args = { Callee = "hot_*" }
min_hotness = 100

[[deny]]
kind = ["Missed", "!Failure", "missed"]
pass = "re:loop-(vectorize|unroll)"

[[require]]
message = "LTO must drop at least 3 dead functions"
pass = "lto"
name = "deadfunction"
min_count = 3

[[require]]
name = "Inlined"

[[keep]]
message = "a loop that vectorized must stay vectorized"
pass = "loop-vectorize"
kind = "Passed"
file = "kernel.c"
"#;

    #[test]
    fn parses_every_rule_kind() {
        let p = Policy::parse(EXAMPLE).unwrap();
        let ids: Vec<String> = p.rules.iter().map(Rule::id).collect();
        assert_eq!(
            ids,
            ["deny-1", "deny-2", "require-1", "require-2", "keep-1"]
        );
        assert!(p.needs_baseline());

        let d = &p.rules[0];
        assert_eq!(
            d.message,
            "hot_* functions must be inlined into their callers"
        );
        assert_eq!(
            d.selector.describe(),
            "kind=Missed pass=inline function=run file=src/vm/* Callee=hot_* hotness>=100"
        );
        let r = Remark {
            kind: RemarkKind::Missed,
            pass: "inline".into(),
            name: "TooCostly".into(),
            debug_loc: Some(DebugLoc {
                file: "src/vm/exec.c".into(),
                line: 7,
                column: 3,
            }),
            function: "run".into(),
            hotness: Some(100),
            args: vec![RemarkArg {
                key: "Callee".into(),
                value: "hot_add".into(),
                debug_loc: None,
            }],
        };
        assert!(d.selector.matches(&r));

        let d2 = &p.rules[1];
        assert_eq!(d2.selector.kinds, [RemarkKind::Missed, RemarkKind::Failure]);
        assert_eq!(d2.message, "denied remark");
        assert_eq!(p.rules[3].message, "too few remarks");
        assert!(d2.selector.pass.as_ref().unwrap().matches("loop-unroll"));

        assert_eq!(p.rules[2].kind, RuleKind::Require);
        assert_eq!(p.rules[2].min_count, 3);
        assert_eq!(p.rules[3].min_count, 1);
        assert_eq!(p.rules[0].min_count, 0);
        let k = &p.rules[4];
        assert_eq!(k.kind, RuleKind::Keep);
        assert_eq!(k.selector.kinds, [RemarkKind::Passed]);
        assert_eq!(
            k.selector.describe(),
            "kind=Passed pass=loop-vectorize file=kernel.c"
        );
    }

    fn syntax_error(text: &str) -> (Option<usize>, String) {
        match Policy::parse(text) {
            Err(PolicyError::Syntax { line, message, .. }) => (line, message),
            other => panic!("expected a syntax error, got {other:?}"),
        }
    }

    #[test]
    fn unknown_keys_are_errors_with_their_line() {
        let (line, msg) = syntax_error("[[deny]]\npass = \"inline\"\nfunctoin = \"run\"\n");
        assert_eq!(line, Some(3));
        assert!(msg.contains("unknown field `functoin`"), "{msg}");
        // min_count belongs to require only.
        let (line, msg) = syntax_error("[[deny]]\npass = \"inline\"\n\nmin_count = 2\n");
        assert_eq!(line, Some(4));
        assert!(msg.contains("unknown field `min_count`"), "{msg}");
        // An unknown table.
        let (line, msg) = syntax_error("[[deny]]\npass = \"a\"\n[[denied]]\npass = \"b\"\n");
        assert_eq!(line, Some(3));
        assert!(msg.contains("unknown field `denied`"), "{msg}");
        let err = Policy::parse("[[keep]]\nbogus = 1\n").unwrap_err();
        assert_eq!(
            err.to_string().split(':').next().unwrap(),
            "line 2, column 1"
        );
    }

    #[test]
    fn bad_values_are_errors_with_their_line() {
        let (line, msg) = syntax_error("[[deny]]\nfile = \"[z-a].c\"\n");
        assert_eq!(line, Some(2));
        assert!(msg.contains("bad pattern '[z-a].c'"), "{msg}");
        let (line, msg) = syntax_error("[[deny]]\n\nfunction = \"re:(\"\n");
        assert_eq!(line, Some(3));
        assert!(msg.contains("bad pattern 're:('"), "{msg}");
        let (line, msg) = syntax_error("[[deny]]\nkind = \"Mised\"\n");
        assert_eq!(line, Some(2));
        assert!(msg.contains("unknown remark kind 'Mised'"), "{msg}");
        let (line, msg) = syntax_error("[[deny]]\nkind = [\"Missed\", \"Nope\"]\n");
        assert_eq!(line, Some(2));
        assert!(msg.contains("unknown remark kind 'Nope'"), "{msg}");
        let (_, msg) = syntax_error("[[deny]]\nkind = []\n");
        assert!(msg.contains("empty list of kinds"), "{msg}");
        let (_, msg) = syntax_error("[[deny]]\nkind = 3\n");
        assert!(msg.contains("remark kind"), "{msg}");
        let (line, msg) = syntax_error("[[require]]\npass = \"lto\"\nmin_count = 0\n");
        assert_eq!(line, Some(3));
        assert!(msg.contains("min_count must be at least 1"), "{msg}");
        let (line, _) = syntax_error("[[require]]\nmin_count = -2\n");
        assert_eq!(line, Some(2));
        let (line, _) = syntax_error("[[deny]]\nmin_hotness = \"hot\"\n");
        assert_eq!(line, Some(2));
        let (line, _) = syntax_error("[[deny]]\nargs = { Callee = 3 }\n");
        assert_eq!(line, Some(2));
        let (line, _) = syntax_error("[[deny]\npass = 1\n");
        assert_eq!(line, Some(1));
        let (line, msg) = syntax_error("# nothing\n");
        assert_eq!(line, None);
        assert!(msg.contains("no rules"), "{msg}");
    }
}
