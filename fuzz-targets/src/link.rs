//! The `link` target: a whole link of fixed valid objects with the fuzzed file.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The fixed side of the link: a `main` that only weakly references what the fuzzed file may
/// define, so that any file (object, archive, script, shared library, bitcode) links or fails on
/// its own merits, and a second object with TLS, a constructor and merged strings.
const MAIN_C: &str = r#"
extern int f(int) __attribute__((weak));
extern int g __attribute__((weak));
extern int other(void);
int main(void) { return (f ? f(g ? g : 1) : 0) + other(); }
"#;

const OTHER_C: &str = r#"
static __thread int counter;
static int ready;
__attribute__((constructor)) static void init(void) { ready = 1; }
const char *greeting(void) { return "hello, fuzz"; }
int other(void) { return ++counter + ready + (int)greeting()[0]; }
"#;

pub struct Fixtures {
    objects: Vec<PathBuf>,
}

impl Fixtures {
    /// Compiles the fixed objects into `dir` with clang-22.
    pub fn build(dir: &Path) -> std::io::Result<Fixtures> {
        let mut objects = Vec::new();
        for (name, source) in [("main", MAIN_C), ("other", OTHER_C)] {
            let c = dir.join(format!("{name}.c"));
            let o = dir.join(format!("{name}.o"));
            std::fs::write(&c, source)?;
            let status = Command::new("clang-22")
                .args(["-c", "-O1", "-fPIC", "-g", "-o"])
                .arg(&o)
                .arg(&c)
                .status()?;
            if !status.success() {
                return Err(std::io::Error::other(
                    "clang-22 could not build the fixtures",
                ));
            }
            objects.push(o);
        }
        Ok(Fixtures { objects })
    }

    /// Links the fixtures with the fuzzed file `input` twice, writing into `dir`: an
    /// executable with GC and a build id, and a shared library with an `.eh_frame_hdr`.
    /// Returns whether both links succeeded.
    pub fn run(&self, dir: &Path, input: &Path) -> bool {
        let links: [&[&str]; 2] = [
            &["-e", "main", "--gc-sections", "--build-id"],
            &[
                "-shared",
                "-z",
                "now",
                "--eh-frame-hdr",
                "--hash-style=both",
            ],
        ];
        let mut ok = true;
        for (i, options) in links.iter().enumerate() {
            let mut args: Vec<String> = options.iter().map(|s| s.to_string()).collect();
            args.push("-o".into());
            args.push(dir.join(format!("out{i}")).display().to_string());
            args.extend(self.objects.iter().map(|o| o.display().to_string()));
            args.push(input.display().to_string());
            let opts = rld::args::parse_args(args).expect("the target's own options parse");
            ok &= rld::link::link(&opts).is_ok();
        }
        ok
    }
}
