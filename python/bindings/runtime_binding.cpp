// cutune.Runtime: tuned kernels launched from Python. The Python layer (cutune/_launch.py) checks array arguments
// (dtype, device, size) and passes their addresses; this file packs scalars by the spec's types and launches.
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "convert.hpp"
#include "cutune/error.hpp"
#include "prepared_launch.hpp"
#include "cutune/runtime.hpp"
#include "driver/cuda_driver.hpp"
#include "driver/scalar_bytes.hpp"

namespace cutune::python {

namespace {

enum class ArgKind { Buffer, Scalar, TensorMap, Constant };

struct ArgPlan {
  std::string name;
  ArgKind kind = ArgKind::Buffer;
  ElementType type = ElementType::Float32;
  std::int64_t elements = 0;  // buffers: at this shape and configuration
  bool output = false;
  std::string buffer;         // tensor maps: the buffer argument they describe
  Value value;                // scalars: the spec's value at this shape and configuration
  std::size_t bytes = 0;      // in the launch
};

class KernelHandle {
 public:
  KernelHandle(const RuntimeKernel& kernel, int ordinal) : kernel_(&kernel), ordinal_(ordinal) {
    const KernelSpec& spec = kernel.spec();
    const std::vector<Value> scope = spec.scope(kernel.config(), &kernel.shape());
    for (const Argument& a : spec.arguments) {
      ArgPlan p;
      p.name = a.name;
      p.type = a.type;
      p.output = a.output;
      if (a.tensor_map) {
        p.kind = ArgKind::TensorMap;
        p.buffer = a.tensor_map->buffer;
        p.bytes = sizeof(CUdeviceptr);
      } else if (a.is_buffer) {
        p.kind = a.in_constant_memory() && !a.is_parameter() ? ArgKind::Constant : ArgKind::Buffer;
        p.elements = a.size.eval(scope).as_int();
        p.bytes = sizeof(CUdeviceptr);
      } else {
        p.kind = ArgKind::Scalar;
        p.value = a.value.eval(scope);
        p.bytes = element_size(a.type);
      }
      plans_.push_back(std::move(p));
    }
  }

  // [{"name", "kind", "dtype", "elements", "output", "buffer", "value"}] in the spec's order.
  nb::list arguments() const {
    static constexpr const char* kinds[] = {"buffer", "scalar", "tensor_map", "constant"};
    nb::list out;
    for (const ArgPlan& p : plans_) {
      nb::dict d;
      d["name"] = p.name;
      d["kind"] = kinds[static_cast<int>(p.kind)];
      d["dtype"] = std::string(to_string(p.type));
      d["elements"] = p.elements;
      d["output"] = p.output;
      d["buffer"] = p.buffer;
      d["value"] = p.kind == ArgKind::Scalar ? to_python(p.value) : nb::none();
      out.append(d);
    }
    return out;
  }

  // One value per argument: addresses (Python ints) for arrays and tensor maps, numbers for scalars.
  void launch(std::uintptr_t stream, nb::handle values) const {
    const std::size_t count = plans_.size();
    if (nb::len(values) != count) {
      throw InputError(kernel_->spec().name + " takes " + std::to_string(count) + " arguments, got " +
                       std::to_string(nb::len(values)));
    }
    std::array<std::uint64_t, 32> small{};
    std::vector<std::uint64_t> large(count > small.size() ? count : 0);
    std::uint64_t* storage = count > small.size() ? large.data() : small.data();
    std::array<KernelArg, 32> small_args{};
    std::vector<KernelArg> large_args(count > small_args.size() ? count : 0);
    KernelArg* args = count > small_args.size() ? large_args.data() : small_args.data();
    for (std::size_t i = 0; i < count; ++i) {
      pack(plans_[i], values[i], &storage[i]);
      args[i] = KernelArg{&storage[i], plans_[i].bytes};
    }
    kernel_->launch(reinterpret_cast<void*>(stream), args, count);
  }

  // launch()'s values packed once, but for the buffers named in `slots`, whose addresses (and those of the tensor
  // maps described over them) each call of the PreparedLaunch gives.
  PreparedLaunch* prepare(nb::handle values, const std::vector<std::string>& slots) const {
    const std::size_t count = plans_.size();
    if (nb::len(values) != count) {
      throw InputError(kernel_->spec().name + " takes " + std::to_string(count) + " arguments, got " +
                       std::to_string(nb::len(values)));
    }
    std::vector<std::uint64_t> packed(count, 0);
    std::vector<std::size_t> bytes(count, 0);
    for (std::size_t i = 0; i < count; ++i) {
      pack(plans_[i], values[i], &packed[i]);
      bytes[i] = plans_[i].bytes;
    }
    std::vector<std::vector<std::size_t>> targets;
    for (const std::string& name : slots) {
      std::vector<std::size_t> to;
      for (std::size_t i = 0; i < count; ++i) {
        const ArgPlan& p = plans_[i];
        if ((p.name == name && p.kind == ArgKind::Buffer) || (p.kind == ArgKind::TensorMap && p.buffer == name)) {
          to.push_back(i);
        }
      }
      if (to.empty() || plans_[to.front()].name != name) {
        throw InputError(kernel_->spec().name + " has no array argument '" + name + "' to leave to each launch");
      }
      targets.push_back(std::move(to));
    }
    return new PreparedLaunch(*kernel_, std::move(packed), std::move(bytes), std::move(targets));
  }

