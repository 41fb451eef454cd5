#define _GNU_SOURCE
#include "CFaultGuard.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { SLOT_FREE = 0, SLOT_CLAIMED = 1, SLOT_ACTIVE = 2 };

// Fixed and lock-free: the handler reads it while other threads register and unregister.
struct region {
    _Atomic int state;
    _Atomic int damaged;
    _Atomic uintptr_t start;
    _Atomic size_t length;
};

static struct region regions[CFG_MAXIMUM_REGIONS];
static _Atomic size_t slots_used;  // every active slot lies below
static _Atomic uint64_t answered;
static struct sigaction previous;
static uintptr_t page_size;
static int installed;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;

// Gives the fault back to whoever handled SIGBUS before: with that handler restored, the
// faulting instruction runs again and faults again (a signal sent by a process is sent again).
static void defer_to_previous(int signal, const siginfo_t *info) {
    sigaction(SIGBUS, &previous, NULL);
    if (info->si_code <= 0) raise(signal);
}

static void on_fault(int signal, siginfo_t *info, void *context) {
    (void)context;
    uintptr_t address = (uintptr_t)info->si_addr;
    size_t used = atomic_load_explicit(&slots_used, memory_order_acquire);
    for (size_t i = 0; info->si_code > 0 && i < used; i++) {
        struct region *r = &regions[i];
        if (atomic_load_explicit(&r->state, memory_order_acquire) != SLOT_ACTIVE) continue;
        uintptr_t start = atomic_load_explicit(&r->start, memory_order_relaxed);
        size_t length = atomic_load_explicit(&r->length, memory_order_relaxed);
        if (address - start >= length) continue;
        void *page = (void *)(address & ~(page_size - 1));
        if (mmap(page, page_size, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
            break;
        atomic_store_explicit(&r->damaged, 1, memory_order_release);
        atomic_fetch_add_explicit(&answered, 1, memory_order_relaxed);
        return;
    }
    defer_to_previous(signal, info);
}

static void install(void) {
    page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_sigaction = on_fault;
    sigemptyset(&action.sa_mask);
    // SA_ONSTACK: a thread with an alternate signal stack (the Swift runtime's backtracer
    // sets them up) keeps its own stack out of it.
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    installed = sigaction(SIGBUS, &action, &previous) == 0;
}

int cfg_register(const void *base, size_t length) {
    pthread_once(&install_once, install);
    if (!installed || !base || length == 0) return -1;
    for (size_t i = 0; i < CFG_MAXIMUM_REGIONS; i++) {
        int expected = SLOT_FREE;
        if (!atomic_compare_exchange_strong(&regions[i].state, &expected, SLOT_CLAIMED)) continue;
        atomic_store_explicit(&regions[i].start, (uintptr_t)base, memory_order_relaxed);
        atomic_store_explicit(&regions[i].length, length, memory_order_relaxed);
        atomic_store_explicit(&regions[i].damaged, 0, memory_order_relaxed);
        size_t used = atomic_load(&slots_used);
        while (used < i + 1 && !atomic_compare_exchange_weak(&slots_used, &used, i + 1)) {
        }
        atomic_store_explicit(&regions[i].state, SLOT_ACTIVE, memory_order_release);
        return (int)i;
    }
    return -1;
}

void cfg_unregister(int handle) {
    if (handle < 0 || handle >= CFG_MAXIMUM_REGIONS) return;
    atomic_store_explicit(&regions[handle].state, SLOT_FREE, memory_order_release);
}

int cfg_is_damaged(int handle) {
    if (handle < 0 || handle >= CFG_MAXIMUM_REGIONS) return 0;
    return atomic_load_explicit(&regions[handle].damaged, memory_order_acquire);
}

const int *cfg_damaged_flag(int handle) {
    static const int never = 0;
    if (handle < 0 || handle >= CFG_MAXIMUM_REGIONS) return &never;
    return (const int *)&regions[handle].damaged;
}

void cfg_make_private(void *from, size_t length) {
    if (!from || length == 0) return;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)from, end = start + length;
    // The first page from `from` itself (it may not start a page), then every page start.
    for (uintptr_t at = start; at < end; at = (at & ~(page - 1)) + page) {
        volatile uint8_t *byte = (volatile uint8_t *)at;
        *byte = *byte;
    }
}

uint64_t cfg_answered_faults(void) { return atomic_load(&answered); }
