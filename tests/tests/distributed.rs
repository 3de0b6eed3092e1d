//! Distributed LTO through lld-22's interface (`--thinlto-distributor=`): rld writes its
//! partitions as jobs in lld's JSON schema, the distributor runs them (`rld --lto-backend`,
//! here through the project's own `scripts/dtlto-local`), and the program is byte for byte
//! the in-process link's, for every partition count. Failures of the distributor or of a
//! job end the link with an error naming them, leaving no output and no job file.

use rld_tests::Compiler::Clang;
use rld_tests::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn distributor() -> PathBuf {
    workspace_dir().join("scripts/dtlto-local")
}

fn objects(t: &Test) -> Vec<PathBuf> {
    ["scale.c", "main.c", "halves.c"]
        .iter()
        .map(|s| t.compile(Clang, &format!("partitions/{s}"), &["-flto", "-O2", "-g"]))
        .collect()
}

fn dist_flags(log: &Path) -> Vec<String> {
    vec![
        format!("-Wl,--thinlto-distributor={}", distributor().display()),
        format!("-Wl,--thinlto-distributor-arg=--log={}", log.display()),
    ]
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |s| s.lines().count())
}

/// The files in `dir` besides `keep`: what a link left behind.
fn leftovers(dir: &Path, keep: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect();
    names.sort();
    names
}

fn refs(paths: &[PathBuf]) -> Vec<&Path> {
    paths.iter().map(PathBuf::as_path).collect()
}

#[test]
fn distributed_links_are_byte_identical_to_in_process_ones() {
    let t = Test::new();
    let objs = objects(&t);
    let objs = refs(&objs);
    let lld = t.link(Driver::ClangLld, &objs, &["-flto", "-O2"], "lld/prog");
    for n in [1, 2, 4] {
        let parts = format!("-Wl,--lto-partitions={n}");
        let base = ["-flto", "-O2", parts.as_str()];
        let local = t.link(Driver::ClangRld, &objs, &base, &format!("local{n}/prog"));
        let log = t.path(&format!("jobs{n}.log"));
        let flags = dist_flags(&log);
        let mut all: Vec<&str> = base.to_vec();
        all.extend(flags.iter().map(String::as_str));
        let dist = t.link(Driver::ClangRld, &objs, &all, &format!("dist{n}/prog"));
        assert_eq!(
            std::fs::read(&local).unwrap(),
            std::fs::read(&dist).unwrap(),
            "{n} partitions: the distributed link differs from the in-process one"
        );
        // Every partition was a job (the small program may make fewer than asked).
        let jobs = lines(&log);
        assert!(
            jobs >= 1 && (n == 1) == (jobs == 1),
            "{n} partitions, {jobs} jobs"
        );
        assert_eq!(
            leftovers(dist.parent().unwrap(), &["prog"]),
            Vec::<String>::new()
        );
        assert_same_output(&dist, &lld, &[], &[], None);
    }
}

