/* TLS variables defined in tls_defs.c and used from tls_main.c. */
extern __thread int tls_init;        /* initialized: .tdata */
extern __thread long tls_zero;       /* zero: .tbss */
extern __thread char tls_buf[32];    /* initialized array: .tdata */
extern __thread __attribute__((aligned(64))) char tls_aligned[16]; /* .tbss, 64-aligned */

int bump_local(void);  /* increments a static (local-dynamic) TLS counter, starts at 7 */
int *addr_of_tls_init(void);
long *addr_of_tls_zero(void);
