//! The HTML report of `rld remarks view`, built from remarks clang-14 really writes and opened
//! in a real headless browser: Debian's chromium, which scripts/install-prereqs installs (as
//! CI does). Without it these tests fail, saying so, rather than pass without checking.
//!
//! Each page load dumps the DOM after the page's script has run. The report's first script
//! records any script error, rejected promise or `console.error` on `<html data-errors>`, and
//! the main script marks `<html data-ready>` when it has rendered; chromium's log must also
//! hold no console message. `a_broken_script_is_caught` shows that a broken page does fail;
//! `the_controls_work` clicks and types through the page's controls;
//! `rust_functions_show_their_paths` renders the remarks of a Rust crate (rustc + opt-22).

mod support;

use rld_remarks::{parse_yaml, DebugLoc, HtmlReport, Remark, RemarkArg, RemarkKind};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A fresh directory under the system's temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir =
            std::env::temp_dir().join(format!("rld-view-{name}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const KERNELS_C: &str = r#"/* Remarks for rld's HTML report test: an inlined call, a vectorized loop, a loop that
   cannot be vectorized. */
static int square(int x) { return x * x; }

int sum_squares(const int *a, int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += square(a[i]);
  return s;
}

extern int opaque(int);

int call_each(int *a, int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += opaque(a[i]);
  return s;
}

void scale(float *restrict out, const float *restrict in, int n) {
  for (int i = 0; i < n; i++)
    out[i] = in[i] * 2.0f;
}
"#;

/// Compiles kernels.c as `src/kernels.c` from `dir` (so remarks name it relative to `dir`)
/// and reads the remark file clang-14 writes.
fn clang_remarks(dir: &Path) -> Vec<Remark> {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/kernels.c"), KERNELS_C).unwrap();
    let out = Command::new("clang-14")
        .current_dir(dir)
        .args(["-O2", "-g", "-c", "-fsave-optimization-record"])
        .args([
            "-foptimization-record-file=kernels.opt.yaml",
            "src/kernels.c",
        ])
        .args(["-o", "kernels.o"])
        .output()
        .expect("clang-14 is not installed: run scripts/install-prereqs");
    assert!(
        out.status.success(),
        "clang-14: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let yaml = std::fs::read_to_string(dir.join("kernels.opt.yaml")).unwrap();
    parse_yaml(&yaml).unwrap()
}

fn write_report(dir: &Path, source_root: Option<PathBuf>, remarks: &[Remark]) -> PathBuf {
    let mut report = HtmlReport::new(source_root);
    for r in remarks {
        report.add(r);
    }
    let path = dir.join("report.html");
    let mut file = std::fs::File::create(&path).unwrap();
    report.write(&mut file).unwrap();
    path
}

fn chromium() -> &'static str {
    const CHROMIUM: &str = "/usr/bin/chromium";
    assert!(
        Path::new(CHROMIUM).exists(),
        "{CHROMIUM} is missing: the HTML report tests need Debian's chromium; \
         run scripts/install-prereqs"
    );
    CHROMIUM
}

/// The page after its scripts ran, and what the browser logged.
struct Page {
    dom: String,
    log: String,
}

impl Page {
    /// The attributes of the `<html>` element, where the page records errors and readiness.
    fn root_tag(&self) -> &str {
        let start = self.dom.find("<html").expect("dumped DOM has <html>");
        let end = self.dom[start..]
            .find('>')
            .map_or(self.dom.len(), |e| start + e);
        &self.dom[start..end]
    }

    /// Script errors the page recorded, and console messages chromium logged.
    fn errors(&self) -> Vec<String> {
        let mut errors: Vec<String> = self
            .log
            .lines()
            .filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught"))
            .map(str::to_string)
            .collect();
        if let Some(at) = self.dom.find("data-errors=\"") {
            let rest = &self.dom[at..];
            errors.push(rest[..rest.find("\">").unwrap_or(rest.len()).min(2000)].to_string());
        }
        errors
    }

    fn assert_rendered(&self) {
        let errors = self.errors();
        assert!(
            errors.is_empty(),
            "the page has errors:\n{}",
            errors.join("\n")
        );
        assert!(
            self.root_tag().contains("data-ready="),
            "the page's script did not finish: {}",
            self.root_tag()
        );
    }
}

/// Opens `html#fragment` in headless chromium and dumps the DOM once the page is idle.
fn open(html: &Path, fragment: &str) -> Page {
    let profile = TempDir::new("chromium-profile");
    let url = format!("file://{}#{fragment}", html.display());
    let mut child = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
        ])
        .args(["--no-first-run", "--window-size=1280,900"])
        .arg(format!("--user-data-dir={}", profile.0.display()))
        .args([
            "--virtual-time-budget=10000",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .args(["--dump-dom", &url])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start chromium: run scripts/install-prereqs");
    // Read both pipes on threads so that neither fills up while waiting.
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).map(|_| s)
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).map(|_| s)
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 120 s on {url}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let dom = out.join().unwrap().unwrap();
    let log = err.join().unwrap().unwrap_or_default();
    assert!(
        status.success(),
        "chromium failed on {url}: {status}\n{log}"
    );
    assert!(
        dom.contains("<html"),
        "chromium dumped no DOM for {url}\n{log}"
    );
    Page { dom, log }
}

