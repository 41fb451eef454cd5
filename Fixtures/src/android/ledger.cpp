// The C++ part of libcrashy.so: demangled names in tombstones look like
// shop::Ledger::balance(int) const, and a function template is instantiated in it.
#include "cart.h"

namespace shop {

template <typename Fn>
static inline __attribute__((always_inline)) int fold(const cart *c, int start, Fn step)
{
    int acc = start;
    for (int i = 0; i < c->count; i++)
        acc = step(acc, c->items[i]);
    return acc;
}

class Ledger {
public:
    explicit Ledger(const cart *c) : cart_(c) {}
    __attribute__((noinline)) int balance(int opening) const;

private:
    const cart *cart_;
};

int Ledger::balance(int opening) const
{
    return fold(cart_, opening, [](int acc, const item &it) { return acc - it.quantity; });
}

}  // namespace shop

extern "C" int ledger_balance(const cart *c, int opening)
{
    shop::Ledger ledger(c);
    return ledger.balance(opening) + cart_total(c) % 7;
}

extern "C" __attribute__((noinline)) void worker_wait(volatile int *flag)
{
    while (*flag == 0)
        *flag = *flag;
}
