#include "output/journal_sink.h"

#include "bind/shrinker_stats.h"
#include "output/trace_records.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <ostream>
#include <sys/stat.h>
// Without it, every entry would name this file and line (CODE_FILE=...).
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>
#include <unistd.h>
#include <vector>

namespace allocwatch {

namespace {

// journalctl MESSAGE_ID=...: one ID per kind of entry (made with systemd-id128 new).
constexpr std::string_view kStallId = "5e1fefd551e04db7b4321847c804a337";
constexpr std::string_view kLostId = "742a14994dc6468a9fc0a5d575d38284";
constexpr std::string_view kShrinkerId = "891375134fee485094327826d896951f";

int send_to_journald(std::span<const iovec> fields) {
  return sd_journal_sendv(fields.data(), static_cast<int>(fields.size()));
}

// sd_journal_sendv hands an entry to the kernel as one iovec array, two
// iovecs per field and five for a field whose value holds a newline; past
// IOV_MAX (1024) in all it fails with EINVAL. A stall of a few hundred lines
// is over: a LINES field each, and its tracepoints' fields as many again.
constexpr std::size_t kMaxEntryIovecs = 1000; // room for the few it adds itself

std::size_t iovecs_of(const std::vector<JournalField>& fields) {
  std::size_t iovecs = 0;
  for (const JournalField& field : fields)
    iovecs += field.value.find('\n') == std::string::npos ? 2 : 5;
  return iovecs;
}

// Each field that repeats once, where it first came, its values one per
// line: the entry then has a field per name, not per value.
std::vector<JournalField> repeats_joined(const std::vector<JournalField>& fields) {
  std::vector<JournalField> joined;
  std::map<std::string_view, std::size_t> at; // name -> its place in `joined`
  for (const JournalField& field : fields) {
    const auto [it, first] = at.try_emplace(field.name, joined.size());
    if (first)
      joined.push_back(field);
    else
      joined[it->second].value.append("\n").append(field.value);
  }
  return joined;
}

// "12.345 ms": milliseconds, three decimals (a summary; the fields are exact).
std::string short_ms(Nanos ns) {
  std::string ms = format_ms(ns);
  return ms.substr(0, ms.size() - 3) + " ms";
}

} // namespace

bool stdout_is_journal() {
  const char* stream = std::getenv("JOURNAL_STREAM");
  if (stream == nullptr)
    return false;
  unsigned long long device = 0, inode = 0;
  char end = 0;
  if (std::sscanf(stream, "%llu:%llu%c", &device, &inode, &end) != 2)
    return false;
  struct stat st {};
  return ::fstat(STDOUT_FILENO, &st) == 0 && st.st_dev == device && st.st_ino == inode;
}

int priority(const Incident& incident) {
  if (incident.kind.empty())
    return 7;
  if (incident.background)
    return 6;
  const Nanos duration = incident.end - incident.start;
  if (duration >= kSecond)
    return 3;
  if (duration >= 100 * kMilli)
    return 4;
  return 5;
}

std::string journal_message(const Incident& incident) {
  const std::string task = std::string(incident.comm) + "-" + std::to_string(incident.pid);
  const std::string took = short_ms(incident.end - incident.start);
  const std::string span = incident.span.empty() ? "?" : std::string(incident.span);
  if (incident.kind.empty())
    return "slow " + span + " of " + took + " in " + task + " (inside a stall)";
  if (incident.background)
    return std::string(incident.kind) + " of " + took + " in background task " + task + " (" +
           span + ")";
  return std::string(incident.kind) + " stall of " + took + " in " + task + " (" + span + ")";
}

JournalSink::JournalSink(std::ostream& fallback, std::ostream& messages, Send send)
    : fallback_(fallback), messages_(messages), send_(send ? std::move(send) : send_to_journald) {}

void JournalSink::incident(const Incident& incident) {
  span_record(incident, record_);
  send(journal_message(incident), priority(incident), kStallId);
}

void JournalSink::passthrough(std::string_view line, Nanos) {
  lost_record(line, record_);
  send("the kernel lost events: " + std::string(line), 4, kLostId);
}

void JournalSink::finish(const ShrinkerStats& shrinkers) {
  for (const ShrinkerSummary& shrinker : shrinkers.summary()) {
    shrinker_record(shrinker, record_);
    const ShrinkerTotals& t = shrinker.totals;
    send("shrinker " + std::string(shrinker.symbol) + ": " + short_ms(t.total) + " in " +
             std::to_string(t.calls) + " calls, the longest " + short_ms(t.max),
         6, kShrinkerId);
  }
  fallback_.flush();
}

void JournalSink::send(const std::string& message, int priority, std::string_view message_id) {
  std::vector<std::string> fields = {
      "MESSAGE=" + message,
      "PRIORITY=" + std::to_string(priority),
      "MESSAGE_ID=" + std::string(message_id),
      "SYSLOG_IDENTIFIER=allocwatch",
  };
  journal_fields(record_, fields_, event_fields_);
  // The own fields above have no newline: two iovecs each.
  if (2 * fields.size() + iovecs_of(fields_) > kMaxEntryIovecs)
    fields_ = repeats_joined(fields_);
  for (const JournalField& field : fields_)
    fields.push_back(field.name + "=" + field.value);
  std::vector<iovec> iov;
  iov.reserve(fields.size());
  for (std::string& field : fields)
    iov.push_back(iovec{field.data(), field.size()});
  if (const int error = send_(iov); error < 0) {
    if (failed_++ == 0)
      messages_ << "allocwatch: cannot write to the journal (" << std::strerror(-error)
                << "): incidents go to standard output as JSON Lines instead\n";
    fallback_json_.write_line(fallback_, record_);
    return;
  }
  ++sent_;
}

} // namespace allocwatch
