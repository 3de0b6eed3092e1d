// The strong `t` and `f`, which prevail over weak_alias.ll's weak ones.
#include <stdio.h>

int t[4] = {10, 20, 30, 40};
int f(void) { return 8; }

extern int second;
int g(void);
int third(void);

int main(void) {
    printf("t[1]=%d second=%d f=%d g=%d third=%d\n", t[1], second, f(), g(), third());
    second = 99;
    printf("t[1]=%d second=%d\n", t[1], second);
    return 0;
}
