int soname_lib_value(void) { return 1234; }
