/* The work the glibc-backtrace program crashes in, in its own file so that the backtrace
 * crosses files. */
#include <stdlib.h>
#include "inventory.h"

__attribute__((noinline)) int inventory_total(const struct shelf *shelves, int count)
{
    int total = 0;
    for (int s = 0; s < count; s++)
        total += shelf_weight(&shelves[s]);
    return total;
}

static inline __attribute__((always_inline)) void require(int condition)
{
    if (!condition)
        abort();
}

static inline void check_shelf(const struct shelf *shelf)
{
    for (int i = 0; i < shelf->count; i++)
        require(shelf->items[i].attributes != 0);
}

__attribute__((noinline)) void inventory_check(const struct shelf *shelves, int count)
{
    for (int s = 0; s < count; s++)
        check_shelf(&shelves[s]);
}
