#include "event_format.h"
#include "library_print.h"
#include "ring/event_decoder.h"
#include "ring/event_formats.h"
#include "ring/print_names.h"
#include "trace/record_text.h"

#include <cstring>
#include <doctest/doctest.h>
#include <string>
#include <vector>

extern "C" {
#include <event-parse.h>
}

using namespace allocwatch;

namespace {

// 6.1's mm_vmscan_write_folio, as the guest of make e2e printed it: its
// page is x86's pfn_to_page(), a kernel variable's address plus the pfn.
const std::string kWriteFolio = testing::event_format(
    "mm_vmscan_write_folio", 525,
    "\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:int reclaim_flags;\toffset:16;\tsize:4;\tsigned:1;\n",
    "\"page=%p pfn=0x%lx flags=%s\", (((struct page *)vmemmap_base) + (REC->pfn)), REC->pfn, "
    "(REC->reclaim_flags) ? __print_flags(REC->reclaim_flags, \"|\", {0x0001u, "
    "\"RECLAIM_WB_ANON\"}, {0x0002u, \"RECLAIM_WB_FILE\"}, {0x0010u, \"RECLAIM_WB_MIXED\"}, "
    "{0x0004u, \"RECLAIM_WB_SYNC\"}, {0x0008u, \"RECLAIM_WB_ASYNC\"} ) : \"RECLAIM_WB_NONE\"");
const std::string kBegin = testing::event_format(
    "mm_vmscan_direct_reclaim_begin", 637, "\tfield:int order;\toffset:8;\tsize:4;\tsigned:1;\n",
    "\"order=%d\", REC->order");

// That guest's kallsyms, in part.
constexpr unsigned long long kVmemmapBase = 0xffffffff8e215730ULL;
const char* kKallsyms = "ffffffff81000000 T _stext\n"
                        "0000000000000000 A fixed_percpu_data\n"
                        "ffffffff8e215730 D vmemmap_base\n"
                        "ffffffff8e215738 D page_offset_base\n";

// A record of the write: pfn 0xbb8, written back from the file LRU.
std::vector<unsigned char> write_folio_payload() {
  std::vector<unsigned char> bytes(24, 0);
  const std::uint16_t type = 525;
  const std::int32_t pid = 44;
  const std::uint64_t pfn = 0xbb8;
  const std::int32_t flags = 0x0002 | 0x0008;
  std::memcpy(bytes.data(), &type, sizeof type);
  std::memcpy(bytes.data() + 4, &pid, sizeof pid);
  std::memcpy(bytes.data() + 8, &pfn, sizeof pfn);
  std::memcpy(bytes.data() + 16, &flags, sizeof flags);
  return bytes;
}

// What libtraceevent prints of the record's fields in `tep`.
std::string library_fields(tep_handle* tep) {
  return testing::library_fields(tep, write_folio_payload());
}

tep_handle* tep_with(const std::string& format) {
  tep_handle* tep = tep_alloc();
  tep_set_long_size(tep, 8);
  REQUIRE(tep_parse_event(tep, format.data(), format.size(), "vmscan") == 0);
  return tep;
}

// Answers from a fixed list, counting the questions.
struct FixedSymbols final : SymbolAddresses {
  std::vector<std::pair<std::string, std::uint64_t>> known;
  std::vector<std::vector<std::string>> asked;
  std::vector<std::pair<std::string, std::uint64_t>>
  addresses(const std::vector<std::string>& names) override {
    asked.push_back(names);
    std::vector<std::pair<std::string, std::uint64_t>> found;
    for (const std::string& name : names)
      for (const auto& entry : known)
        if (entry.first == name)
          found.push_back(entry);
    return found;
  }
};

} // namespace

