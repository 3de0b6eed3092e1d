//! Where rld writes its output. A regular file is replaced by renaming a finished temporary
//! file over it; anything else is written into, as GNU ld and lld do: a device node or a
//! FIFO (or a symlink to one) keeps its type, `-o -` is standard output (lld), and a
//! directory is an error. Each output is compared byte for byte with the same link into a
//! regular file.

use rld_tests::Compiler::Clang;
use rld_tests::*;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::Command;

const HELLO: &str = "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n";

/// The object and its link into a regular file (the bytes every other output must have).
fn hello(t: &Test) -> (PathBuf, Vec<u8>) {
    let obj = t.compile(Clang, HELLO, &["-O2"]);
    let exe = t.link(Driver::ClangRld, &[&obj], &[], "regular.out");
    assert_output_is(&exe, &run(&exe, &[], &[]), "hello\n", "regular output");
    (obj.clone(), std::fs::read(&exe).unwrap())
}

fn file_type(p: &Path) -> std::fs::FileType {
    std::fs::symlink_metadata(p).unwrap().file_type()
}

/// Makes a character device with the numbers of /dev/null (1, 3) inside the test directory
/// (mknod needs root, which CI has: a test that cannot make one fails).
fn null_device(t: &Test, name: &str) -> Option<PathBuf> {
    let p = t.path(name);
    run_checked(Command::new("mknod").arg(&p).args(["c", "1", "3"]));
    Some(p)
}

#[test]
fn device_node_is_written_into_not_replaced() {
    let t = Test::new();
    let (obj, _) = hello(&t);
    let Some(dev) = null_device(&t, "null") else {
        return;
    };
    std::os::unix::fs::symlink("null", t.path("to-null")).unwrap();
    for out in ["null", "to-null"] {
        let (res, cmd) = t.try_link(Driver::ClangRld, &[&obj], &[], out);
        assert!(
            res.status.success(),
            "{cmd}: {}",
            String::from_utf8_lossy(&res.stderr)
        );
        assert!(
            file_type(&dev).is_char_device(),
            "{out}: the device was replaced"
        );
    }
    assert!(file_type(&t.path("to-null")).is_symlink());
    assert!(
        t.files_starting_with(".").is_empty(),
        "temporary files left behind"
    );
}

#[test]
fn fifo_receives_the_whole_output() {
    let t = Test::new();
    let (obj, expected) = hello(&t);
    let fifo = t.path("pipe");
    run_checked(Command::new("mkfifo").arg(&fifo));
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let (res, cmd) = t.try_link(Driver::ClangRld, &[&obj], &[], "pipe");
    assert!(
        res.status.success(),
        "{cmd}: {}",
        String::from_utf8_lossy(&res.stderr)
    );
    let got = reader.join().unwrap();
    assert!(file_type(&fifo).is_fifo(), "the FIFO was replaced");
    assert!(
        got == expected,
        "the FIFO got {} bytes, a regular link {}",
        got.len(),
        expected.len()
    );
}

#[test]
fn dash_writes_to_stdout() {
    let t = Test::new();
    let (obj, expected) = hello(&t);
    // The driver's own `-o` comes first; the later `-o -` wins, as in GNU ld and lld.
    let mut cmd = t.link_command(Driver::ClangRld, &[&obj], &["-Wl,-o,-"], &t.path("unused"));
    let res = run_checked(&mut cmd);
    assert!(
        res.stdout == expected,
        "stdout had {} bytes, a regular link {}",
        res.stdout.len(),
        expected.len()
    );
    assert!(!t.path("unused").exists());
    let exe = t.write("from-stdout", &res.stdout);
    std::fs::set_permissions(&exe, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    assert_output_is(
        &exe,
        &run(&exe, &[], &[]),
        "hello\n",
        "output written to stdout",
    );
}

/// A symlink to a regular file is replaced by the new file and its target left alone,
/// exactly as lld does it.
#[test]
fn symlink_to_regular_file_is_replaced_like_lld() {
    let t = Test::new();
    let (obj, _) = hello(&t);
    for d in [Driver::ClangLld, Driver::ClangRld, Driver::GccRld] {
        let target = t.write(&format!("{}-target", d.name()), "keep me");
        let link = t.path(&format!("{}-link", d.name()));
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let (res, cmd) = t.try_link(d, &[&obj], &[], &format!("{}-link", d.name()));
        assert!(
            res.status.success(),
            "{cmd}: {}",
            String::from_utf8_lossy(&res.stderr)
        );
        assert!(
            file_type(&link).is_file(),
            "{}: the symlink was not replaced",
            d.name()
        );
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            "keep me",
            "{}",
            d.name()
        );
        assert_output_is(&link, &run(&link, &[], &[]), "hello\n", d.name());
    }
}

