typedef int (*puts_fn)(const char *);
extern puts_fn pfp;
void set_pfp(int k);

int main(int argc, char **argv) {
    (void)argv;
    for (int k = 0; k < 2; k++) {
        set_pfp(k ^ (argc > 1));
        pfp("hello"); /* site:puts */
    }
    return 0;
}
