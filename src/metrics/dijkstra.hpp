// src/metrics/dijkstra.hpp — the library Dijkstra lives in the host graph layer
// (src/graph/dijkstra.hpp); this name stays for the includes not yet moved (apps/).
#pragma once

#include "graph/dijkstra.hpp"
