/* An interpreter-style benchmark (two translation units, so only the linker sees the
 * whole program): a bytecode VM whose per-instruction step is a function pointer chosen at
 * start-up (fast or checked), dispatching opcodes through a constant table of handlers. */
typedef long (*handler)(long acc, long arg);
typedef long (*step_fn)(long acc, unsigned char op, long arg);

struct vm {
  long acc;
  long steps;
  step_fn step;
};

extern struct vm the_vm;
extern const handler dispatch[4];
long step_fast(long acc, unsigned char op, long arg);
long step_checked(long acc, unsigned char op, long arg);
