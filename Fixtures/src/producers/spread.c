/* One function of hundreds of cases in a unit of its own: with a section per basic block
 * (clang -fbasic-block-sections=all), its range list has an entry per case, many more than the
 * unit has bytes. */
int rand(void);

__attribute__((noinline)) int spread(int x, int y) {
    int r = 0;
    switch (x & 1023) {
#define CASE(n) case n: r = y * (n) + (y > (n) ? rand() : (n)); if (r & 1) r += rand(); break;
#define CASES10(n) CASE(10 * (n)) CASE(10 * (n) + 1) CASE(10 * (n) + 2) CASE(10 * (n) + 3) CASE(10 * (n) + 4) \
    CASE(10 * (n) + 5) CASE(10 * (n) + 6) CASE(10 * (n) + 7) CASE(10 * (n) + 8) CASE(10 * (n) + 9)
#define CASES100(n) CASES10(10 * (n)) CASES10(10 * (n) + 1) CASES10(10 * (n) + 2) CASES10(10 * (n) + 3) \
    CASES10(10 * (n) + 4) CASES10(10 * (n) + 5) CASES10(10 * (n) + 6) CASES10(10 * (n) + 7) CASES10(10 * (n) + 8) \
    CASES10(10 * (n) + 9)
    CASES100(0) CASES100(1) CASES100(2) CASES100(3) CASES100(4) CASES100(5)
    }
    return r;
}

