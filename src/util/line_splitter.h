// LineSplitter: text given in chunks cut anywhere, handed on a whole line
// at a time (without its '\n').
//
//   LineSplitter lines;
//   lines.add(chunk, on_line) ...;   // on_line(std::string_view line)
//   lines.finish(on_line);           // a last line with no '\n'
//
// A line's view lives until on_line returns.
#pragma once

#include <string>
#include <string_view>

namespace allocwatch {

class LineSplitter {
public:
  template <class OnLine> void add(std::string_view text, OnLine&& on_line) {
    while (!text.empty()) {
      const std::size_t end = text.find('\n');
      if (end == std::string_view::npos) {
        partial_.append(text);
        return;
      }
      if (partial_.empty()) {
        on_line(text.substr(0, end));
      } else {
        partial_.append(text.substr(0, end));
        on_line(std::string_view(partial_));
        partial_.clear();
      }
      text.remove_prefix(end + 1);
    }
  }

  template <class OnLine> void finish(OnLine&& on_line) {
    if (!partial_.empty())
      on_line(std::string_view(partial_));
    partial_.clear();
  }

private:
  std::string partial_; // a line cut by the end of a chunk
};

} // namespace allocwatch
