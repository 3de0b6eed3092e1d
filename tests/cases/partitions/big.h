/* Straight-line arithmetic that makes a function big enough to fill an LTO partition. */
#define STEP(k) x = x * 2654435761u + (k); x ^= x >> 13;
#define S10(b) STEP(b + 0) STEP(b + 1) STEP(b + 2) STEP(b + 3) STEP(b + 4) \
               STEP(b + 5) STEP(b + 6) STEP(b + 7) STEP(b + 8) STEP(b + 9)
#define S100(b) S10(b + 0) S10(b + 10) S10(b + 20) S10(b + 30) S10(b + 40) \
                S10(b + 50) S10(b + 60) S10(b + 70) S10(b + 80) S10(b + 90)
#define S400(b) S100(b) S100(b + 100) S100(b + 200) S100(b + 300)
