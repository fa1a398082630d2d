// <assert.h> for device code under NVRTC: assert() as NDEBUG is where the header is included (no include guard, as
// the C standard asks), reporting through the device's assertion call, which stops the kernel.
#undef assert
#ifdef NDEBUG
#define assert(condition) (static_cast<void>(0))
#else
#define assert(condition)           \
  ((condition) ? static_cast<void>(0) \
               : __assertfail(#condition, __FILE__, __LINE__, __PRETTY_FUNCTION__, sizeof(char)))
#endif
