// allocwatch entry point (being built: see the issues).
#include <cstdio>

int main() {
  std::puts("allocwatch: under construction");
  return 0;
}
