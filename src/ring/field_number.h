// field_number: a field's value as libtraceevent's tep_read_number() reads
// it from a record of the host's byte order: 1, 2, 4 or 8 bytes, anything
// else 0; 0 too for a field that lies past the record's `size` bytes, as
// eval_num_arg() reads one (check_data_offset_size()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace allocwatch {

inline std::uint64_t field_number(const void* record, std::size_t size, std::size_t offset,
                                  std::size_t field_size) {
  if (offset > size || field_size > size - offset)
    return 0;
  const auto* at = static_cast<const unsigned char*>(record) + offset;
  switch (field_size) {
  case 1:
    return *at;
  case 2: {
    std::uint16_t v;
    std::memcpy(&v, at, sizeof v);
    return v;
  }
  case 4: {
    std::uint32_t v;
    std::memcpy(&v, at, sizeof v);
    return v;
  }
  case 8: {
    std::uint64_t v;
    std::memcpy(&v, at, sizeof v);
    return v;
  }
  default:
    return 0;
  }
}

} // namespace allocwatch
