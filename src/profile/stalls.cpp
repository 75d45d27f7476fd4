#include "profile/stalls.h"

#include "kernel/vocabulary.h"

namespace allocwatch {

bool is_background_comm(std::span<const std::string> background, std::string_view comm) {
  for (std::string_view name : background) {
    if (comm.starts_with(name))
      return true;
    if (comm.size() == kGraphCommBytes && name.starts_with(comm))
      return true;
  }
  return false;
}

} // namespace allocwatch
