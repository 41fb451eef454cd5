// A data race for ThreadSanitizer: two threads write `counter` without a lock, one of them
// through an inlined helper, so that the report's stacks have inlined frames.
//
// The race is reported on every run, with the same two stacks: the worker writes first and
// then waits, alive, until the main thread has written. The two threads take turns through
// relaxed atomics, which order nothing for the sanitizer (only acquire and release do), so
// the two writes stay unordered for it, while neither thread can finish early: the worker
// is not yet a finished thread whose history the sanitizer may have let go.
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

static int counter;
static int written;   // set by the worker after its write (relaxed)
static int released;  // set by the main thread after its write (relaxed)

static inline __attribute__((always_inline)) void add_to_counter(int amount) {
    counter += amount;
}

__attribute__((noinline)) void bump(int amount) {
    add_to_counter(amount);
}

static void *worker(void *argument) {
    bump(*(int *)argument);
    __atomic_store_n(&written, 1, __ATOMIC_RELAXED);
    while (!__atomic_load_n(&released, __ATOMIC_RELAXED)) sched_yield();
    return NULL;
}

int main(void) {
    pthread_t thread;
    int amount = 2;
    pthread_create(&thread, NULL, worker, &amount);
    while (!__atomic_load_n(&written, __ATOMIC_RELAXED)) sched_yield();
    counter = 43;
    __atomic_store_n(&released, 1, __ATOMIC_RELAXED);
    pthread_join(thread, NULL);
    printf("%d\n", counter);
    return 0;
}
