/* Parses a YAML or bitstream (told by its "RMRK" magic) optimization-remarks file with
   LLVM's own parser
   (llvm-c/Remarks.h) and prints every remark, one field per column:

     R <tab> type <tab> pass <tab> name <tab> function <tab> hotness <tab> loc
     A <tab> key <tab> value <tab> loc

   where loc is "-" or file <tab> line <tab> column, and backslash, tab and
   newline in values are written \\, \t and \n. Exits 1 with the parser's
   message if the file does not parse. */
#include <llvm-c/Remarks.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *type_name(enum LLVMRemarkType t) {
    switch (t) {
    case LLVMRemarkTypePassed: return "Passed";
    case LLVMRemarkTypeMissed: return "Missed";
    case LLVMRemarkTypeAnalysis: return "Analysis";
    case LLVMRemarkTypeAnalysisFPCommute: return "AnalysisFPCommute";
    case LLVMRemarkTypeAnalysisAliasing: return "AnalysisAliasing";
    case LLVMRemarkTypeFailure: return "Failure";
    default: return "Unknown";
    }
}

static void put_string(LLVMRemarkStringRef s) {
    putchar('\t');
    if (!s)
        return;
    const char *p = LLVMRemarkStringGetData(s);
    for (uint32_t i = 0, n = LLVMRemarkStringGetLen(s); i < n; i++) {
        switch (p[i]) {
        case '\\': fputs("\\\\", stdout); break;
        case '\t': fputs("\\t", stdout); break;
        case '\n': fputs("\\n", stdout); break;
        default: putchar(p[i]);
        }
    }
}

static void put_loc(LLVMRemarkDebugLocRef loc) {
    if (!loc) {
        fputs("\t-", stdout);
        return;
    }
    put_string(LLVMRemarkDebugLocGetSourceFilePath(loc));
    printf("\t%u\t%u", LLVMRemarkDebugLocGetSourceLine(loc),
           LLVMRemarkDebugLocGetSourceColumn(loc));
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s remarks.yaml\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    size_t cap = 1 << 16, len = 0, n;
    char *buf = malloc(cap);
    while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);

    int bitstream = len >= 4 && memcmp(buf, "RMRK", 4) == 0;
    LLVMRemarkParserRef parser = bitstream ? LLVMRemarkParserCreateBitstream(buf, len)
                                           : LLVMRemarkParserCreateYAML(buf, len);
    LLVMRemarkEntryRef r;
    while ((r = LLVMRemarkParserGetNext(parser))) {
        fputs("R\t", stdout);
        fputs(type_name(LLVMRemarkEntryGetType(r)), stdout);
        put_string(LLVMRemarkEntryGetPassName(r));
        put_string(LLVMRemarkEntryGetRemarkName(r));
        put_string(LLVMRemarkEntryGetFunctionName(r));
        printf("\t%llu", (unsigned long long)LLVMRemarkEntryGetHotness(r));
        put_loc(LLVMRemarkEntryGetDebugLoc(r));
        putchar('\n');
        for (LLVMRemarkArgRef a = LLVMRemarkEntryGetFirstArg(r); a;
             a = LLVMRemarkEntryGetNextArg(a, r)) {
            fputs("A", stdout);
            put_string(LLVMRemarkArgGetKey(a));
            put_string(LLVMRemarkArgGetValue(a));
            put_loc(LLVMRemarkArgGetDebugLoc(a));
            putchar('\n');
        }
        LLVMRemarkEntryDispose(r);
    }
    int bad = LLVMRemarkParserHasError(parser);
    if (bad)
        fprintf(stderr, "%s: %s\n", argv[1], LLVMRemarkParserGetErrorMessage(parser));
    LLVMRemarkParserDispose(parser);
    free(buf);
    return bad ? 1 : 0;
}
