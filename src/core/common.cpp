// src/core/common.cpp — dtype names, error helpers, backend names.
#include <sstream>

#include "apsp/errors.hpp"
#include "apsp/solve.hpp"
#include "apsp/types.hpp"

namespace apsp {

std::size_t dtype_size(Dtype t) {
  switch (t) {
    case Dtype::Int32:
    case Dtype::Float32:
      return 4;
    case Dtype::Int64:
    case Dtype::Float64:
      return 8;
  }
  return 8;
}

const char* dtype_name(Dtype t) {
  switch (t) {
    case Dtype::Int32:
      return "int32";
    case Dtype::Int64:
      return "int64";
    case Dtype::Float32:
      return "float32";
    case Dtype::Float64:
      return "float64";
  }
  return "?";
}

Dtype parse_dtype(std::string_view s) {
  if (s == "int32") return Dtype::Int32;
  if (s == "int64") return Dtype::Int64;
  if (s == "float32") return Dtype::Float32;
  if (s == "float64") return Dtype::Float64;
  throw UsageError("unknown type '" + std::string(s) +
                   "' (expected int32, int64, float32 or float64)");
}

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::Auto:
      return "auto";
    case Backend::Cpu:
      return "cpu";
    case Backend::Cuda:
      return "cuda";
    case Backend::MultiGpu:
      return "multi-gpu";
    case Backend::Mpi:
      return "mpi";
    case Backend::Hip:
      return "hip";
  }
  return "?";
}

Backend parse_backend(const std::string& s) {
  for (Backend b :
       {Backend::Auto, Backend::Cpu, Backend::Cuda, Backend::MultiGpu, Backend::Mpi, Backend::Hip})
    if (s == backend_name(b)) return b;
  throw UsageError("unknown backend '" + s + "' (expected auto, cpu, cuda, multi-gpu, mpi or hip)");
}

const char* order_name(Order o) {
  switch (o) {
    case Order::Auto:
      return "auto";
    case Order::None:
      return "none";
    case Order::NestedDissection:
      return "nd";
    case Order::Supernodal:
      return "sn";
  }
  return "?";
}

Order parse_order(const std::string& s) {
  for (Order o : {Order::Auto, Order::None, Order::NestedDissection, Order::Supernodal})
    if (s == order_name(o)) return o;
  throw UsageError("unknown order '" + s + "' (expected auto, none, nd or sn)");
}

namespace detail {
void throw_expects(const char* cond, const std::string& msg, const char* file, int line) {
  std::ostringstream os;
  os << msg << " (" << cond << " at " << file << ":" << line << ")";
  throw Error(os.str());
}
}  // namespace detail

}  // namespace apsp
