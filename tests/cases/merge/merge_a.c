const char *merge_a(void) { return "rld merge test: this literal appears in two objects"; }
