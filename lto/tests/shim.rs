//! The C++ shim (`rld_lto::shim`): lld's LTO target machine, and LLVM's pipeline and codegen
//! remarks in a YAML file. Needs clang-22 to make bitcode; skipped without it.

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{FileType, InitializationConfig, Target, TargetTriple};
use object::{Object, ObjectSection, RelocationFlags};
use rld_lto::codegen::RemarkSettings;
use rld_lto::shim::{create_lto_target_machine, PipelineRemarks};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `helper` is small and static: the LTO pipeline inlines it into `entry`. The constructor
/// calls out, so the optimizer cannot fold it away.
const SOURCE: &str = r#"
int counter = 1;
extern int external_value;
extern void hook(void);

static int helper(int x) { return x * x + counter; }

int entry(int x) { return helper(x) + helper(x + 1) + external_value; }

__attribute__((constructor)) static void init(void) { hook(); }
"#;

fn have_clang() -> bool {
    let found = Command::new("clang-22").arg("--version").output().is_ok();
    if !found {
        eprintln!("skipping: clang-22 not found");
    }
    found
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("shim-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Bitcode for SOURCE. `-disable-llvm-passes` keeps clang's pre-link pipeline from inlining
/// `helper` already, so the inlining (and its remark) happens in the LTO pipeline.
fn bitcode(dir: &Path) -> PathBuf {
    let c = dir.join("t.c");
    let bc = dir.join("t.o");
    std::fs::write(&c, SOURCE).unwrap();
    let status = Command::new("clang-22")
        .args([
            "-flto",
            "-O2",
            "-fPIC",
            "-Xclang",
            "-disable-llvm-passes",
            "-c",
        ])
        .arg(&c)
        .arg("-o")
        .arg(&bc)
        .status()
        .unwrap();
    assert!(status.success(), "clang-22 failed");
    bc
}

fn load<'ctx>(ctx: &'ctx Context, bc: &Path) -> Module<'ctx> {
    let buffer = MemoryBuffer::create_from_file(bc).unwrap();
    Module::parse_bitcode_from_buffer(&buffer, ctx).unwrap()
}

/// Runs `lto<O2>` and codegen on the bitcode with remarks on; the object and the YAML.
fn compile_with_remarks(dir: &Path, passes: Option<&str>) -> (Vec<u8>, String) {
    Target::initialize_x86(&InitializationConfig::default());
    let bc = bitcode(dir);
    let yaml = dir.join("remarks.yaml");
    let ctx = Context::create();
    let module = load(&ctx, &bc);
    let remarks = PipelineRemarks::begin(&ctx, &settings(&yaml, passes, false)).unwrap();
    let triple = TargetTriple::create("x86_64-pc-linux-gnu");
    let tm = create_lto_target_machine(&triple, "x86-64", "", 2, true).expect("target machine");
    module
        .run_passes("lto<O2>", &tm, PassBuilderOptions::create())
        .unwrap();
    let object = tm
        .write_to_memory_buffer(&module, FileType::Object)
        .unwrap();
    remarks.finish().unwrap();
    let text = std::fs::read_to_string(&yaml).unwrap();
    (object.as_slice().to_vec(), text)
}

#[test]
fn lto_target_machine_and_pipeline_remarks() {
    if !have_clang() {
        return;
    }
    let dir = scratch("remarks");
    let (object, yaml) = compile_with_remarks(&dir, None);

    let file = object::File::parse(&*object).expect("an ELF object");
    assert_eq!(file.format(), object::BinaryFormat::Elf);
    let names: Vec<&str> = file.sections().filter_map(|s| s.name().ok()).collect();
    for wanted in [
        ".text.entry",
        ".data.counter",
        ".init_array",
        ".llvm_addrsig",
    ] {
        assert!(names.contains(&wanted), "no {wanted} in {names:?}");
    }
    assert!(
        !names.contains(&".ctors"),
        "constructors in .ctors: {names:?}"
    );
    assert!(
        !names.iter().any(|n| n.contains("helper")),
        "helper was not inlined: {names:?}"
    );
    // RelaxELFRelocations: the GOT loads (external_value, preemptible counter) are
    // relaxable.
    let text = file.section_by_name(".text.entry").unwrap();
    let got_relocs: Vec<u32> = text
        .relocations()
        .filter_map(|(_, r)| match r.flags() {
            RelocationFlags::Elf { r_type } => Some(r_type),
            _ => None,
        })
        .filter(|&t| {
            matches!(
                t,
                object::elf::R_X86_64_GOTPCREL
                    | object::elf::R_X86_64_GOTPCRELX
                    | object::elf::R_X86_64_REX_GOTPCRELX
            )
        })
        .collect();
    assert!(!got_relocs.is_empty());
    assert!(
        got_relocs
            .iter()
            .all(|&t| t == object::elf::R_X86_64_REX_GOTPCRELX),
        "{got_relocs:?}"
    );

    // From the optimization pipeline and from codegen.
    assert!(
        yaml.contains("--- !Passed\nPass:            inline\n"),
        "{yaml}"
    );
    assert!(yaml.contains("Pass:            asm-printer\n"), "{yaml}");
}

#[test]
fn remarks_pass_filter() {
    if !have_clang() {
        return;
    }
    let dir = scratch("filter");
    let (_, yaml) = compile_with_remarks(&dir, Some("^inline$"));
    assert!(yaml.contains("Pass:            inline\n"), "{yaml}");
    let other: Vec<&str> = yaml
        .lines()
        .filter(|l| l.starts_with("Pass:") && l.trim_end() != "Pass:            inline")
        .collect();
    assert!(other.is_empty(), "{other:?}");
}

#[test]
fn remarks_errors() {
    let dir = scratch("errors");
    let ctx = Context::create();
    let yaml = dir.join("remarks.yaml");

    let err = PipelineRemarks::begin(&ctx, &settings(&yaml, Some("inline("), false))
        .err()
        .expect("a bad regex is an error");
    assert!(
        err.contains("invalid regular expression 'inline('"),
        "{err}"
    );
    assert!(!yaml.exists());

    let missing = dir.join("no-such-dir").join("remarks.yaml");
    let err = PipelineRemarks::begin(&ctx, &settings(&missing, None, false))
        .err()
        .expect("an unwritable path is an error");
    assert!(err.contains("no-such-dir"), "{err}");

    // The failures left the context clean: it can record, once at a time.
    let remarks = PipelineRemarks::begin(&ctx, &settings(&yaml, Some("inline|gvn"), true)).unwrap();
    let err = PipelineRemarks::begin(&ctx, &settings(&dir.join("second.yaml"), None, false))
        .err()
        .expect("a second recorder is an error");
    assert!(err.contains("already"), "{err}");
    drop(remarks);
    // Dropping keeps the file, like finish.
    assert!(yaml.exists());
    PipelineRemarks::begin(&ctx, &settings(&yaml, None, false))
        .unwrap()
        .finish()
        .unwrap();
}

/// Remark settings for `path`, with the pass filter and hotness.
fn settings(path: &std::path::Path, passes: Option<&str>, with_hotness: bool) -> RemarkSettings {
    RemarkSettings {
        path: path.to_path_buf(),
        passes: passes.map(str::to_string),
        with_hotness,
        hotness_threshold: Some(0),
    }
}