#[test]
fn directory_is_an_error() {
    let t = Test::new();
    let (obj, _) = hello(&t);
    std::fs::create_dir(t.path("dir")).unwrap();
    let (res, cmd) = t.try_link(Driver::ClangRld, &[&obj], &[], "dir");
    assert!(!res.status.success(), "{cmd} succeeded");
    if !is_standin() {
        let stderr = String::from_utf8_lossy(&res.stderr);
        assert!(
            stderr.contains("dir") && stderr.contains("directory"),
            "{stderr}"
        );
    }
    assert!(t.path("dir").is_dir());
    assert!(
        t.files_starting_with(".dir").is_empty(),
        "temporary files left behind"
    );
}

/// Runs `program args...` under `umask`, returning its status.
fn with_umask(umask: &str, program: &str, args: &[&std::ffi::OsStr]) -> std::process::Output {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("umask {umask} && exec \"$@\""))
        .arg("sh")
        .arg(program)
        .args(args);
    run_checked(&mut cmd)
}

#[test]
fn the_output_mode_follows_the_umask_like_lld() {
    use std::os::unix::fs::PermissionsExt;
    let t = Test::new();
    let obj = t.compile(Clang, HELLO, &["-O2"]);
    let rld = format!("--ld-path={}", rld_path().display());
    for umask in ["077", "022", "002"] {
        let mut modes = Vec::new();
        for (name, ld) in [("lld", "-fuse-ld=lld"), ("rld", rld.as_str())] {
            let out = t.path(&format!("{name}-{umask}.out"));
            with_umask(
                umask,
                "clang-22",
                &[ld.as_ref(), obj.as_os_str(), "-o".as_ref(), out.as_os_str()],
            );
            modes.push(std::fs::metadata(&out).unwrap().permissions().mode() & 0o7777);
        }
        assert_eq!(
            modes[0], modes[1],
            "umask {umask}: lld {:o}, rld {:o}",
            modes[0], modes[1]
        );
        let mask = u32::from_str_radix(umask, 8).unwrap();
        assert_eq!(modes[1], 0o777 & !mask, "umask {umask}");
    }
}

#[test]
fn an_input_named_as_the_output_is_an_error() {
    // GNU ld refuses (lld overwrites the input); so does rld, naming the file, and the input
    // is untouched. The linkers are run directly: compiler drivers delete a failed link's
    // output, which here is the input.
    let t = Test::new();
    let obj = t.compile(Clang, "int plain(void) { return 0; }\n", &["-O2"]);
    let before = std::fs::read(&obj).unwrap();
    let name = obj.file_name().unwrap().to_str().unwrap().to_owned();
    for linker in [PathBuf::from("ld"), rld_path()] {
        let mut cmd = Command::new(&linker);
        cmd.args([&name, "-e", "plain", "-o", &name])
            .current_dir(t.dir());
        let res = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&res.stderr);
        assert!(!res.status.success(), "{}: {stderr}", linker.display());
        assert_eq!(
            std::fs::read(&obj).unwrap(),
            before,
            "{} changed the input",
            linker.display()
        );
        assert!(
            stderr.contains(&name) && stderr.contains("same as"),
            "{stderr}"
        );
    }
    assert!(t.files_starting_with(&format!(".{name}")).is_empty());
}

/// An object with `bytes` of initialized data (ones) and `_start`.
fn big_data_object(t: &Test, bytes: usize) -> PathBuf {
    let asm = t.write(
        "big.s",
        format!(
            ".data\n.globl big\nbig:\n.fill {bytes}, 1, 1\n.text\n.globl _start\n_start:\nret\n"
        ),
    );
    let obj = t.path("big.o");
    run_checked(Command::new("as").arg(&asm).arg("-o").arg(&obj));
    obj
}

