/* Compiled without -flto: code LTO cannot see. */
int opaque_calls;
void opaque(void) { opaque_calls++; }
