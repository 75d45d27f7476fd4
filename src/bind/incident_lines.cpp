#include "bind/incident_lines.h"

#include "trace/parser.h"

namespace allocwatch {

void IncidentLines::print(const RecordFormatter* formatter) {
  lines_.clear();
  tracepoints_.clear();
  if (formatter == nullptr) {
    for (const Kept& kept : kept_) {
      lines_.push_back(kept.bytes);
      tracepoints_.push_back(kept.parse ? tracepoint_of(parse_line(kept.bytes)) : kept.tracepoint);
    }
    return;
  }
  // Every line printed first, then the views: the text may move as it grows.
  printed_.clear();
  places_.clear();
  for (const Kept& kept : kept_) {
    Place place{printed_.size(), 0, 0, 0};
    formatter->format(kept.bytes, printed_, place.fields_at, place.fields_size);
    place.size = printed_.size() - place.at;
    places_.push_back(place);
  }
  const std::string_view text = printed_;
  for (std::size_t i = 0; i < kept_.size(); ++i) {
    const std::string_view line = text.substr(places_[i].at, places_[i].size);
    lines_.push_back(line);
    if (kept_[i].parse) {
      tracepoints_.push_back(tracepoint_of(parse_line(line)));
    } else {
      Tracepoint tracepoint = kept_[i].tracepoint;
      if (!tracepoint.name.empty())
        tracepoint.fields = text.substr(places_[i].fields_at, places_[i].fields_size);
      tracepoints_.push_back(tracepoint);
    }
  }
}

} // namespace allocwatch
