/* Running code that is meant to end the process, in a child. */
#ifndef CAPTURE_H
#define CAPTURE_H
#include <stddef.h>

/* Run fn in a child with stderr captured into msg; returns its exit
 * status, or -1 if it did not exit. */
int run_captured(void (*fn)(void), char *msg, size_t cap);

#endif
