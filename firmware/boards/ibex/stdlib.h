/* FreeRTOS includes <stdlib.h> for NULL and size_t only; a freestanding build has
   them from <stddef.h>. */
#ifndef SWITCHSCOPE_FREESTANDING_STDLIB_H
#define SWITCHSCOPE_FREESTANDING_STDLIB_H

#include <stddef.h>

#endif
