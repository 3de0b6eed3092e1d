#include "funcptr.h"

op_fn rw_table[3] = {op_add, op_sub, op_mul};
op_fn const ro_table[3] = {op_mul, op_sub, op_add};
const struct named_op named_ops[4] = {
    {"add", op_add}, {"sub", op_sub}, {"mul", op_mul}, {0, 0}};
op_fn const *const table_of_tables[2] = {rw_table, ro_table};
