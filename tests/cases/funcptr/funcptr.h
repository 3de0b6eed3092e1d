typedef int (*op_fn)(int, int);
struct named_op {
  const char *name;
  op_fn fn;
};

int op_add(int a, int b);
int op_sub(int a, int b);
int op_mul(int a, int b);
op_fn get_secret(void);

extern op_fn rw_table[3];             /* writable: .data */
extern op_fn const ro_table[3];       /* constant with relocations: .data.rel.ro */
extern const struct named_op named_ops[4];
extern op_fn const *const table_of_tables[2];
