//! `rld remarks ...`: the command line of the remark tools. Exit status: 0 when all is well,
//! 1 when `diff --fail-on-regression` found a regression or `check` a policy violation, 2 for
//! bad usage or an unreadable input.

use crate::select::{parse_kind, Pattern, Selector};
use crate::source::{for_each_remark, remark_files};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(
    name = "rld remarks",
    about = "Summarize, filter, diff, check and view LLVM optimization remarks (YAML or bitstream files, or directories of them)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count remarks by kind, pass and name, source file and function; the most frequent
    /// missed reasons.
    Summary(SummaryArgs),
    /// Write the remarks that match every condition given (globs, or regexes as `re:...`).
    Filter(FilterArgs),
    /// What changed between two builds' remarks, matched by what they are about.
    Diff(DiffArgs),
    /// Check remarks against a policy (TOML: [[deny]], [[require]], [[keep]] rules).
    Check(CheckArgs),
    /// Write a self-contained HTML report: sources with remarks at their lines, tables.
    View(ViewArgs),
}

#[derive(Clone, Copy, ValueEnum)]
enum ReportFormat {
    Text,
    Json,
    Markdown,
}

#[derive(Args)]
struct SummaryArgs {
    /// Remark files, or directories searched for *.yaml, *.yml and *.bitstream files.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    #[arg(long, value_enum, default_value = "text")]
    format: ReportFormat,
    /// How many source files, functions and names to list.
    #[arg(long, default_value_t = 10)]
    top: usize,
    #[command(flatten)]
    select: SelectArgs,
}

/// The conditions of `filter` (also usable by `summary`): all must hold.
#[derive(Args, Default)]
struct SelectArgs {
    /// Passed, Missed, Analysis, AnalysisFPCommute, AnalysisAliasing, Failure (repeatable).
    #[arg(long)]
    kind: Vec<String>,
    #[arg(long)]
    pass: Option<String>,
    #[arg(long)]
    name: Option<String>,
    #[arg(long)]
    function: Option<String>,
    /// The source file of the remark's DebugLoc.
    #[arg(long)]
    file: Option<String>,
    /// KEY=VALUE: an argument with that key and a matching value (repeatable).
    #[arg(long = "arg", value_name = "KEY=VALUE")]
    args: Vec<String>,
    /// Remarks at least this hot (remarks without hotness never match).
    #[arg(long)]
    min_hotness: Option<u64>,
}

