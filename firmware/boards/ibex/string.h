/* The few string functions FreeRTOS and the harness call, declared for a
   freestanding build: the RISC-V targets link no C library (libc.c defines them). */
#ifndef SWITCHSCOPE_FREESTANDING_STRING_H
#define SWITCHSCOPE_FREESTANDING_STRING_H

#include <stddef.h>

void *memset(void *destination, int value, size_t length);
void *memcpy(void *restrict destination, const void *restrict source, size_t length);
int memcmp(const void *first, const void *second, size_t length);
size_t strlen(const char *text);
char *strstr(const char *text, const char *wanted);

#endif
