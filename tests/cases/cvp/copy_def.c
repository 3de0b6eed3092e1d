#include "copy.h"

int w1(int x) { return x + 1; }
int w2(int x) { return x + 2; }
int w3(int x) { return x + 3; }

struct handler from = {w1};
struct handler to = {w2};

struct pair src_pair = {w1, w3};
struct pair dst_pair = {w2, w2};
