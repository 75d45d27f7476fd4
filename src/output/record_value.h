// RecordValue: one output record as values, built once and rendered by each
// structured output: as one JSON object (output/json_text.h) and as the
// fields of a journal entry (output/journal_fields.h). Nothing an output
// writes is read back by another.
//
// A record is an object: an ordered list of named values, each a string, an
// integer, a tracepoint's fields (an object of the fields parse_event_fields
// finds, parsed when rendered), or an object or list of values, closed by
// end(). The values of a list have no name.
//
//   RecordValue r;
//   r.string("type", "span").integer("pid", 170).list("lines");
//   r.string({}, "...").end();
//   -> {"type":"span","pid":170,"lines":["..."]}
//
// The record holds views: the bytes they point at must outlive its
// rendering. clear() keeps the capacity, so that a record reused from one
// call to the next allocates nothing once warm.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace allocwatch {

class RecordValue {
public:
  enum class Kind : std::uint8_t {
    String,
    Integer, // signed: `integer`
    Count,   // unsigned: `count`
    Fields,  // the fields `text` of a tracepoint of `event`
    Object,  // opens an object: the values up to its End are its members
    List,    // opens a list: the values up to its End are its elements
    End,     // closes the newest open Object or List
  };

  struct Value {
    Kind kind;
    std::string_view name;  // empty for a list's element
    std::string_view text;  // String, Fields
    std::string_view event; // Fields
    union {
      std::int64_t integer;
      std::uint64_t count;
    };
  };

  void clear() { values_.clear(); }

  RecordValue& string(std::string_view name, std::string_view text) {
    return add({Kind::String, name, text, {}, {0}});
  }
  RecordValue& integer(std::string_view name, std::int64_t value) {
    return add({Kind::Integer, name, {}, {}, {value}});
  }
  RecordValue& count(std::string_view name, std::uint64_t value) {
    Value counted{Kind::Count, name, {}, {}, {0}};
    counted.count = value;
    return add(counted);
  }
  RecordValue& fields(std::string_view name, std::string_view event, std::string_view text) {
    return add({Kind::Fields, name, text, event, {0}});
  }
  RecordValue& object(std::string_view name) { return add({Kind::Object, name, {}, {}, {0}}); }
  RecordValue& list(std::string_view name) { return add({Kind::List, name, {}, {}, {0}}); }
  RecordValue& end() { return add({Kind::End, {}, {}, {}, {0}}); }

  // The record's values in order (a finished record has closed every
  // Object and List it opened).
  std::span<const Value> values() const { return values_; }

private:
  RecordValue& add(const Value& value) {
    values_.push_back(value);
    return *this;
  }

  std::vector<Value> values_;
};

} // namespace allocwatch
