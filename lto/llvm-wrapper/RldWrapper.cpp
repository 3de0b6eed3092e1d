// What rld's LTO backend needs from LLVM 22 beyond the LLVM-C API (lto/src/shim.rs is the
// Rust side): a TargetMachine configured the way lld's LTO configures it, and LLVM's own
// optimization remarks streamed to a YAML file.

#include "llvm-c/Core.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/CodeGen/CommandFlags.h"
#include "llvm-c/TargetMachine.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalIFunc.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LLVMRemarkStreamer.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ModuleSymbolTable.h"
#include "llvm/Remarks/RemarkStreamer.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include <dlfcn.h>
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/PGOOptions.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Transforms/Utils/CodeLayout.h"

#include <memory>
#include <string>

using namespace llvm;

// The code generator's command-line options (-debugger-tune, -use-ctors, -float-abi, ...),
// which lld registers and reads into its TargetOptions: registered on first use, once per
// process.
static void registerCodeGenFlags() { static codegen::RegisterCodeGenFlags Flags; }

// lld/ELF/LTO.cpp createConfig() and llvm/lib/LTO/LTOBackend.cpp createTargetMachine()
// (LLVM 22). lld starts from the codegen command-line options (`-mllvm`), whose defaults
// differ from a default-constructed TargetOptions (what LLVMCreateTargetMachine uses) in
// UseInitArray (-use-ctors is off: constructors go to .init_array, not .ctors), then turns
// on address-significance tables and a section per function and datum (relaxable GOT
// relocations are always on since LLVM 19). CGOptLevel is LLVM's CodeGenOptLevel, 0 to 3
// (the caller picks lld's: 3 for --lto-O3, else 2, unless --lto-CGO says). Returns null if
// the triple names no registered target.
extern "C" LLVMTargetMachineRef
rld_create_lto_target_machine(const char *TripleName, const char *CPU,
                              const char *Features, unsigned CGOptLevel,
                              bool PIC) {
  std::string Error;
  Triple TheTriple(TripleName);
  const Target *TheTarget = TargetRegistry::lookupTarget(TheTriple, Error);
  if (!TheTarget)
    return nullptr;

  registerCodeGenFlags();
  TargetOptions Options = codegen::InitTargetOptionsFromCodeGenFlags(TheTriple);
  Options.EmitAddrsig = true;
  Options.FunctionSections = true;
  Options.DataSections = true;

  CodeGenOptLevel Level = CodeGenOptLevel::Default;
  switch (CGOptLevel) {
  case 0:
    Level = CodeGenOptLevel::None;
    break;
  case 1:
    Level = CodeGenOptLevel::Less;
    break;
  case 2:
    Level = CodeGenOptLevel::Default;
    break;
  default:
    Level = CodeGenOptLevel::Aggressive;
    break;
  }
  Reloc::Model RM = PIC ? Reloc::PIC_ : Reloc::Static;
  TargetMachine *TM = TheTarget->createTargetMachine(
      TheTriple, CPU, Features, Options, RM, codegen::getExplicitCodeModel(), Level);
  // The LLVM-C handle is the TargetMachine itself (TargetMachineC.cpp's wrap()), and
  // LLVMDisposeTargetMachine deletes it.
  return reinterpret_cast<LLVMTargetMachineRef>(TM);
}

// A YAML remarks file attached to a context: LLVM's remark streamers write into File.
struct RldRemarks {
  LLVMContext *Ctx;
  LLVMRemarkFileHandle File;
};

static void detachRemarks(LLVMContext &Ctx) {
  Ctx.setLLVMRemarkStreamer(nullptr);
  Ctx.setMainRemarkStreamer(nullptr);
  Ctx.setDiagnosticsHotnessRequested(false);
}

static void setError(char **ErrorMessage, const std::string &Message) {
  *ErrorMessage = LLVMCreateMessage(Message.c_str());
}

