typedef struct { unsigned a, b, c, den; } Params;   /* >3 fields: ArgumentPromotion leaves use() alone */

void set_params(Params *p, unsigned a, unsigned den) {  /* small: inlined at link time */
  p->a = a;
  p->b = a + 1;
  p->c = a + 2;
  p->den = den;
}

__attribute__((noinline)) void use(const Params *p, unsigned *out) {  /* reads *p, writes *out */
#ifdef NODIV
  *out = p->a + p->b + p->c + p->den;
#else
  *out = (p->a + p->b + p->c) / p->den;
#endif
}
