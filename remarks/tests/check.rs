//! `rld remarks check` on real remark files written by LLVM 14 (tests/data): policies,
//! deny/require/keep, and the text, GitHub and SARIF outputs.

use rld_remarks::check::Finding;
use rld_remarks::{CheckReport, Checker, Policy, PolicyError, Remark, YamlDocuments};
use serde_json::Value;
use std::io::BufReader;

const SRC: &str = "src/a_rather_long_directory_name/for/wrapping/remarks.c";

fn path(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The remarks of a data file, streamed as the CLI reads them.
fn stream(name: &str) -> impl Iterator<Item = Remark> {
    let file = std::fs::File::open(path(name)).unwrap();
    YamlDocuments::new(BufReader::new(file)).map(|r| r.unwrap())
}

fn check(policy: &str, remarks: impl Iterator<Item = Remark>) -> CheckReport {
    let policy = Policy::parse(policy).unwrap();
    let mut c = Checker::new(&policy, false).unwrap();
    remarks.for_each(|r| c.add(&r));
    c.finish()
}

fn check_with_baseline(
    policy: &str,
    baseline: impl Iterator<Item = Remark>,
    remarks: impl Iterator<Item = Remark>,
) -> CheckReport {
    let policy = Policy::parse(policy).unwrap();
    let mut c = Checker::new(&policy, true).unwrap();
    baseline.for_each(|r| c.add_baseline(&r));
    remarks.for_each(|r| c.add(&r));
    c.finish()
}

fn text(report: &CheckReport) -> String {
    let mut out = Vec::new();
    report.write_text(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn github(report: &CheckReport) -> String {
    let mut out = Vec::new();
    report.write_github(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn deny_on_clang_remarks() {
    let report = check(
        r#"
[[deny]]
message = "main must inline its callees"
kind = ["Missed", "Failure"]
pass = "inline"
function = "main"
file = "src/*/remarks.c"
args = { Callee = "re:it|fsum" }

[[deny]]
message = "nothing in fsum may be missed when hot"
function = "fsum"
kind = "Missed"
min_hotness = 1000000
"#,
        stream("clang-O2-pgo.opt.yaml"),
    );
    assert!(!report.passed());
    assert_eq!(report.remarks, 44);
    assert_eq!(report.violation_count(), 2);
    assert_eq!(
        report
            .rules
            .iter()
            .map(|r| r.violations)
            .collect::<Vec<_>>(),
        [2, 0]
    );
    let out = text(&report);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(
        lines[0],
        format!(
            "{SRC}:7:82: main: main must inline its callees \
             [deny-1 kind=Missed|Failure pass=inline function=main file=src/*/remarks.c Callee=re:it|fsum] \
             inline/NeverInline: 'it' not inlined into 'main' because it should never be inlined \
             (cost=never): noinline function attribute"
        )
    );
    assert!(lines[1].starts_with(&format!("{SRC}:7:124: main: main must inline")));
    assert!(lines[1].contains("'fsum' not inlined into 'main'"));
    assert_eq!(
        lines[2],
        "rld remarks check: FAILED, 2 violations (deny-1: 2, deny-2: 0); 44 remarks checked"
    );

    let gh = github(&report);
    let gh: Vec<&str> = gh.lines().collect();
    assert_eq!(gh.len(), 2);
    assert!(
        gh[0].starts_with(&format!(
            "::error file={SRC},line=7,col=82,title=rld remarks::main: main must inline its callees ["
        )),
        "{}",
        gh[0]
    );
}

#[test]
fn deny_of_a_remark_without_location() {
    // lld's deadfunction remark without -g has no DebugLoc.
    let report = check(
        "[[deny]]\nmessage = \"no dead code\"\nname = \"deadfunction\"\n",
        stream("lld-deadfunction.opt.ld.yaml"),
    );
    assert_eq!(
        text(&report),
        "<unknown>: unused: no dead code [deny-1 name=deadfunction] \
         lto/deadfunction: unused not added to the combined module\n\
         rld remarks check: FAILED, 1 violation (deny-1: 1); 1 remark checked\n"
    );
    assert_eq!(
        github(&report),
        "::error title=rld remarks::unused: no dead code [deny-1 name=deadfunction] \
         lto/deadfunction: unused not added to the combined module\n"
    );
    // A file selector never matches a remark without a location.
    let report = check(
        "[[deny]]\nname = \"deadfunction\"\nfile = \"*\"\n",
        stream("lld-deadfunction.opt.ld.yaml"),
    );
    assert!(report.passed());
}

#[test]
fn require_on_lld_remarks() {
    let policy = r#"
[[require]]
message = "LTO must drop a dead function"
pass = "lto"
name = "deadfunction"

[[require]]
message = "LTO must drop at least 3 dead functions"
pass = "lto"
name = "deadfunction"
min_count = 3

[[require]]
message = "probably_inlined must be inlined"
kind = "Passed"
name = "Inlined"
args = { Callee = "probably_inlined", Caller = "main" }
"#;
    let report = check(
        policy,
        stream("lld-deadfunction.opt.ld.yaml").chain(stream("lld-lto.opt.ld.yaml")),
    );
    assert_eq!(report.remarks, 6);
    assert_eq!(
        report.rules.iter().map(|r| r.matched).collect::<Vec<_>>(),
        [2, 2, 1]
    );
    assert_eq!(report.violation_count(), 1);
    assert_eq!(
        report.violations[0].finding,
        Finding::TooFew {
            found: 2,
            required: 3
        }
    );
    assert_eq!(
        text(&report),
        "<policy>: LTO must drop at least 3 dead functions [require-2 pass=lto name=deadfunction] \
         2 matching remarks, at least 3 required\n\
         rld remarks check: FAILED, 1 violation (require-1: 0, require-2: 1, require-3: 0); 6 remarks checked\n"
    );
    assert_eq!(
        github(&report),
        "::error title=rld remarks::LTO must drop at least 3 dead functions \
         [require-2 pass=lto name=deadfunction] 2 matching remarks, at least 3 required\n"
    );

    // Nothing in the clang file is from lto: both first rules fail, with 0 found.
    let report = check(policy, stream("clang-O2-pgo.opt.yaml"));
    assert_eq!(report.violation_count(), 3);
    assert!(text(&report).contains("0 matching remarks, at least 1 required"));
}

/// Every line number of a remark (its own and its arguments') moved by `by`.
fn shift(mut r: Remark, by: u32) -> Remark {
    if let Some(l) = &mut r.debug_loc {
        l.line += by;
    }
    for a in &mut r.args {
        if let Some(l) = &mut a.debug_loc {
            l.line += by;
        }
        // The inliner's "at callsite it:0:87" text carries the line too.
        if a.key == "Line" {
            a.value = (a.value.parse::<u32>().unwrap() + by).to_string();
        }
    }
    r
}

const KEEP: &str = r#"
[[keep]]
message = "what was inlined or vectorized must stay so"
kind = "Passed"
pass = "re:inline|loop-vectorize"
file = "src/*"

[[keep]]
message = "main keeps its stack size remark"
pass = "prologepilog"
function = "main"
"#;

#[test]
fn keep_does_not_depend_on_line_numbers() {
    // The same remarks, every line moved, in reverse order.
    let mut moved: Vec<Remark> = stream("clang-O2-pgo.opt.yaml")
        .map(|r| shift(r, 3))
        .collect();
    moved.reverse();
    let report = check_with_baseline(KEEP, stream("clang-O2-pgo.opt.yaml"), moved.into_iter());
    assert!(report.passed(), "{}", text(&report));
    assert_eq!(report.rules[0].matched, 4); // 3 Inlined, 1 Vectorized
    assert_eq!(report.rules[1].matched, 1);
    assert_eq!(
        text(&report),
        "rld remarks check: passed, 0 violations (keep-1: 0, keep-2: 0); 44 remarks checked, 44 baseline\n"
    );
    assert_eq!(github(&report), "");
}

#[test]
fn keep_reports_a_remark_that_is_gone() {
    // The loop in `it` no longer vectorizes (and every line moved).
    let new = stream("clang-O2-pgo.opt.yaml")
        .filter(|r| r.name != "Vectorized")
        .map(|r| shift(r, 10));
    let report = check_with_baseline(KEEP, stream("clang-O2-pgo.opt.yaml"), new);
    assert_eq!(report.violation_count(), 1);
    let Finding::Gone {
        remark,
        baseline,
        found,
    } = &report.violations[0].finding
    else {
        panic!("{:?}", report.violations[0])
    };
    assert_eq!((*baseline, *found), (1, 0));
    assert_eq!(remark.function, "it");
    assert_eq!(
        text(&report).lines().next().unwrap(),
        format!(
            "{SRC}:5:54: it: what was inlined or vectorized must stay so \
             [keep-1 kind=Passed pass=re:inline|loop-vectorize file=src/*] \
             loop-vectorize/Vectorized: vectorized loop (vectorization width: 4, interleaved count: 2) \
             (1 like it in the baseline, 0 now)"
        )
    );

    // An inline of `sq` into `it` that became a missed one: gone, by its Callee.
    let new = stream("clang-O2-pgo.opt.yaml").map(|mut r| {
        if r.name == "Inlined" && r.args.iter().any(|a| a.value == "sq") {
            r.kind = rld_remarks::RemarkKind::Missed;
            r.name = "TooCostly".into();
        }
        r
    });
    let report = check_with_baseline(KEEP, stream("clang-O2-pgo.opt.yaml"), new);
    assert_eq!(report.violation_count(), 1);
    let r = report.violations[0].finding.remark().unwrap();
    assert!(r.text.starts_with("'sq' inlined into 'it'"), "{}", r.text);
}

#[test]
fn keep_needs_a_baseline() {
    let policy = Policy::parse(KEEP).unwrap();
    match Checker::new(&policy, false) {
        Err(PolicyError::NeedsBaseline { rule, .. }) => assert_eq!(rule, "keep-1"),
        other => panic!("{:?}", other.err()),
    }
}

fn object<'a>(v: &'a Value, key: &str) -> &'a Value {
    match v.get(key) {
        Some(o) if o.is_object() => o,
        _ => panic!("`{key}` is not an object in {v}"),
    }
}

fn array<'a>(v: &'a Value, key: &str) -> &'a Vec<Value> {
    v.get(key)
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("`{key}` is not an array in {v}"))
}

