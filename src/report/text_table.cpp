#include "report/text_table.h"

#include <cstdio>

namespace allocwatch {

std::string ms(Nanos ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%lld.%03lld", static_cast<long long>(ns / kMilli),
                static_cast<long long>(ns / kMicro % 1000));
  return text;
}

} // namespace allocwatch
