/* address_main.c with the table's address also stored as a number. */
#define KEEP_NUMBER
#include "address_main.c"
