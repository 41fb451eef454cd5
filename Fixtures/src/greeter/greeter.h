#ifndef GREETER_H
#define GREETER_H

#ifdef __cplusplus
extern "C" {
#endif

/* Writes "Hello, NAME! (#TAG)" to standard output; returns the bytes written. */
long greeter_say_hello(const char *name, unsigned int tag);

#ifdef __cplusplus
}
#endif

#endif
