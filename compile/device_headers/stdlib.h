// <stdlib.h> for device code under NVRTC, which declares what device code can call of it itself: malloc and free
// (the device heap), abs, labs and llabs.
#ifndef CUTUNE_DEVICE_STDLIB_H
#define CUTUNE_DEVICE_STDLIB_H

#include <stddef.h>

#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1

#endif