impl SelectArgs {
    fn selector(&self) -> Result<Selector> {
        let pattern = |p: &Option<String>| p.as_deref().map(Pattern::new).transpose();
        Ok(Selector {
            kinds: self
                .kind
                .iter()
                .map(|k| parse_kind(k))
                .collect::<std::result::Result<_, _>>()?,
            pass: pattern(&self.pass)?,
            name: pattern(&self.name)?,
            function: pattern(&self.function)?,
            file: pattern(&self.file)?,
            args: self
                .args
                .iter()
                .map(|a| Selector::parse_arg(a))
                .collect::<std::result::Result<_, _>>()?,
            min_hotness: self.min_hotness,
        })
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum RemarkFormat {
    /// LLVM's YAML remark format (what llvm-opt-report and opt-viewer read).
    Yaml,
    /// One JSON object per line.
    Jsonl,
    /// LLVM's bitstream remark format (as LLVM 22 writes it: container version 1).
    Bitstream,
}

#[derive(Args)]
struct FilterArgs {
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    #[command(flatten)]
    select: SelectArgs,
    #[arg(long, value_enum, default_value = "yaml")]
    format: RemarkFormat,
    /// Output file (default: standard output).
    #[arg(short = 'o', long)]
    output: Option<PathBuf>,
}

#[derive(Args)]
struct DiffArgs {
    /// The baseline build's remarks (file or directory).
    old: PathBuf,
    /// The changed build's remarks (file or directory).
    new: PathBuf,
    #[arg(long, value_enum, default_value = "text")]
    format: ReportFormat,
    /// Exit with status 1 when an optimization was lost.
    #[arg(long)]
    fail_on_regression: bool,
}

#[derive(Args)]
struct CheckArgs {
    #[arg(long, required = true)]
    policy: PathBuf,
    /// The baseline's remarks, for [[keep]] rules.
    #[arg(long)]
    baseline: Option<PathBuf>,
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Also write the violations as SARIF 2.1.0.
    #[arg(long)]
    sarif: Option<PathBuf>,
    /// Also print GitHub Actions `::error` annotations.
    #[arg(long)]
    github: bool,
}

#[derive(Args)]
struct ViewArgs {
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    #[arg(short = 'o', long, required = true)]
    output: PathBuf,
    /// Where relative source paths of the remarks are found (default: the current directory).
    #[arg(long)]
    source_root: Option<PathBuf>,
}

/// Runs `rld remarks` with `args` (without the program name and `remarks`); the exit status.
pub fn run(args: impl IntoIterator<Item = OsString>) -> i32 {
    run_to(args, &mut std::io::stdout().lock())
}

/// The status of a tool whose reader went away (`rld remarks ... | head`): what a Unix
/// tool ended by SIGPIPE reports, 128 + 13.
pub const CLOSED_PIPE_STATUS: i32 = 141;

/// Standard output, noting whether its reader has gone: a closed pipe ends the command
/// quietly, as it ends a Unix tool, not with an error message.
struct PipeWatch<'a> {
    out: &'a mut dyn Write,
    closed: bool,
}

impl PipeWatch<'_> {
    fn note<T>(&mut self, r: std::io::Result<T>) -> std::io::Result<T> {
        if let Err(e) = &r {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                self.closed = true;
            }
        }
        r
    }
}

impl Write for PipeWatch<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let r = self.out.write(buf);
        self.note(r)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let r = self.out.flush();
        self.note(r)
    }
}

/// [`run`] with what it would print on standard output (reports, `filter` without `-o`)
/// written to `out`, as the tests read it. Errors and `--help` still go to the terminal.
pub fn run_to(args: impl IntoIterator<Item = OsString>, out: &mut dyn Write) -> i32 {
    let argv = std::iter::once(OsString::from("rld remarks")).chain(args);
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return e.exit_code();
        }
    };
    let mut watch = PipeWatch { out, closed: false };
    let result = execute(cli.command, &mut watch).and_then(|status| {
        // What is still buffered meets the closed pipe here, if it is closed.
        watch.flush().map_err(|e| format!("writing: {e}"))?;
        Ok(status)
    });
    match result {
        _ if watch.closed => CLOSED_PIPE_STATUS,
        Ok(status) => status,
        Err(e) => {
            eprintln!("rld remarks: error: {e}");
            2
        }
    }
}

type Result<T> = std::result::Result<T, String>;

fn execute(command: Command, out: &mut dyn Write) -> Result<i32> {
    match command {
        Command::Summary(a) => summary(a, out),
        Command::Filter(a) => filter(a, out),
        Command::Diff(a) => diff(a, out),
        Command::Check(a) => check(a, out),
        Command::View(a) => view(a),
    }
}

fn read_all(inputs: &[PathBuf], f: impl FnMut(&Path, crate::Remark)) -> Result<usize> {
    let files = remark_files(inputs).map_err(|e| e.to_string())?;
    for_each_remark(&files, f).map_err(|e| e.to_string())?;
    Ok(files.len())
}

fn summary(a: SummaryArgs, out: &mut dyn Write) -> Result<i32> {
    let select = a.select.selector()?;
    let mut s = crate::summary::Summary::default();
    s.files = read_all(&a.inputs, |_, r| {
        if select.matches(&r) {
            s.add(&r)
        }
    })? as u64;
    match a.format {
        ReportFormat::Text => s.write_text(out, a.top),
        ReportFormat::Markdown => s.write_markdown(out, a.top),
        ReportFormat::Json => writeln!(out, "{:#}", s.to_json(a.top)),
    }
    .map_err(|e| format!("writing the summary: {e}"))?;
    Ok(0)
}

