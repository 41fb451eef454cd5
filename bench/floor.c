/* The floor of a batch run, for the targets of `make bench`: what reading every report and
 * writing the output costs, and nothing else.
 *
 *     floor BYTES FILE...
 *
 * Reads every FILE to its end (read(2), 64 KB at a time, into one buffer that keeps them
 * all, as a symbolicator holds its reports), then writes exactly BYTES bytes to standard
 * output in 64 KB write(2) calls: the reports' own bytes, from the start again when they run
 * out. measure.py gives BYTES the size of the symbolicated output of the same reports and
 * sends standard output to a file, as it does ours. Exit status 1 and a line on standard
 * error when a file cannot be read or the output cannot be written. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (64 * 1024)

static char *buffer;
static size_t used, capacity;

static int fail(const char *what, const char *name) {
    fprintf(stderr, "floor: %s %s: %s\n", what, name, strerror(errno));
    return 1;
}

/* Appends the whole file to the buffer. */
static int read_file(const char *path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return fail("cannot open", path);
    for (;;) {
        if (capacity - used < CHUNK) {
            size_t grown = capacity ? capacity * 2 : 4 * 1024 * 1024;
            char *larger = realloc(buffer, grown);
            if (!larger) { close(fd); return fail("out of memory reading", path); }
            buffer = larger;
            capacity = grown;
        }
        ssize_t n = read(fd, buffer + used, CHUNK);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) { close(fd); return fail("cannot read", path); }
        if (n == 0) break;
        used += (size_t)n;
    }
    close(fd);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: floor BYTES FILE...\n");
        return 2;
    }
    char *end;
    unsigned long long left = strtoull(argv[1], &end, 10);
    if (*end != '\0') {
        fprintf(stderr, "floor: not a byte count: %s\n", argv[1]);
        return 2;
    }
    for (int i = 2; i < argc; i++)
        if (read_file(argv[i])) return 1;
    if (used == 0 && left > 0) {
        fprintf(stderr, "floor: the files are empty\n");
        return 1;
    }
    size_t at = 0;
    while (left > 0) {
        size_t n = used - at;
        if (n > CHUNK) n = CHUNK;
        if (n > left) n = (size_t)left;
        ssize_t w = write(STDOUT_FILENO, buffer + at, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return fail("cannot write", "standard output");
        left -= (unsigned long long)w;
        at += (size_t)w;
        if (at == used) at = 0;
    }
    return 0;
}
