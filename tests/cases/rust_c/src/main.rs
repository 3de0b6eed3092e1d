//! rust_c's program: prints what the library computes from its argument count.

fn main() {
    let n = std::env::args().count() as i32 * 10;
    print!("{}", rust_c::report(n));
}
