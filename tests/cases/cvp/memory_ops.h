/* A table of operations kept in heap and stack memory (CVP through the points-to
   analysis: the old analysis modelled only global variables as memory). */
struct mem_ops {
    int (*apply)(int);
    int (*combine)(int, int);
};

struct mem_ops *make_heap_ops(void);
void fill_ops(struct mem_ops *o);