/// Writes to `path` through a temporary file renamed at the end (no half-written output), or
/// to `stdout`.
fn write_output(
    path: Option<&Path>,
    stdout: &mut dyn Write,
    write: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    let Some(path) = path else {
        let out = &mut std::io::BufWriter::new(stdout);
        write(out)?;
        return out.flush().map_err(|e| format!("standard output: {e}"));
    };
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let file = std::fs::File::create(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let done = write(&mut out)
        .and_then(|()| out.flush().map_err(|e| format!("{}: {e}", path.display())))
        .and_then(|()| std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display())));
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done
}

fn filter(a: FilterArgs, stdout: &mut dyn Write) -> Result<i32> {
    let select = a.select.selector()?;
    let inputs = a.inputs.clone();
    write_output(a.output.as_deref(), stdout, |out| {
        let mut error = None;
        let mut sink = crate::sink::RemarkSink::new(
            match a.format {
                RemarkFormat::Yaml => crate::sink::SinkFormat::Yaml,
                RemarkFormat::Jsonl => crate::sink::SinkFormat::JsonLines,
                RemarkFormat::Bitstream => crate::sink::SinkFormat::Bitstream,
            },
            out,
        );
        read_all(&inputs, |_, r| {
            if error.is_none() && select.matches(&r) {
                if let Err(e) = sink.add(&r) {
                    error = Some(e);
                }
            }
        })?;
        if let Some(e) = error {
            return Err(format!("writing remarks: {e}"));
        }
        sink.finish()
            .map(|_| ())
            .map_err(|e| format!("writing remarks: {e}"))
    })?;
    Ok(0)
}

fn diff(a: DiffArgs, out: &mut dyn Write) -> Result<i32> {
    let mut d = crate::diff::Diff::default();
    read_all(std::slice::from_ref(&a.old), |_, r| d.add(false, &r))?;
    read_all(std::slice::from_ref(&a.new), |_, r| d.add(true, &r))?;
    let report = d.finish();
    match a.format {
        ReportFormat::Text => report.write_text(out),
        ReportFormat::Markdown => report.write_markdown(out),
        ReportFormat::Json => writeln!(out, "{:#}", report.to_json()),
    }
    .map_err(|e| format!("writing the diff: {e}"))?;
    Ok(i32::from(a.fail_on_regression && report.regressions() > 0))
}

fn check(a: CheckArgs, out: &mut dyn Write) -> Result<i32> {
    let text =
        std::fs::read_to_string(&a.policy).map_err(|e| format!("{}: {e}", a.policy.display()))?;
    let policy =
        crate::policy::Policy::parse(&text).map_err(|e| format!("{}: {e}", a.policy.display()))?;
    let mut checker = crate::check::Checker::new(&policy, a.baseline.is_some())
        .map_err(|e| format!("{}: {e}", a.policy.display()))?;
    if let Some(baseline) = &a.baseline {
        read_all(std::slice::from_ref(baseline), |_, r| {
            checker.add_baseline(&r)
        })?;
    }
    read_all(&a.inputs, |_, r| checker.add(&r))?;
    let report = checker.finish();
    report
        .write_text(out)
        .map_err(|e| format!("writing the report: {e}"))?;
    if a.github {
        report
            .write_github(out)
            .map_err(|e| format!("writing the report: {e}"))?;
    }
    if let Some(path) = &a.sarif {
        write_output(Some(path), out, |w| {
            writeln!(w, "{:#}", report.to_sarif()).map_err(|e| e.to_string())
        })?;
    }
    Ok(i32::from(!report.passed()))
}

fn view(a: ViewArgs) -> Result<i32> {
    let mut html = crate::view::HtmlReport::new(a.source_root.clone());
    read_all(&a.inputs, |_, r| html.add(&r))?;
    write_output(Some(&a.output), &mut std::io::sink(), |out| {
        html.write(out).map_err(|e| e.to_string())
    })?;
    Ok(0)
}
