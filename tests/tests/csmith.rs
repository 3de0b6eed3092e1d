//! Random programs from csmith, built with LTO: each linked by rld behaves as the lld-22 build
//! does. A fixed set of seeds (each program ends within a second, printing a checksum of its
//! globals) runs through the comparison of `scripts/difftest/csmith.sh`, which runs many more
//! seeds and all of rld's LTO configurations: csmith's program is compiled with
//! `clang-22 -O2 -flto` (its `main` renamed), beside a second module whose `main` calls it,
//! and linked by lld-22 and by rld with its defaults and with `--lto-partitions=16`; the
//! programs' stdout and exit status must be equal, and rld must link without a message.
//!
//! Skipped, with a message, where csmith or its headers (`csmith`, `libcsmith-dev`) are not
//! installed.

use rld_tests::Compiler::Clang;
use rld_tests::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// The seeds (169 of the first 200, as many as CI's time allows; scripts/difftest/csmith.sh
/// runs any number): csmith 2.3.0's programs for them end within a second when built with
/// -O2 and linked by lld-22, and their `-O0 -fsanitize=undefined,address` builds run clean
/// (seeds 47, 49, 56, 57 and 164 access misaligned packed fields, 148 runs past a minute at
/// -O0: their behaviour may rightly differ between builds).
const SEEDS: &[u32] = &[
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 23, 24, 25, 26, 27, 28,
    29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 48, 50, 51, 52, 53, 54,
    55, 58, 59, 61, 62, 64, 65, 67, 68, 69, 70, 71, 72, 74, 75, 76, 77, 78, 79, 80, 82, 83, 84, 85,
    86, 87, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107,
    108, 109, 110, 111, 113, 115, 116, 117, 119, 120, 121, 122, 125, 127, 128, 129, 130, 131, 132,
    133, 135, 136, 138, 139, 140, 141, 142, 143, 144, 147, 149, 150, 151, 152, 153, 154, 155, 156,
    157, 158, 159, 160, 161, 166, 167, 168, 170, 171, 172, 173, 174, 175, 176, 177, 178, 179, 180,
    181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 192, 193, 194, 196, 198, 199, 200,
];

/// rld's configurations, by name and link flags.
const CONFIGS: &[(&str, &[&str])] = &[("rld", &[]), ("rld-p16", &["-Wl,--lto-partitions=16"])];

/// The second module: its main calls the csmith program's.
const MAIN_C: &str = "int csmith_main(int argc, char *argv[]);
int main(int argc, char *argv[]) { return csmith_main(argc, argv); }
";

/// How long a program may run, in seconds (they end within one; a loaded machine is slower).
const RUN_SECONDS: u32 = 20;

/// The directory holding `csmith.h`, if csmith and its headers are installed.
fn csmith_include() -> Option<PathBuf> {
    // csmith writes platform.info where it runs: never into the source tree.
    let installed = Command::new("csmith")
        .arg("--version")
        .current_dir(std::env::temp_dir())
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        eprintln!("csmith is not installed (apt-get install csmith libcsmith-dev): test skipped");
        return None;
    }
    let dir = ["/usr/include/csmith", "/usr/local/include/csmith"]
        .into_iter()
        .map(PathBuf::from)
        .find(|d| d.join("csmith.h").is_file());
    if dir.is_none() {
        eprintln!("csmith.h not found (apt-get install libcsmith-dev): test skipped");
    }
    dir
}

/// What a seed's programs did.
enum Outcome {
    /// Every rld build behaved as the lld build.
    Same,
    /// Not compared: the lld build did not end in time, crashed, or printed no checksum (the
    /// program did not run to its end: undefined behaviour such as an endless loop).
    Skipped(String),
    /// Each difference: "CONFIG: what differed".
    Differs(Vec<String>),
}

/// A program's run: `timeout RUN_SECONDS exe`, so a program that loops ends (status 124).
fn run_program(exe: &Path) -> std::process::Output {
    let mut cmd = Command::new("timeout");
    cmd.arg(RUN_SECONDS.to_string()).arg(exe);
    cmd.current_dir(exe.parent().unwrap());
    output_with_timeout(&mut cmd, TIMEOUT)
}

/// The status of a run, for messages.
fn status_text(out: &std::process::Output) -> String {
    match out.status.code() {
        Some(124) => format!("timed out after {RUN_SECONDS} s"),
        // `timeout` reports a program killed by signal N as status 128+N.
        Some(c) if c > 128 => format!("status {c} (signal {}?)", c - 128),
        _ => describe_status(out),
    }
}

