// python/src/dijkstra.cpp — nothing of its own: the per-source solver is the library's
// (src/metrics/dijkstra.cpp, linked through libapsp_core.so); dijkstra.hpp names it here.
#include "dijkstra.hpp"
