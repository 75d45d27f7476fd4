// The text of an events/SYSTEM/NAME/format file as the kernels print it, for
// the unit tests that parse formats with libtraceevent. The common fields
// are the same in every kernel allocwatch reads.
#pragma once

#include <string>

// A string literal, for formats written out whole.
#define ALLOCWATCH_COMMON_FIELDS                                                                   \
  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"                           \
  "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"                           \
  "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"                   \
  "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

namespace allocwatch::testing {

// Event `name` numbered `id`: the common fields, then `fields` (format
// lines), then `print` (what follows "print fmt: ").
inline std::string event_format(const std::string& name, int id, const std::string& fields,
                                const std::string& print) {
  return "name: " + name + "\nID: " + std::to_string(id) + "\nformat:\n" ALLOCWATCH_COMMON_FIELDS +
         fields + "\nprint fmt: " + print + "\n";
}

} // namespace allocwatch::testing
