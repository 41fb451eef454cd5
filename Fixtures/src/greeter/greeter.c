#include "greeter.h"

long write(int fd, const void *buffer, unsigned long length);

struct text {
    char data[96];
    unsigned long length;
};

static inline __attribute__((always_inline)) void append_char(struct text *out, char c)
{
    if (out->length + 1 < sizeof out->data)
        out->data[out->length++] = c;
}

static inline void append_str(struct text *out, const char *s)
{
    while (*s)
        append_char(out, *s++);
}

static inline void append_hex(struct text *out, unsigned int value)
{
    for (int shift = 28; shift >= 0; shift -= 4)
        append_char(out, "0123456789abcdef"[(value >> shift) & 0xf]);
}

static inline void build_greeting(struct text *out, const char *name, unsigned int tag)
{
    append_str(out, "Hello, ");
    append_str(out, name);
    append_str(out, "! (#");
    append_hex(out, tag);
    append_str(out, ")\n");
}

__attribute__((noinline)) static long greeter_emit(const struct text *message)
{
    long written = write(1, message->data, message->length);
    return written < 0 ? 0 : written;
}

long greeter_say_hello(const char *name, unsigned int tag)
{
    struct text message;
    message.length = 0;
    build_greeting(&message, name, tag);
    return greeter_emit(&message);
}
