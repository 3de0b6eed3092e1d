/* Entries placed in the custom section "rld_items" from several objects. */
struct item {
  const char *name;
  long value;
};

#ifdef ITEM_RETAIN
#define ITEM_ATTRS section("rld_items"), used, retain, aligned(8)
#else
#define ITEM_ATTRS section("rld_items"), used, aligned(8)
#endif

#define ITEM(id, val) __attribute__((ITEM_ATTRS)) struct item item_##id = {#id, val}

extern struct item __start_rld_items[];
extern struct item __stop_rld_items[];
