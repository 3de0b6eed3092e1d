/* A native (non-LTO) object that overwrites the bitcode's nfp by name. */
typedef int (*op_fn)(int);
extern op_fn nfp;

static int native_fn(int x) { return x * 77; }

void native_set(void) { nfp = native_fn; }