/// Runs `cmd` and fails the test unless it succeeds without a message.
fn check_quiet(cmd: &mut Command) {
    let out = run_checked(cmd);
    assert!(
        out.stderr.is_empty(),
        "{} printed:\n{}",
        command_line(cmd),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Generates, builds, links and runs seed `seed` in `dir`.
fn check_seed(seed: u32, dir: &Path, include: &Path, main_o: &Path, rld: &Path) -> Outcome {
    std::fs::create_dir_all(dir).unwrap();
    let src = dir.join("prog.c");
    let generated = run_checked(
        Command::new("csmith")
            .args(["--seed", &seed.to_string()])
            .current_dir(dir),
    );
    std::fs::write(&src, &generated.stdout).unwrap();
    let obj = dir.join("prog.o");
    check_quiet(
        Command::new("clang-22")
            .args(["-O2", "-flto", "-w", "-Dmain=csmith_main", "-c"])
            .arg(format!("-I{}", include.display()))
            .arg(&src)
            .arg("-o")
            .arg(&obj),
    );
    let link = |out: &str, linker: &str, flags: &[&str]| {
        let exe = dir.join(out);
        let mut cmd = Command::new("clang-22");
        cmd.args(["-flto", "-O2", linker])
            .args(flags)
            .arg(&obj)
            .arg(main_o)
            .arg("-o")
            .arg(&exe);
        (
            exe,
            output_with_timeout(&mut cmd, TIMEOUT),
            command_line(&cmd),
        )
    };
    let (lld, res, cmd) = link("lld.out", "-fuse-ld=lld", &[]);
    assert!(
        res.status.success(),
        "{cmd}: {}",
        String::from_utf8_lossy(&res.stderr)
    );
    let want = run_program(&lld);
    match want.status.code() {
        Some(124) => {
            return Outcome::Skipped(format!("the lld build did not end in {RUN_SECONDS} s"))
        }
        Some(c) if c > 128 => {
            return Outcome::Skipped(format!("the lld build crashed ({})", status_text(&want)))
        }
        _ if !want.stdout.starts_with(b"checksum = ") => {
            return Outcome::Skipped("the lld build printed no checksum".to_string())
        }
        _ => {}
    }
    let ld_path = format!("--ld-path={}", rld.display());
    let mut differences = Vec::new();
    for &(config, flags) in CONFIGS {
        let (exe, res, cmd) = link(&format!("{config}.out"), &ld_path, flags);
        let stderr = String::from_utf8_lossy(&res.stderr);
        if !res.status.success() {
            differences.push(format!("{config}: link failed: {cmd}\n{stderr}"));
            continue;
        }
        if !stderr.is_empty() {
            differences.push(format!("{config}: the link printed: {cmd}\n{stderr}"));
        }
        let got = run_program(&exe);
        if got.stdout != want.stdout || got.status != want.status {
            differences.push(format!(
                "{config}: {} and printed {:?}; the lld build: {} and printed {:?}",
                status_text(&got),
                String::from_utf8_lossy(&got.stdout),
                status_text(&want),
                String::from_utf8_lossy(&want.stdout),
            ));
        }
    }
    if differences.is_empty() {
        Outcome::Same
    } else {
        Outcome::Differs(differences)
    }
}

#[test]
fn csmith_programs_behave_as_their_lld_builds() {
    let Some(include) = csmith_include() else {
        return;
    };
    let start = Instant::now();
    let t = Test::new();
    let main_o = t.compile(Clang, MAIN_C, &["-flto", "-O2"]);
    let rld = rld_path();
    let base = t.dir().to_path_buf();
    let next = AtomicUsize::new(0);
    let outcomes = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers.min(SEEDS.len()) {
            scope.spawn(|| {
                while let Some(&seed) = SEEDS.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let dir = base.join(format!("seed-{seed}"));
                    let outcome = check_seed(seed, &dir, &include, &main_o, &rld);
                    if matches!(outcome, Outcome::Same) {
                        let _ = std::fs::remove_dir_all(&dir);
                    }
                    outcomes.lock().unwrap().push((seed, outcome));
                }
            });
        }
    });
    let mut outcomes = outcomes.into_inner().unwrap();
    outcomes.sort_by_key(|(seed, _)| *seed);
    let mut report = String::new();
    let mut compared = 0;
    let mut differing = Vec::new();
    for (seed, outcome) in &outcomes {
        match outcome {
            Outcome::Same => compared += 1,
            Outcome::Skipped(why) => eprintln!("seed {seed} skipped: {why}"),
            Outcome::Differs(lines) => {
                compared += 1;
                differing.push(seed.to_string());
                for line in lines {
                    report.push_str(&format!("seed {seed} {line}\n"));
                }
            }
        }
    }
    eprintln!(
        "csmith: {compared} programs, {} with differences, in {:.1} s",
        differing.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(
        compared * 10 >= SEEDS.len() * 9,
        "only {compared} of {} seeds compared",
        SEEDS.len()
    );
    assert!(
        report.is_empty(),
        "rld-linked csmith programs behave differently from the lld-linked ones (files in \
         {}/seed-N; `scripts/difftest/csmith.sh --seeds N..N` checks a seed in every \
         configuration, and its program for undefined behaviour)\nseeds: {}\n{report}",
        t.dir().display(),
        differing.join(", ")
    );
}