#[test]
fn an_interrupted_link_leaves_no_temporary_file() {
    // An output big enough (128 MB of initialized data, hashed for --build-id=sha1) that
    // the temporary file is there for a while; SIGTERM as soon as it appears.
    let t = Test::new();
    let obj = big_data_object(&t, 128 << 20);
    let mut caught = false;
    for _ in 0..5 {
        let mut child = Command::new(rld_path())
            .arg(&obj)
            .args(["-e", "_start", "--build-id=sha1", "-o"])
            .arg(t.path("out"))
            .spawn()
            .unwrap();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if !t.files_starting_with(".out.rld-").is_empty() {
                // SAFETY of the test: kill(2) on our own child.
                let _ = Command::new("kill")
                    .args(["-TERM", &child.id().to_string()])
                    .status();
                caught = true;
                break child.wait().unwrap();
            }
            std::thread::sleep(std::time::Duration::from_micros(200));
        };
        if caught {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(status.signal(), Some(15), "{status:?}");
            break;
        }
        std::fs::remove_file(t.path("out")).unwrap();
    }
    assert!(caught, "the temporary file was never seen");
    assert!(
        t.files_starting_with(".out").is_empty(),
        "temporary file left behind"
    );
    assert!(!t.path("out").exists());
}

/// By default the process its caller waits for exits as soon as the output is written,
/// while a child process frees the link's memory (mold's `--fork`); `--no-fork` links in the
/// process itself. GNU time reports the peak memory of the process it waits for only, which
/// tells the two apart; the outputs are the same.
#[test]
fn the_waited_for_process_exits_before_the_link_frees_its_memory() {
    let t = Test::new();
    let obj = big_data_object(&t, 64 << 20);
    let mut outputs = Vec::new();
    for (flags, name) in [(&[][..], "forked"), (&["--no-fork"][..], "in-process")] {
        let out = t.path(name);
        let res = run_checked(
            Command::new("/usr/bin/time")
                .args(["-f", "%M"])
                .arg(rld_path())
                .arg(&obj)
                .args(["-e", "_start"])
                .args(flags)
                .arg("-o")
                .arg(&out),
        );
        let stderr = String::from_utf8_lossy(&res.stderr);
        let peak_kb: u64 = stderr.lines().last().unwrap().trim().parse().unwrap();
        if name == "forked" {
            assert!(peak_kb < 32 * 1024, "{name}: {peak_kb} KB");
        } else {
            // The 64 MB of data went through the linking process's memory.
            assert!(peak_kb > 64 * 1024, "{name}: {peak_kb} KB");
        }
        assert!(std::fs::metadata(&out).unwrap().len() > 64 << 20, "{name}");
        outputs.push(std::fs::read(&out).unwrap());
    }
    assert!(outputs[0] == outputs[1], "the outputs differ");
}

/// `--time` counts each phase's page faults, and the phases' counts add up to no more than
/// the total: copying 16 MB of data from an input touches pages that a tiny link's copy
/// does not.
#[test]
fn time_reports_each_phases_page_faults() {
    if is_standin() {
        eprintln!("skipped: --time's phases are rld's own");
        return;
    }
    let t = Test::new();
    let faults = |data_bytes: usize, name: &str| -> (u64, u64, u64) {
        let obj = big_data_object(&t, data_bytes);
        let res = run_checked(
            Command::new(rld_path())
                .arg(&obj)
                .args(["-e", "_start", "--time", "-o"])
                .arg(t.path(name)),
        );
        let stderr = String::from_utf8_lossy(&res.stderr).into_owned();
        let count = |line: &str| -> u64 {
            let before = line.split(" page faults").next().unwrap();
            before.rsplit(' ').next().unwrap().parse().unwrap()
        };
        let phases: Vec<&str> = stderr.lines().filter(|l| l.contains(" ms  ")).collect();
        assert!(phases.len() > 5, "{stderr}");
        assert!(
            phases.iter().all(|l| l.contains(" page faults)")),
            "{stderr}"
        );
        let (total, parts): (Vec<&str>, Vec<&str>) =
            phases.into_iter().partition(|l| l.contains("  total  "));
        let sum: u64 = parts.iter().map(|l| count(l)).sum();
        let writing = parts
            .iter()
            .find(|l| l.contains("  sections and relocations  "))
            .map(|l| count(l))
            .unwrap_or_else(|| panic!("no writing phase:\n{stderr}"));
        (count(total[0]), sum, writing)
    };
    let (total, sum, big_writing) = faults(16 << 20, "big.out");
    assert!(sum <= total && total > 0, "{sum} of {total}");
    let (_, _, small_writing) = faults(16, "small.out");
    assert!(
        big_writing > small_writing,
        "writing 16 MB: {big_writing} page faults, 16 bytes: {small_writing}"
    );
}

