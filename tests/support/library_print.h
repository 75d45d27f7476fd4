// What libtraceevent itself prints of a record's fields (TEP_PRINT_INFO):
// the reading the unit tests hold allocwatch's printing to.
#pragma once

#include <string>
#include <vector>

extern "C" {
#include <event-parse.h>
}

namespace allocwatch::testing {

// The fields of the record whose payload is `bytes`, as `tep` prints them.
inline std::string library_fields(tep_handle* tep, const std::vector<unsigned char>& bytes) {
  std::vector<unsigned char> copy(bytes); // tep_record's data is not const
  tep_record record{};
  record.data = copy.data();
  record.size = static_cast<int>(copy.size());
  trace_seq seq;
  trace_seq_init(&seq);
  tep_print_event(tep, &seq, &record, "%s", TEP_PRINT_INFO);
  trace_seq_terminate(&seq);
  std::string text(seq.buffer, seq.len);
  trace_seq_destroy(&seq);
  return text;
}

} // namespace allocwatch::testing
