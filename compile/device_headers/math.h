// <math.h> for device code under NVRTC. NVRTC declares CUDA's math functions itself (sqrtf, sin, fabs, isnan, ... for
// float and double): this adds what the C library's header has besides, the constants, classification, the comparison
// functions, and the calls of the one-argument functions on integers (as double), which NVRTC's float and double
// overloads leave ambiguous.
#ifndef CUTUNE_DEVICE_MATH_H
#define CUTUNE_DEVICE_MATH_H

// The traditional constants (POSIX, and glibc by default), spelled as glibc spells them so that a kernel that defines
// one itself the same way (many do, for M_PI or M_SQRT1_2) redefines it without a warning.
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440

// Constant expressions (usable in constexpr and static initialisers), from the bit patterns of binary32/64.
#define INFINITY (__builtin_bit_cast(float, 0x7f800000U))
#define NAN (__builtin_bit_cast(float, 0x7fc00000U))
#define HUGE_VALF INFINITY
#define HUGE_VAL (__builtin_bit_cast(double, 0x7ff0000000000000ULL))

#define FP_NAN 0
#define FP_INFINITE 1
#define FP_ZERO 2
#define FP_SUBNORMAL 3
#define FP_NORMAL 4

typedef float float_t;
typedef double double_t;

inline __host__ __device__ int fpclassify(float x) {
  return isnan(x) ? FP_NAN : isinf(x) ? FP_INFINITE : x == 0.0f ? FP_ZERO
         : fabsf(x) < 1.17549435082228750797e-38F ? FP_SUBNORMAL : FP_NORMAL;
}
inline __host__ __device__ int fpclassify(double x) {
  return isnan(x) ? FP_NAN : isinf(x) ? FP_INFINITE : x == 0.0 ? FP_ZERO
         : fabs(x) < 2.22507385850720138309e-308 ? FP_SUBNORMAL : FP_NORMAL;
}
inline __host__ __device__ bool isnormal(float x) { return fpclassify(x) == FP_NORMAL; }
inline __host__ __device__ bool isnormal(double x) { return fpclassify(x) == FP_NORMAL; }

// The comparisons without the invalid-operand exception: no device raises one, so they are the plain operators.
#define CUTUNE_DEVICE_COMPARISON(name, test)                                                          \
  inline __host__ __device__ bool name(float x, float y) { return !isnan(x) && !isnan(y) && (test); } \
  inline __host__ __device__ bool name(double x, double y) { return !isnan(x) && !isnan(y) && (test); }
CUTUNE_DEVICE_COMPARISON(isgreater, x > y)
CUTUNE_DEVICE_COMPARISON(isgreaterequal, x >= y)
CUTUNE_DEVICE_COMPARISON(isless, x < y)
CUTUNE_DEVICE_COMPARISON(islessequal, x <= y)
CUTUNE_DEVICE_COMPARISON(islessgreater, x < y || x > y)
#undef CUTUNE_DEVICE_COMPARISON
inline __host__ __device__ bool isunordered(float x, float y) { return isnan(x) || isnan(y); }
inline __host__ __device__ bool isunordered(double x, double y) { return isnan(x) || isnan(y); }

namespace cutune_device {
template <bool, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { typedef T type; };
template <class T> struct is_integer { static const bool value = false; };
template <> struct is_integer<bool> { static const bool value = true; };
template <> struct is_integer<char> { static const bool value = true; };
template <> struct is_integer<signed char> { static const bool value = true; };
template <> struct is_integer<unsigned char> { static const bool value = true; };
template <> struct is_integer<short> { static const bool value = true; };
template <> struct is_integer<unsigned short> { static const bool value = true; };
template <> struct is_integer<int> { static const bool value = true; };
template <> struct is_integer<unsigned int> { static const bool value = true; };
template <> struct is_integer<long> { static const bool value = true; };
template <> struct is_integer<unsigned long> { static const bool value = true; };
template <> struct is_integer<long long> { static const bool value = true; };
template <> struct is_integer<unsigned long long> { static const bool value = true; };
}  // namespace cutune_device

// f(integer) computes f(double), as the C++ library's overloads do.
#define CUTUNE_DEVICE_INTEGER_ARGUMENT(name)                                                              \
  template <class T>                                                                                      \
  inline __host__ __device__ typename cutune_device::enable_if<cutune_device::is_integer<T>::value, double>::type \
  name(T x) {                                                                                             \
    return name(static_cast<double>(x));                                                                  \
  }
CUTUNE_DEVICE_INTEGER_ARGUMENT(acos)
CUTUNE_DEVICE_INTEGER_ARGUMENT(acosh)
CUTUNE_DEVICE_INTEGER_ARGUMENT(asin)
CUTUNE_DEVICE_INTEGER_ARGUMENT(asinh)
CUTUNE_DEVICE_INTEGER_ARGUMENT(atan)
CUTUNE_DEVICE_INTEGER_ARGUMENT(atanh)
CUTUNE_DEVICE_INTEGER_ARGUMENT(cbrt)
CUTUNE_DEVICE_INTEGER_ARGUMENT(ceil)
CUTUNE_DEVICE_INTEGER_ARGUMENT(cos)
CUTUNE_DEVICE_INTEGER_ARGUMENT(cosh)
CUTUNE_DEVICE_INTEGER_ARGUMENT(erf)
CUTUNE_DEVICE_INTEGER_ARGUMENT(erfc)
CUTUNE_DEVICE_INTEGER_ARGUMENT(exp)
CUTUNE_DEVICE_INTEGER_ARGUMENT(exp2)
CUTUNE_DEVICE_INTEGER_ARGUMENT(expm1)
CUTUNE_DEVICE_INTEGER_ARGUMENT(fabs)
CUTUNE_DEVICE_INTEGER_ARGUMENT(floor)
CUTUNE_DEVICE_INTEGER_ARGUMENT(lgamma)
CUTUNE_DEVICE_INTEGER_ARGUMENT(log)
CUTUNE_DEVICE_INTEGER_ARGUMENT(log10)
CUTUNE_DEVICE_INTEGER_ARGUMENT(log1p)
CUTUNE_DEVICE_INTEGER_ARGUMENT(log2)
CUTUNE_DEVICE_INTEGER_ARGUMENT(logb)
CUTUNE_DEVICE_INTEGER_ARGUMENT(nearbyint)
CUTUNE_DEVICE_INTEGER_ARGUMENT(rint)
CUTUNE_DEVICE_INTEGER_ARGUMENT(round)
CUTUNE_DEVICE_INTEGER_ARGUMENT(sin)
CUTUNE_DEVICE_INTEGER_ARGUMENT(sinh)
CUTUNE_DEVICE_INTEGER_ARGUMENT(sqrt)
CUTUNE_DEVICE_INTEGER_ARGUMENT(tan)
CUTUNE_DEVICE_INTEGER_ARGUMENT(tanh)
CUTUNE_DEVICE_INTEGER_ARGUMENT(tgamma)
CUTUNE_DEVICE_INTEGER_ARGUMENT(trunc)
#undef CUTUNE_DEVICE_INTEGER_ARGUMENT

#endif