#[test]
fn save_temps_keeps_the_json_in_lld_s_schema_and_the_job_files() {
    let t = Test::new();
    let objs = objects(&t);
    let objs = refs(&objs);
    let log = t.path("jobs.log");
    let flags = dist_flags(&log);
    let mut all = vec!["-flto", "-O2", "-Wl,--lto-partitions=3", "-Wl,--save-temps"];
    all.extend(flags.iter().map(String::as_str));
    let exe = t.link(Driver::ClangRld, &objs, &all, "out/prog");
    let dir = exe.parent().unwrap();
    let json: Vec<String> = leftovers(dir, &[])
        .into_iter()
        .filter(|n| n.ends_with(".dist-file.json"))
        .collect();
    assert_eq!(json.len(), 1, "{:?}", leftovers(dir, &[]));
    assert!(json[0].starts_with("prog."), "{}", json[0]);
    let text = std::fs::read_to_string(dir.join(&json[0])).unwrap();
    // lld's key order, compact.
    assert!(
        text.starts_with("{\"common\":{\"linker_output\":"),
        "{text}"
    );
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let top: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(top, ["common", "jobs"]);
    let common = v["common"].as_object().unwrap();
    let keys: Vec<&String> = common.keys().collect();
    assert_eq!(keys, ["args", "inputs", "linker_output"]);
    assert_eq!(common["linker_output"], exe.display().to_string());
    let args = common["args"].as_array().unwrap();
    assert_eq!(
        args[0],
        rld_path().canonicalize().unwrap().display().to_string()
    );
    assert_eq!(args[1], "--lto-backend");
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), lines(&log));
    assert!(jobs.len() > 1, "{text}");
    for job in jobs {
        let keys: Vec<&String> = job.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["args", "inputs", "outputs"]);
        let args: Vec<&str> = job["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        assert!(args[1].starts_with("--lto-backend-options="), "{args:?}");
        assert_eq!(args[2], "-o");
        // The inputs are the bitcode of the partition and its options; both kept.
        for input in job["inputs"].as_array().unwrap() {
            let f = PathBuf::from(input.as_str().unwrap());
            assert!(f.is_file(), "{} is gone", f.display());
        }
        let bc = std::fs::read(args[0]).unwrap();
        assert!(bc.starts_with(b"BC\xC0\xDE"), "{} is not bitcode", args[0]);
        assert_eq!(job["outputs"][0], args[3]);
        assert_eq!(elf_type(Path::new(args[3])), "REL");
    }
}

/// Writes an executable shell script `name` into the test directory.
fn script(t: &Test, name: &str, body: &str) -> PathBuf {
    let path = t.write(name, format!("#!/bin/sh\n{body}\n"));
    run_checked(Command::new("chmod").arg("+x").arg(&path));
    path
}

