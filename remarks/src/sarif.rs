//! A check's report as SARIF 2.1.0 (the OASIS Static Analysis Results Interchange Format),
//! which GitHub code scanning and other CI dashboards take.
//!
//! One run; the driver `rld remarks` lists the policy's rules (`deny-1`, ...; the message as
//! short description); each violation is a result of level `error` located at its remark's
//! `DebugLoc` (none for `require`). SARIF regions start at line and column 1, so LLVM's 0
//! ("unknown") leaves the region, or its column, out. A result's logical location is the
//! remark's function: its symbol as `name` and, for a Rust symbol, the demangled path as
//! `fullyQualifiedName`; messages name it demangled.

use crate::check::{CheckReport, Finding};
use crate::names::display_name;
use crate::policy::RuleKind;
use serde_json::{json, Map, Value};

/// The schema `$schema` names.
pub const SARIF_SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

impl CheckReport {
    /// The report as a SARIF 2.1.0 log.
    pub fn to_sarif(&self) -> Value {
        let rules: Vec<Value> = self
            .rules
            .iter()
            .map(|r| {
                json!({
                    "id": r.id,
                    "shortDescription": { "text": r.message },
                    "fullDescription": { "text": format!("{} {}", r.kind, r.selector) },
                    "defaultConfiguration": { "level": "error" },
                    "properties": {
                        "kind": r.kind.as_str(),
                        "selector": r.selector,
                        "matched": r.matched,
                        "violations": r.violations,
                    },
                })
            })
            .collect();

        let results: Vec<Value> = self
            .violations
            .iter()
            .map(|v| {
                let rule = &self.rules[v.rule];
                let mut result = Map::new();
                result.insert("ruleId".into(), json!(rule.id));
                result.insert("ruleIndex".into(), json!(v.rule));
                result.insert("level".into(), json!("error"));
                let text = match v.finding.remark() {
                    Some(r) => format!("{}: {}", display_name(&r.function), self.describe(v)),
                    None => self.describe(v),
                };
                result.insert("message".into(), json!({ "text": text }));
                if let Some(r) = v.finding.remark() {
                    let mut location = Map::new();
                    if let Some(l) = &r.debug_loc {
                        let mut physical = Map::new();
                        physical.insert(
                            "artifactLocation".into(),
                            json!({ "uri": path_to_uri(&l.file) }),
                        );
                        if l.line > 0 {
                            let mut region = Map::new();
                            region.insert("startLine".into(), json!(l.line));
                            if l.column > 0 {
                                region.insert("startColumn".into(), json!(l.column));
                            }
                            physical.insert("region".into(), Value::Object(region));
                        }
                        location.insert("physicalLocation".into(), Value::Object(physical));
                    }
                    let mut function = json!({ "name": r.function, "kind": "function" });
                    if let std::borrow::Cow::Owned(shown) = display_name(&r.function) {
                        function["fullyQualifiedName"] = json!(shown);
                    }
                    location.insert("logicalLocations".into(), json!([function]));
                    result.insert("locations".into(), json!([location]));
                    let mut props = json!({
                        "remarkKind": &r.kind.tag()[1..],
                        "pass": r.pass,
                        "remarkName": r.name,
                        "remark": r.text,
                    });
                    if let Finding::Gone {
                        baseline, found, ..
                    } = v.finding
                    {
                        props["baselineCount"] = json!(baseline);
                        props["foundCount"] = json!(found);
                    }
                    result.insert("properties".into(), props);
                } else if let Finding::TooFew { found, required } = v.finding {
                    result.insert(
                        "properties".into(),
                        json!({ "foundCount": found, "requiredCount": required }),
                    );
                }
                Value::Object(result)
            })
            .collect();

        let notifications: Vec<Value> = self
            .rules
            .iter()
            .filter(|r| (r.shown as u64) < r.violations)
            .map(|r| {
                json!({
                    "level": "warning",
                    "message": {
                        "text": format!(
                            "{}: {} more violations not shown",
                            r.id,
                            r.violations - r.shown as u64
                        ),
                    },
                })
            })
            .collect();
        let mut invocation = json!({ "executionSuccessful": true });
        if !notifications.is_empty() {
            invocation["toolExecutionNotifications"] = Value::Array(notifications);
        }

        let mut run_props = json!({
            "remarks": self.remarks,
            "violations": self.violation_count(),
        });
        if self.rules.iter().any(|r| r.kind == RuleKind::Keep) {
            run_props["baselineRemarks"] = json!(self.baseline_remarks);
        }

        json!({
            "$schema": SARIF_SCHEMA,
            "version": "2.1.0",
            "runs": [{
                "tool": {
                    "driver": {
                        "name": "rld remarks",
                        "version": env!("CARGO_PKG_VERSION"),
                        "rules": rules,
                    },
                },
                "invocations": [invocation],
                "results": results,
                "properties": run_props,
            }],
        })
    }
}

/// A remark's file as a URI reference: a relative path stays relative (`/` separated,
/// percent-encoded), an absolute one becomes a `file://` URI.
pub fn path_to_uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let b = path.as_bytes();
    let drive = b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'/';
    let mut uri = String::new();
    if path.starts_with('/') {
        uri.push_str("file://");
    } else if drive {
        uri.push_str("file:///");
    }
    for (i, &c) in b.iter().enumerate() {
        let keep = c.is_ascii_alphanumeric()
            || matches!(c, b'-' | b'.' | b'_' | b'~' | b'/')
            || (drive && i == 1);
        if keep {
            uri.push(c as char);
        } else {
            uri.push_str(&format!("%{c:02X}"));
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris() {
        assert_eq!(path_to_uri("src/a.c"), "src/a.c");
        assert_eq!(path_to_uri("src/my file#1.c"), "src/my%20file%231.c");
        assert_eq!(path_to_uri("/home/u/café.c"), "file:///home/u/caf%C3%A9.c");
        assert_eq!(path_to_uri("C:\\src\\a.c"), "file:///C:/src/a.c");
        assert_eq!(path_to_uri("a:b.c"), "a%3Ab.c");
        assert_eq!(path_to_uri("x/a:b.c"), "x/a%3Ab.c");
    }
}