// Sends the context's optimization remarks (from the pass pipeline and from codegen) to
// Path as YAML, as lld's --opt-remarks-filename does. Passes, if not null, is a regular
// expression over pass names. On failure returns null and sets *ErrorMessage (free it with
// LLVMDisposeMessage).
extern "C" RldRemarks *rld_remarks_begin(LLVMContextRef C, const char *Path,
                                         const char *Passes, bool WithHotness,
                                         bool ThresholdAuto, uint64_t Threshold,
                                         char **ErrorMessage) {
  LLVMContext &Ctx = *unwrap(C);
  *ErrorMessage = nullptr;
  if (Ctx.getMainRemarkStreamer()) {
    setError(ErrorMessage, "optimization remarks are already being recorded");
    return nullptr;
  }
  if (!Path || !*Path) {
    setError(ErrorMessage, "empty optimization remarks file name");
    return nullptr;
  }
  // Checked first: on a bad pattern LLVM's setupLLVMOptimizationRemarks returns with
  // the streamers still installed, writing to the file it has just closed.
  StringRef Pattern = Passes ? Passes : "";
  std::string RegexError;
  if (!Pattern.empty() && !Regex(Pattern).isValid(RegexError)) {
    setError(ErrorMessage, "invalid regular expression '" + Pattern.str() +
                               "': " + RegexError);
    return nullptr;
  }
  // lld's --opt-remarks-hotness-threshold: a count, or none (`auto`: the profile
  // summary's).
  std::optional<uint64_t> HotnessThreshold;
  if (!ThresholdAuto)
    HotnessThreshold = Threshold;
  Expected<LLVMRemarkFileHandle> File = setupLLVMOptimizationRemarks(
      Ctx, Path, Pattern, "yaml", WithHotness, HotnessThreshold);
  if (!File) {
    detachRemarks(Ctx);
    setError(ErrorMessage, toString(File.takeError()));
    return nullptr;
  }
  return new RldRemarks{&Ctx, std::move(*File)};
}

// Detaches the streamers from the context, keeps the file and closes it. Returns false and
// sets *ErrorMessage if writing the file failed.
extern "C" bool rld_remarks_end(RldRemarks *Remarks, char **ErrorMessage) {
  *ErrorMessage = nullptr;
  if (!Remarks)
    return true;
  // Finalizing writes what the streamer still holds and detaches it from the context.
  std::unique_ptr<ToolOutputFile> File = Remarks->File.releaseFile();
  detachRemarks(*Remarks->Ctx);
  File->keep();
  raw_fd_ostream &OS = File->os();
  OS.close();
  bool Ok = !OS.has_error();
  if (!Ok) {
    setError(ErrorMessage, OS.error().message());
    // An unchecked error in raw_fd_ostream's destructor is a fatal error.
    OS.clear_error();
  }
  delete Remarks;
  return Ok;
}

// Turns a function definition into a declaration the way LLVM itself does
// (Function::deleteBody): blocks, personality, prefix/prologue data and attached metadata
// all go, which LLVM-C has no single call for.
// The name of the COMDAT group a global object is in (the C API has no getter), or null;
// the bytes live as long as the module.
extern "C" const char *rld_comdat_name(LLVMValueRef G, size_t *Len) {
  auto *GO = dyn_cast<GlobalObject>(unwrap<GlobalValue>(G));
  const Comdat *C = GO ? GO->getComdat() : nullptr;
  if (!C) {
    *Len = 0;
    return nullptr;
  }
  StringRef Name = C->getName();
  *Len = Name.size();
  return Name.data();
}

// The global symbols of a module's inline asm as LLVM's IR symbol table lists them, the
// list lld resolves (a `.symver` alias under its versioned name): `Each` gets each name
// and whether it is defined and weak. The asm is parsed by the target's asm parser, which
// the caller has initialized; asm it cannot parse yields no symbols, as in lld.
extern "C" void rld_module_asm_symbols(LLVMModuleRef M, void *Ctx,
                                       void (*Each)(void *Ctx, const char *Name,
                                                    size_t Len, bool Defined,
                                                    bool Weak)) {
  ModuleSymbolTable::CollectAsmSymbols(
      *unwrap(M), [&](StringRef Name, object::BasicSymbolRef::Flags Flags) {
        if (!(Flags & object::BasicSymbolRef::SF_Global))
          return;
        Each(Ctx, Name.data(), Name.size(),
             !(Flags & object::BasicSymbolRef::SF_Undefined),
             Flags & object::BasicSymbolRef::SF_Weak);
      });
}

