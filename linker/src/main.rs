//! The `rld` command: GNU ld's command line in, an ELF file out.

use std::process::ExitCode;

fn main() -> ExitCode {
    // Before any thread starts (and before the link's first allocations).
    let tuned = rld::malloc_tuning::tune();
    // A panic is a bug in rld; say so plainly, without a Rust backtrace. The pending output
    // file is removed as the stack unwinds.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("rld: internal error: {info}; please report this bug with the command line");
    }));
    // `rld remarks ...`: the remark tools (an input file named `remarks` is `./remarks`).
    let mut raw = std::env::args_os().skip(1).peekable();
    if raw.peek().is_some_and(|a| a == "remarks") {
        let status = rld_remarks::cli::run(raw.skip(1));
        return ExitCode::from(status.clamp(0, 255) as u8);
    }
    // `rld --lto-backend ...`: one job of a distributed LTO link.
    if raw.peek().is_some_and(|a| a == "--lto-backend") {
        let args: Vec<String> = std::env::args().skip(2).collect();
        let done = rld::lto_backend::backend()
            .map_err(|e| e.to_string())
            .and_then(|b| b.backend_job(&args).map_err(|e| e.to_string()));
        return match done {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("rld: error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let program = std::env::args().next().unwrap_or_default();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut opts = match rld::args::parse_args(args.clone()) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("rld: error: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Typed by a person without a C runtime: link the program as clang-14 would.
    let args = match rld::front_door::complete(&program, args.clone(), &opts) {
        Ok(completed) if completed != args => {
            opts = match rld::args::parse_args(completed.clone()) {
                Ok(o) => o,
                Err(e) => {
                    eprintln!("rld: error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            completed
        }
        Ok(_) => args,
        Err(e) => {
            eprintln!("rld: error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if opts.print_driver {
        let quoted: Vec<String> = args.iter().map(|a| shell_word(a)).collect();
        return print_out(&format!("{program} {}\n", quoted.join(" ")));
    }
    if let Some(path) = &opts.dump_summary {
        return match rld::lto_driver::dump_summary(path) {
            Ok(text) => print_out(&text),
            Err(e) => {
                eprintln!("rld: error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if opts.print_help {
        return print_out(rld::args::help_text());
    }
    // GNU ld prints the sysroot (nothing without one) and links nothing.
    if opts.print_sysroot {
        let line = opts
            .sysroot
            .as_ref()
            .map_or(String::new(), |s| format!("{}\n", s.display()));
        return print_out(&line);
    }
    // As GNU ld: the format, then the link if there is one.
    if opts.print_output_format {
        let printed = print_out("elf64-x86-64\n");
        if opts.inputs.is_empty() {
            return printed;
        }
    }
    if opts.print_version {
        // `v` before the number: libtool reads a version line with " 0." or " 1." in it as
        // GNU ld older than 2.11, without anonymous version scripts, and then ignores
        // `-export-symbols-regex` (a library built so exported its internals).
        let version = format!(
            "rld v{} (compatible with GNU linkers)\n",
            env!("CARGO_PKG_VERSION")
        );
        if opts.inputs.is_empty() || opts.version_only {
            return print_out(&version);
        }
        print_out(&version);
    }
    if !opts.no_warnings {
        for w in &opts.warnings {
            eprintln!("rld: warning: {w}");
        }
        if opts.fatal_warnings && !opts.warnings.is_empty() {
            return ExitCode::FAILURE;
        }
    }
    if opts.inputs.is_empty() {
        eprintln!("rld: error: no input files");
        return ExitCode::FAILURE;
    }
    if opts.print_timing && !tuned.is_empty() {
        eprintln!("rld: malloc tuned: {tuned}");
    }
    // Before any thread starts: the process the caller waits for exits with the link's
    // outcome while the child frees its memory (mold's trick).
    let reporter = if opts.fork {
        rld::detach::split()
    } else {
        None
    };
    let status = run_link(&opts);
    if let Some(reporter) = reporter {
        reporter.report(status);
    }
    ExitCode::from(status)
}

/// The link, and the exit status it ends with.
fn run_link(opts: &rld::options::Options) -> u8 {
    if let Some(n) = opts.threads {
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build_global();
    }
    // rld's own process runs LLVM in children (a plugin never forks its host).
    rld::lto_backend::configure(rld_lto_api::BackendSettings {
        threads: opts.threads,
        child_processes: true,
    });
    rld::link::process_ends_with_link();
    // Like lld: the first errors are the useful ones; thousands bury them (`--error-limit`,
    // 0 for no limit).
    let error_limit = opts.error_limit;
    match rld::link::link(opts) {
        Ok(()) => 0,
        Err(e) => {
            let mut count = 0;
            for line in e.to_string().lines() {
                if line.starts_with(">>>") {
                    eprintln!("{line}");
                } else if count == error_limit && error_limit != 0 {
                    eprintln!(
                        "rld: error: too many errors emitted, stopping now (use \
                         --error-limit=0 to see all errors)"
                    );
                    break;
                } else {
                    count += 1;
                    eprintln!("rld: error: {line}");
                }
            }
            1
        }
    }
}

/// `word` as a shell reads it back: quoted when it holds anything but plain characters.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=+,:@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// Writes `text` to standard output. A reader that has gone (`rld --help | head -1`) is not
/// an error: what it wanted, it got.
fn print_out(text: &str) -> ExitCode {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("rld: error: cannot write to standard output: {e}");
            ExitCode::FAILURE
        }
        _ => ExitCode::SUCCESS,
    }
}
