//! The Rust half of rust_c, as a library (an rlib: bitcode members and `lib.rmeta`):
//! calls C directly (inlined), through a C table of C functions, and gives C callbacks
//! of its own.

extern "C" {
    fn c_add(a: i32, b: i32) -> i32;
    static C_OPS: [extern "C" fn(i32, i32) -> i32; 3];
    fn c_apply_callback(which: i32, x: i32) -> i32;
    fn c_square_plus(x: i32) -> i32;
}

#[no_mangle]
pub extern "C" fn rs_square(x: i32) -> i32 {
    x.wrapping_mul(x)
}

#[no_mangle]
pub extern "C" fn rs_negate(x: i32) -> i32 {
    x.wrapping_neg()
}

/// Folds 0..n with the C operations, in turn.
#[inline(never)]
pub fn run_ops(n: i32) -> i32 {
    let mut acc = 0i32;
    for i in 0..n {
        // SAFETY: C_OPS is a constant table of C functions; i % 3 is within it.
        let op = unsafe { C_OPS[(i % 3) as usize] };
        acc = op(acc, i).wrapping_add(1);
    }
    acc
}

/// What the program prints for `n`.
#[inline(never)]
pub fn report(n: i32) -> String {
    // SAFETY: plain C functions of csrc/table.c.
    let (sum, called, squared) =
        unsafe { (c_add(n, 32), c_apply_callback(n, 7), c_square_plus(n)) };
    format!(
        "c_add {sum}\nops {}\ncallback {called}\nsquare_plus {squared}\n",
        run_ops(n)
    )
}
