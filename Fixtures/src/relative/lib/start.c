// A unit compiled from its own directory with -fdebug-prefix-map=<root>=., as glibc is built:
// DW_AT_comp_dir is the relative "./lib", and DWARF 5's include_directories[0] repeats it, so
// joining the two gives "./lib/./lib/start.c" where llvm-symbolizer says "./lib/start.c".

#include "../include/call_main.h"

int start_program(entry_fn entry, int argc, char **argv);

__attribute__((noinline)) int start_program(entry_fn entry, int argc, char **argv) {
    if (argc > 64) argc = 64;
    return call_main(entry, argc, argv) & 0x7f;
}

static int count_args(int argc, char **argv) {
    int total = 0;
    for (int i = 0; i < argc; i++) total += argv[i] != 0;
    return scaled(total, 3);
}

int main(int argc, char **argv) {
    return start_program(count_args, argc, argv);
}
