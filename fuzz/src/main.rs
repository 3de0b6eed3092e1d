//! `rld-fuzz TARGET`: one of rld's fuzz targets under AFL++ (persistent mode).

use rld_fuzz_targets::{run, Scratch, Target};

fn main() {
    let name = std::env::args().nth(1).unwrap_or_default();
    let Some(target) = Target::from_name(&name) else {
        let names: Vec<&str> = Target::ALL.iter().map(|t| t.name()).collect();
        eprintln!("usage: rld-fuzz TARGET  (one of: {})", names.join(", "));
        std::process::exit(2);
    };
    let parent = std::env::var_os("RLD_FUZZ_SCRATCH")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let scratch = Scratch::new(&parent).expect("cannot set up the scratch directory");
    afl::fuzz!(|data: &[u8]| {
        run(target, data, &scratch);
    });
}