extern "C" void rld_delete_function_body(LLVMValueRef Fn) {
  unwrap<Function>(Fn)->deleteBody();
}

// An alias or ifunc cannot be a declaration: one that is dropped (dead, a copy that does
// not prevail, or defined in another partition) is replaced by a declaration of the same
// name and type, as LLVM's LTO does.
extern "C" void rld_alias_to_declaration(LLVMValueRef Alias) {
  GlobalValue *GA = unwrap<GlobalValue>(Alias);
  if (!isa<GlobalAlias>(GA) && !isa<GlobalIFunc>(GA))
    return;
  Module *M = GA->getParent();
  GlobalValue *Decl;
  if (auto *FTy = dyn_cast<FunctionType>(GA->getValueType()))
    Decl = Function::Create(FTy, GlobalValue::ExternalLinkage, GA->getAddressSpace(), "", M);
  else
    Decl = new GlobalVariable(*M, GA->getValueType(), false, GlobalValue::ExternalLinkage,
                              nullptr, "");
  Decl->takeName(GA);
  GA->replaceAllUsesWith(ConstantExpr::getBitCast(Decl, GA->getType()));
  GA->eraseFromParent();
}

// Module flags that say how a compiler prepared a module for LTO (regular or thin, split
// or not into a regular and a thin part). Full and thin modules differ in them with the
// "error on a difference" behaviour, and rld links both kinds into one module per
// partition, which the flags no longer describe: they are dropped.
static void dropLTOUnitFlags(Module &M) {
  NamedMDNode *Flags = M.getModuleFlagsMetadata();
  if (!Flags)
    return;
  SmallVector<MDNode *, 16> Keep;
  for (MDNode *Flag : Flags->operands()) {
    auto *Key = Flag->getNumOperands() == 3 ? dyn_cast<MDString>(Flag->getOperand(1)) : nullptr;
    if (Key && (Key->getString() == "EnableSplitLTOUnit" || Key->getString() == "ThinLTO" ||
                Key->getString() == "UnifiedLTO"))
      continue;
    Keep.push_back(Flag);
  }
  if (Keep.size() == Flags->getNumOperands())
    return;
  Flags->clearOperands();
  for (MDNode *Flag : Keep)
    Flags->addOperand(Flag);
}

// Reads a module lazily from bitcode that stays alive (and unchanged) as long as the module:
// no copy of the bytes, and a function body is read only when materialized, so bodies that
// are deleted first are never read. On failure returns null and sets *ErrorMessage.
extern "C" LLVMModuleRef rld_parse_lazy(LLVMContextRef C, const char *Data, size_t Size,
                                        const char *Name, char **ErrorMessage) {
  *ErrorMessage = nullptr;
  MemoryBufferRef Buffer(StringRef(Data, Size), Name);
  // A file holding several modules (a split LTO unit, -fsplit-lto-unit with CFI or
  // whole-program devirtualization) would lose all but the first.
  Expected<std::vector<BitcodeModule>> Modules = getBitcodeModuleList(Buffer);
  if (!Modules) {
    setError(ErrorMessage, toString(Modules.takeError()));
    return nullptr;
  }
  if (Modules->size() != 1) {
    setError(ErrorMessage,
             "holds " + std::to_string(Modules->size()) +
                 " modules (a split LTO unit, -fsplit-lto-unit); rld reads one module "
                 "per bitcode file: compile without -fsplit-lto-unit");
    return nullptr;
  }
  Expected<std::unique_ptr<Module>> M =
      (*Modules)[0].getLazyModule(*unwrap(C), /*ShouldLazyLoadMetadata=*/false,
                                  /*IsImporting=*/false);
  if (!M) {
    setError(ErrorMessage, toString(M.takeError()));
    return nullptr;
  }
  dropLTOUnitFlags(**M);
  return wrap(M->release());
}

