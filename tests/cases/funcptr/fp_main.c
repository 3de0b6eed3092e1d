/* Calls through tables of function pointers defined in another object and
 * checks that a function's address is the same wherever it is taken. */
#include <stdio.h>

#include "funcptr.h"

static op_fn local_table[] = {op_sub, op_add};

int main(void) {
  int fails = 0;
  for (int i = 0; i < 3; i++) printf("rw[%d](7,3)=%d ro[%d](7,3)=%d\n", i, rw_table[i](7, 3), i, ro_table[i](7, 3));
  for (const struct named_op *op = named_ops; op->name; op++) printf("%s(6,2)=%d\n", op->name, op->fn(6, 2));
  printf("via table_of_tables: %d %d\n", table_of_tables[0][2](4, 5), table_of_tables[1][0](4, 5));
  printf("secret(1,2)=%d\n", get_secret()(1, 2));
  rw_table[1] = get_secret();
  printf("after store rw[1](3,4)=%d\n", rw_table[1](3, 4));
  fails += rw_table[0] != op_add;
  fails += ro_table[2] != &op_add;
  fails += named_ops[2].fn != op_mul;
  fails += local_table[0] != ro_table[1];
  fails += table_of_tables[1] != ro_table;
  printf("address equality: %s\n", fails ? "FAIL" : "ok");
  return fails;
}
