/* Compiled without -flto: its call keeps hidden_callee.c's `shown`. */
unsigned shown(unsigned v);

unsigned call_shown(unsigned v) { return shown(v) + 2u; }