fn count(remarks: &[Remark], kind: RemarkKind) -> usize {
    remarks.iter().filter(|r| r.kind == kind).count()
}

/// The number on the summary's card for `kind`.
fn card_count(page: &Page, kind: &str) -> usize {
    let re = regex::Regex::new(&format!(
        r#"data-kind="{kind}"[^>]*><span class="kind kind-{kind}">{kind}</span><span class="n">([\d,]+)</span>"#
    ))
    .unwrap();
    let caps = re
        .captures(&page.dom)
        .unwrap_or_else(|| panic!("no {kind} card in the summary"));
    caps[1].replace(',', "").parse().unwrap()
}

/// The rendered rows of the source view: (class, data-line, text).
fn source_rows(page: &Page) -> Vec<(String, u32, String)> {
    let row = regex::Regex::new(r#"<div class="(row [^"]*)" data-line="(\d+)"[^>]*>(.*?)</div>"#)
        .unwrap();
    let tags = regex::Regex::new(r"<[^>]*>").unwrap();
    row.captures_iter(&page.dom)
        .map(|c| {
            let text = tags.replace_all(&c[3], "").to_string();
            (c[1].to_string(), c[2].parse().unwrap(), text)
        })
        .collect()
}

#[test]
fn clang_remarks_render_in_chromium() {
    let dir = TempDir::new("clang");
    let remarks = clang_remarks(&dir.0);
    let html = write_report(&dir.0, Some(dir.0.clone()), &remarks);

    // Summary: the counts by kind and a table by pass.
    let page = open(&html, "");
    page.assert_rendered();
    assert!(page
        .root_tag()
        .contains(&format!("data-ready=\"{}\"", remarks.len())));
    for (kind, name) in [
        (RemarkKind::Passed, "Passed"),
        (RemarkKind::Missed, "Missed"),
        (RemarkKind::Analysis, "Analysis"),
    ] {
        assert!(count(&remarks, kind) > 0);
        assert_eq!(card_count(&page, name), count(&remarks, kind), "{name}");
    }
    assert!(page.dom.contains(&format!(
        "{} remarks in 3 functions and 1 files",
        remarks.len()
    )));
    assert!(page.dom.contains(">loop-vectorize</a>"));

    // Per-function counts: sum_squares with its own remarks.
    let page = open(&html, "tab=functions");
    page.assert_rendered();
    let in_sum_squares = remarks
        .iter()
        .filter(|r| r.function == "sum_squares")
        .count();
    let row =
        regex::Regex::new(r#"<tr>.*?>sum_squares</a></td>.*?<td class="num">(\d+)</td>"#).unwrap();
    let caps = row
        .captures(&page.dom)
        .expect("sum_squares in the functions table");
    assert_eq!(caps[1].parse::<usize>().unwrap(), in_sum_squares);

    // The remarks table, filtered to Missed: only Missed rows, the inliner's among them.
    let page = open(&html, "tab=remarks&kind=Missed");
    page.assert_rendered();
    let missed = count(&remarks, RemarkKind::Missed);
    assert!(page
        .dom
        .contains(&format!("{missed} of {} remarks match", remarks.len())));
    assert_eq!(
        page.dom.matches("<td><span class=\"kind kind-").count(),
        missed
    );
    assert!(page.dom.contains(">src/kernels.c:17:10</a>"));
    assert!(page
        .dom
        .contains("opaque will not be inlined into call_each"));

    // The source, at the inlined call: line 8, then the remark under it.
    let page = open(&html, "tab=source&src=src/kernels.c&line=8");
    page.assert_rendered();
    let rows = source_rows(&page);
    let at = rows
        .iter()
        .position(|(class, line, _)| class.contains("src") && *line == 8)
        .expect("line 8 rendered");
    assert!(rows[at].0.contains("target"), "{:?}", rows[at]);
    assert!(rows[at].2.contains("s += square(a[i]);"), "{:?}", rows[at]);
    let remark = &rows[at + 1];
    assert!(remark.0.contains("remark") && remark.1 == 8, "{remark:?}");
    assert!(
        remark
            .2
            .contains("inline/Inlined: 'square' inlined into 'sum_squares'"),
        "{remark:?}"
    );
    assert!(rows
        .iter()
        .any(|(_, line, text)| *line == 9 && text.contains("return s;")));
}

/// The text a page shows, without its tags (and so without attributes and link targets).
fn visible_text(page: &Page) -> String {
    let body = &page.dom[page.dom.find("<body").unwrap_or(0)..];
    regex::Regex::new(r"<[^>]*>")
        .unwrap()
        .replace_all(body, "\n")
        .into_owned()
}

#[test]
fn rust_functions_show_their_paths() {
    let dir = TempDir::new("rust");
    let rust = support::rust_remarks(&dir.0, "rust", &[], "yaml");
    let mut remarks = parse_yaml(&std::fs::read_to_string(rust).unwrap()).unwrap();
    let c = support::clang_remarks("clang-22", &dir.0, "c", "yaml");
    remarks.extend(parse_yaml(&std::fs::read_to_string(c).unwrap()).unwrap());
    let html = write_report(&dir.0, Some(dir.0.clone()), &remarks);
    let symbol = |prefix: &str| {
        remarks
            .iter()
            .map(|r| r.function.clone())
            .find(|f| f.starts_with(prefix))
            .unwrap_or_else(|| panic!("no function {prefix}..."))
    };
    let run_symbol = symbol("_ZN10remarks_rs3run17h");

    // The functions table: paths, with the symbol in the link's tooltip; C names as they are.
    let page = open(&html, "tab=functions");
    page.assert_rendered();
    assert!(
        page.dom.contains(&format!(
            "title=\"Remarks in this function ({run_symbol})\">remarks_rs::run</a>"
        )),
        "{}",
        page.dom
    );
    assert!(page.dom.contains(">remarks_rs::compute</a>"));
    assert!(page
        .dom
        .contains("title=\"Remarks in this function\">sum_squares</a>"));
    assert!(page.dom.contains(">c_entry</a>"));
    let text = visible_text(&page);
    assert!(
        !text.contains("_ZN") && !text.contains("_RNv"),
        "a symbol is shown mangled:\n{text}"
    );

    // Filtering by function takes the path or the symbol (exact with `=`, else a part).
    let in_run = remarks.iter().filter(|r| r.function == run_symbol).count();
    assert!(in_run > 0);
    for func in [
        "%3Dremarks_rs::run".to_string(),
        format!("%3D{run_symbol}"),
        "_ZN10remarks_rs3run".to_string(),
    ] {
        let page = open(&html, &format!("tab=remarks&func={func}"));
        page.assert_rendered();
        assert!(
            page.dom
                .contains(&format!("{in_run} of {} remarks match", remarks.len())),
            "{func}"
        );
    }

    // A remark's message and details: the callee and caller demangled, the symbol shown too.
    let inlined = remarks
        .iter()
        .position(|r| r.function == run_symbol && r.name == "Inlined")
        .expect("compute inlined into run");
    let page = open(
        &html,
        &format!("tab=remarks&func=remarks_rs&remark={inlined}"),
    );
    page.assert_rendered();
    let text = visible_text(&page);
    assert!(
        text.contains("'remarks_rs::compute' inlined into 'remarks_rs::run'"),
        "{text}"
    );
    assert!(page.dom.contains(&format!(
        "<dt>Symbol</dt><dd class=\"symbol\">{run_symbol}</dd>"
    )));
}

/// Remark strings that would be markup or script if the report mixed them into its HTML.
const HOSTILE: [&str; 6] = [
    "</script><script>document.documentElement.setAttribute('data-pwned','script')</script>",
    "<img src=x onerror=\"document.documentElement.setAttribute('data-pwned','img')\">",
    "<!--<script>",
    "quotes \" ' ` and \\ backslash & ampersand &amp;",
    "UTF-8: café ∑ 😀 \u{2028}",
    "${alert(1)}",
];

fn hostile_remarks() -> Vec<Remark> {
    let loc = |file: &str, line| {
        Some(DebugLoc {
            file: file.to_string(),
            line,
            column: 3,
        })
    };
    HOSTILE
        .iter()
        .enumerate()
        .map(|(i, s)| Remark {
            kind: RemarkKind::ALL[i % RemarkKind::ALL.len()],
            pass: s.to_string(),
            name: s.to_string(),
            debug_loc: if i % 2 == 0 {
                loc("hostile.c", i as u32 + 1)
            } else {
                loc("missing/<b>\"quoted\" & 'odd'</b>.c", i as u32 + 1)
            },
            function: s.to_string(),
            hotness: Some(i as u64 + 1),
            args: vec![
                RemarkArg {
                    key: "Callee".to_string(),
                    value: s.to_string(),
                    debug_loc: loc("hostile.c", 2),
                },
                RemarkArg {
                    key: "String".to_string(),
                    value: format!(" and {s}"),
                    debug_loc: None,
                },
            ],
        })
        .collect()
}

#[test]
fn hostile_strings_stay_text() {
    let dir = TempDir::new("hostile");
    let source = format!("int f;\n{}\n</script>\n<b>bold</b>\n", HOSTILE.join("\n"));
    std::fs::write(dir.0.join("hostile.c"), &source).unwrap();
    let remarks = hostile_remarks();
    let html_path = write_report(&dir.0, Some(dir.0.clone()), &remarks);

    // The file itself: the template's three scripts close once each, nothing else does.
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert_eq!(html.to_ascii_lowercase().matches("</script").count(), 3);
    assert!(!html.contains("<img") && !html.contains("<!--<"));
    assert!(html.contains("café ∑ 😀"));

    // In the browser every string is text: no injected element, attribute or error.
    for fragment in [
        "tab=remarks",
        "tab=source&src=hostile.c",
        "tab=functions",
        "tab=files",
        "tab=remarks&remark=1",
        "tab=remarks&q=%3C%2Fscript%3E",
    ] {
        let page = open(&html_path, fragment);
        page.assert_rendered();
        assert!(!page.dom.contains("data-pwned=\""), "{fragment}");
        assert!(!page.dom.contains("<img"), "{fragment}");
        assert!(!page.dom.contains("<b>"), "{fragment}");
        if fragment != "tab=files" {
            assert!(
                page.dom.contains("&lt;/script&gt;&lt;script&gt;"),
                "{fragment}"
            );
        }
    }
    let page = open(&html_path, "tab=remarks");
    assert!(page.dom.contains("UTF-8: café ∑ 😀"));
    assert!(page
        .dom
        .contains("quotes \" ' ` and \\ backslash &amp; ampersand &amp;amp;"));
    assert!(page
        .dom
        .contains(&format!("{0} of {0} remarks match", HOSTILE.len())));

    // The source file's lines, hostile ones included, render as text at their lines.
    let page = open(&html_path, "tab=source&src=hostile.c&line=4");
    let rows = source_rows(&page);
    assert!(rows.iter().any(|(class, line, text)| class.contains("src")
        && *line == 4
        && text.contains("&lt;!--&lt;script&gt;")));
    assert!(rows
        .iter()
        .any(|(class, line, _)| class.contains("remark") && *line == 3));
}

#[test]
fn a_file_without_source_lists_its_remarks_by_line() {
    let dir = TempDir::new("missing");
    let remarks = hostile_remarks();
    let html = write_report(&dir.0, Some(dir.0.join("nowhere")), &remarks);
    let file = "missing/<b>\"quoted\" & 'odd'</b>.c";
    let fragment = format!(
        "tab=source&src={}",
        file.bytes()
            .map(|b| format!("%{b:02X}"))
            .collect::<String>()
    );
    let page = open(&html, &fragment);
    page.assert_rendered();
    assert!(page.dom.contains("Source not embedded ("), "{}", page.dom);
    let rows = source_rows(&page);
    // Remarks 1, 3 and 5 are in this file, at lines 2, 4 and 6: each under a line heading.
    let lines: Vec<u32> = rows
        .iter()
        .filter(|(class, ..)| class.contains("remark"))
        .map(|(_, line, _)| *line)
        .collect();
    assert_eq!(lines, [2, 4, 6]);
    assert!(rows
        .iter()
        .any(|(class, line, text)| class.contains("nosrc")
            && *line == 2
            && text.contains("(source not embedded)")));
}

/// Drives the report's controls the way a person would (clicks, typing, a checkbox, a select),
/// from a script appended to the page, which records what it finds wrong in
/// `<html data-steps>` ("ok" when nothing is).
const INTERACTIONS: &str = r#"
(async function () {
  const root = document.documentElement, problems = [];
  const wait = (ms) => new Promise((r) => setTimeout(r, ms));
  const check = (ok, what) => { if (!ok) problems.push(what); };
  const $ = (s) => document.querySelector(s);
  const $$ = (s) => [...document.querySelectorAll(s)];
  const matchCount = () => parseInt($('#match-count').textContent.replace(/,/g, ''), 10);
  const locations = () => $$('#view-remarks td.loc a').map((a) => a.textContent.split(':').slice(-2).map(Number));
  const total = matchCount();
  try {
    $('#tabs a[data-view="remarks"]').click();
    await wait(100);
    check(!$('#view-remarks').hidden && $('#view-summary').hidden, 'the Remarks tab shows');
    check($$('#view-remarks tbody tr').length === Math.min(100, total), 'a page of rows');

    // Sorting by location, up then down.
    const th = $$('#view-remarks th').find((t) => t.textContent === 'Location');
    th.click();
    let locs = locations();
    check($$('#view-remarks th').some((t) => t.textContent === 'Location' && t.getAttribute('aria-sort') === 'ascending'), 'sorted up');
    check(locs.every((l, i) => i === 0 || l[0] > locs[i - 1][0] || (l[0] === locs[i - 1][0] && l[1] >= locs[i - 1][1])), 'ascending by line: ' + JSON.stringify(locs));
    $$('#view-remarks th').find((t) => t.textContent === 'Location').click();
    locs = locations();
    check(locs.every((l, i) => i === 0 || l[0] < locs[i - 1][0] || (l[0] === locs[i - 1][0] && l[1] <= locs[i - 1][1])), 'descending by line: ' + JSON.stringify(locs));

    // Free text, typed.
    const text = $('#text-filter');
    text.value = "square' inlined";
    text.dispatchEvent(new Event('input'));
    await wait(600);
    const messages = $$('#view-remarks td.msg').map((td) => td.textContent);
    check(matchCount() === 1 && messages.length === 1 && messages[0].includes("'square' inlined into 'sum_squares'"), 'text filter: ' + JSON.stringify(messages));
    check(location.hash.includes('q=square%27+inlined'), 'the filter is in the URL: ' + location.hash);
    text.value = '';
    text.dispatchEvent(new Event('input'));
    await wait(600);
    check(matchCount() === total, 'text filter cleared');

    // A kind box and the pass select.
    const missed = $('#kind-filter input[value="Missed"]');
    missed.click();
    await wait(50);
    check($$('#view-remarks td .kind-Missed').length === 0 && matchCount() < total, 'Missed unticked');
    const pass = $('#pass-filter');
    pass.value = 'inline';
    pass.dispatchEvent(new Event('change'));
    await wait(50);
    check($$('#view-remarks tbody tr').length === 1 && matchCount() === 1, 'inline, not Missed: the inlined call');

    // A row opens its details.
    $('#view-remarks tbody tr td.msg').click();
    await wait(50);
    check(!$('#details').hidden && $('#details .message').textContent.includes('inlined into'), 'details open');
    check($$('#details tbody tr').some((tr) => tr.textContent.startsWith('Callee') && tr.textContent.includes('square')), 'arguments listed');
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    await wait(50);
    check($('#details').hidden, 'Escape closes the details');

    $('#reset-filters').click();
    await wait(50);
    check(matchCount() === total && missed.checked && pass.value === '', 'reset');

    // The source view: next and previous line with remarks.
    $('#tabs a[data-view="source"]').click();
    await wait(100);
    check(!$('#view-source').hidden && $$('#view-source .row').length > 10, 'the source shows: ' + $('#view-source').hidden + ' ' + $$('#view-source .row').length + ' ' + location.hash + ' ' + $('#view-source .viewport').clientHeight);
    // The fourth row is the line scrolled to (the view starts at line 0's remarks).
    const top = () => Number($$('#view-source .row')[3].dataset.line);
    const buttons = $$('#view-source button');
    const next = buttons.find((b) => b.textContent.startsWith('Next')), previous = buttons.find((b) => b.textContent.includes('Previous'));
    const first = top();
    next.click();
    const second = top();
    next.click();
    const third = top();
    previous.click();
    check(first < second && second < third && top() === second, `next/previous remark: ${first} ${second} ${third} ${top()}`);
    check($$('#view-source .row.remark').some((r) => Number(r.dataset.line) === second), 'a remark at the line jumped to');
  } catch (e) {
    problems.push(String(e && e.stack || e));
  }
  root.setAttribute('data-steps', problems.length ? problems.join(' | ') : 'ok');
})();
"#;

#[test]
fn the_controls_work() {
    let dir = TempDir::new("controls");
    let remarks = clang_remarks(&dir.0);
    let html = write_report(&dir.0, Some(dir.0.clone()), &remarks);
    let text = std::fs::read_to_string(&html).unwrap();
    let driven = text.replacen(
        "</body>",
        &format!("<script>{INTERACTIONS}</script>\n</body>"),
        1,
    );
    std::fs::write(&html, driven).unwrap();
    let page = open(&html, "");
    page.assert_rendered();
    let steps = regex::Regex::new(r#"data-steps="([^"]*)""#).unwrap();
    let steps = steps
        .captures(page.root_tag())
        .map(|c| c[1].to_string())
        .expect("the interaction script finished");
    assert_eq!(steps, "ok");
}

#[test]
fn a_broken_script_is_caught() {
    // The checks above would miss a script that fails: this one must not pass them.
    let dir = TempDir::new("broken");
    let html = write_report(&dir.0, None, &hostile_remarks());
    let text = std::fs::read_to_string(&html).unwrap();
    let broken = text.replacen("'use strict';", "'use strict'; noSuchFunction();", 1);
    assert_ne!(broken, text);
    std::fs::write(&html, broken).unwrap();
    let page = open(&html, "");
    let errors = page.errors();
    assert!(
        errors.iter().any(|e| e.contains("noSuchFunction")),
        "{errors:?}"
    );
    assert!(!page.root_tag().contains("data-ready="));
}

#[test]
fn empty_report_renders() {
    let dir = TempDir::new("empty");
    let html = write_report(&dir.0, None, &[]);
    for fragment in ["", "tab=source", "tab=remarks"] {
        let page = open(&html, fragment);
        page.assert_rendered();
        assert!(page.dom.contains("0 of 0 remarks match"));
    }
}

/// Deterministic pseudo-random numbers (an LCG): the synthetic set must not depend on a crate.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n.max(1)
    }
}

/// A remark shaped like those of SQLite's `-flto` build (the mix of passes, the inliner's
/// long messages, 3,000 functions over a 250,000-line amalgamation).
fn synthetic_remark(rng: &mut Lcg) -> Remark {
    let function = |rng: &mut Lcg| rng.below(3000);
    let func_name = |f: u64| format!("sqlite3Func{f}");
    // Where a function is defined: what the Callee and Caller arguments point at.
    let definition = |f: u64| {
        Some(DebugLoc {
            file: "sqlite3.c".to_string(),
            line: 1 + f as u32 * 80,
            column: 0,
        })
    };
    let loc = |rng: &mut Lcg| {
        Some(DebugLoc {
            file: if rng.below(20) == 0 {
                "shell.c"
            } else {
                "sqlite3.c"
            }
            .to_string(),
            line: 1 + rng.below(250_000) as u32,
            column: rng.below(60) as u32,
        })
    };
    let arg = |key: &str, value: String| RemarkArg {
        key: key.to_string(),
        value,
        debug_loc: None,
    };
    let s = |value: &str| arg("String", value.to_string());
    let caller = function(rng);
    let (kind, pass, name, args) = match rng.below(100) {
        0..=29 => {
            let callee = function(rng);
            let mut args = vec![
                s("'"),
                RemarkArg {
                    debug_loc: definition(callee),
                    ..arg("Callee", func_name(callee))
                },
            ];
            let inlined = rng.below(2) == 0;
            args.push(s(if inlined {
                "' inlined into '"
            } else {
                "' not inlined into '"
            }));
            args.push(RemarkArg {
                debug_loc: definition(caller),
                ..arg("Caller", func_name(caller))
            });
            args.push(s("'"));
            args.push(s(if inlined {
                " with "
            } else {
                " because too costly to inline "
            }));
            args.push(s("(cost="));
            args.push(arg("Cost", rng.below(500).to_string()));
            args.push(s(", threshold="));
            args.push(arg("Threshold", (225 + rng.below(300)).to_string()));
            args.push(s(")"));
            if inlined {
                args.push(s(" at callsite "));
                args.push(s(&func_name(caller)));
                args.push(s(":"));
                args.push(arg("Line", rng.below(400).to_string()));
                args.push(s(":"));
                args.push(arg("Column", rng.below(60).to_string()));
                args.push(s(";"));
            }
            let (kind, name) = if inlined {
                (RemarkKind::Passed, "Inlined")
            } else {
                (RemarkKind::Missed, "TooCostly")
            };
            (kind, "inline", name, args)
        }
        30..=54 => {
            let ty = ["i32", "i64", "i8", "ptr", "double"][rng.below(5) as usize];
            let args = vec![
                s("load of type "),
                arg("Type", ty.to_string()),
                s(" not eliminated"),
                s(" because it is clobbered by "),
                RemarkArg {
                    debug_loc: loc(rng),
                    ..arg("ClobberedBy", "call".to_string())
                },
            ];
            (RemarkKind::Missed, "gvn", "LoadClobbered", args)
        }
        55..=69 => {
            let mut args = vec![
                s("BasicBlock: "),
                arg("BasicBlock", rng.below(50).to_string()),
            ];
            for op in ["add", "br", "call", "load", "store", "icmp"] {
                args.push(s("\n"));
                args.push(arg(&format!("INST_{op}"), rng.below(40).to_string()));
            }
            (RemarkKind::Analysis, "asm-printer", "InstructionMix", args)
        }
        70..=79 => {
            let args = vec![
                arg("NumVRCopies", rng.below(20).to_string()),
                s(" virtual registers copies "),
                arg("TotalCopiesCost", format!("{}e-01", rng.below(100))),
                s(" total copies cost generated in function"),
            ];
            (RemarkKind::Missed, "regalloc", "SpillReloadCopies", args)
        }
        80..=89 => (
            RemarkKind::Passed,
            "licm",
            "Hoisted",
            vec![s("hoisting "), arg("Inst", "load".to_string())],
        ),
        _ => (
            RemarkKind::Analysis,
            "prologepilog",
            "StackSize",
            vec![
                arg("NumStackBytes", rng.below(512).to_string()),
                s(" stack bytes in function"),
            ],
        ),
    };
    Remark {
        kind,
        pass: pass.to_string(),
        name: name.to_string(),
        debug_loc: loc(rng),
        function: func_name(caller),
        hotness: None,
        args,
    }
}

/// CPU time of this thread so far, which unlike wall time hardly depends on what else runs.
fn thread_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let ns = stat.split(' ').next().and_then(|n| n.parse().ok());
    Duration::from_nanos(ns.unwrap_or(0))
}

