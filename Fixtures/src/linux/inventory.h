/* The inventory shared by the glibc-backtrace program: declarations and the inline helpers.
 * item_weight (always_inline) <- shelf_weight (static inline) <- inventory_total (noinline),
 * so a fault in item_weight is reported at one address with a three-deep inline chain. */
#ifndef LINUX_INVENTORY_H
#define LINUX_INVENTORY_H

struct attributes {
    int weight;
    int fragile;
};

struct item {
    const char *name;
    const struct attributes *attributes;
};

struct shelf {
    const struct item *items;
    int count;
};

static inline __attribute__((always_inline)) int item_weight(const struct item *item)
{
    return item->attributes->weight;
}

static inline int shelf_weight(const struct shelf *shelf)
{
    int total = 0;
    for (int i = 0; i < shelf->count; i++)
        total += item_weight(&shelf->items[i]);
    return total;
}

int inventory_total(const struct shelf *shelves, int count);
void inventory_check(const struct shelf *shelves, int count);

#endif
