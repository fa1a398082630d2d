// <string.h> for device code under NVRTC, which declares the two functions device code can call of it itself: memcpy
// and memset.
#ifndef CUTUNE_DEVICE_STRING_H
#define CUTUNE_DEVICE_STRING_H

#include <stddef.h>

#endif
