/* Writes remarks with LLVM's own bitstream serializer: `write_remarks IN OUT`. Built against
 * LLVM 22, it writes what -fsave-optimization-record=bitstream writes (container version 1,
 * the string table last); against LLVM 14, a standalone container (version 0, the string
 * table first, filled beforehand in the order the serializer meets the strings).
 *
 * IN lists the remarks, each as `R TYPE NAME PASS FUNCTION LOC HOTNESS NARGS` followed by
 * NARGS times `KEY VALUE LOC`, where a string is `LENGTH:BYTES`, LOC is `-` or
 * `+ FILE LINE COLUMN` and HOTNESS is `-` or `+ VALUE`. */
#include <llvm/Config/llvm-config.h>
#include <llvm/Remarks/Remark.h>
#include <llvm/Remarks/RemarkSerializer.h>
#include <llvm/Remarks/RemarkStringTable.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <cctype>
#include <cstdint>
#include <vector>

using namespace llvm;

static StringRef In;
static size_t Pos = 0;

static void skipSpace() {
  while (Pos < In.size() && isspace(static_cast<unsigned char>(In[Pos])))
    ++Pos;
}

static uint64_t number() {
  skipSpace();
  uint64_t Value = 0;
  while (Pos < In.size() && isdigit(static_cast<unsigned char>(In[Pos])))
    Value = Value * 10 + (In[Pos++] - '0');
  return Value;
}

static bool present() {
  skipSpace();
  return In[Pos++] == '+';
}

static StringRef string() {
  uint64_t Length = number();
  ++Pos; // ':'
  StringRef S = In.substr(Pos, Length);
  Pos += Length;
  return S;
}

// Optional<RemarkLocation> in LLVM 14, std::optional in LLVM 22.
template <typename OptionalLocation> static void location(OptionalLocation &Loc) {
  if (!present())
    return;
  remarks::RemarkLocation L;
  L.SourceFilePath = string();
  L.SourceLine = number();
  L.SourceColumn = number();
  Loc = L;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  auto Buf = MemoryBuffer::getFile(argv[1]);
  if (!Buf)
    return 2;
  In = (*Buf)->getBuffer();
  std::vector<remarks::Remark> All;
  for (skipSpace(); Pos < In.size(); skipSpace()) {
    if (In[Pos++] != 'R')
      return 3;
    All.emplace_back();
    remarks::Remark &R = All.back();
    R.RemarkType = static_cast<remarks::Type>(number());
    R.RemarkName = string();
    R.PassName = string();
    R.FunctionName = string();
    location(R.Loc);
    if (present())
      R.Hotness = number();
    for (uint64_t N = number(); N > 0; --N) {
      R.Args.emplace_back();
      remarks::Argument &A = R.Args.back();
      A.Key = string();
      A.Val = string();
      location(A.Loc);
    }
  }

  std::error_code EC;
  raw_fd_ostream OS(argv[2], EC);
  if (EC)
    return 2;
#if LLVM_VERSION_MAJOR >= 22
  auto S = remarks::createRemarkSerializer(remarks::Format::Bitstream, OS);
#else
  remarks::StringTable StrTab;
  for (const remarks::Remark &R : All) {
    StrTab.add(R.RemarkName);
    StrTab.add(R.PassName);
    StrTab.add(R.FunctionName);
    if (R.Loc)
      StrTab.add(R.Loc->SourceFilePath);
    for (const remarks::Argument &A : R.Args) {
      StrTab.add(A.Key);
      StrTab.add(A.Val);
      if (A.Loc)
        StrTab.add(A.Loc->SourceFilePath);
    }
  }
  auto S = remarks::createRemarkSerializer(remarks::Format::Bitstream,
                                           remarks::SerializerMode::Standalone, OS,
                                           std::move(StrTab));
#endif
  if (!S) {
    errs() << toString(S.takeError()) << "\n";
    return 1;
  }
  for (const remarks::Remark &R : All)
    (*S)->emit(R);
#if LLVM_VERSION_MAJOR >= 22
  (*S)->finalize();
#endif
  return 0;
}