#[test]
fn a_large_previous_output_is_replaced_and_its_other_names_keep_it() {
    // rld releases a previous output of a megabyte or more in the background while it
    // writes the new one; the result must be what GNU ld and lld leave: the new program at
    // the output's name, nothing else in the directory, and a hard link to the old file
    // still holding the old bytes.
    let t = Test::new();
    let (obj, expected) = hello(&t);
    let old = vec![0x5au8; 3 << 20];
    std::fs::write(t.path("alone.out"), &old).unwrap();
    std::fs::write(t.path("linked.out"), &old).unwrap();
    std::fs::hard_link(t.path("linked.out"), t.path("other-name")).unwrap();
    for name in ["alone.out", "linked.out"] {
        let out = t.link(Driver::ClangRld, &[&obj], &[], name);
        assert_eq!(std::fs::read(&out).unwrap(), expected, "{name}");
        assert_output_is(&out, &run(&out, &[], &[]), "hello\n", name);
    }
    assert_eq!(std::fs::read(t.path("other-name")).unwrap(), old);
    let mut names: Vec<String> = std::fs::read_dir(t.path(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') || n.ends_with(".out") || n == "other-name")
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["alone.out", "linked.out", "other-name", "regular.out"],
        "stray files"
    );
}

/// Linux 6.11 and 6.12 let a running program be opened for writing; there rld never writes
/// over a previous output in place.
fn kernel_protects_running_programs() -> bool {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    let mut parts = release.trim().split('.').map(|p| {
        p.chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse::<u32>()
            .unwrap_or(0)
    });
    let version = (parts.next().unwrap(), parts.next().unwrap());
    !((6, 11)..(6, 13)).contains(&version)
}

fn inode(p: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p).unwrap().ino()
}

#[test]
fn a_previous_executable_is_written_over_in_place_as_if_new() {
    // As mold does, an executable's previous output (a regular file of rld's user, with one
    // name) is written over in place: cheaper than a new file. The result must be the bytes
    // and mode of a link into a new file, whatever the old file held (here 8 MB of 0xab,
    // mode 0600, which shows any byte the writer left unwritten). A shared library is never
    // written over: running programs may have it mapped.
    use std::os::unix::fs::PermissionsExt;
    let t = Test::new();
    let src = "#include <stdio.h>\n\
        static char zeros[100000];\n\
        int counter = 7;\n\
        __thread int tls = 3;\n\
        int main(void) { zeros[counter] = 1; printf(\"%d %d %d\\n\", counter, tls, zeros[7]); return 0; }\n";
    let obj = t.compile(Clang, src, &["-O2", "-fPIC"]);
    let fresh = t.link(Driver::ClangRld, &[&obj], &[], "fresh.out");
    let fresh_so = t.link(Driver::ClangRld, &[&obj], &["-shared"], "fresh.so");
    let expected_mode = std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o7777;
    for (name, flags, expected) in [
        ("prog.out", &[][..], &fresh),
        ("lib.so", &["-shared"][..], &fresh_so),
    ] {
        let old = t.write(name, vec![0xabu8; 8 << 20]);
        std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o600)).unwrap();
        let before = inode(&old);
        // Held open, the old file keeps its inode number until the check: a file put in
        // its place cannot be given the same number (file systems reuse a freed one).
        let held = std::fs::File::open(&old).unwrap();
        let out = t.link(Driver::ClangRld, &[&obj], flags, name);
        assert!(
            std::fs::read(&out).unwrap() == std::fs::read(expected).unwrap(),
            "{name}: differs from the link into a new file"
        );
        let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, expected_mode, "{name}: mode {mode:o}");
        let in_place = flags.is_empty() && kernel_protects_running_programs();
        assert_eq!(inode(&out) == before, in_place, "{name}: written in place?");
        drop(held);
    }
    assert_output_is(
        &fresh,
        &run(&t.path("prog.out"), &[], &[]),
        "7 3 1\n",
        "prog.out",
    );
    assert!(
        t.files_starting_with(".").is_empty(),
        "temporary files left"
    );
}

#[test]
fn a_running_previous_output_is_left_to_run() {
    // The kernel refuses to open a running program for writing (ETXTBSY): rld then writes
    // a new file, and the program started from the old one runs on unharmed.
    let t = Test::new();
    let program = |greeting: &str| {
        format!(
            "#include <stdio.h>\n\
             char big[2 << 20] = {{1}};\n\
             int main(void) {{ char line[64]; if (!fgets(line, sizeof line, stdin)) return 1;\n\
             printf(\"{greeting} %d %s\", big[0], line); return 0; }}\n"
        )
    };
    let old_obj = t.compile(Clang, &program("old"), &["-O2"]);
    let new_obj = t.compile(Clang, &program("new"), &["-O2"]);
    let out = t.link(Driver::ClangRld, &[&old_obj], &[], "prog.out");
    let before = inode(&out);
    let mut running = Command::new(&out)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    t.link(Driver::ClangRld, &[&new_obj], &[], "prog.out");
    assert_ne!(
        inode(&out),
        before,
        "the running program's file was written into"
    );
    use std::io::Write as _;
    running.stdin.take().unwrap().write_all(b"line\n").unwrap();
    let old_run = running.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&old_run.stdout), "old 1 line\n");
    let mut new_run = Command::new(&out)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    new_run.stdin.take().unwrap().write_all(b"again\n").unwrap();
    let new_out = new_run.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&new_out.stdout), "new 1 again\n");
    assert!(
        t.files_starting_with(".").is_empty(),
        "temporary files left"
    );
}