TEST_CASE("print_names: the identifiers evaluated as numbers, once each, no string literal") {
  tep_handle* folio = tep_with(kWriteFolio);
  // Not "RECLAIM_WB_NONE", the string literal of the flags' other branch,
  // an atom too.
  CHECK(print_names(*tep_find_event(folio, 525)) == std::vector<std::string>{"vmemmap_base"});
  tep_free(folio);
  tep_handle* begin = tep_with(kBegin);
  CHECK(print_names(*tep_find_event(begin, 637)).empty());
  tep_free(begin);
  // A cast's item and an operand at any depth are numbers; a branch of a
  // "?:" that is the format's argument is printed as its conversion says,
  // a string literal here, so left out (libtraceevent parses "a + (b) ? c :
  // d" as "(a + (b)) ? c : d").
  tep_handle* nested = tep_with(testing::event_format(
      "nested", 700, "\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n",
      "\"a=%lx b=%lx c=%lx d=%s\", ((unsigned long)first_base), "
      "REC->pfn + ((REC->pfn > 1) ? second_base : 0x10), (REC->pfn & mask_bits) ? 1 : 2, "
      "REC->pfn ? \"one_word\" : \"other_word\""));
  CHECK(print_names(*tep_find_event(nested, 700)) ==
        std::vector<std::string>{"first_base", "mask_bits"});
  tep_free(nested);
}

TEST_CASE("a format's named symbol prints as trace-cmd reads it from the same kallsyms") {
  // trace-cmd's reading: the whole of kallsyms in the tep's own list.
  tep_handle* full = tep_with(kWriteFolio);
  REQUIRE(tep_parse_kallsyms(full, kKallsyms) == 0);
  const std::string expected = library_fields(full);
  CHECK(expected == "page=0xffffffff8e2162e8 pfn=0xbb8 flags=RECLAIM_WB_FILE|RECLAIM_WB_ASYNC");
  tep_free(full);

  // Without the name, libtraceevent takes 0 for it: the page is the pfn.
  tep_handle* bare = tep_with(kWriteFolio);
  CHECK(library_fields(bare) == "page=0xbb8 pfn=0xbb8 flags=RECLAIM_WB_FILE|RECLAIM_WB_ASYNC");
  tep_free(bare);

  // The names registered alone, before the first print: as the full list.
  tep_handle* named = tep_with(kWriteFolio);
  FixedSymbols symbols;
  symbols.known = {{"vmemmap_base", kVmemmapBase}};
  CHECK(register_print_names(named, *tep_find_event(named, 525), symbols) == 1);
  CHECK(library_fields(named) == expected);
  tep_free(named);
}

TEST_CASE("a pending format's names are registered when it is parsed; the decoder prints them") {
  tep_handle* tep = tep_alloc();
  tep_set_long_size(tep, 8);
  PendingFormats pending;
  FixedSymbols symbols;
  symbols.known = {{"vmemmap_base", kVmemmapBase}};
  pending.set_symbols(&symbols);
  REQUIRE(pending.add("vmscan", kWriteFolio));
  REQUIRE(pending.add("vmscan", kBegin));
  REQUIRE(tep_register_comm(tep, "kswapd0", 44) == 0);
  EventDecoder decoder(tep, LineStyle::Events, ReturnTime::Rettime, &pending);
  const std::vector<unsigned char> bytes = write_folio_payload();
  const Record& r = decoder.decode(
      RawEvent{0, 42'957'405'392ULL, bytes.data(), static_cast<std::uint32_t>(bytes.size())});
  REQUIRE(r.kind == LineKind::Event);
  CHECK(symbols.asked == std::vector<std::vector<std::string>>{{"vmemmap_base"}});
  std::string scratch;
  CHECK(text_of(r, scratch).fields ==
        "page=0xffffffff8e2162e8 pfn=0xbb8 flags=RECLAIM_WB_FILE|RECLAIM_WB_ASYNC");
  // A format that names nothing asks nothing.
  CHECK(pending.parse(tep, 637));
  CHECK(symbols.asked.size() == 1);
  tep_free(tep);
}