// Writes a module's bitcode to Path with the order of every value's uses (LLVM-C's writer
// drops it): a pass that walks uses sees them as the writer's process saw them, so the
// module read back compiles to the same bytes (distributed LTO jobs). Returns false and
// sets *ErrorMessage if the file cannot be written.
extern "C" bool rld_write_bitcode(LLVMModuleRef M, const char *Path, char **ErrorMessage) {
  *ErrorMessage = nullptr;
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_None);
  if (EC) {
    setError(ErrorMessage, EC.message());
    return false;
  }
  WriteBitcodeToFile(*unwrap(M), OS, /*ShouldPreserveUseListOrder=*/true);
  OS.close();
  if (OS.has_error()) {
    setError(ErrorMessage, OS.error().message());
    OS.clear_error();
    return false;
  }
  return true;
}

// The producer string a bitcode file names (`LLVM22.1.8`, `LLVM22.1.2-rust-1.95.0-stable`),
// written to *Producer (free it with LLVMDisposeMessage); false if the file has none.
extern "C" bool rld_bitcode_producer(const char *Data, size_t Size, char **Producer) {
  *Producer = nullptr;
  Expected<std::string> P =
      getBitcodeProducerString(MemoryBufferRef(StringRef(Data, Size), ""));
  if (!P) {
    consumeError(P.takeError());
    return false;
  }
  *Producer = LLVMCreateMessage(P->c_str());
  return true;
}

// Reads every function body of a lazily read module that is still to be read. Returns false
// and sets *ErrorMessage if the bitcode is bad.
extern "C" bool rld_materialize_all(LLVMModuleRef M, char **ErrorMessage) {
  *ErrorMessage = nullptr;
  if (Error E = unwrap(M)->materializeAll()) {
    setError(ErrorMessage, toString(std::move(E)));
    return false;
  }
  return true;
}

// A module loaded by several LTO partitions would describe the same things in each
// partition's debug info: its compile unit lists global variables (each gets a DIE, defined
// here or not), enums, retained types and imported entities. Keeps, in every partition, the
// variables it defines, and only in the module's home partition the rest (variables no
// global holds any more, enums, retained types, imports); a variable another partition
// defines is described there.
extern "C" void rld_trim_debug_info(LLVMModuleRef MRef, bool Home) {
  Module &M = *unwrap(MRef);
  SmallPtrSet<const DIGlobalVariable *, 32> Defined, Declared;
  for (GlobalVariable &GV : M.globals()) {
    SmallVector<DIGlobalVariableExpression *, 1> GVEs;
    GV.getDebugInfo(GVEs);
    for (DIGlobalVariableExpression *GVE : GVEs)
      (GV.isDeclaration() ? Declared : Defined).insert(GVE->getVariable());
  }
  for (DICompileUnit *CU : M.debug_compile_units()) {
    SmallVector<Metadata *, 16> Keep;
    for (DIGlobalVariableExpression *GVE : CU->getGlobalVariables()) {
      const DIGlobalVariable *V = GVE->getVariable();
      if (Defined.count(V) || (Home && !Declared.count(V)))
        Keep.push_back(GVE);
    }
    CU->replaceGlobalVariables(MDTuple::get(M.getContext(), Keep));
    if (!Home) {
      CU->replaceEnumTypes(nullptr);
      CU->replaceRetainedTypes(nullptr);
      CU->replaceImportedEntities(nullptr);
    }
  }
}

// LLVM's own command-line options (`-mllvm -foo`, `-plugin-opt=-foo`), parsed as lld parses
// them, except that a bad option is reported instead of ending the process: rld may be
// running inside another linker as its plugin. Occurrences are reset first, so options
// that may be given once can be set again by a later link in the same process.
extern "C" bool rld_parse_llvm_options(int Argc, const char *const *Argv,
                                       char **ErrorMessage) {
  *ErrorMessage = nullptr;
  registerCodeGenFlags();
  cl::ResetAllOptionOccurrences();
  std::string Errors;
  raw_string_ostream OS(Errors);
  if (cl::ParseCommandLineOptions(Argc, Argv, "", &OS))
    return true;
  OS.flush();
  while (!Errors.empty() && Errors.back() == '\n')
    Errors.pop_back();
  setError(ErrorMessage, Errors);
  return false;
}

