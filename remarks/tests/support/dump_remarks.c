/* Prints the remarks LLVM's remark parser (llvm-c/Remarks.h) reads from a remark file,
 * field by field: `dump_remarks FILE [bitstream|yaml]`. Without the second argument the
 * parser is chosen by the file's start, bitstream after the "RMRK" magic, else YAML. */
#include <llvm-c/Remarks.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void str(const char *what, LLVMRemarkStringRef s) {
  printf("%s %u:", what, LLVMRemarkStringGetLen(s));
  fwrite(LLVMRemarkStringGetData(s), 1, LLVMRemarkStringGetLen(s), stdout);
  printf("\n");
}

static void loc(LLVMRemarkDebugLocRef l) {
  if (!l) {
    printf("noloc\n");
    return;
  }
  str("file", LLVMRemarkDebugLocGetSourceFilePath(l));
  printf("line %u column %u\n", LLVMRemarkDebugLocGetSourceLine(l),
         LLVMRemarkDebugLocGetSourceColumn(l));
}

int main(int argc, char **argv) {
  FILE *f = fopen(argv[1], "rb");
  if (!f) return 2;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc(size + 1);
  if (fread(buf, 1, size, f) != (size_t)size) return 2;
  int bitstream = argc > 2 ? strcmp(argv[2], "bitstream") == 0
                           : size >= 4 && memcmp(buf, "RMRK", 4) == 0;
  LLVMRemarkParserRef p = bitstream ? LLVMRemarkParserCreateBitstream(buf, size)
                                    : LLVMRemarkParserCreateYAML(buf, size);
  LLVMRemarkEntryRef r;
  while ((r = LLVMRemarkParserGetNext(p))) {
    printf("type %d\n", (int)LLVMRemarkEntryGetType(r));
    str("pass", LLVMRemarkEntryGetPassName(r));
    str("name", LLVMRemarkEntryGetRemarkName(r));
    str("function", LLVMRemarkEntryGetFunctionName(r));
    loc(LLVMRemarkEntryGetDebugLoc(r));
    printf("hotness %llu\n", (unsigned long long)LLVMRemarkEntryGetHotness(r));
    printf("args %u\n", LLVMRemarkEntryGetNumArgs(r));
    for (LLVMRemarkArgRef a = LLVMRemarkEntryGetFirstArg(r); a;
         a = LLVMRemarkEntryGetNextArg(a, r)) {
      str("key", LLVMRemarkArgGetKey(a));
      str("value", LLVMRemarkArgGetValue(a));
      loc(LLVMRemarkArgGetDebugLoc(a));
    }
    LLVMRemarkEntryDispose(r);
  }
  if (LLVMRemarkParserHasError(p)) {
    fprintf(stderr, "LLVM remark parser: %s\n", LLVMRemarkParserGetErrorMessage(p));
    return 1;
  }
  LLVMRemarkParserDispose(p);
  return 0;
}
