// A data race for ThreadSanitizer: two threads write `counter` without a lock, one of them
// through an inlined helper, so that the report's stacks have inlined frames.
#include <pthread.h>
#include <stdio.h>

static int counter;

static inline __attribute__((always_inline)) void add_to_counter(int amount) {
    counter += amount;
}

__attribute__((noinline)) void bump(int amount) {
    add_to_counter(amount);
}

static void *worker(void *argument) {
    bump(*(int *)argument);
    return NULL;
}

int main(void) {
    pthread_t thread;
    int amount = 2;
    pthread_create(&thread, NULL, worker, &amount);
    counter = 43;
    pthread_join(thread, NULL);
    printf("%d\n", counter);
    return 0;
}