  const RuntimeKernel& kernel() const { return *kernel_; }
  int ordinal() const { return ordinal_; }

 private:
  [[noreturn]] void bad(const ArgPlan& p, const std::string& why) const {
    throw InputError("argument '" + p.name + "' of " + kernel_->spec().name + " (" + std::string(to_string(p.type)) +
                     (p.kind == ArgKind::Scalar ? "" : " array") + "): " + why);
  }

  template <typename T>
  void store_integer(const ArgPlan& p, nb::handle v, void* out) const {
    if (!nb::isinstance<nb::int_>(v)) bad(p, "expected an integer, got " + std::string(nb::str(v.type()).c_str()));
    T value{};
    if (!nb::try_cast<T>(v, value)) bad(p, std::string(nb::str(v).c_str()) + " is out of range");
    std::memcpy(out, &value, sizeof(T));
  }

  void pack(const ArgPlan& p, nb::handle v, std::uint64_t* out) const {
    if (p.kind != ArgKind::Scalar) {
      std::uint64_t address = 0;
      if (!nb::isinstance<nb::int_>(v) || !nb::try_cast<std::uint64_t>(v, address)) bad(p, "expected an address");
      *out = address;
      return;
    }
    switch (p.type) {
      case ElementType::Float32:
      case ElementType::Float64:
      case ElementType::Float16:
      case ElementType::BFloat16:
      case ElementType::Float8E4M3:
      case ElementType::Float8E5M2: {
        double d = 0.0;
        if (nb::isinstance<nb::bool_>(v) || !nb::try_cast<double>(v, d)) bad(p, "expected a number");
        const auto bytes = detail::scalar_bytes(p.type, Value(d));  // rounded as the device converts
        std::memcpy(out, bytes.data(), element_size(p.type));
        return;
      }
      case ElementType::Int32: return store_integer<std::int32_t>(p, v, out);
      case ElementType::Int64: return store_integer<std::int64_t>(p, v, out);
      case ElementType::UInt32: return store_integer<std::uint32_t>(p, v, out);
      case ElementType::UInt64: return store_integer<std::uint64_t>(p, v, out);
      case ElementType::Int8: return store_integer<std::int8_t>(p, v, out);
      case ElementType::UInt8: return store_integer<std::uint8_t>(p, v, out);
      case ElementType::Int16: return store_integer<std::int16_t>(p, v, out);
      case ElementType::UInt16: return store_integer<std::uint16_t>(p, v, out);
      case ElementType::Bool: {
        bool b = false;
        if (!nb::try_cast<bool>(v, b)) bad(p, "expected a bool");
        std::memcpy(out, &b, 1);
        return;
      }
    }
  }

  const RuntimeKernel* kernel_;
  int ordinal_;
  std::vector<ArgPlan> plans_;
};

// How the stored configuration was chosen: the fallback rule, the shape and device it was measured on, its result.
nb::dict choice_dict(const KernelHandle& k) {
  const BestConfig& c = k.kernel().choice();
  nb::dict d;
  d["rule"] = std::string(to_string(c.match));
  d["shape"] = c.shape;
  d["device"] = device_dict(c.device);
  d["measured"] = c.match != Match::Default;
  d["result"] = result_dict(k.kernel().spec(), c.result);
  return d;
}

nb::dict geometry_dict(const KernelHandle& k) {
  const Launch& g = k.kernel().geometry();
  nb::dict d;
  d["grid"] = nb::make_tuple(g.grid[0], g.grid[1], g.grid[2]);
  d["block"] = nb::make_tuple(g.block[0], g.block[1], g.block[2]);
  d["shared_memory"] = g.shared_memory;
  return d;
}

// A wanted shape as Python sees it (Runtime.wanted()).
nb::dict wanted_dict(const WantedShape& w) {
  nb::dict d;
  d["kernel"] = w.kernel.name;
  d["kernel_hash"] = w.kernel.hash;
  d["device"] = w.device.name;
  d["flush"] = std::string(to_string(w.flush));
  d["shape"] = w.shape;
  d["count"] = w.count;
  d["first_at"] = w.first_at;
  d["last_at"] = w.last_at;
  return d;
}

void make_runtime(Runtime* self, const std::string& db, int device, std::optional<std::string> cache_dir,
                  const std::string& flush, int tune_budget) {
  RuntimeOptions options;
  options.database = db;
  options.device = device;
  if (tune_budget < 0) throw InputError("tune_budget must be 0 (off) or more, got " + std::to_string(tune_budget));
  options.tune_budget = tune_budget;
  if (cache_dir) options.cache_directory = *cache_dir;
  if (!flush.empty()) {
    options.flush = parse_l2_flush(flush);
    if (!options.flush) throw InputError("flush '" + flush + "': expected one of " + std::string(kL2FlushNames));
  }
  new (self) Runtime(std::move(options));
}

// What a DLPack object (__dlpack__) holds: (address, dtype name or "", elements, C-contiguous, device type, id).
// Device types as DLPack numbers them: 1 CPU, 2 CUDA, 3 CUDA host (pinned) memory.
nb::tuple dlpack_info(nb::ndarray<nb::ro> a) {
  static const std::pair<nb::dlpack::dtype, const char*> names[] = {
      {nb::dtype<float>(), "float32"},          {nb::dtype<double>(), "float64"},
      {nb::dtype<std::int32_t>(), "int32"},     {nb::dtype<std::int64_t>(), "int64"},
      {nb::dtype<std::uint32_t>(), "uint32"},   {nb::dtype<std::uint64_t>(), "uint64"},
      {nb::dtype<std::int16_t>(), "int16"},     {nb::dtype<std::uint16_t>(), "uint16"},
      {nb::dtype<std::int8_t>(), "int8"},       {nb::dtype<std::uint8_t>(), "uint8"},
      {nb::dtype<bool>(), "bool"},
      {nb::dlpack::dtype{static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float), 16, 1}, "float16"},
      {nb::dlpack::dtype{static_cast<std::uint8_t>(nb::dlpack::dtype_code::Bfloat), 16, 1}, "bfloat16"}};
  std::string dtype;
  for (const auto& [t, name] : names)
    if (t == a.dtype()) dtype = name;
  bool contiguous = true;
  std::int64_t expected = 1;
  for (std::size_t i = a.ndim(); i-- > 0;) {
    if (a.shape(i) != 1 && a.stride(i) != expected) contiguous = false;
    expected *= static_cast<std::int64_t>(a.shape(i));
  }
  return nb::make_tuple(reinterpret_cast<std::uintptr_t>(a.data()), dtype, a.size(), contiguous, a.device_type(),
                        a.device_id());
}

// The GPU an address belongs to, or -1 for host memory the driver does not know (pageable memory).
int pointer_device(std::uint64_t address) {
  int ordinal = -1;
  const CUresult rc = detail::driver().cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                                             static_cast<CUdeviceptr>(address));
  return rc == CUDA_SUCCESS ? ordinal : -1;
}

}  // namespace

