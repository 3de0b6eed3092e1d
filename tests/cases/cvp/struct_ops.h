struct ops {
    int (*first)(int);  /* offset 0 */
    int (*second)(int); /* offset 8 */
};

extern struct ops the_ops;
void setup(int mode);
