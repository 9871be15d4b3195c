// apps/apsp.cpp — the apsp command-line tool (placeholder main while the CLI is written).
#include <cstdio>
int main() { std::puts("apsp: CLI under construction"); return 1; }
