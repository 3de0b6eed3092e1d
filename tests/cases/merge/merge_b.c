const char *merge_b(void) { return "rld merge test: this literal appears in two objects"; }
