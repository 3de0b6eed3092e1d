//! LLVM reports some malformed bitcode through its fatal-error path, which aborts the
//! process. rld installs its own handler so such input ends like any other bad input: an
//! error naming the file being read and exit status 1 (no output file exists yet at that
//! point: LTO runs before the output is written).

use crate::error::LtoError;
use std::cell::RefCell;
use std::sync::Once;

thread_local! {
    /// The input this thread is handing to LLVM, for the fatal-error message.
    static CURRENT: RefCell<Option<String>> = const { RefCell::new(None) };
}

extern "C" fn on_fatal_error(reason: *const std::ffi::c_char) {
    let reason = if reason.is_null() {
        String::from("unknown error")
    } else {
        // SAFETY: LLVM passes a NUL-terminated message that lives for this call.
        unsafe { std::ffi::CStr::from_ptr(reason) }
            .to_string_lossy()
            .into_owned()
    };
    let file = CURRENT.with(|c| c.borrow().clone());
    let error = match file {
        Some(file) => LtoError::BadBitcode {
            file,
            msg: reason.clone(),
        },
        None => LtoError::Llvm(format!("LLVM failed: {reason}")),
    };
    // In a child working for the linker: the parent reports it.
    crate::isolate::report_fatal_in_child(&reason, &error);
    eprintln!("rld: error: {error}");
    // Returning would let LLVM abort; unwinding through C++ frames is not allowed.
    std::process::exit(1);
}

/// Installs the handler (once per process).
pub fn install_handler() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: registering a C callback with LLVM; it never returns into LLVM.
        unsafe {
            inkwell::llvm_sys::error_handling::LLVMInstallFatalErrorHandler(Some(on_fatal_error))
        }
    });
}

/// Runs `f` with `name` as the input being read, for the fatal-error message.
pub fn reading<T>(name: &str, f: impl FnOnce() -> T) -> T {
    install_handler();
    let previous = CURRENT.with(|c| c.replace(Some(name.to_string())));
    let result = f();
    CURRENT.with(|c| *c.borrow_mut() = previous);
    result
}