// The order lld's LTO gives functions: it moves each module, in input order, into one empty
// module with LLVM's IRMover, which creates a definition when it first reaches it: from the
// appending variables (llvm.global_ctors, llvm.used) first, then from the module's global
// definitions in symbol-table order (functions, variables, aliases), each time following what
// the body or initializer refers to, most recently reached first (the value mapper's
// worklist is a stack). The code generator emits functions in module order, and the linker
// lays them out in that order: rld's partitions, linked differently (the first module is
// the destination), would place the same code elsewhere. Numbers the module's function
// definitions in that order from Next, in a metadata attachment the sort below reads;
// returns the next number.
static const char *const LinkOrderKind = "rld.link_order";

extern "C" uint64_t rld_number_in_link_order(LLVMModuleRef MRef, uint64_t Next) {
  Module &M = *unwrap(MRef);
  LLVMContext &C = M.getContext();
  unsigned Kind = C.getMDKindID(LinkOrderKind);
  Type *I64 = Type::getInt64Ty(C);
  SmallPtrSet<const Value *, 32> Seen;
  SmallVector<const GlobalValue *, 64> Stack;
  // A reference, as the mapper meets it: a definition is created at once and its body
  // waits on the stack; a constant's operands are met in order, each constant once.
  auto Reach = [&](auto &Self, const Value *V) -> void {
    if (!isa<Constant>(V) || !Seen.insert(V).second)
      return;
    if (const auto *GV = dyn_cast<GlobalValue>(V)) {
      if (GV->isDeclaration())
        return;
      if (const auto *F = dyn_cast<Function>(GV))
        const_cast<Function *>(F)->setMetadata(
            Kind, MDNode::get(C, ConstantAsMetadata::get(ConstantInt::get(I64, Next++))));
      Stack.push_back(GV);
      return;
    }
    for (const Use &Op : cast<Constant>(V)->operands())
      Self(Self, Op.get());
  };
  auto Flush = [&]() {
    while (!Stack.empty()) {
      const GlobalValue *G = Stack.pop_back_val();
      if (const auto *F = dyn_cast<Function>(G)) {
        for (const Use &Op : F->operands())
          if (Op)
            Reach(Reach, Op.get());
        for (const BasicBlock &BB : *F)
          for (const Instruction &I : BB)
            for (const Use &Op : I.operands())
              Reach(Reach, Op.get());
      } else if (const auto *Var = dyn_cast<GlobalVariable>(G)) {
        if (Var->hasInitializer())
          Reach(Reach, Var->getInitializer());
      } else if (const auto *A = dyn_cast<GlobalAlias>(G)) {
        Reach(Reach, A->getAliasee());
      } else if (const auto *IF = dyn_cast<GlobalIFunc>(G)) {
        Reach(Reach, IF->getResolver());
      }
    }
  };
  SmallVector<const GlobalValue *, 64> Roots;
  for (const GlobalVariable &G : M.globals())
    if (G.hasAppendingLinkage())
      Roots.push_back(&G);
  // The symbol table's order: functions, variables, aliases, ifuncs; names starting with
  // "llvm." are not symbols.
  for (const GlobalValue &G : M.global_values())
    if (!G.hasLocalLinkage() && !G.isDeclaration() && !G.hasAppendingLinkage() &&
        !G.getName().starts_with("llvm."))
      Roots.push_back(&G);
  for (const GlobalValue *R : Roots) {
    Reach(Reach, R);
    Flush();
  }
  return Next;
}

// Puts the function definitions numbered by rld_number_in_link_order in that order (the
// rest after them, as they were) and drops the numbers.
extern "C" void rld_sort_in_link_order(LLVMModuleRef MRef) {
  Module &M = *unwrap(MRef);
  unsigned Kind = M.getContext().getMDKindID(LinkOrderKind);
  std::vector<std::pair<uint64_t, Function *>> Numbered;
  for (Function &F : M)
    if (MDNode *N = F.getMetadata(Kind)) {
      uint64_t Key = mdconst::extract<ConstantInt>(N->getOperand(0))->getZExtValue();
      Numbered.emplace_back(Key, &F);
    }
  if (Numbered.empty())
    return;
  std::stable_sort(Numbered.begin(), Numbered.end(),
                   [](const auto &A, const auto &B) { return A.first < B.first; });
  for (auto &[Key, F] : Numbered) {
    F->setMetadata(Kind, nullptr);
    F->removeFromParent();
  }
  auto &List = M.getFunctionList();
  auto Rest = List.begin();
  for (auto &[Key, F] : Numbered)
    List.insert(Rest, F);
}

