// src/core/config.hpp — the APSP_* settings for the library's own files: the public table of
// apsp/config.hpp (its definitions: config.cpp).
#pragma once

#include "apsp/config.hpp"
