/* The shop's data, shared by native-lib.c and ledger.cpp. Built with -nostdlib: nothing
 * comes from a C library, so the few helpers needed are declared here and defined below. */
#ifndef CART_H
#define CART_H

#ifdef __cplusplus
extern "C" {
#endif

struct item {
    const char *name;
    const int *price_cents;   /* NULL for an item whose price was never loaded */
    int quantity;
};

struct cart {
    struct item items[4];
    int count;
};

int cart_total(const struct cart *cart);
int ledger_balance(const struct cart *cart, int opening);
void worker_wait(volatile int *flag);

#ifdef __cplusplus
}
#endif

#endif
