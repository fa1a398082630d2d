#include "scalar_bytes.hpp"

#include <cstdint>
#include <cstring>

#include "float16.hpp"

namespace cutune::detail {

std::array<unsigned char, 8> scalar_bytes(ElementType type, const Value& v) {
  std::array<unsigned char, 8> out{};
  auto put = [&out](auto x) { std::memcpy(out.data(), &x, sizeof x); };
  switch (type) {
    case ElementType::Float32: put(static_cast<float>(v.as_double())); break;
    case ElementType::Float64: put(v.as_double()); break;
    case ElementType::Int32: put(static_cast<std::int32_t>(v.as_int())); break;
    case ElementType::Int64: put(static_cast<std::int64_t>(v.as_int())); break;
    case ElementType::UInt32: put(static_cast<std::uint32_t>(v.as_int())); break;
    case ElementType::BFloat16: put(detail::bfloat16_bits(static_cast<float>(v.as_double()))); break;
    case ElementType::Float16: put(detail::float16_bits(static_cast<float>(v.as_double()))); break;
    case ElementType::Int8: put(static_cast<std::int8_t>(v.as_int())); break;
    case ElementType::UInt8: put(static_cast<std::uint8_t>(v.as_int())); break;
    case ElementType::Int16: put(static_cast<std::int16_t>(v.as_int())); break;
    case ElementType::UInt16: put(static_cast<std::uint16_t>(v.as_int())); break;
    case ElementType::UInt64: put(static_cast<std::uint64_t>(v.as_int())); break;
    case ElementType::Bool: put(static_cast<std::uint8_t>(v.truthy() ? 1 : 0)); break;
    case ElementType::Float8E4M3: put(detail::float8_bits(static_cast<float>(v.as_double()), Float8::E4M3)); break;
    case ElementType::Float8E5M2: put(detail::float8_bits(static_cast<float>(v.as_double()), Float8::E5M2)); break;
  }
  return out;
}

}  // namespace cutune::detail