fn peak_rss_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb / 1024)
}

/// Measures the report on a million synthetic remarks (the size of SQLite's `-flto` remark
/// set) and checks that chromium renders it. Run it optimized:
/// `cargo test --release -p rld-remarks --test view -- --ignored --nocapture`, with
/// `RLD_VIEW_KEEP=/some/dir/report.html` to keep the report (and its sqlite3.c).
#[test]
#[ignore]
fn a_million_remarks() {
    const COUNT: usize = 1_000_000;
    let dir = TempDir::new("million");
    let source: String = (1..=250_000)
        .map(|i| format!("  x{i} = sqlite3Step(p, {i}); /* line {i} */\n"))
        .collect();
    std::fs::write(dir.0.join("sqlite3.c"), &source).unwrap();

    // Remarks are generated a batch at a time so that only adding them is timed; one batch
    // goes through YAML to compare with the time parse_yaml takes for the same remarks.
    const BATCH: usize = 10_000;
    let mut rng = Lcg(1);
    let rss_before = peak_rss_mib();
    let mut report = HtmlReport::new(Some(dir.0.clone()));
    let (mut add, mut add_cpu) = (Duration::ZERO, Duration::ZERO);
    let (mut yaml_bytes, mut parse) = (0, Duration::ZERO);
    for batch in 0..COUNT / BATCH {
        let remarks: Vec<Remark> = (0..BATCH).map(|_| synthetic_remark(&mut rng)).collect();
        if batch == 0 {
            let yaml = rld_remarks::format_yaml(&remarks);
            let cpu = thread_cpu();
            assert_eq!(parse_yaml(&yaml).unwrap().len(), BATCH);
            parse = (thread_cpu() - cpu) * (COUNT / BATCH) as u32;
            yaml_bytes = yaml.len() * (COUNT / BATCH);
        }
        let (start, cpu) = (Instant::now(), thread_cpu());
        for r in &remarks {
            report.add(r);
        }
        add += start.elapsed();
        add_cpu += thread_cpu() - cpu;
    }
    let html = dir.0.join("report.html");
    let (start, cpu) = (Instant::now(), thread_cpu());
    let mut file = std::io::BufWriter::new(std::fs::File::create(&html).unwrap());
    report.write(&mut file).unwrap();
    drop(file);
    let (write, write_cpu) = (start.elapsed(), thread_cpu() - cpu);
    let size = std::fs::metadata(&html).unwrap().len();
    println!(
        "{COUNT} remarks (~{} MB as YAML, which parse_yaml reads in ~{:.1} s of CPU): \
         add {:.2} s ({:.2} s of CPU), write {:.2} s ({:.2} s of CPU), \
         HTML {:.1} MB ({:.1} MB of it the source file), peak RSS {} MiB (before: {} MiB)",
        yaml_bytes / 1_000_000,
        parse.as_secs_f64(),
        add.as_secs_f64(),
        add_cpu.as_secs_f64(),
        write.as_secs_f64(),
        write_cpu.as_secs_f64(),
        size as f64 / 1e6,
        source.len() as f64 / 1e6,
        peak_rss_mib(),
        rss_before,
    );

    if let Some(keep) = std::env::var_os("RLD_VIEW_KEEP") {
        // To look at the report in a browser afterwards.
        std::fs::copy(&html, &keep).unwrap();
        std::fs::copy(
            dir.0.join("sqlite3.c"),
            Path::new(&keep).with_file_name("sqlite3.c"),
        )
        .unwrap();
    }
    let ready_ms = regex::Regex::new(r#"data-ready-ms="(\d+)""#).unwrap();
    for fragment in [
        "",
        "tab=remarks",
        "tab=functions",
        "tab=files&kind=Missed",
        "tab=remarks&q=inlined%20into",
        "tab=source&src=sqlite3.c&line=200000",
    ] {
        let start = Instant::now();
        let page = open(&html, fragment);
        page.assert_rendered();
        println!(
            "chromium on #{fragment}: rendered {} ms after navigation, {:.1} s in all",
            &ready_ms.captures(page.root_tag()).unwrap()[1],
            start.elapsed().as_secs_f64()
        );
        assert!(page.root_tag().contains(&format!("data-ready=\"{COUNT}\"")));
        if fragment.contains("line=200000") {
            let rows = source_rows(&page);
            assert!(rows
                .iter()
                .any(|(class, line, text)| class.contains("target")
                    && *line == 200_000
                    && text.contains("x200000 = sqlite3Step(p, 200000);")));
        }
    }
}
