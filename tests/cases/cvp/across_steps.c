/* The step functions, and a large function that picks a table of them. */
struct step_table {
    int (*step)(int);
};

static int step_up(int x) { return x + 100; }
static int step_down(int x) { return x - 100; }

static const struct step_table up = {step_up};
static const struct step_table down = {step_down};

volatile int noise;

const struct step_table *choose_steps(int seed) {
    int x = seed;
    for (int i = 0; i < 64; i++) {
        switch ((x + i) % 9) {
        case 0: x += 3; break;
        case 1: x ^= 0x55; break;
        case 2: x = x * 7 % 1000; break;
        case 3: x -= i; break;
        case 4: x = x / 3 + 17; break;
        case 5: x += i * 2; break;
        case 6: x = (x << 1) % 999; break;
        case 7: x = x * x % 97; break;
        default: x = x + noise; break;
        }
    }
    noise = x;
    return seed > 5 ? &down : &up;
}
