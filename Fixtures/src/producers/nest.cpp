// Namespaces nested far deeper than any hand writes them (320 levels; 240 for gcc, which takes
// 255 at most), with a template and a lambda inside: DIE trees of deep nesting, long qualified
// names.
#include <cstdlib>

#define OPEN1 namespace n {
#define OPEN4 OPEN1 OPEN1 OPEN1 OPEN1
#define OPEN16 OPEN4 OPEN4 OPEN4 OPEN4
#define OPEN64 OPEN16 OPEN16 OPEN16 OPEN16
#define CLOSE1 }
#define CLOSE4 CLOSE1 CLOSE1 CLOSE1 CLOSE1
#define CLOSE16 CLOSE4 CLOSE4 CLOSE4 CLOSE4
#define CLOSE64 CLOSE16 CLOSE16 CLOSE16 CLOSE16

#ifdef __clang__
OPEN64 OPEN64 OPEN64 OPEN64 OPEN64
#else
OPEN64 OPEN64 OPEN64 OPEN16 OPEN16 OPEN16
#endif
template <typename T> struct Holder {
    T value;
    __attribute__((noinline)) T twice() const {
        auto add = [this](T x) { return x + value + (x > 7 ? std::rand() : 0); };
        return add(value);
    }
};
__attribute__((noinline)) int deepest(int x) { return Holder<int>{x}.twice() + Holder<long>{x}.twice(); }
#ifdef __clang__
CLOSE64 CLOSE64 CLOSE64 CLOSE64 CLOSE64
#else
CLOSE64 CLOSE64 CLOSE64 CLOSE16 CLOSE16 CLOSE16
#endif

int nested(int x) {
#ifdef __clang__
    return n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::deepest(x);
#else
    return n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::n::deepest(x);
#endif
}
int main(int argc, char **) { return nested(argc); }