#[test]
fn a_failing_distributor_or_job_fails_the_link_cleanly() {
    let t = Test::new();
    let objs = objects(&t);
    let objs = refs(&objs);
    let cases = [
        (
            "exits.sh",
            "exit 3",
            vec![],
            "distributor execution failed: ",
        ),
        (
            "nothing.sh",
            "exit 0",
            vec![],
            "cannot open native object file: ",
        ),
        (
            "garbage.sh",
            // Every job's object is written, with something that is no object.
            r#"for o in $(grep -o '"[^"]*native.o"' "$1" | tr -d '"'); do echo junk > "$o"; done"#,
            vec![],
            "is not an object a job makes",
        ),
        (
            "hangs.sh",
            "sleep 60",
            vec!["-Wl,--thinlto-distributor-timeout=1"],
            "did not finish within 1 s",
        ),
    ];
    for (name, body, extra, message) in cases {
        let dist = script(&t, name, body);
        let dir = format!("out-{name}");
        std::fs::create_dir_all(t.path(&dir)).unwrap();
        let flag = format!("-Wl,--thinlto-distributor={}", dist.display());
        let mut all = vec!["-flto", "-O2", "-Wl,--lto-partitions=2", flag.as_str()];
        all.extend(extra);
        let (out, cmd) = t.try_link(Driver::ClangRld, &objs, &all, &format!("{dir}/prog"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name}: the link succeeded: {cmd}");
        assert!(stderr.contains(message), "{name}: {stderr}");
        if name == "exits.sh" {
            assert!(stderr.contains("exited with status 3"), "{stderr}");
        }
        if name == "nothing.sh" {
            assert!(stderr.contains("(the job of partition "), "{stderr}");
        }
        assert_eq!(
            leftovers(&t.path(&dir), &[]),
            Vec::<String>::new(),
            "{name}"
        );
    }
}

#[test]
fn clang_s_remote_compiler_is_replaced_by_rld_with_a_warning() {
    let t = Test::new();
    let objs = objects(&t);
    let objs = refs(&objs);
    let local = t.link(Driver::ClangRld, &objs, &["-flto", "-O2"], "local/prog");
    let flag = format!("-fthinlto-distributor={}", distributor().display());
    for dir in ["dist", "named"] {
        std::fs::create_dir_all(t.path(dir)).unwrap();
    }
    let (out, cmd) = t.try_link(
        Driver::ClangRld,
        &objs,
        &["-flto", "-O2", &flag],
        "dist/prog",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{cmd}\n{stderr}");
    assert!(
        stderr.contains("--thinlto-remote-compiler=/usr/lib/llvm-22/bin/clang is not used"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(&local).unwrap(),
        std::fs::read(t.path("dist/prog")).unwrap()
    );
    // Naming an rld (the hosts' path to it) is taken as it is, silently.
    let named = format!("-Wl,--thinlto-remote-compiler={}", rld_path().display());
    let (out, cmd) = t.try_link(
        Driver::ClangRld,
        &objs,
        &["-flto", "-O2", &flag, &named],
        "named/prog",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.is_empty(), "{cmd}\n{stderr}");
    assert_eq!(
        std::fs::read(&local).unwrap(),
        std::fs::read(t.path("named/prog")).unwrap()
    );
}

#[test]
fn a_job_made_by_another_build_of_rld_is_refused() {
    let t = Test::new();
    let objs = objects(&t);
    let objs = refs(&objs);
    let log = t.path("jobs.log");
    let flags = dist_flags(&log);
    let mut all = vec!["-flto", "-O2", "-Wl,--save-temps"];
    all.extend(flags.iter().map(String::as_str));
    let exe = t.link(Driver::ClangRld, &objs, &all, "out/prog");
    let dir = exe.parent().unwrap();
    let job = leftovers(dir, &[])
        .into_iter()
        .find(|n| n.ends_with(".rldjob"))
        .expect("no job options file");
    let bitcode = dir.join(job.replace(".rldjob", ".bc"));
    let options = std::fs::read(dir.join(&job)).unwrap();
    // The same job, but from "another build": its fingerprint changed.
    let at = options
        .windows(12)
        .position(|w| w == b"fingerprint=")
        .expect("no fingerprint record")
        + 12;
    let mut other = options.clone();
    other[at] = if other[at] == b'0' { b'1' } else { b'0' };
    let patched = t.write("other.rldjob", &other);
    let object = t.path("job.o");
    let run = |opts: &Path| {
        Command::new(rld_path())
            .arg("--lto-backend")
            .arg(&bitcode)
            .arg(format!("--lto-backend-options={}", opts.display()))
            .arg("-o")
            .arg(&object)
            .output()
            .unwrap()
    };
    let out = run(&patched);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("made by another build of rld"),
        "{stderr}"
    );
    assert!(!object.exists());
    // The job as the link wrote it makes the partition's object.
    let out = run(&dir.join(&job));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(elf_type(&object), "REL");
}

#[test]
fn cached_partitions_are_not_sent_again() {
    let t = Test::new();
    let objs = objects(&t);
    let objs = refs(&objs);
    let local = t.link(
        Driver::ClangRld,
        &objs,
        &["-flto", "-O2", "-Wl,--lto-partitions=3"],
        "local/prog",
    );
    let log = t.path("jobs.log");
    let flags = dist_flags(&log);
    let cache = format!("-Wl,--lto-cache-dir={}", t.path("cache").display());
    let mut all = vec!["-flto", "-O2", "-Wl,--lto-partitions=3", cache.as_str()];
    all.extend(flags.iter().map(String::as_str));
    let first = t.link(Driver::ClangRld, &objs, &all, "first/prog");
    let jobs = lines(&log);
    assert!(jobs > 1, "{jobs} jobs");
    let second = t.link(Driver::ClangRld, &objs, &all, "second/prog");
    assert_eq!(lines(&log), jobs, "the relink sent jobs again");
    for exe in [&first, &second] {
        assert_eq!(std::fs::read(&local).unwrap(), std::fs::read(exe).unwrap());
    }
}

#[test]
fn llvm_s_remarks_come_back_from_the_jobs() {
    let t = Test::new();
    let objs = objects(&t);
    let objs = refs(&objs);
    let remarks = |dir: &str, extra: &[String]| {
        let yaml = t.path(&format!("{dir}/remarks.yaml"));
        let flag = format!("-Wl,--opt-remarks-filename,{}", yaml.display());
        let mut all = vec![
            "-flto",
            "-O2",
            "-Wl,--lto-partitions=2",
            flag.as_str(),
            "-Wl,--opt-remarks-passes,inline",
        ];
        all.extend(extra.iter().map(String::as_str));
        t.link(Driver::ClangRld, &objs, &all, &format!("{dir}/prog"));
        std::fs::read_to_string(&yaml).unwrap()
    };
    let local = remarks("local", &[]);
    let log = t.path("jobs.log");
    let dist = remarks("dist", &dist_flags(&log));
    assert_eq!(lines(&log), 2);
    assert!(local.contains("Pass:            inline"), "{local}");
    assert_eq!(local, dist);
    assert_eq!(
        leftovers(&t.path("dist"), &["prog", "remarks.yaml"]),
        Vec::<String>::new()
    );
}

/// The distributor and its jobs end with the link: a job that would write its object a
/// second later writes nothing (left running, it would leave the object behind once the
/// link had removed its files).
#[test]
fn an_interrupted_distributed_link_leaves_no_job_file() {
    let t = Test::new();
    let objs = objects(&t);
    // The jobs' objects (OUT.lto.P.PID.native.o beside each .bc), written after a pause.
    let dist = script(
        &t,
        "slow.sh",
        r#"json=$1
outs=$(ls "${json%/*}"/*.bc | sed 's/\.bc$/.native.o/')
: > "${json%/*}/../started"
sleep 1
for o in $outs; do : > "$o"; done
exec sleep 60"#,
    );
    for signal in ["TERM", "INT"] {
        let dir = t.path(&format!("out-{signal}"));
        std::fs::create_dir_all(&dir).unwrap();
        // --no-fork: the signal goes to the process that links (a Ctrl-C reaches every
        // process of the terminal's group, the linking child among them). rld keeps a
        // signal its parent ignores ignored, as a shell's background jobs ignore SIGINT:
        // coreutils' env gives it the default action, so the test does not depend on how
        // it was started (it would wait out the distributor instead).
        let mut child = Command::new("env")
            .arg("--default-signal=INT,TERM")
            .arg(rld_path())
            .args(["-flto", "--no-fork"])
            .arg("--lto-partitions=2")
            .arg(format!("--thinlto-distributor={}", dist.display()))
            .args(&objs)
            .arg("-o")
            .arg(dir.join("prog"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Until the jobs are written and the distributor runs.
        let started = t.path("started");
        let start = std::time::Instant::now();
        while !started.exists() {
            assert!(
                start.elapsed().as_secs() < 60,
                "the distributor did not start: {:?}",
                leftovers(&dir, &[])
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        std::fs::remove_file(&started).unwrap();
        let files = leftovers(&dir, &[]);
        assert!(
            files.iter().any(|n| n.ends_with(".dist-file.json"))
                && files.iter().any(|n| n.ends_with(".bc")),
            "{files:?}"
        );
        run_checked(
            Command::new("kill")
                .arg(format!("-{signal}"))
                .arg(child.id().to_string()),
        );
        let status = child.wait().unwrap();
        assert!(!status.success());
        // Longer than the jobs' pause.
        std::thread::sleep(std::time::Duration::from_millis(1500));
        assert_eq!(
            leftovers(&dir, &[]),
            Vec::<String>::new(),
            "after SIG{signal}"
        );
    }
}
