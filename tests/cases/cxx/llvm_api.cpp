// A small program using LLVM 14's C API, linked statically against
// llvm-14-dev's archives (the "large link" of tests/tests/cxx.rs and
// bench/run.sh): builds a module, verifies it, prints its IR, optimizes it
// with the new pass manager, writes bitcode to memory and reads it back, and
// compiles it to an x86-64 object in memory.
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <cstdio>
#include <cstring>

static bool verify(LLVMModuleRef m) {
    char *err = nullptr;
    bool bad = LLVMVerifyModule(m, LLVMReturnStatusAction, &err);
    if (bad)
        std::printf("verifier: %s\n", err);
    LLVMDisposeMessage(err);
    return !bad;
}

int main() {
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("rld_demo", ctx);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
    LLVMTypeRef params[] = {i32, i32};
    LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);

    // mul_add(a, b) = a * b + 7
    LLVMValueRef f = LLVMAddFunction(m, "mul_add", LLVMFunctionType(i32, params, 2, 0));
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
    LLVMValueRef prod = LLVMBuildMul(b, LLVMGetParam(f, 0), LLVMGetParam(f, 1), "prod");
    LLVMBuildRet(b, LLVMBuildAdd(b, prod, LLVMConstInt(i32, 7, 0), "sum"));

    // square(x) through a stack slot, for the optimizer to clean up.
    LLVMValueRef g = LLVMAddFunction(m, "square", LLVMFunctionType(i32, params, 1, 0));
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, g, "entry"));
    LLVMValueRef slot = LLVMBuildAlloca(b, i32, "slot");
    LLVMBuildStore(b, LLVMGetParam(g, 0), slot);
    LLVMValueRef x1 = LLVMBuildLoad2(b, i32, slot, "x1");
    LLVMValueRef x2 = LLVMBuildLoad2(b, i32, slot, "x2");
    LLVMBuildRet(b, LLVMBuildMul(b, x1, x2, "sq"));
    LLVMDisposeBuilder(b);

    std::printf("verify: %s\n", verify(m) ? "ok" : "FAILED");
    char *ir = LLVMPrintModuleToString(m);
    std::printf("%s", ir);

    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMTargetRef target;
    char *err = nullptr;
    if (LLVMGetTargetFromTriple("x86_64-pc-linux-gnu", &target, &err)) {
        std::printf("no target: %s\n", err);
        return 1;
    }
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(
        target, "x86_64-pc-linux-gnu", "x86-64", "", LLVMCodeGenLevelDefault, LLVMRelocPIC,
        LLVMCodeModelDefault);

    LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
    const unsigned char *p = (const unsigned char *)LLVMGetBufferStart(bc);
    std::printf("bitcode: %s (magic %02X %02X %02X %02X)\n",
                LLVMGetBufferSize(bc) > 4 && p[0] == 'B' && p[1] == 'C' ? "ok" : "bad", p[0],
                p[1], p[2], p[3]);
    LLVMModuleRef back = nullptr;
    if (LLVMParseBitcodeInContext2(ctx, bc, &back)) {
        std::printf("cannot read the bitcode back\n");
        return 1;
    }
    int nfuncs = 0;
    std::printf("read back:");
    for (LLVMValueRef fn = LLVMGetFirstFunction(back); fn; fn = LLVMGetNextFunction(fn), nfuncs++) {
        size_t len;
        std::printf(" %s", LLVMGetValueName2(fn, &len));
    }
    std::printf(" (%d functions), verify: %s\n", nfuncs, verify(back) ? "ok" : "FAILED");
    char *ir_back = LLVMPrintModuleToString(back);
    // The module ID differs (the buffer's name); the functions must not.
    std::printf("same functions after the round trip: %s\n",
                std::strcmp(std::strstr(ir, "define"), std::strstr(ir_back, "define")) == 0 ? "yes" : "no");

    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(back, "default<O2>", tm, opts);
    if (e) {
        char *msg = LLVMGetErrorMessage(e);
        std::printf("passes: %s\n", msg);
        LLVMDisposeErrorMessage(msg);
        return 1;
    }
    char *sq = LLVMPrintValueToString(LLVMGetNamedFunction(back, "square"));
    std::printf("after default<O2>:\n%s", sq);

    LLVMMemoryBufferRef obj = nullptr;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, back, LLVMObjectFile, &err, &obj)) {
        std::printf("codegen: %s\n", err);
        return 1;
    }
    const char *o = LLVMGetBufferStart(obj);
    std::printf("x86-64 object: %s\n",
                LLVMGetBufferSize(obj) > 64 && std::memcmp(o, "\x7f" "ELF\x02", 5) == 0 ? "ELF64" : "bad");

    LLVMDisposeMemoryBuffer(obj);
    LLVMDisposeMessage(sq);
    LLVMDisposeMessage(ir_back);
    LLVMDisposeMessage(ir);
    LLVMDisposePassBuilderOptions(opts);
    LLVMDisposeModule(back);
    LLVMDisposeMemoryBuffer(bc);
    LLVMDisposeTargetMachine(tm);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    return 0;
}
