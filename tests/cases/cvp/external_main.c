#include <dlfcn.h>
#include <stdio.h>

typedef int (*op_fn)(int);

struct callbacks {
    op_fn on_a;
    op_fn on_b;
};

op_fn lib_get_op(void);
void lib_fill(struct callbacks *cb);
int ctl_a(int x);
extern op_fn ctl_fp;
void set_control(int which);

int main(int argc, char **argv) {
    (void)argv;
    op_fn returned = lib_get_op();
    printf("returned(5) = %d\n", returned(5)); /* site:returned */

    struct callbacks cb = {ctl_a, ctl_a};
    lib_fill(&cb);
    printf("filled(5) = %d\n", cb.on_a(5)); /* site:filled */

    op_fn found = (op_fn)dlsym(RTLD_DEFAULT, "lib_square");
    if (!found)
        return 1;
    printf("dlsym(5) = %d\n", found(5)); /* site:dlsym */

    set_control(argc < 2);
    printf("control(5) = %d\n", ctl_fp(5)); /* site:control */
    return 0;
}
