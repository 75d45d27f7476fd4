// The layout of a ring buffer page's header, from the kernel's
// events/header_page text (per buffer: an instance with its own
// buffer_subbuf_size_kb has its own sub-buffer size there):
//
//   \tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;
//   \tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;
//   \tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;
//
// A page is `data`'s offset plus its size (the sub-buffer size); `commit`
// holds the length of the records in it, with flags above bit 27.
#pragma once

#include "util/result.h"

#include <cstddef>
#include <string_view>

namespace allocwatch {

struct HeaderPageField {
  std::size_t offset = 0;
  std::size_t size = 0;
};

// The field `name` of header_page's text, or an error that says what is
// missing.
Result<HeaderPageField> header_page_field(std::string_view header_page, std::string_view name);

} // namespace allocwatch
