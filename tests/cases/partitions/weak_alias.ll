; A weak table and a weak function, each with an alias: `second` stands for element 1 of
; this module's `t`, `g` for this module's `f`. weak_alias_main.c's strong `t` and `f`
; prevail over these, yet the aliases keep this module's storage and code, as an ELF link
; of the objects leaves them; the rest of this module uses the strong ones.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@t = weak global [4 x i32] [i32 1, i32 2, i32 3, i32 4], align 16
@second = alias i32, getelementptr inbounds ([4 x i32], [4 x i32]* @t, i64 0, i64 1)
@g = alias i32 (), i32 ()* @f

define weak i32 @f() {
  ret i32 7
}

define i32 @third() {
  %v = load i32, i32* getelementptr inbounds ([4 x i32], [4 x i32]* @t, i64 0, i64 2)
  %w = call i32 @f()
  %s = add i32 %v, %w
  ret i32 %s
}
