//! Compiles the C half of the plugin host (`src/plugin_host/message.c`): the plugin
//! interface's `message` callback is variadic, which Rust cannot define.

fn main() {
    println!("cargo:rerun-if-changed=src/plugin_host/message.c");
    cc::Build::new()
        .file("src/plugin_host/message.c")
        .warnings(true)
        .extra_warnings(true)
        .compile("rld_plugin_message");
}
