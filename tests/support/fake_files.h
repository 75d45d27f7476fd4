// Test support (unit tests only): files as a map of paths to contents, for
// the code that reads /proc and cgroup files through a FileReader. A path
// not in the map cannot be read.
#pragma once

#include "cgroup/file_reader.h"

#include <map>
#include <optional>
#include <string>

namespace allocwatch {

class FakeFiles : public FileReader {
public:
  std::optional<std::string> read(const std::string& path) const override {
    ++reads;
    const auto it = files.find(path);
    return it == files.end() ? std::nullopt : std::optional<std::string>(it->second);
  }
  std::map<std::string, std::string> files;
  mutable int reads = 0;
};

} // namespace allocwatch