// The profile-guided optimization lld's LTO configures (llvm/lib/LTO/LTOBackend.cpp,
// runNewPMPasses, LLVM 22): an AutoFDO sample profile first; else context-sensitive
// instrumentation (CSProfile names the file the program writes) or a context-sensitive
// profile to use. None when no profile is named.
static std::optional<PGOOptions> ltoPGOOptions(const char *SampleProfile,
                                               const char *CSProfile,
                                               bool CSGenerate) {
  std::string CS = CSProfile ? CSProfile : "";
  if (SampleProfile && *SampleProfile)
    return PGOOptions(SampleProfile, "", "", /*MemoryProfile=*/"",
                      PGOOptions::SampleUse, PGOOptions::NoCSAction,
                      PGOOptions::ColdFuncOpt::Default,
                      /*DebugInfoForProfiling=*/true);
  if (CSGenerate)
    return PGOOptions("", CS, "", /*MemoryProfile=*/"", PGOOptions::IRUse,
                      PGOOptions::CSIRInstr);
  if (!CS.empty())
    return PGOOptions(CS, "", "", /*MemoryProfile=*/"", PGOOptions::IRUse,
                      PGOOptions::CSIRUse);
  return std::nullopt;
}

// A pass plugin leaves LLVM's symbols undefined, for the program that loads it to provide
// (as `opt` and lld do). rld's LTO library is loaded privately (RTLD_LOCAL), and so is the
// LLVM it links: made global here, once, so that a plugin finds the same LLVM.
static void exposeLLVMToPlugins() {
  static bool Done = [] {
    Dl_info Info;
    // Any function of LLVM's says where LLVM is: its C API's first.
    if (dladdr(reinterpret_cast<void *>(&LLVMContextCreate), &Info) && Info.dli_fname)
      dlopen(Info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
    return true;
  }();
  (void)Done;
}

// LLVMRunPasses (llvm/lib/Passes/PassBuilderBindings.cpp) with the profiles of
// ltoPGOOptions handed to the pass builder and the target machine, as lld's LTO hands them:
// without a profile it runs exactly what LLVMRunPasses runs. Returns false and sets
// *ErrorMessage if the pipeline text does not parse.
extern "C" bool rld_run_lto_passes(LLVMModuleRef M, LLVMTargetMachineRef TMRef,
                                   const char *Passes, bool Vectorize,
                                   const char *SampleProfile,
                                   const char *CSProfile, bool CSGenerate,
                                   const char *AAPipeline,
                                   const char *const *Plugins, size_t PluginCount,
                                   bool DebugLogging, char **ErrorMessage) {
  *ErrorMessage = nullptr;
  TargetMachine *TM = reinterpret_cast<TargetMachine *>(TMRef);
  Module *Mod = unwrap(M);
  std::optional<PGOOptions> PGOOpt =
      ltoPGOOptions(SampleProfile, CSProfile, CSGenerate);
  TM->setPGOOption(PGOOpt);

  PipelineTuningOptions PTO;
  PTO.LoopVectorization = Vectorize;
  PTO.SLPVectorization = Vectorize;
  PassInstrumentationCallbacks PIC;
  PassBuilder PB(TM, PTO, PGOOpt, &PIC);
  // `--load-pass-plugin`: each plugin registers its passes with the builder, as in lld.
  if (PluginCount > 0)
    exposeLLVMToPlugins();
  for (size_t I = 0; I < PluginCount; ++I) {
    Expected<PassPlugin> Plugin = PassPlugin::Load(Plugins[I]);
    if (!Plugin) {
      setError(ErrorMessage, "--load-pass-plugin: " + toString(Plugin.takeError()));
      return false;
    }
    Plugin->registerPassBuilderCallbacks(PB);
  }

  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PB.registerLoopAnalyses(LAM);
  // A custom alias analysis pipeline is registered before the default one would be.
  if (AAPipeline && *AAPipeline) {
    AAManager AA;
    if (Error Err = PB.parseAAPipeline(AA, AAPipeline)) {
      setError(ErrorMessage, "--lto-aa-pipeline: " + toString(std::move(Err)));
      return false;
    }
    FAM.registerPass([&] { return std::move(AA); });
  }
  PB.registerFunctionAnalyses(FAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerModuleAnalyses(MAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);

  StandardInstrumentations SI(Mod->getContext(), DebugLogging,
                              /*VerifyEach=*/false);
  SI.registerCallbacks(PIC, &MAM);
  ModulePassManager MPM;
  if (Error Err = PB.parsePassPipeline(MPM, Passes)) {
    setError(ErrorMessage, toString(std::move(Err)));
    return false;
  }
  MPM.run(*Mod, MAM);
  return true;
}

// LLVMTargetMachineEmitToMemoryBuffer (llvm/lib/Target/TargetMachineC.cpp) for an object
// whose DWARF is split: the .dwo part goes to DwoPath (as lld's LTO writes it with
// -plugin-opt=dwo_dir=), the object keeps skeleton units naming it. Returns null and sets
// *ErrorMessage on failure.
extern "C" LLVMMemoryBufferRef rld_emit_split_dwarf_object(LLVMTargetMachineRef TMRef,
                                                           LLVMModuleRef M,
                                                           const char *DwoPath,
                                                           char **ErrorMessage) {
  *ErrorMessage = nullptr;
  TargetMachine *TM = reinterpret_cast<TargetMachine *>(TMRef);
  Module *Mod = unwrap(M);
  std::error_code EC;
  ToolOutputFile Dwo(DwoPath, EC, sys::fs::OF_None);
  if (EC) {
    setError(ErrorMessage, "cannot write " + std::string(DwoPath) + ": " + EC.message());
    return nullptr;
  }
  TM->Options.MCOptions.SplitDwarfFile = DwoPath;
  Mod->setDataLayout(TM->createDataLayout());
  SmallVector<char, 0> Code;
  {
    raw_svector_ostream OS(Code);
    legacy::PassManager PM;
    if (TM->addPassesToEmitFile(PM, OS, &Dwo.os(), CodeGenFileType::ObjectFile)) {
      setError(ErrorMessage, "the target cannot emit an object file");
      return nullptr;
    }
    PM.run(*Mod);
  }
  Dwo.os().close();
  if (Dwo.os().has_error()) {
    setError(ErrorMessage, "cannot write " + std::string(DwoPath) + ": " +
                               Dwo.os().error().message());
    Dwo.os().clear_error();
    return nullptr;
  }
  Dwo.keep();
  return LLVMCreateMemoryBufferWithMemoryRangeCopy(Code.data(), Code.size(), "");
}

// LLVM's Cache-Directed Sort (llvm/Transforms/Utils/CodeLayout.h), as lld's
// --call-graph-profile-sort=cdsort runs it: NodeCount nodes with their sizes and incoming
// counts, CallCount calls as (caller, callee, count) triples with the call's offset in its
// caller. Writes the nodes' order to Order (NodeCount entries).
extern "C" void rld_cache_directed_layout(size_t NodeCount, const uint64_t *Sizes,
                                          const uint64_t *Counts, size_t CallCount,
                                          const uint64_t *Calls, const uint64_t *Offsets,
                                          uint64_t *Order) {
  std::vector<codelayout::EdgeCount> Edges;
  Edges.reserve(CallCount);
  for (size_t I = 0; I < CallCount; ++I)
    Edges.push_back({Calls[3 * I], Calls[3 * I + 1], Calls[3 * I + 2]});
  std::vector<uint64_t> Result = codelayout::computeCacheDirectedLayout(
      ArrayRef<uint64_t>(Sizes, NodeCount), ArrayRef<uint64_t>(Counts, NodeCount),
      Edges, ArrayRef<uint64_t>(Offsets, CallCount));
  for (size_t I = 0; I < NodeCount && I < Result.size(); ++I)
    Order[I] = Result[I];
}
