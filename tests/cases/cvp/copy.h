typedef int (*op_fn)(int);

struct handler {
    op_fn fn;
};

struct pair {
    op_fn first;
    op_fn second;
};

extern struct handler from, to;
extern struct pair src_pair, dst_pair;
void assign(struct handler *dst, const struct handler *src);
void copy_pair(struct pair *dst, const struct pair *src);
