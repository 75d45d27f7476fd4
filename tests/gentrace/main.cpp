// gentrace: a synthetic ftrace trace with known ground truth, for allocwatch's
// property tests and benchmark.
//
//   gentrace --format graph|events --seed N (--bytes SIZE | --calls N)
//            --threshold-us T --trace FILE --expected FILE
//            [--tasks N] [--cpus N] [--dense] [--max-span-us N] [--no-span]
//
// The shape options make the traces `make bench` needs beside the usual ones:
// --tasks N user tasks (else 6-18) on --cpus N cpus (else 2-8, at most 256);
// --dense: each task's next episode follows within tens of µs, not
// milliseconds, so that thousands of tasks are in reclaim at once;
// --max-span-us N: no call or pair lasts longer than about N µs (no stall);
// --no-span: one task that prints only tracepoints its spans would claim,
// and never a span (returns, begin/end pairs).
//
// It plans calls per task (each with its start, end and nested tracepoints),
// interleaves the tasks in global time order over 2-8 cpus, formats every line
// the way the kernel does (function_graph with funcgraph-proc, -abstime, -cpu
// and a tracing_thresh below T; or the nop tracer), and writes beside it the
// exact stdout `allocwatch -i FILE -t Tus` must print. The expected output comes
// from the plan (which task, which call, which µs each line carries), never
// from re-reading the text, and nothing of allocwatch is linked in: this
// program checks allocwatch, so it must not share its code or its mistakes.
//
// The rule it applies is DESIGN.md's "binding rule" with the default profile's
// bindings and pairs (model.h's tables). Times are integer nanoseconds.
//
// One job a file: model.h (the tracepoints, functions, bindings and pairs),
// planner (one task's episode), cast (the shrinkers and tasks), format (the
// kernel's lines), oracle (the binding rule: the expected output), generator
// (the interleaving), common.h, rng.h and text.h (times, the seeded random
// numbers, numbers into text), and this file (the command line).
#include "common.h"
#include "generator.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace gentrace {
namespace {

// "500M", "100MB", "4k", "1G", "12345": bytes (K = 1024).
std::uint64_t parse_size(std::string_view text) {
  std::uint64_t value = 0;
  std::size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i)
    value = value * 10 + static_cast<std::uint64_t>(text[i] - '0');
  if (i == 0)
    die("bad size: " + std::string(text));
  std::string_view unit = text.substr(i);
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b'))
    unit.remove_suffix(1);
  if (unit.empty())
    return value;
  if (unit.size() == 1) {
    switch (unit[0]) {
    case 'k':
    case 'K':
      return value << 10;
    case 'm':
    case 'M':
      return value << 20;
    case 'g':
    case 'G':
      return value << 30;
    default:
      break;
    }
  }
  die("bad size unit: " + std::string(text));
}

std::uint64_t parse_count(std::string_view flag, std::string_view text) {
  std::uint64_t value = 0;
  if (text.empty())
    die(std::string(flag) + " needs a number");
  for (char ch : text) {
    if (ch < '0' || ch > '9')
      die(std::string(flag) + " needs a number, not " + std::string(text));
    value = value * 10 + static_cast<std::uint64_t>(ch - '0');
  }
  return value;
}

constexpr const char* kUsage =
    "usage: gentrace --format graph|events --seed N (--bytes SIZE | --calls N)\n"
    "                --threshold-us T --trace FILE --expected FILE\n"
    "                [--tasks N] [--cpus N] [--dense] [--max-span-us N] [--no-span]\n";

Options parse_args(int argc, char** argv) {
  Options opt;
  bool have_format = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "-h" || flag == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (flag == "--dense") {
      opt.dense = true;
      continue;
    }
    if (flag == "--no-span") {
      opt.no_span = true;
      continue;
    }
    if (i + 1 >= argc)
      die(std::string(flag) + " needs a value\n" + kUsage);
    const std::string_view value = argv[++i];
    if (flag == "--format") {
      if (value == "graph")
        opt.format = Format::Graph;
      else if (value == "events")
        opt.format = Format::Events;
      else
        die("--format is graph or events, not " + std::string(value));
      have_format = true;
    } else if (flag == "--seed") {
      opt.seed = parse_count(flag, value);
    } else if (flag == "--bytes") {
      opt.bytes = parse_size(value);
    } else if (flag == "--calls") {
      opt.calls = parse_count(flag, value);
    } else if (flag == "--threshold-us") {
      opt.threshold = static_cast<Nanos>(parse_count(flag, value)) * kMicro;
    } else if (flag == "--trace") {
      opt.trace_path = value;
    } else if (flag == "--expected") {
      opt.expected_path = value;
    } else if (flag == "--tasks") {
      opt.tasks = static_cast<int>(std::min<std::uint64_t>(parse_count(flag, value), 100000));
    } else if (flag == "--cpus") {
      opt.cpus = static_cast<int>(std::clamp<std::uint64_t>(parse_count(flag, value), 1, 256));
    } else if (flag == "--max-span-us") {
      opt.max_span = static_cast<Nanos>(parse_count(flag, value)) * kMicro;
      if (opt.max_span < 16 * kMicro)
        die("--max-span-us must be at least 16");
    } else {
      die("unknown option " + std::string(flag) + "\n" + kUsage);
    }
  }
  if (!have_format || opt.trace_path.empty() || opt.expected_path.empty())
    die(std::string("missing option\n") + kUsage);
  if ((opt.bytes == 0) == (opt.calls == 0))
    die(std::string("give one of --bytes and --calls\n") + kUsage);
  if (opt.threshold < kMicro || opt.threshold > 10 * kMilli)
    die("--threshold-us must be 1..10000");
  return opt;
}

std::FILE* open_out(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr)
    die("cannot write " + path + ": " + std::strerror(errno));
  return f;
}

} // namespace
} // namespace gentrace

int main(int argc, char** argv) {
  using namespace gentrace;
  const Options opt = parse_args(argc, argv);
  std::FILE* trace = open_out(opt.trace_path);
  std::FILE* expected = open_out(opt.expected_path);
  generate(opt, trace, expected);
  if (std::fclose(trace) != 0 || std::fclose(expected) != 0)
    die("write failed");
  return 0;
}
