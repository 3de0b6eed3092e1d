; A personality function defined in the LTO unit and used by nothing but a function's
; `personality` (as Rust's rust_eh_personality is, with the standard library's bitcode):
; `main` calls a native function through `invoke`, so its code has an unwind table that
; names the personality.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.fmt = private constant [4 x i8] c"%d\0A\00"

declare i32 @printf(ptr, ...)
declare i32 @step(i32)

; _URC_CONTINUE_UNWIND: nothing here throws, so it is never called.
define i32 @own_personality(i32 %version, i32 %actions, i64 %class, ptr %exc, ptr %ctx) {
  ret i32 8
}

define i32 @main() personality ptr @own_personality {
entry:
  %r = invoke i32 @step(i32 41) to label %ok unwind label %pad
ok:
  %n = call i32 (ptr, ...) @printf(ptr @.fmt, i32 %r)
  ret i32 0
pad:
  %l = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %l
}
