/* The bundled example: two C files linked by rld (see scripts/setup). */
int greet(const char *name, int lang);

int main(int argc, char **argv) {
  const char *name = argc > 1 ? argv[1] : "rld";
  return greet(name, 0) > 0 ? 0 : 1;
}
