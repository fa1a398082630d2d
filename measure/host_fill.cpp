// Buffer contents the host computes: a generator expression of the element index, a file of raw elements.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <thread>

#include "cutune/error.hpp"
#include "workbench.hpp"

namespace cutune::detail {
namespace {

std::vector<unsigned char> generated(const KernelSpec& spec, const Argument& a, const Expr& generator,
                                     const Shape& shape, std::size_t count) {
  const std::size_t width = element_size(a.type);
  std::vector<unsigned char> out(count * width);
  const std::size_t threads =
      std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, std::max<std::size_t>(1, count / 65536));
  std::vector<std::string> errors(threads);
  auto work = [&](std::size_t t) {
    std::vector<Value> scope(1 + shape.dims.size());
    for (std::size_t d = 0; d < shape.dims.size(); ++d) scope[1 + d] = Value(shape.dims[d]);
    const std::size_t begin = count * t / threads, end = count * (t + 1) / threads;
    try {
      for (std::size_t i = begin; i < end; ++i) {
        scope[0] = Value(static_cast<std::int64_t>(i));
        const auto bytes = scalar_bytes(a.type, generator.eval(scope.data(), scope.size()));
        std::memcpy(out.data() + i * width, bytes.data(), width);
      }
    } catch (const Error& e) {
      errors[t] = e.what();
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  for (const auto& e : errors) {
    if (!e.empty()) {
      throw InputError("spec " + spec.name + ": arguments." + a.name + ".fill: generator '" + generator.text() +
                       "': " + e);
    }
  }
  return out;
}

std::vector<unsigned char> from_file(const KernelSpec& spec, const Argument& a, const std::string& file,
                                     std::size_t count) {
  const std::filesystem::path path = std::filesystem::path(file).is_absolute() ? std::filesystem::path(file)
                                                                                : spec.folder / file;
  const std::string what = "spec " + spec.name + ": arguments." + a.name + ": fill file " + path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(what + " cannot be read");
  const std::size_t wanted = count * element_size(a.type);
  std::vector<unsigned char> out(wanted);
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(wanted));
  const auto got = static_cast<std::size_t>(in.gcount());
  const bool longer = in.peek() != std::char_traits<char>::eof();
  if (got != wanted || longer) {
    throw InputError(what + " holds " + (longer ? "more than " : "") + std::to_string(got) + " bytes; the buffer is " +
                     std::to_string(count) + " elements of " + std::string(to_string(a.type)) + ", " +
                     std::to_string(wanted) + " bytes");
  }
  return out;
}

}  // namespace

std::vector<unsigned char> host_fill(const KernelSpec& spec, const Argument& a, const FillRule& fill, const Shape& shape,
                                     std::size_t count) {
  if (fill == Fill::Generator && fill.generator) return generated(spec, a, *fill.generator, shape, count);
  if (fill == Fill::File) return from_file(spec, a, fill.file, count);
  throw Error("host_fill: not a host-side fill");
}

}  // namespace cutune::detail
