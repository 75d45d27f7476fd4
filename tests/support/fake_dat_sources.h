// Test support (unit tests only): DatSources with fixed bytes, and ring
// buffer pages built by hand, for DatWriter's tests. The header files and
// ftrace formats are those of a 6.18 x86-64 kernel (4096-byte pages, 8-byte
// commit): `function` (id 1) and `funcgraph_exit` (id 10); one made-up
// event, vmscan/dat_test (id 700, one u64 field `nr`).
#pragma once

#include "event_format.h"
#include "ring/dat_sources.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace allocwatch::testing {

inline const char* const kHeaderPage = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
                                       "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
                                       "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
                                       "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

inline const char* const kHeaderEvent = "# compressed entry header\n"
                                        "\ttype_len    :    5 bits\n"
                                        "\ttime_delta  :   27 bits\n"
                                        "\tarray       :   32 bits\n"
                                        "\n"
                                        "\tpadding     : type == 29\n"
                                        "\ttime_extend : type == 30\n"
                                        "\ttime_stamp : type == 31\n"
                                        "\tdata max type_len  == 28\n";

inline const char* const kFunctionFormat =
    "name: function\nID: 1\nformat:\n" ALLOCWATCH_COMMON_FIELDS
    "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n\n"
    "print fmt: \" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip\n";

inline const char* const kFuncgraphExitFormat =
    "name: funcgraph_exit\nID: 10\nformat:\n" ALLOCWATCH_COMMON_FIELDS
    "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
    "\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
    "\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n\n"
    "print fmt: \"<-- %ps (%u) (start: %llx  end: %llx) over: %u\", (void *)REC->func, "
    "REC->depth, REC->calltime, REC->rettime, REC->depth\n";

inline const char* const kDatTestFormat =
    "name: dat_test\nID: 700\nformat:\n" ALLOCWATCH_COMMON_FIELDS
    "\tfield:unsigned long nr;\toffset:8;\tsize:8;\tsigned:0;\n\n"
    "print fmt: \"nr=%lu\", REC->nr\n";


class FakeDatSources final : public DatSources {
public:
  FakeDatSources() {
    files["events/header_page"] = kHeaderPage;
    files["events/header_event"] = kHeaderEvent;
    files["events/ftrace/function/format"] = kFunctionFormat;
    files["events/ftrace/funcgraph_exit/format"] = kFuncgraphExitFormat;
    files["events/vmscan/dat_test/format"] = kDatTestFormat;
    files["printk_formats"] = "0xffffffff82000000 : \"a printk format\\n\"\n";
    files["saved_cmdlines"] = "4242 kswapd0\n";
    files["trace_clock"] = "[local] global counter\n";
    files["/proc/kallsyms"] = "ffffffff81000000 T _stext\n"
                              "ffffffff81234000 T shrink_node\n"
                              "ffffffff81235000 T shrink_lruvec\n";
    ftrace = {"function", "funcgraph_exit"};
  }

  // Hands a file over in chunks of `chunk_size` bytes.
  Status read(const std::string& path, const Chunk& out) override {
    reads.push_back(path);
    const auto file = files.find(path);
    if (file == files.end())
      return Error{"cannot read " + path + ": No such file or directory"};
    const std::string& content = file->second;
    for (std::size_t at = 0; at < content.size(); at += chunk_size) {
      Status taken = out(std::string_view(content).substr(at, chunk_size));
      if (!taken)
        return taken;
    }
    return Ok{};
  }
  Result<std::vector<std::string>> ftrace_events() override { return ftrace; }

  std::map<std::string, std::string> files;
  std::vector<std::string> ftrace;
  std::size_t chunk_size = 1000;
  std::vector<std::string> reads; // every read(), in order
};

// A 4096-byte sub-buffer page: the header (timestamp, commit) and records
// of the compressed form (type_len 1..28: up to 112 bytes of payload).
class PageBuilder {
public:
  static constexpr std::size_t kSize = 4096;
  static constexpr std::size_t kData = 16;

  explicit PageBuilder(std::uint64_t base) : bytes_(kSize), last_(base) {
    std::memcpy(bytes_.data(), &base, 8);
  }

  // One record at `ts`: its payload is the common header (type, pid) and
  // `fields`, 8 bytes each.
  PageBuilder& add(std::uint64_t ts, std::uint16_t type, std::int32_t pid,
                   const std::vector<std::uint64_t>& fields) {
    std::vector<unsigned char> payload(8 + 8 * fields.size());
    std::memcpy(payload.data(), &type, 2);
    std::memcpy(payload.data() + 4, &pid, 4);
    for (std::size_t i = 0; i < fields.size(); ++i)
      std::memcpy(payload.data() + 8 + 8 * i, &fields[i], 8);
    const std::uint64_t delta = ts - last_;
    if (delta >= (1u << 27) || payload.size() > 112 || at_ + 4 + payload.size() > kSize)
      throw std::logic_error("PageBuilder: a record this page cannot take");
    const std::uint32_t header =
        static_cast<std::uint32_t>(delta << 5) | static_cast<std::uint32_t>(payload.size() / 4);
    std::memcpy(bytes_.data() + at_, &header, 4);
    std::memcpy(bytes_.data() + at_ + 4, payload.data(), payload.size());
    at_ += 4 + payload.size();
    last_ = ts;
    const std::uint64_t commit = at_ - kData;
    std::memcpy(bytes_.data() + 8, &commit, 8);
    return *this;
  }

  const std::vector<unsigned char>& bytes() const { return bytes_; }
  std::vector<unsigned char>& bytes() { return bytes_; }

private:
  std::vector<unsigned char> bytes_;
  std::size_t at_ = kData;
  std::uint64_t last_;
};

} // namespace allocwatch::testing
