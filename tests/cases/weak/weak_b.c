int common_counter;
char common_buf[64];

const char *who(void) { return "strong who"; }
int weak_value = 2;

void b_bump(void) { common_counter += 10; common_buf[63] = 'b'; }
