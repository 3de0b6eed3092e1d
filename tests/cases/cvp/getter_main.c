#include <stdio.h>

typedef int (*op_fn)(int);
typedef op_fn (*getter_fn)(void);
extern getter_fn getter;
extern int mode;
void set_getter(int k);

int main(int argc, char **argv) {
    (void)argv;
    for (int k = 0; k < 3; k++) {
        set_getter((k == 1) ^ (argc > 1));
        mode = k == 2;
        op_fn f = getter();   /* site:getter */
        printf("%d\n", f(1)); /* site:got */
    }
    return 0;
}
