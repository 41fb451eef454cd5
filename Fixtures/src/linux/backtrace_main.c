/* A program that prints a glibc backtrace from its SIGSEGV/SIGABRT handler and exits:
 *
 *     backtrace-prog segv     faults reading through a NULL pointer in item_weight (inlined)
 *     backtrace-prog abort    calls abort() from require (inlined) in inventory_check
 *     backtrace-prog          runs to the end and exits 0
 *
 * The handler writes backtrace_symbols_fd's lines to stderr after a "backtrace:" line, so the
 * log is what a real program would leave behind. */
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "inventory.h"

static void crash_handler(int signal_number)
{
    void *frames[64];
    int count = backtrace(frames, 64);
    static const char banner[] = "backtrace:\n";
    (void)signal_number;
    if (write(STDERR_FILENO, banner, sizeof banner - 1) < 0)
        _exit(2);
    backtrace_symbols_fd(frames, count, STDERR_FILENO);
    _exit(1);
}

static void install_handler(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = crash_handler;
    sigaction(SIGSEGV, &action, 0);
    sigaction(SIGABRT, &action, 0);
    /* The first backtrace() loads libgcc_s; do it now rather than inside the handler. */
    void *warm[1];
    backtrace(warm, 1);
}

static const struct attributes heavy = {12, 0};
static const struct attributes light = {3, 1};

static const struct item front_items[] = {{"anvil", &heavy}, {"feather", &light}};
static const struct item back_items[] = {{"crate", &heavy}, {"ghost", 0}};

static inline __attribute__((always_inline)) int stock_take(const struct shelf *shelves, int count, int crash)
{
    return inventory_total(shelves, crash ? count : count - 1);
}

__attribute__((noinline)) static int run(const char *mode)
{
    const struct shelf shelves[] = {{front_items, 2}, {back_items, 2}};
    if (strcmp(mode, "abort") == 0) {
        inventory_check(shelves, 2);
        return 0;
    }
    return stock_take(shelves, 2, strcmp(mode, "segv") == 0);
}

int main(int argc, char **argv)
{
    install_handler();
    int total = run(argc > 1 ? argv[1] : "");
    printf("total %d\n", total);
    return 0;
}
