// An `opt` pass plugin for bench/aa-ceiling.sh (run by hand, never part of rld):
//
//   aat-eval       prints, per defined function, the pairs of memory instructions LLVM's
//                  `aa-eval -evaluate-aa-metadata` asks about (every load against every
//                  store, every store against the stores before it) that the AA pipeline
//                  answers MayAlias, and the totals of each answer;
//   aat-instrument makes every load and store report the bytes it touches, every `alloca`,
//                  allocation call and `free` report the memory it creates or ends, to the
//                  runtime in runtime.cpp, which records which pairs really overlap.
//
// Both name an access by (function number, position among the function's loads and stores),
// function numbers counting the module's definitions in order, so that the two agree on the
// same bitcode (and on bitcode that differs only in metadata).
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/MemoryBuiltins.h"
#include "llvm/Analysis/MemoryLocation.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

static cl::opt<std::string> EvalOut("aat-eval-out", cl::desc("where aat-eval writes"),
                                    cl::init("-"));

namespace {

bool isAccess(const Instruction &I) { return isa<LoadInst>(I) || isa<StoreInst>(I); }

bool instrumentable(const Function &F) {
    return !F.isDeclaration() && !F.getName().starts_with("__aat_");
}

struct Eval : PassInfoMixin<Eval> {
    PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
        auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
        std::error_code EC;
        raw_fd_ostream Out(EvalOut, EC, sys::fs::OF_None);
        if (EC) report_fatal_error(Twine("aat-eval: ") + EvalOut + ": " + EC.message());
        uint64_t Counts[4] = {0, 0, 0, 0}; // No, May, Partial, Must
        unsigned Fid = 0;
        for (Function &F : M) {
            if (!instrumentable(F)) continue;
            unsigned Id = Fid++;
            // (position, instruction) of the loads and of the stores.
            std::vector<std::pair<unsigned, LoadInst *>> Loads;
            std::vector<std::pair<unsigned, StoreInst *>> Stores;
            unsigned Pos = 0;
            for (Instruction &I : instructions(F)) {
                if (auto *L = dyn_cast<LoadInst>(&I)) Loads.push_back({Pos++, L});
                else if (auto *S = dyn_cast<StoreInst>(&I)) Stores.push_back({Pos++, S});
            }
            if (Stores.empty()) continue;
            AAResults &AA = FAM.getResult<AAManager>(F);
            Out << "F " << Id << ' ' << F.getName() << '\n';
            auto Record = [&](AliasResult R, unsigned A, unsigned B) {
                switch (R) {
                case AliasResult::NoAlias: ++Counts[0]; break;
                case AliasResult::MayAlias:
                    ++Counts[1];
                    Out << "M " << A << ' ' << B << '\n';
                    break;
                case AliasResult::PartialAlias: ++Counts[2]; break;
                case AliasResult::MustAlias: ++Counts[3]; break;
                }
            };
            for (auto &[LP, L] : Loads)
                for (auto &[SP, S] : Stores)
                    Record(AA.alias(MemoryLocation::get(L), MemoryLocation::get(S)),
                           std::min(LP, SP), std::max(LP, SP));
            for (size_t I = 0; I < Stores.size(); ++I)
                for (size_t J = 0; J < I; ++J)
                    Record(AA.alias(MemoryLocation::get(Stores[I].second),
                                    MemoryLocation::get(Stores[J].second)),
                           Stores[J].first, Stores[I].first);
        }
        Out << "T " << Counts[0] << ' ' << Counts[1] << ' ' << Counts[2] << ' ' << Counts[3]
            << '\n';
        return PreservedAnalyses::all();
    }
};

