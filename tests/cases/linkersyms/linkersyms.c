/* The symbols the linker defines must exist and be consistent with the layout. */
#include <stdio.h>
#include <string.h>

extern const char __ehdr_start[];
extern char _edata[], __bss_start[], _end[], etext[];
extern void (*__init_array_start[])(void), (*__init_array_end[])(void);

int data_var = 1;
char bss_var[4096];
static int ctor_ran;
__attribute__((constructor)) static void ctor(void) { ctor_ran = 1; }

int main(void) {
  int bad = 0;
  if (memcmp(__ehdr_start, "\177ELF", 4) != 0) bad |= 1;
  if (!(_edata <= __bss_start && __bss_start <= _end)) bad |= 2;
  if (!((char *)&data_var < _edata)) bad |= 4;
  if (!(bss_var >= __bss_start && bss_var + sizeof bss_var <= _end)) bad |= 8;
  if (!((const char *)main < etext)) bad |= 16;
  if (__init_array_end - __init_array_start < 1 || !ctor_ran) bad |= 32;
  printf("linker symbols: %s (%d)\n", bad ? "FAIL" : "ok", bad);
  return bad;
}
