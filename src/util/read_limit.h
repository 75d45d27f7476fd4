// Reading a whole small file (a profile, a journal) from a descriptor,
// bounded: input that is larger than any good one (or never ends, as
// /dev/zero) is refused after limit + 1 bytes instead of held whole.
#pragma once

#include <string>

namespace allocwatch {

// Appends all of fd's bytes to `out`; 0, EFBIG once more than `limit` bytes
// came, or the errno of a failed read. Retries reads a signal interrupted.
int read_at_most(int fd, std::size_t limit, std::string& out);

} // namespace allocwatch
