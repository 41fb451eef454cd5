// A data race for ThreadSanitizer: two threads write `counter` without a lock, one of them
// through an inlined helper, so that the report's stacks have inlined frames.
//
// The race is reported on every run, with the same two stacks: the worker writes first and
// then waits, alive, until the main thread has written. The two threads take turns through
// relaxed atomics, which order nothing for the sanitizer (only acquire and release do), so
// the two writes stay unordered for it, while neither thread can finish early: the worker
// is not yet a finished thread whose history the sanitizer may have let go. Each waits in
// sleeps of 0.1 ms, not in a spin: every atomic load is an event of the thread's trace, and a
// spin on a busy machine filled the trace until the worker's write was lost from it, and the
// sanitizer, unable to restore its stack, said nothing.
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static int counter;
static int written;   // set by the worker after its write (relaxed)
static int released;  // set by the main thread after its write (relaxed)

static inline __attribute__((always_inline)) void add_to_counter(int amount) {
    counter += amount;
}

__attribute__((noinline)) void bump(int amount) {
    add_to_counter(amount);
}

static void nap(void) {
    struct timespec pause = {0, 100000};
    nanosleep(&pause, NULL);
}

static void *worker(void *argument) {
    bump(*(int *)argument);
    __atomic_store_n(&written, 1, __ATOMIC_RELAXED);
    while (!__atomic_load_n(&released, __ATOMIC_RELAXED)) nap();
    return NULL;
}

int main(void) {
    pthread_t thread;
    int amount = 2;
    pthread_create(&thread, NULL, worker, &amount);
    while (!__atomic_load_n(&written, __ATOMIC_RELAXED)) nap();
    counter = 43;
    __atomic_store_n(&released, 1, __ATOMIC_RELAXED);
    pthread_join(thread, NULL);
    printf("%d\n", counter);
    return 0;
}
