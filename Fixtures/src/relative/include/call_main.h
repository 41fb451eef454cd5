// Included by lib/start.c as "../include/call_main.h", the way glibc's csu/libc-start.c
// includes libc_start_call_main.h: the unit's first code comes from this header, so gcc
// numbers it file 1 while file 0 is the unit's own source (and libdwarf 20210528, which starts
// DWARF 5's file register at 0, would put call_main in start.c).

typedef int (*entry_fn)(int, char **);

static inline int scaled(int value, int factor) {
    return value * factor + (value >> 3);
}

static __attribute__((noinline)) int call_main(entry_fn entry, int argc, char **argv) {
    int result = entry(argc, argv);
    return scaled(result, argc + 1);
}