struct Instrument : PassInfoMixin<Instrument> {
    PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
        auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
        LLVMContext &C = M.getContext();
        const DataLayout &DL = M.getDataLayout();
        Type *Ptr = PointerType::get(C, 0), *I64 = Type::getInt64Ty(C);
        Type *Void = Type::getVoidTy(C);
        FunctionCallee Access =
            M.getOrInsertFunction("__aat_access", Void, I64, Ptr, I64); // id, address, size
        // Abstract objects: 1 << 60 | global variable number, 2 << 60 | function << 32 |
        // instruction position for an alloca, 3 << 60 | ... for an allocation call.
        FunctionCallee Fresh = M.getOrInsertFunction("__aat_fresh", Void, Ptr, I64, I64);
        FunctionCallee Heap = M.getOrInsertFunction("__aat_heap", Void, Ptr, I64);
        FunctionCallee Free = M.getOrInsertFunction("__aat_free", Void, Ptr);
        unsigned Fid = 0;
        for (Function &F : M) {
            if (!instrumentable(F)) continue;
            uint64_t Id = uint64_t(Fid++) << 32;
            auto &TLI = FAM.getResult<TargetLibraryAnalysis>(F);
            std::vector<Instruction *> Work;
            for (Instruction &I : instructions(F)) Work.push_back(&I);
            uint64_t Pos = 0, Inst = 0;
            for (Instruction *I : Work) {
                uint64_t Site = Id | Inst++;
                if (isAccess(*I)) {
                    uint64_t Me = Id | Pos++;
                    Value *P = getLoadStorePointerOperand(I);
                    Type *T = isa<LoadInst>(I) ? I->getType()
                                               : cast<StoreInst>(I)->getValueOperand()->getType();
                    TypeSize Size = DL.getTypeStoreSize(T);
                    if (Size.isScalable() || P->getType()->getPointerAddressSpace() != 0)
                        continue;
                    IRBuilder<> B(I);
                    B.CreateCall(Access, {B.getInt64(Me), P, B.getInt64(Size.getFixedValue())});
                } else if (auto *A = dyn_cast<AllocaInst>(I)) {
                    if (A->getAddressSpace() != 0) continue;
                    IRBuilder<> B(A->getNextNode());
                    Value *N = B.getInt64(DL.getTypeAllocSize(A->getAllocatedType()));
                    if (A->isArrayAllocation())
                        N = B.CreateMul(N, B.CreateZExtOrTrunc(A->getArraySize(), I64));
                    B.CreateCall(Fresh, {A, N, B.getInt64(2ull << 60 | Site)});
                } else if (auto *CB = dyn_cast<CallBase>(I)) {
                    if (Value *Freed = getFreedOperand(CB, &TLI)) {
                        IRBuilder<> B(CB);
                        B.CreateCall(Free, {Freed});
                    } else if (isAllocationFn(CB, &TLI) && CB->getType()->isPointerTy()) {
                        Instruction *After = nullptr;
                        if (auto *Inv = dyn_cast<InvokeInst>(CB)) {
                            BasicBlock *Normal = Inv->getNormalDest();
                            if (Normal->getSinglePredecessor())
                                After = &*Normal->getFirstInsertionPt();
                        } else {
                            After = CB->getNextNode();
                        }
                        if (!After) continue;
                        IRBuilder<> B(After);
                        B.CreateCall(Heap, {CB, B.getInt64(3ull << 60 | Site)});
                    }
                }
            }
        }
        // The global variables, registered before any constructor runs.
        Function *Init = Function::Create(FunctionType::get(Void, false),
                                          GlobalValue::InternalLinkage, "__aat_globals", M);
        IRBuilder<> B(BasicBlock::Create(C, "", Init));
        uint64_t G = 0;
        for (GlobalVariable &V : M.globals()) {
            uint64_t Number = G++;
            if (V.isDeclaration() || V.getAddressSpace() != 0 || V.getName().starts_with("llvm."))
                continue;
            B.CreateCall(Fresh, {&V, B.getInt64(DL.getTypeAllocSize(V.getValueType())),
                                 B.getInt64(1ull << 60 | Number)});
        }
        B.CreateRetVoid();
        appendToGlobalCtors(M, Init, 0);
        return PreservedAnalyses::none();
    }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
    return {LLVM_PLUGIN_API_VERSION, "aa-ceiling", "1", [](PassBuilder &PB) {
                PB.registerPipelineParsingCallback(
                    [](StringRef Name, ModulePassManager &MPM,
                       ArrayRef<PassBuilder::PipelineElement>) {
                        if (Name == "aat-eval") {
                            MPM.addPass(Eval());
                            return true;
                        }
                        if (Name == "aat-instrument") {
                            MPM.addPass(Instrument());
                            return true;
                        }
                        return false;
                    });
            }};
}