fn string<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("`{key}` is not a string in {v}"))
}

fn report_with_every_finding() -> CheckReport {
    let policy = Policy::parse(
        r#"
[[deny]]
message = "no missed inlines in main"
kind = "Missed"
pass = "inline"

[[deny]]
message = "no dead functions"
name = "deadfunction"

[[require]]
message = "at least 2 vectorized loops"
name = "Vectorized"
min_count = 2

[[keep]]
message = "stay vectorized"
name = "Vectorized"
"#,
    )
    .unwrap();
    let mut c = Checker::new(&policy, true).unwrap();
    for r in stream("clang-O2-pgo.opt.yaml") {
        c.add_baseline(&r);
        if r.name != "Vectorized" {
            c.add(&r);
        }
    }
    for r in stream("lld-deadfunction.opt.ld.yaml") {
        c.add(&r);
    }
    c.finish()
}

#[test]
fn sarif_has_the_2_1_0_shape() {
    let report = report_with_every_finding();
    assert_eq!(report.violation_count(), 5);
    let sarif = report.to_sarif();
    // What the JSON text looks like is what uploaders read.
    let sarif: Value =
        serde_json::from_str(&serde_json::to_string_pretty(&sarif).unwrap()).unwrap();

    assert!(string(&sarif, "$schema").ends_with("sarif-schema-2.1.0.json"));
    assert_eq!(string(&sarif, "version"), "2.1.0");
    let runs = array(&sarif, "runs");
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    let driver = object(object(run, "tool"), "driver");
    assert_eq!(string(driver, "name"), "rld remarks");
    let rules = array(driver, "rules");
    let ids: Vec<&str> = rules.iter().map(|r| string(r, "id")).collect();
    assert_eq!(ids, ["deny-1", "deny-2", "require-1", "keep-1"]);
    for r in rules {
        assert!(!string(object(r, "shortDescription"), "text").is_empty());
        assert!(!string(object(r, "fullDescription"), "text").is_empty());
        assert_eq!(object(r, "defaultConfiguration")["level"], "error");
    }
    assert_eq!(
        string(object(&rules[2], "shortDescription"), "text"),
        "at least 2 vectorized loops"
    );

    let results = array(run, "results");
    assert_eq!(results.len(), 5);
    let by_rule: Vec<&str> = results.iter().map(|r| string(r, "ruleId")).collect();
    assert_eq!(
        by_rule,
        ["deny-1", "deny-1", "deny-2", "require-1", "keep-1"]
    );
    for r in results {
        assert_eq!(string(r, "level"), "error");
        let idx = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(string(&rules[idx], "id"), string(r, "ruleId"));
        assert!(!string(object(r, "message"), "text").is_empty());
        if let Some(locations) = r.get("locations") {
            for l in locations.as_array().unwrap() {
                if let Some(p) = l.get("physicalLocation") {
                    assert!(p["artifactLocation"]["uri"].is_string());
                    if let Some(region) = p.get("region") {
                        assert!(region["startLine"].as_u64().unwrap() >= 1);
                        if let Some(c) = region.get("startColumn") {
                            assert!(c.as_u64().unwrap() >= 1);
                        }
                    }
                }
            }
        }
    }
    // deny-1's first: a remark with a location.
    let loc = &results[0]["locations"][0];
    assert_eq!(loc["physicalLocation"]["artifactLocation"]["uri"], SRC);
    assert_eq!(loc["physicalLocation"]["region"]["startLine"], 7);
    assert_eq!(loc["physicalLocation"]["region"]["startColumn"], 82);
    assert_eq!(loc["logicalLocations"][0]["name"], "main");
    assert!(string(&results[0]["message"], "text")
        .starts_with("main: no missed inlines in main [deny-1"));
    // deny-2: a remark without a location has only its function.
    let loc = &results[2]["locations"][0];
    assert!(loc.get("physicalLocation").is_none());
    assert_eq!(loc["logicalLocations"][0]["kind"], "function");
    // require-1: no location, the counts.
    assert!(results[3].get("locations").is_none());
    assert_eq!(results[3]["properties"]["foundCount"], 0);
    assert_eq!(results[3]["properties"]["requiredCount"], 2);
    // keep-1: at the baseline remark.
    assert_eq!(
        results[4]["locations"][0]["physicalLocation"]["region"]["startLine"],
        5
    );
    assert_eq!(results[4]["properties"]["baselineCount"], 1);
    assert_eq!(results[4]["properties"]["foundCount"], 0);

    let invocation = &array(run, "invocations")[0];
    assert_eq!(invocation["executionSuccessful"], true);
    assert!(invocation.get("toolExecutionNotifications").is_none());
}

