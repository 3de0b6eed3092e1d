/* gcc -flto: every kind of resolution gcc's LTO plugin is told about (see gcc_lto.rs). */
#include <stdio.h>
#include <unistd.h> /* getpid: RESOLVED_DYN (libc.so) */

int ir_only(int);            /* defined in lib.c, used only by IR: PREVAILING_DEF_IRONLY */
int used_by_native(int);     /* defined in lib.c, native.c calls it: PREVAILING_DEF */
int native_fn(int);          /* defined in native.c: RESOLVED_EXEC */
int from_archive(int);       /* defined by a member of libarc.a: RESOLVED_IR */
int strong_native(void);     /* weak here, strong in native.c: PREEMPTED_REG */
extern int exported_var;     /* -rdynamic: PREVAILING_DEF_IRONLY_EXP */
__attribute__((weak)) int never_defined(void); /* UNDEF */

__attribute__((weak)) int weak_both(void) { return 1; } /* lib.c's copy: PREEMPTED_IR */
__attribute__((weak)) int strong_native(void) { return -1; }

int main(void) {
  int sum = ir_only(1) + used_by_native(2) + native_fn(3) + from_archive(4);
  printf("sum=%d weak=%d strong=%d var=%d undef=%s pid=%s\n", sum, weak_both(),
         strong_native(), exported_var, never_defined ? "defined" : "null",
         getpid() > 0 ? "yes" : "no");
  return 0;
}
