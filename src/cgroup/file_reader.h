// Small files read whole: /proc/PID/{cgroup,stat}, a cgroup's memory.*
// files. The real reader reads the system's; tests give a fake.
#pragma once

#include <optional>
#include <string>

namespace allocwatch {

class FileReader {
public:
  virtual ~FileReader() = default;
  // The file's bytes, or nothing when it cannot be read (gone, refused,
  // larger than any such file: 64 KiB).
  virtual std::optional<std::string> read(const std::string& path) const = 0;
};

class SystemFiles final : public FileReader {
public:
  std::optional<std::string> read(const std::string& path) const override;
};

} // namespace allocwatch
