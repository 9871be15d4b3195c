// tests/support.cpp — shared helpers for the test executables (see support.hpp).
