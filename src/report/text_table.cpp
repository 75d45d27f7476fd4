#include "report/text_table.h"

#include <cstdio>

namespace allocwatch {

std::string ms(Nanos ns) {
  const Nanos us = (ns + kMicro / 2) / kMicro; // rounded, half up
  char text[32];
  std::snprintf(text, sizeof text, "%lld.%03lld", static_cast<long long>(us / 1000),
                static_cast<long long>(us % 1000));
  return text;
}

} // namespace allocwatch
