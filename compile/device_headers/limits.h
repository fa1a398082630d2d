// <limits.h> for device code under NVRTC: the ranges of the integer types on the device (LP64, as on a Linux host).
#ifndef CUTUNE_DEVICE_LIMITS_H
#define CUTUNE_DEVICE_LIMITS_H

// libcu++'s <cuda/std/...> headers define these macros too, spelled differently: a kernel may include both.
#pragma nv_diagnostic push
#pragma nv_diag_suppress 47

#define CHAR_BIT 8
#define SCHAR_MIN (-127 - 1)
#define SCHAR_MAX 127
#define UCHAR_MAX 255
#if '\xff' < 0
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#else
#define CHAR_MIN 0
#define CHAR_MAX UCHAR_MAX
#endif
#define SHRT_MIN (-32767 - 1)
#define SHRT_MAX 32767
#define USHRT_MAX 65535
#define INT_MIN (-2147483647 - 1)
#define INT_MAX 2147483647
#define UINT_MAX 4294967295U
#define LLONG_MIN (-9223372036854775807LL - 1)
#define LLONG_MAX 9223372036854775807LL
#define ULLONG_MAX 18446744073709551615ULL
#ifdef __LP64__
#define LONG_MIN (-9223372036854775807L - 1)
#define LONG_MAX 9223372036854775807L
#define ULONG_MAX 18446744073709551615UL
#else
#define LONG_MIN (-2147483647L - 1)
#define LONG_MAX 2147483647L
#define ULONG_MAX 4294967295UL
#endif

#pragma nv_diagnostic pop

#endif