#[test]
fn sarif_of_a_passing_check_and_of_a_truncated_one() {
    let report = check(
        "[[deny]]\nname = \"NoSuchRemark\"\n",
        stream("clang-O2-pgo.opt.yaml"),
    );
    let sarif = report.to_sarif();
    assert_eq!(sarif["runs"][0]["results"], Value::Array(vec![]));
    assert_eq!(
        sarif["runs"][0]["tool"]["driver"]["rules"][0]["id"],
        "deny-1"
    );

    let policy = Policy::parse("[[deny]]\npass = \"asm-printer\"\n").unwrap();
    let mut c = Checker::new(&policy, false)
        .unwrap()
        .with_violation_limit(3);
    stream("clang-O2-pgo.opt.yaml").for_each(|r| c.add(&r));
    let report = c.finish();
    assert_eq!(report.violation_count(), 31);
    let sarif = report.to_sarif();
    assert_eq!(sarif["runs"][0]["results"].as_array().unwrap().len(), 3);
    let note = &sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
    assert_eq!(note["level"], "warning");
    assert_eq!(
        note["message"]["text"],
        "deny-1: 28 more violations not shown"
    );
    assert_eq!(
        sarif["runs"][0]["tool"]["driver"]["rules"][0]["properties"]["violations"],
        31
    );
}
