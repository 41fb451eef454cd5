// A program built with -fsanitize=address that AddressSanitizer stops:
//
//     asan-prog use-after-free    reads a freed Entry in Entry::amount (inlined) from Ledger::balance
//     asan-prog stack-overflow    reads past a local array in read_slot (inlined) from peek_window
//     asan-prog                   runs cleanly and exits 0
//
// ASAN_OPTIONS=symbolize=0 gives the raw log, symbolize=1 the sanitizer's own symbolized one.
#include <cstdio>
#include <cstring>
#include "ledger.hpp"

namespace {

__attribute__((noinline)) long audit(ledger::Ledger &book, bool close_first)
{
    if (close_first)
        book.close();
    return book.balance(7);
}

inline long audit_twice(ledger::Ledger &book, bool close_first)
{
    return audit(book, close_first) + 1;
}

}  // namespace

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (std::strcmp(mode, "stack-overflow") == 0) {
        std::printf("%ld\n", ledger::peek_window(3, 8));
        return 0;
    }
    ledger::Ledger book(4);
    book.add(1250, 7);
    book.add(-300, 2);
    book.add(75, 7);
    long balance = audit_twice(book, std::strcmp(mode, "use-after-free") == 0);
    std::printf("balance %ld\n", balance);
    if (std::strcmp(mode, "use-after-free") != 0)
        book.close();
    return 0;
}
