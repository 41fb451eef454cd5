/* libcrashy.so: the native half of an Android app, built for several ABIs by
 * Fixtures/build.sh (clang --target=<abi>-linux-android29 -shared -nostdlib -O1 -g).
 *
 * Java_com_example_crashy_MainActivity_crash(kind) calls checkout, which calls
 * cart_total, then ledger_balance (ledger.cpp); cart_total reads each item's price
 * through line_price (always_inline) and unit_price (always_inline), so the faulting load
 * of an item without a price sits two inlined frames deep. worker_main is a second
 * thread's entry, waiting in worker_wait. As in an NDK build, only the JNI entry points
 * are exported (-fvisibility=hidden, EXPORT): calls between the library's own functions
 * are direct. Nothing here runs: the tests write the tombstones Android would print for a
 * crash at these addresses. */
#include "cart.h"

#define EXPORT __attribute__((visibility("default")))

static const int prices[] = {250, 1999, 75};

static inline __attribute__((always_inline)) int unit_price(const struct item *item)
{
    return *item->price_cents;   /* faults when price_cents is NULL */
}

static inline __attribute__((always_inline)) int line_price(const struct item *item)
{
    return unit_price(item) * item->quantity;
}

__attribute__((noinline)) int cart_total(const struct cart *cart)
{
    int total = 0;
    for (int i = 0; i < cart->count; i++)
        total += line_price(&cart->items[i]);
    return total;
}

__attribute__((noinline)) static int checkout(struct cart *cart, int kind)
{
    cart->count = kind > 0 ? 4 : 3;
    int total = cart_total(cart);
    return ledger_balance(cart, total) + 1;
}

EXPORT __attribute__((noinline)) int Java_com_example_crashy_MainActivity_crash(void *env, void *thiz, int kind)
{
    struct cart cart = {
        .items = {
            {"tea", &prices[0], 2},
            {"kettle", &prices[1], 1},
            {"biscuits", &prices[2], 3},
            {"mystery", 0, 1},
        },
    };
    return checkout(&cart, kind) + (env != thiz);
}

EXPORT __attribute__((noinline)) void *worker_main(void *argument)
{
    volatile int flag = 0;
    worker_wait(&flag);
    return argument;
}
