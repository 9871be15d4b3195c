// src/plugin/mpi_entry.cpp — libapsp_mpi.so's entry: the mpi backend's table.
#include "plugin/plugin_abi.hpp"

extern "C" __attribute__((visibility("default"))) const apsp::detail::plugin::MpiTable*
apsp_mpi_plugin() {
  using namespace apsp::detail;
  static const plugin::MpiTable table{plugin::kAbi, sizeof(plugin::MpiTable), &make_mpi_backend,
                                      &mpi_backend_info};
  return &table;
}
