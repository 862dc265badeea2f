/* memset, memcpy, memcmp, strlen and strstr for builds that link no C library:
   the kernel and the harness call them, and gcc emits calls to memset and memcpy
   for struct copies and zeroing. Plain byte loops: what they copy is a queue item or a task's stack
   fill, a few words to a few hundred bytes.

   gcc would recognise these very loops as memset and memcpy and call them,
   recursing forever: the pattern replacement is turned off for this file. */
#include <string.h>

#pragma GCC optimize("no-tree-loop-distribute-patterns")

void *memset(void *destination, int value, size_t length)
{
    unsigned char *bytes = destination;
    while (length--) {
        *bytes++ = (unsigned char)value;
    }
    return destination;
}

void *memcpy(void *restrict destination, const void *restrict source, size_t length)
{
    unsigned char *to = destination;
    const unsigned char *from = source;
    while (length--) {
        *to++ = *from++;
    }
    return destination;
}

int memcmp(const void *first, const void *second, size_t length)
{
    const unsigned char *a = first, *b = second;
    for (; length; length--, a++, b++) {
        if (*a != *b) {
            return *a < *b ? -1 : 1;
        }
    }
    return 0;
}

size_t strlen(const char *text)
{
    size_t length = 0;
    while (text[length]) {
        length++;
    }
    return length;
}

char *strstr(const char *text, const char *wanted)
{
    size_t length = strlen(wanted);
    for (; *text; text++) {
        if (memcmp(text, wanted, length) == 0) {
            return (char *)text;
        }
    }
    return length == 0 ? (char *)text : NULL;
}