void bind_runtime(nb::module_& m) {
  nb::class_<KernelHandle>(m, "_Kernel")
      .def("launch", &KernelHandle::launch, nb::arg("stream"), nb::arg("values"))
      .def("arguments", &KernelHandle::arguments)
      .def("prepare", &KernelHandle::prepare, nb::arg("values"), nb::arg("slots"), nb::keep_alive<0, 1>(),
           nb::rv_policy::take_ownership)
      .def_prop_ro("ordinal", &KernelHandle::ordinal)
      .def_prop_ro("name", [](const KernelHandle& k) { return k.kernel().spec().name; })
      .def_prop_ro("shape", [](const KernelHandle& k) { return k.kernel().shape().str(); })
      .def_prop_ro("config", [](const KernelHandle& k) { return config_dict(k.kernel().spec(), k.kernel().config()); })
      .def_prop_ro("choice", &choice_dict)
      .def_prop_ro("from_cache", [](const KernelHandle& k) { return k.kernel().from_cache(); })
      .def_prop_ro("ready_ms", [](const KernelHandle& k) { return k.kernel().ready_ms(); })
      .def_prop_ro("geometry", &geometry_dict);

  nb::class_<Runtime>(m, "_Runtime")
      .def("__init__", &make_runtime, nb::arg("db"), nb::arg("device"), nb::arg("cache_dir").none(), nb::arg("flush"),
           nb::arg("tune_budget"))
      .def(
          "kernel",
          [](Runtime& runtime, const std::string& name, const std::string& shape) {
            return new KernelHandle(runtime.kernel(name, shape), runtime.ordinal());
          },
          nb::arg("name"), nb::arg("shape"), nb::keep_alive<0, 1>(), nb::rv_policy::take_ownership)
      // A repeated request of a shape without a result of its own, which the Python layer keeps a kernel of: counted,
      // and the tuned kernel when tuning on demand replaced `current` (else None).
      .def(
          "refresh",
          [](Runtime& runtime, const std::string& name, const std::string& shape,
             const KernelHandle& current) -> KernelHandle* {
            const RuntimeKernel& now = runtime.kernel(name, shape);
            return &now == &current.kernel() ? nullptr : new KernelHandle(now, runtime.ordinal());
          },
          nb::arg("name"), nb::arg("shape"), nb::arg("current"), nb::keep_alive<0, 1>(), nb::rv_policy::take_ownership)
      .def("wanted",
           [](const Runtime& runtime) {
             nb::list out;
             for (const auto& w : runtime.wanted()) out.append(wanted_dict(w));
             return out;
           })
      .def("save_wanted", [](const Runtime& runtime, const std::string& path) { runtime.save_wanted(path); })
      .def_prop_ro("ordinal", &Runtime::ordinal)
      .def_prop_ro("device", [](const Runtime& r) { return device_dict(r.device()); });

  m.def("_dlpack_info", &dlpack_info);
  m.def("_pointer_device", &pointer_device);
}

}  // namespace cutune::python
