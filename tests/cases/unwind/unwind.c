/* Walks the stack with the unwinder, which finds FDEs through .eh_frame_hdr
 * (PT_GNU_EH_FRAME) or, in static links without it, through the registered
 * .eh_frame with its terminator. */
#include <stdio.h>
#include <unwind.h>

static _Unwind_Reason_Code count_frame(struct _Unwind_Context *ctx, void *arg) {
  (void)ctx;
  ++*(int *)arg;
  return _URC_NO_REASON;
}

__attribute__((noinline)) int depth_here(void) {
  int frames = 0;
  _Unwind_Backtrace(count_frame, &frames);
  return frames;
}

__attribute__((noinline)) int recurse(int n) {
  if (n == 0) return depth_here();
  int d = recurse(n - 1);
  __asm__ volatile("" ::: "memory"); /* keep the frames */
  return d;
}

int main(void) {
  int shallow = recurse(0);
  int deep = recurse(10);
  printf("unwound %d extra frames\n", deep - shallow);
  return deep - shallow == 10 ? 0 : 1;
}
