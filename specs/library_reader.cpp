// Reads a spec's "library" section: which library implements the family, and the arguments its call takes by name.
#include <algorithm>
#include <vector>

#include "cutune/library.hpp"
#include "spec_reader.hpp"

namespace cutune::detail {
namespace {

bool is_fp8(ElementType t) { return t == ElementType::Float8E4M3 || t == ElementType::Float8E5M2; }

bool is_input_type(ElementType t) {
  return t == ElementType::BFloat16 || t == ElementType::Float16 || t == ElementType::Float32 || is_fp8(t);
}

bool is_output_type(ElementType t) {
  return t == ElementType::BFloat16 || t == ElementType::Float16 || t == ElementType::Float32;
}

class LibraryReader {
 public:
  LibraryReader(const FieldReader& reader, KernelSpec& spec) : reader_(reader), spec_(spec) {}

  void read(const Json& section) {
    if (!section.is_object()) reader_.fail("library", "must be an object such as {\"name\": \"cublasLt\"}");
    reader_.check_keys(section, "library", {"name", "b", "compute"});
    if (!spec_.kernel.empty()) reader_.fail("kernel", "a spec with a \"library\" section has no kernel of its own");
    if (spec_.pipeline) reader_.fail("library", "a library family cannot have a \"pipeline\" section");
    const Json* name = section.contains("name") ? &section["name"] : nullptr;
    if (name == nullptr || !name->is_string() || name->get<std::string>() != "cublasLt") {
      reader_.fail("library.name", "must be one of: " + std::string(kLibraryNames));
    }
    lib_.name = name->get<std::string>();
    lib_.b_transposed = choice(section, "b", {"k_by_n", "n_by_k"}) == 1;
    lib_.tf32 = choice(section, "compute", {"f32", "tf32"}) == 1;
    if (spec_.shape_names != std::vector<std::string>{"M", "N", "K"}) {
      reader_.fail("shape", "a cublasLt GEMM's shape is [\"M\", \"N\", \"K\"]");
    }
    read_arguments();
    read_rank();
    spec_.library = std::make_shared<const LibrarySpec>(lib_);
  }

 private:
  // The index of the section's `key` among `names`; 0 (the first) when absent.
  std::size_t choice(const Json& section, const char* key, std::initializer_list<const char*> names) const {
    if (!section.contains(key)) return 0;
    const Json& j = section[key];
    std::size_t i = 0;
    std::string list;
    for (const char* n : names) {
      if (j.is_string() && j.get<std::string>() == n) return i;
      list += (i++ == 0 ? "" : " or ") + std::string(n);
    }
    reader_.fail(std::string("library.") + key, "must be " + list);
    return 0;  // not reached: fail() throws
  }

  std::optional<std::size_t> find(const char* name) const {
    for (std::size_t i = 0; i < spec_.arguments.size(); ++i)
      if (spec_.arguments[i].name == name) return i;
    return std::nullopt;
  }

  // An argument the call needs: a buffer (or a scalar) of the spec's, by name.
  std::size_t need(const char* name, bool buffer) const {
    const auto i = find(name);
    if (!i) reader_.fail("arguments", std::string("a cublasLt GEMM takes an argument named '") + name + "'");
    const Argument& a = spec_.arguments[*i];
    if (a.is_buffer != buffer || a.tensor_map || a.in_constant_memory()) {
      reader_.fail("arguments." + a.name, buffer ? "must be a device buffer" : "must be a scalar");
    }
    return *i;
  }

  void read_arguments() {
    lib_.a = need("A", true);
    lib_.b = need("B", true);
    lib_.c = need("C", true);
    lib_.alpha = need("alpha", false);
    lib_.beta = need("beta", false);
    const ElementType a = spec_.arguments[lib_.a].type, b = spec_.arguments[lib_.b].type;
    const ElementType c = spec_.arguments[lib_.c].type;
    if (!is_input_type(a) || !is_input_type(b) || (is_fp8(a) != is_fp8(b)) || (!is_fp8(a) && a != b)) {
      reader_.fail("arguments.B", "A and B must both be __nv_bfloat16, __half or float, or both 8-bit floats");
    }
    if (!is_output_type(c) || (!is_fp8(a) && c != a)) {
      reader_.fail("arguments.C", "C must be of A's type (8-bit inputs: __nv_bfloat16, __half or float)");
    }
    for (std::size_t s : {lib_.alpha, lib_.beta}) {
      if (spec_.arguments[s].type != ElementType::Float32) reader_.fail("arguments." + spec_.arguments[s].name, "must be a float");
    }
    if (lib_.tf32 && a != ElementType::Float32) reader_.fail("library.compute", "tf32 takes float inputs");
    if (is_fp8(a) && !lib_.b_transposed) {
      reader_.fail("library.b", "8-bit inputs take B as N x K (\"n_by_k\"), the only layout cuBLASLt multiplies them in");
    }
    if (find("workspace")) lib_.workspace = need("workspace", true);
    if (is_fp8(a)) {
      lib_.scale_a = need("scale_a", true);
      lib_.scale_b = need("scale_b", true);
      if (find("bias")) lib_.bias = need("bias", true);
    }
  }

  void read_rank() {
    if (has_algo_parameter(spec_)) {
      lib_.algo = read_algo_parameters(reader_, spec_);
      return;
    }
    const auto& ps = spec_.parameters;
    const auto rank = std::find_if(ps.begin(), ps.end(), [](const Parameter& p) { return p.name == kLibraryRankName; });
    if (rank == ps.end()) {
      reader_.fail("parameters", "a library family needs the parameter " + std::string(kLibraryRankName) +
                                     " (the rank of the heuristic's answer it runs) or " +
                                     std::string(kLibraryAlgoName) + " (an algorithm id and its attributes)");
    }
    for (const Value& v : rank->values) {
      if (v.is_float() || v.as_int() < 0 || v.as_int() >= kLibraryMaxRank) {
        reader_.fail("parameters." + rank->name, "values must be whole numbers from 0 to " +
                                                      std::to_string(kLibraryMaxRank - 1));
      }
    }
    lib_.rank_parameter = static_cast<std::size_t>(rank - ps.begin());
    for (std::size_t p = 0; p < ps.size(); ++p) {
      if (p == lib_.rank_parameter) continue;
      if (ps[p].name != kLibraryReductionName) {
        reader_.fail("parameters." + ps[p].name, "a cublasLt family's parameters are " + std::string(kLibraryRankName) +
                                                     " and " + std::string(kLibraryReductionName));
      }
      for (const Value& v : ps[p].values) {
        if (v.is_float() || (v.as_int() != 0 && v.as_int() != 1)) {
          reader_.fail("parameters." + ps[p].name, "values must be 0 (FP32 reductions only) or 1 (any)");
        }
      }
      lib_.reduction_parameter = p;
    }
  }

  const FieldReader& reader_;
  KernelSpec& spec_;
  LibrarySpec lib_;
};

}  // namespace

void read_library(const Json& section, const FieldReader& reader, KernelSpec& spec) {
  LibraryReader(reader, spec).read(section);
}

}  // namespace cutune::detail
