/* Built by every C compiler of Fixtures/producers.sh, with the flags that make DWARF of every
 * shape those compilers write: inlining at -O2, functions split into hot and cold parts or one
 * section per basic block (range lists of hundreds of entries), recorded command lines. */
/* Declared here, not included: the same source builds for other targets without their headers. */
int rand(void);
void abort(void);
int atoi(const char *);
unsigned long strlen(const char *);

static inline int clamp(int v, int low, int high) { return v < low ? low : v > high ? high : v; }

static inline int mix(int a, int b) { return clamp(a * 31 + b, -1000, 1000); }

int spread(int x, int y);

__attribute__((noinline)) int crash_here(int *p, int n) {
    if (n > 3) abort();
    return *p + mix(n, n);
}

__attribute__((cold, noinline)) void rarely(const char *why) {
    if (strlen(why) > 2) abort();
}

int work(int argc, char **argv) {
    int total = 0;
    for (int i = 0; i < argc; i++) total += spread(atoi(argv[i]), i);
    if (total == 12345) rarely(argv[0]);
    return crash_here(argc > 5 ? (int *)0 : &total, argc);
}
