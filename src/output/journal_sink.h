// JournalSink: the incidents of a watch, one structured journal entry each,
// when allocwatch runs as a systemd service whose output is the journal.
//
// Each entry holds every field of the record `--format json` writes for it
// (trace_records.h, as journal_fields.h names them: NAME, PID, COMM,
// DURATION_NS, LINES, ...), plus
//   MESSAGE            one line: "memcg reclaim stall of 12.345 ms in cat-4242 (memcg_reclaim)"
//   PRIORITY           by severity: see priority()
//   MESSAGE_ID         one per record type, for journalctl MESSAGE_ID=...
//   SYSLOG_IDENTIFIER  allocwatch
// LOST lines and the shrinker totals at the end are entries too. When the
// journal refuses an entry, the record goes to the fallback stream as JSON
// (nothing is lost) and the error is said once on `messages`.
#pragma once

#include "bind/incident.h"
#include "output/journal_fields.h"
#include "output/json_text.h"
#include "output/record_value.h"

#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <sys/uio.h>
#include <vector>

namespace allocwatch {

// True when this process's stdout is the journal: systemd sets
// JOURNAL_STREAM=DEVICE:INODE for a service whose stdout or stderr is
// connected to journald, and stdout's own fstat matches it (a redirection
// inside the service, or an inherited variable, does not).
bool stdout_is_journal();

// The journal's priority (syslog levels) of a span of `duration`:
// 3 (err) from 1 s, 4 (warning) from 100 ms, 5 (notice) below; 6 (info)
// for a background task's span; 7 (debug) for a span that is not a stall
// of its own (a call inside one).
int priority(const Incident& incident);

// "memcg reclaim stall of 12.345 ms in cat-4242 (memcg_reclaim)".
std::string journal_message(const Incident& incident);

class JournalSink : public Sink {
public:
  // Sends one entry; returns 0 or a negative errno (sd_journal_sendv's contract).
  using Send = std::function<int(std::span<const iovec>)>;

  // `fallback` and `messages` must outlive the sink. `send` defaults to
  // libsystemd's sd_journal_sendv.
  JournalSink(std::ostream& fallback, std::ostream& messages, Send send = {});

  void incident(const Incident& incident) override;
  void passthrough(std::string_view line, Nanos at) override;
  void finish(const ShrinkerStats& shrinkers) override;

  std::uint64_t sent() const { return sent_; }
  std::uint64_t failed() const { return failed_; }

private:
  // One entry: the fields of record_ and the journal's own.
  void send(const std::string& message, int priority, std::string_view message_id);

  RecordValue record_; // the record of the entry being sent
  std::vector<JournalField> fields_;
  std::vector<EventField> event_fields_;
  JsonWriter fallback_json_;
  std::ostream& fallback_;
  std::ostream& messages_;
  Send send_;
  std::uint64_t sent_ = 0;
  std::uint64_t failed_ = 0;
};

} // namespace allocwatch