#[test]
fn a_long_alignment_gap_is_a_hole_in_the_file_and_code_s_gap_is_traps() {
    // An input may ask for any alignment: here 16 MiB for data and 4 MiB for a function.
    // The padding is never made in memory, nor written where it is zeros (the file has a
    // hole there, as lld's output has); in code it is traps, as lld writes it. The bytes
    // are the same whether the output is a new file, the previous output written over in
    // place (full of 0xab here, which shows any byte left unwritten), or standard output.
    let t = Test::new();
    let gaps = t.assemble(
        "gaps",
        ".section .rodata.big,\"a\"\n.balign 16777216\n.globl big\nbig: .byte 40\n\
         .section .text.far,\"ax\",@progbits\n.balign 4194304\n.globl far_fn\n\
         far_fn: movl $2, %eax\n ret\n",
    );
    let main = t.compile(
        Clang,
        "#include <stdio.h>\nextern const char big;\nint far_fn(void);\n\
         int main(void) { printf(\"%d\\n\", big + far_fn()); return 0; }\n",
        &["-O2"],
    );
    // Linked without `Test::link`'s `objdump -d`, which would list 4 MiB of traps.
    let link = |driver: Driver, objs: &[&Path], flags: &[&str], out: &str| {
        let (res, cmd) = t.try_link(driver, objs, flags, out);
        assert!(
            res.status.success() && res.stderr.is_empty(),
            "{cmd}: {}",
            String::from_utf8_lossy(&res.stderr)
        );
        t.path(out)
    };
    let on_disk =
        |p: &Path| std::os::unix::fs::MetadataExt::blocks(&std::fs::metadata(p).unwrap()) * 512;
    let fresh = link(Driver::ClangRld, &[&main, &gaps], &[], "fresh.out");
    assert_readelf_clean(&fresh);
    assert_output_is(&fresh, &run(&fresh, &[], &[]), "42\n", "fresh.out");
    let expected = std::fs::read(&fresh).unwrap();
    assert!(expected.len() > 20 << 20, "{} bytes", expected.len());
    let on_disk_fresh = on_disk(&fresh);
    assert!(
        on_disk_fresh < 8 << 20,
        "{on_disk_fresh} bytes on disk for a file of {}: the gaps were written",
        expected.len()
    );

    let old = t.write("prog.out", vec![0xabu8; expected.len()]);
    let out = link(Driver::ClangRld, &[&main, &gaps], &[], "prog.out");
    assert_eq!(out, old);
    assert!(
        std::fs::read(&out).unwrap() == expected,
        "written over the previous output: differs from the new file"
    );

    let mut cmd = t.link_command(
        Driver::ClangRld,
        &[&main, &gaps],
        &["-Wl,-o,-"],
        &t.path("unused"),
    );
    assert!(
        run_checked(&mut cmd).stdout == expected,
        "written to stdout: differs from the new file"
    );

    // `-r` output has the gaps too (sections keep their alignment in the file), and is
    // written the same way: a hole where they are zeros.
    let relocatable = link(Driver::Rld, &[&gaps], &["-r"], "gaps-r.o");
    let size = std::fs::metadata(&relocatable).unwrap().len();
    let on_disk_r = on_disk(&relocatable);
    assert!(
        size > 16 << 20 && on_disk_r < 8 << 20,
        "-r output: {on_disk_r} bytes on disk of {size}"
    );
    let from_r = link(Driver::ClangRld, &[&main, &relocatable], &[], "from-r.out");
    assert_output_is(&from_r, &run(&from_r, &[], &[]), "42\n", "from-r.out");

    let lld = t.link(Driver::ClangLld, &[&main, &gaps], &[], "lld.out");
    let text = section_data(&fresh, ".text");
    assert!(
        text == section_data(&lld, ".text"),
        ".text differs from lld's"
    );
    assert!(text.len() > 4 << 20);
    assert!(text.windows(4096).any(|w| w.iter().all(|&b| b == 0xcc)));
}
