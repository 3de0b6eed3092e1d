#include "inline_vars.h"
#include <cstdio>
int id_calls();
int get_1(int), get_2(int), get_3(int), get_4(int), get_5(int);
int main(int argc, char **) {
  int s = get_1(argc) + get_2(argc) + get_3(argc) + get_4(argc) + get_5(argc);
  std::printf("%d initializers ran; shared_id %d, Tag<0> %d, sum %d\n", id_calls(), shared_id,
              Tag<0>::id, s);
}
