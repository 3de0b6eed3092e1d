; An AVX-512 intrinsic in a function compiled for plain x86-64: LLVM cannot select an
; instruction for it and stops with a fatal error while compiling (not while reading).
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare <16 x float> @llvm.x86.avx512.mask.rndscale.ps.512(<16 x float>, i32, <16 x float>, i16, i32)

define i32 @main() {
  %r = call <16 x float> @llvm.x86.avx512.mask.rndscale.ps.512(<16 x float> zeroinitializer, i32 1, <16 x float> zeroinitializer, i16 -1, i32 4)
  %e = extractelement <16 x float> %r, i32 0
  %i = fptosi float %e to i32
  ret i32 %i
}
