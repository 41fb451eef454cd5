// The ledger of the AddressSanitizer program: a class with inline members, a function template
// and a lambda, so that the faulting read sits at the bottom of an inline chain:
// Entry::amount (always_inline) <- sum_if<...> (template) <- the lambda in Ledger::balance.
#ifndef LINUX_LEDGER_HPP
#define LINUX_LEDGER_HPP

namespace ledger {

struct Entry {
    long cents;
    int account;

    __attribute__((always_inline)) long amount() const { return cents; }
};

template <typename Predicate>
inline long sum_if(const Entry *entries, int count, Predicate keep)
{
    long total = 0;
    for (int i = 0; i < count; i++)
        if (keep(entries[i]))
            total += entries[i].amount();
    return total;
}

class Ledger {
public:
    explicit Ledger(int capacity);
    ~Ledger();

    void add(long cents, int account);
    void close();
    long balance(int account) const;

private:
    Entry *entries_;
    int count_;
    int capacity_;
};

long peek_window(int depth, int reach);

}  // namespace ledger

#endif
