// <stddef.h> for device code under NVRTC, which declares size_t and ptrdiff_t itself but ships no C library headers.
#ifndef CUTUNE_DEVICE_STDDEF_H
#define CUTUNE_DEVICE_STDDEF_H

#ifndef NULL
#define NULL 0
#endif
// A constant expression through the front end's address intrinsic (NVRTC has no __builtin_offsetof).
#define offsetof(type, member) (static_cast<size_t>(__INTADDR__(&(static_cast<type*>(0)->member))))

#endif
