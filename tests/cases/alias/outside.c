/* Compiled without -flto: code rld cannot see into. */
static int hidden[4];
static int *kept;
int *outside(void) { return kept ? kept : hidden; }
void keep(int *p) { kept = p; }
