//! What a remark is: the fields LLVM's remark formats (YAML and bitstream) share.

/// A source position, as LLVM's `DebugLoc` flow map writes it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DebugLoc {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

/// The document tag of a remark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemarkKind {
    Passed,
    Missed,
    Analysis,
    AnalysisFPCommute,
    AnalysisAliasing,
    Failure,
}

impl RemarkKind {
    /// Every kind, in LLVM's order.
    pub const ALL: [RemarkKind; 6] = [
        RemarkKind::Passed,
        RemarkKind::Missed,
        RemarkKind::Analysis,
        RemarkKind::AnalysisFPCommute,
        RemarkKind::AnalysisAliasing,
        RemarkKind::Failure,
    ];

    /// The YAML tag, `!Passed` ...
    pub fn tag(self) -> &'static str {
        match self {
            RemarkKind::Passed => "!Passed",
            RemarkKind::Missed => "!Missed",
            RemarkKind::Analysis => "!Analysis",
            RemarkKind::AnalysisFPCommute => "!AnalysisFPCommute",
            RemarkKind::AnalysisAliasing => "!AnalysisAliasing",
            RemarkKind::Failure => "!Failure",
        }
    }

    pub fn from_tag(tag: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.tag() == tag)
    }
}

/// One argument of a remark: a single-key map, `Key: value`, with an optional location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemarkArg {
    pub key: String,
    pub value: String,
    pub debug_loc: Option<DebugLoc>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remark {
    pub kind: RemarkKind,
    /// The pass name (`lto`, `inline`, ...), which `--opt-remarks-passes` filters on.
    pub pass: String,
    /// The remark's identifier within its pass (`deadfunction`, `Inlined`, ...).
    pub name: String,
    pub debug_loc: Option<DebugLoc>,
    pub function: String,
    pub hotness: Option<u64>,
    pub args: Vec<RemarkArg>,
}

/// The remark lld-14 writes for a function that LTO drops because nothing reaches it
/// (llvm/lib/LTO/LTO.cpp). `debug_loc` is the function's DISubprogram location, which LLVM
/// puts both on the remark and on its `Function` argument. The message keeps LLVM's
/// surrounding spaces.
pub fn dead_function_remark(function: &str, debug_loc: Option<DebugLoc>) -> Remark {
    Remark {
        kind: RemarkKind::Passed,
        pass: "lto".to_string(),
        name: "deadfunction".to_string(),
        debug_loc: debug_loc.clone(),
        function: function.to_string(),
        hotness: None,
        args: vec![
            RemarkArg {
                key: "Function".to_string(),
                value: function.to_string(),
                debug_loc,
            },
            RemarkArg {
                key: "String".to_string(),
                value: " not added to the combined module ".to_string(),
                debug_loc: None,
            },
        ],
    }
}

impl Remark {
    /// The remark as one JSON object: `kind` without the YAML tag's `!`, absent fields left out,
    /// and for a Rust symbol its path as `demangled` (`function` keeps the symbol).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::{json, Map, Value};
        let loc = |l: &DebugLoc| json!({"file": l.file, "line": l.line, "column": l.column});
        let mut o = Map::new();
        o.insert("kind".into(), json!(&self.kind.tag()[1..]));
        o.insert("pass".into(), json!(self.pass));
        o.insert("name".into(), json!(self.name));
        if let Some(l) = &self.debug_loc {
            o.insert("debug_loc".into(), loc(l));
        }
        o.insert("function".into(), json!(self.function));
        if let std::borrow::Cow::Owned(shown) = crate::names::display_name(&self.function) {
            o.insert("demangled".into(), json!(shown));
        }
        if let Some(h) = self.hotness {
            o.insert("hotness".into(), json!(h));
        }
        let args: Vec<Value> = self
            .args
            .iter()
            .map(|a| {
                let mut arg = Map::new();
                arg.insert("key".into(), json!(a.key));
                arg.insert("value".into(), json!(a.value));
                if let Some(l) = &a.debug_loc {
                    arg.insert("debug_loc".into(), loc(l));
                }
                Value::Object(arg)
            })
            .collect();
        o.insert("args".into(), Value::Array(args));
        Value::Object(o)
    }
}
