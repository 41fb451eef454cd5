// The ledger's members, and a stack read past the end of a local array, in a file of their own
// so that sanitizer backtraces cross files.
#include "ledger.hpp"

namespace ledger {

Ledger::Ledger(int capacity) : entries_(new Entry[capacity]), count_(0), capacity_(capacity) {}

Ledger::~Ledger() {}

void Ledger::add(long cents, int account)
{
    if (count_ < capacity_)
        entries_[count_++] = Entry{cents, account};
}

__attribute__((noinline)) void Ledger::close()
{
    delete[] entries_;
}

__attribute__((noinline)) long Ledger::balance(int account) const
{
    return sum_if(entries_, count_, [account](const Entry &entry) { return entry.account == account; });
}

static inline __attribute__((always_inline)) long read_slot(const long *slots, int index)
{
    return slots[index];
}

static inline long window_sum(const long *slots, int from, int to)
{
    long total = 0;
    for (int i = from; i <= to; i++)
        total += read_slot(slots, i);
    return total;
}

__attribute__((noinline)) long peek_window(int depth, int reach)
{
    long slots[8];
    for (int i = 0; i < 8; i++)
        slots[i] = depth * i;
    return window_sum(slots, 0, reach);
}

}  // namespace ledger
