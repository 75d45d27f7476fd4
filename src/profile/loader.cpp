#include "profile/loader.h"

#include "kernel/vocabulary.h"
#include "profile/nearest.h"
#include "util/escape.h"
#include "util/read_limit.h"
#include "util/size.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <limits>
#include <map>
#include <span>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

namespace allocwatch {

namespace {

// A profile is a page of text (the shipped ones are under 5 KiB); anything
// larger is the wrong file (or /dev/zero). The bound also bounds yaml-cpp,
// whose scanner holds a token per '[' of "[[[[..." before it sees the end:
// 64 KiB of that costs it 15 MB and 0.1 s.
constexpr std::size_t kMaxProfileBytes = 64 * 1024;

constexpr std::string_view kProfileKeys[] = {
    "description",    "threshold",      "window",    "max_pending_per_task",
    "max_held_bytes", "buffer_size_kb", "functions", "events",
    "bindings",       "pairs",          "stalls",    "background"};
constexpr std::string_view kBindingKeys[] = {"functions", "events"};
constexpr std::string_view kPairKeys[] = {"name", "begin", "end", "claims", "shrinker", "modes"};
constexpr std::string_view kStallKeys[] = {"kind", "functions", "pairs"};
// A kind is a short label.
constexpr std::size_t kMaxKindBytes = 40;

// Profile text in messages: escaped, so that no byte of it drives the terminal.
std::string in_quotes(std::string_view text) {
  return quote(text);
}

std::string joined(std::span<const std::string_view> words) {
  std::string out;
  for (std::string_view word : words) {
    if (!out.empty())
      out += ", ";
    out += word;
  }
  return out;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates) {
  const std::optional<std::string> guess = nearest(word, candidates);
  return guess ? " (did you mean " + in_quotes(*guess) + "?)" : "";
}

const char* kind_of(const YAML::Node& node) {
  switch (node.Type()) {
  case YAML::NodeType::Map:
    return "a map";
  case YAML::NodeType::Sequence:
    return "a list";
  case YAML::NodeType::Scalar:
    return "a single value";
  default:
    return "nothing";
  }
}

// Kernel symbols as available_filter_functions prints them: C identifiers,
// plus the '.' of compiler clones such as "shrink_folio_list.constprop.0".
bool is_symbol(std::string_view text) {
  if (text.empty() || !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_'))
    return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  });
}

bool is_identifier(std::string_view text) {
  return is_symbol(text) && text.find('.') == std::string_view::npos;
}

std::string stem_of(const std::string& path) {
  std::string stem = std::filesystem::path(path).filename().string();
  if (stem.size() > 5 && stem.ends_with(".yaml"))
    stem.resize(stem.size() - 5);
  return stem;
}

// A key of a map and its value, as written.
struct Entry {
  YAML::Node key;
  YAML::Node value;
};
using Fields = std::map<std::string, Entry, std::less<>>;

// A name as written, with where it was written.
struct Named {
  std::string text;
  YAML::Mark mark;
};

// Far more values than any profile holds (the shipped ones have under 200).
constexpr std::size_t kMaxProfileValues = 10000;

// Why the YAML was refused before any node was built, and where.
struct Refused {
  YAML::Mark mark;
  std::string message;
};

// Walks the parser's events before yaml-cpp builds a single node, and throws
// Refused at the first thing a profile has no use for and yaml-cpp handles
// badly: an anchor or alias (`&a [*a]` builds a node that holds itself,
// which is never freed), a ',' outside a flow collection (yaml-cpp reads it
// as an empty document, again and again without end), more than one
// document, or more values than any profile has.
class ShapeCheck : public YAML::EventHandler {
public:
  explicit ShapeCheck(std::string_view text) : text_(text) {}

  // Reads every document of `text`; documents() then says how many.
  void run() {
    std::string copy(text_);
    std::istringstream in(copy);
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(*this))
      if (++documents_ > 1)
        throw Refused{second_root_, "a profile is one YAML document; this is a second one"};
  }
  int documents() const { return documents_; }

  void OnDocumentStart(const YAML::Mark&) override { root_seen_ = false; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (!root_seen_ && mark.pos >= 0 && static_cast<std::size_t>(mark.pos) < text_.size() &&
        text_[static_cast<std::size_t>(mark.pos)] == ',')
      throw Refused{mark, "syntax error: ',' outside a [list] or {map}"};
    node(mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    throw Refused{mark, "an alias (*name): anchors and aliases are not allowed in a profile; "
                        "write the value out where it is used"};
  }
  void OnAnchor(const YAML::Mark& mark, const std::string& name) override {
    throw Refused{mark, "an anchor " + quote("&" + name) +
                            ": anchors and aliases are not allowed in a profile; write the value "
                            "out where it is used"};
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string&) override {
    node(mark, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    node(mark, anchor);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    node(mark, anchor);
  }
  void OnMapEnd() override {}

private:
  void node(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) // OnAnchor names it first; this is a fallback
      throw Refused{mark, "an anchor: anchors and aliases are not allowed in a profile; write "
                          "the value out where it is used"};
    if (!root_seen_ && documents_ == 1)
      second_root_ = mark;
    root_seen_ = true;
    if (++values_ > kMaxProfileValues)
      throw Refused{mark, "more than " + std::to_string(kMaxProfileValues) +
                              " values: far more than a profile holds"};
  }

  std::string_view text_;
  int documents_ = 0;
  bool root_seen_ = false;
  std::size_t values_ = 0;
  YAML::Mark second_root_;
};

class Checker {
public:
  explicit Checker(std::string file) : file_(std::move(file)) {}

  Result<Profile> run(std::string_view text) {
    if (!check(text))
      return Error{error_};
    profile_.name = stem_of(file_);
    profile_.path = file_;
    return std::move(profile_);
  }

private:
  // Records the error and returns false, so that every check can end with
  // `return fail(...)` and every caller with `if (!check(...)) return false`.
  bool fail(const YAML::Mark& mark, const std::string& message) {
    error_ = located(mark) + message;
    return false;
  }

  // "FILE:LINE:COL: ", 1-based.
  std::string located(const YAML::Mark& mark) const {
    const int line = mark.line >= 0 ? mark.line + 1 : 1;
    const int column = mark.column >= 0 ? mark.column + 1 : 1;
    return escaped(file_) + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
  }

  // A doubt about an accepted value, in the same form as an error.
  void warn(const YAML::Mark& mark, const std::string& message) {
    profile_.warnings.push_back(located(mark) + "warning: " + message);
  }

  static SourcePos pos_of(const YAML::Mark& mark) {
    return SourcePos{mark.line + 1, mark.column + 1};
  }

  // yaml-cpp reports a tab in the indentation as whatever it makes of the
  // line ("illegal block entry"); say what is wrong when that is the cause.
  bool syntax_error(const YAML::Exception& e) {
    if (e.mark.line >= 0) {
      std::size_t start = 0;
      for (int line = 0; line < e.mark.line && start != std::string_view::npos; ++line) {
        start = text_.find('\n', start);
        if (start != std::string_view::npos)
          ++start;
      }
      if (start != std::string_view::npos) {
        const std::size_t content = text_.find_first_not_of(" \t", start);
        const std::size_t tab = text_.find('\t', start);
        if (tab != std::string_view::npos && tab < content) {
          YAML::Mark mark;
          mark.line = e.mark.line;
          mark.column = static_cast<int>(tab - start);
          return fail(mark, "syntax error: a tab in the indentation; YAML indents with spaces");
        }
      }
    }
    return fail(e.mark, "syntax error: " + escaped(e.msg));
  }

  // yaml-cpp marks an empty list entry ("-" and nothing after it) at the
  // token that follows it; point at its "-" instead.
  YAML::Mark mark_of_empty(const YAML::Node& node) const {
    YAML::Mark mark = node.Mark();
    if (mark.pos <= 0 || static_cast<std::size_t>(mark.pos) > text_.size())
      return mark;
    std::size_t dash = static_cast<std::size_t>(mark.pos);
    while (dash > 0 && std::isspace(static_cast<unsigned char>(text_[dash - 1])))
      --dash;
    if (dash == 0 || text_[dash - 1] != '-')
      return mark;
    --dash;
    const std::string_view before = text_.substr(0, dash);
    const std::size_t newline = before.rfind('\n');
    mark.pos = static_cast<int>(dash);
    mark.line = static_cast<int>(std::count(before.begin(), before.end(), '\n'));
    mark.column = static_cast<int>(newline == std::string_view::npos ? dash : dash - newline - 1);
    return mark;
  }

  bool reject_empty(const YAML::Node& item, std::string_view list) {
    if (item.IsNull())
      return fail(mark_of_empty(item), "an empty entry in " + in_quotes(list));
    return true;
  }

  bool check(std::string_view text) {
    text_ = text;
    std::optional<YAML::Node> document;
    try {
      ShapeCheck shape(text);
      shape.run();
      if (shape.documents() == 1)
        document.emplace(YAML::Load(std::string(text)));
    } catch (const Refused& refused) {
      return fail(refused.mark, refused.message);
    } catch (const YAML::DeepRecursion& e) { // its own message is "bad file"
      return fail(e.mark, "syntax error: nested " + std::to_string(e.depth()) +
                              " levels deep; a profile nests a few");
    } catch (const YAML::Exception& e) {
      return syntax_error(e);
    }
    if (!document || document->IsNull())
      return fail(YAML::Mark(), "the profile is empty: it needs at least a description, and "
                                "functions or pairs");
    const YAML::Node& root = *document;
    if (!root.IsMap())
      return fail(root.Mark(), std::string("a profile is a map of keys (") + joined(kProfileKeys) +
                                   "), not " + kind_of(root));
    root_mark_ = root.Mark();
    Fields fields;
    return read_fields(root, kProfileKeys, fields) && check_description(fields) &&
           check_numbers(fields) && check_functions(fields) && check_events(fields) &&
           check_each(fields, "bindings", &Checker::check_binding) &&
           check_each(fields, "pairs", &Checker::check_pair) &&
           check_each(fields, "stalls", &Checker::check_stall) && check_background(fields) &&
           check_whole();
  }

  // Fills `fields` from `map`, refusing keys that are not names, unknown
  // keys and keys given twice (yaml-cpp would silently keep the first).
  bool read_fields(const YAML::Node& map, std::span<const std::string_view> known, Fields& fields) {
    const std::vector<std::string_view> candidates(known.begin(), known.end());
    for (const auto& item : map) {
      const YAML::Node key = item.first;
      if (!key.IsScalar())
        return fail(key.Mark(), std::string("a key is a name, not ") + kind_of(key));
      const std::string& name = key.Scalar();
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        const std::string guess = did_you_mean(name, candidates);
        return fail(key.Mark(), "unknown key " + in_quotes(name) +
                                    (guess.empty() ? "; known keys: " + joined(known) : guess));
      }
      const auto [slot, inserted] = fields.try_emplace(name, Entry{key, item.second});
      if (!inserted)
        return fail(key.Mark(), "duplicate key " + in_quotes(name) + " (first given at line " +
                                    std::to_string(slot->second.key.Mark().line + 1) + ")");
    }
    return true;
  }

  static const Entry* find(const Fields& fields, std::string_view key) {
    const auto it = fields.find(key);
    return it == fields.end() ? nullptr : &it->second;
  }

  bool has_value(const Entry& entry) {
    if (entry.value.IsNull())
      return fail(entry.key.Mark(), in_quotes(entry.key.Scalar()) + " has no value");
    return true;
  }

  bool read_scalar(const Entry& entry, std::string& out) {
    if (!has_value(entry))
      return false;
    if (!entry.value.IsScalar())
      return fail(entry.value.Mark(), in_quotes(entry.key.Scalar()) +
                                          " must be a single value, not " + kind_of(entry.value));
    out = entry.value.Scalar();
    return true;
  }

  bool read_list(const Entry& entry) {
    if (!has_value(entry))
      return false;
    if (!entry.value.IsSequence())
      return fail(entry.value.Mark(),
                  in_quotes(entry.key.Scalar()) + " must be a list, not " + kind_of(entry.value));
    if (entry.value.size() == 0)
      return fail(entry.value.Mark(), in_quotes(entry.key.Scalar()) +
                                          " is an empty list: leave the key out or fill it");
    return true;
  }

  // A list of plain names, none given twice.
  bool read_names(const Entry& entry, std::vector<Named>& out) {
    if (!read_list(entry))
      return false;
    for (const YAML::Node& item : entry.value) {
      if (!reject_empty(item, entry.key.Scalar()))
        return false;
      if (!item.IsScalar() || item.Scalar().empty())
        return fail(item.Mark(), "each entry of " + in_quotes(entry.key.Scalar()) +
                                     " is a name, not " + kind_of(item));
      for (const Named& earlier : out)
        if (earlier.text == item.Scalar())
          return fail(item.Mark(), in_quotes(item.Scalar()) + " is listed twice in " +
                                       in_quotes(entry.key.Scalar()));
      out.push_back(Named{item.Scalar(), item.Mark()});
    }
    return true;
  }

  bool check_description(const Fields& fields) {
    const Entry* entry = find(fields, "description");
    if (!entry)
      return fail(root_mark_, "missing key 'description': say in a sentence what this profile "
                              "investigates");
    std::string text;
    if (!read_scalar(*entry, text))
      return false;
    const auto first = text.find_first_not_of(" \t\n");
    if (first == std::string::npos)
      return fail(entry->value.Mark(), "'description' is empty: say in a sentence what this "
                                       "profile investigates");
    text.erase(0, first);
    text.erase(text.find_last_not_of(" \t\n") + 1);
    profile_.description = std::move(text);
    return true;
  }

  bool read_duration(const Fields& fields, std::string_view key, Nanos bare_unit, Nanos& out,
                     YAML::Mark& mark) {
    const Entry* entry = find(fields, key);
    if (!entry)
      return true;
    std::string text;
    if (!read_scalar(*entry, text))
      return false;
    mark = entry->value.Mark();
    const Result<Nanos> duration = parse_duration(text, bare_unit);
    if (!duration.ok())
      return fail(mark, std::string(key) + ": " + duration.error().message);
    out = duration.value();
    return true;
  }

  bool read_count(const Fields& fields, std::string_view key, std::uint32_t& out) {
    const Entry* entry = find(fields, key);
    if (!entry)
      return true;
    std::string text;
    if (!read_scalar(*entry, text))
      return false;
    const YAML::Mark mark = entry->value.Mark();
    if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c));
        }))
      return fail(mark, std::string(key) + " must be a whole number, not " + in_quotes(text));
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint32_t>::max();
    std::uint64_t value = 0;
    for (char c : text) {
      value = value * 10 + static_cast<std::uint64_t>(c - '0');
      if (value > kMax)
        return fail(mark,
                    std::string(key) + " is too large (at most " + std::to_string(kMax) + ")");
    }
    if (value == 0)
      return fail(mark, std::string(key) + " must be at least 1");
    out = static_cast<std::uint32_t>(value);
    return true;
  }

  // Held lines need room for at least a few long lines; beyond 1 GiB the
  // bound would not keep anything small.
  bool read_held_bytes(const Fields& fields) {
    const Entry* entry = find(fields, "max_held_bytes");
    if (!entry)
      return true;
    std::string text;
    if (!read_scalar(*entry, text))
      return false;
    Result<std::uint64_t> size = parse_size(text);
    if (!size.ok())
      return fail(entry->value.Mark(), "max_held_bytes: " + size.error().message);
    if (*size < (64u << 10) || *size > (1u << 30))
      return fail(entry->value.Mark(), "max_held_bytes must be from 64KiB to 1GiB, not " + text);
    profile_.max_held_bytes = *size;
    return true;
  }

  bool check_numbers(const Fields& fields) {
    threshold_mark_ = window_mark_ = root_mark_;
    window_given_ = find(fields, "window") != nullptr;
    if (!read_duration(fields, "threshold", kMicro, profile_.threshold, threshold_mark_) ||
        !read_duration(fields, "window", kSecond, profile_.window, window_mark_) ||
        !read_count(fields, "max_pending_per_task", profile_.max_pending_per_task) ||
        !read_held_bytes(fields) || !read_count(fields, "buffer_size_kb", profile_.buffer_size_kb))
      return false;
    // tracing_thresh is a whole number of microseconds, and 0 turns the
    // threshold off: below 1us the kernel would print every call.
    if (profile_.threshold < kMicro)
      return fail(threshold_mark_, "threshold must be at least 1us: the kernel's tracing_thresh "
                                   "counts whole microseconds");
    if (profile_.window <= 0)
      return fail(window_mark_, "window must be more than 0");
    return true;
  }

  bool check_function_name(const YAML::Node& node) {
    if (!node.IsScalar())
      return fail(node.Mark(),
                  std::string("a function alternative is a name, not ") + kind_of(node));
    const std::string& name = node.Scalar();
    if (name.find_first_of("*?[") != std::string::npos)
      return fail(node.Mark(), in_quotes(name) + ": globs are not supported; list exact function "
                                                 "names");
    if (!is_symbol(name))
      return fail(node.Mark(), in_quotes(name) + " is not a kernel function name");
    const auto earlier = function_index_.find(name);
    if (earlier != function_index_.end())
      return fail(node.Mark(), "function " + in_quotes(name) + " is already listed at line " +
                                   std::to_string(profile_.functions[earlier->second].pos.line));
    return true;
  }

  bool check_functions(const Fields& fields) {
    const Entry* entry = find(fields, "functions");
    if (!entry)
      return true;
    if (!read_list(*entry))
      return false;
    for (const YAML::Node& item : entry->value) {
      if (!reject_empty(item, "functions"))
        return false;
      FunctionSpec function;
      function.pos = pos_of(item.Mark());
      if (item.IsScalar()) {
        if (!check_function_name(item))
          return false;
        function.alternatives.push_back(item.Scalar());
      } else if (item.IsSequence()) {
        if (item.size() == 0)
          return fail(item.Mark(), "an empty list of alternatives: give at least one name");
        for (const YAML::Node& alternative : item) {
          if (!check_function_name(alternative))
            return false;
          if (std::find(function.alternatives.begin(), function.alternatives.end(),
                        alternative.Scalar()) != function.alternatives.end())
            return fail(alternative.Mark(),
                        in_quotes(alternative.Scalar()) + " is given twice as an alternative");
          function.alternatives.push_back(alternative.Scalar());
        }
      } else {
        return fail(item.Mark(), std::string("a function is a name or a list of alternative "
                                             "names, not ") +
                                     kind_of(item));
      }
      for (const std::string& name : function.alternatives)
        function_index_.emplace(name, profile_.functions.size());
      profile_.functions.push_back(std::move(function));
    }
    return true;
  }

  bool check_event(const Named& event) {
    const std::string& text = event.text;
    const auto slash = text.find('/');
    if (slash == std::string::npos) {
      const std::string_view system = known_event_system(text);
      if (!system.empty())
        return fail(event.mark, "event " + in_quotes(text) + " needs its system: write " +
                                    in_quotes(std::string(system) + "/" + text));
      return fail(event.mark, "event " + in_quotes(text) +
                                  " must be written as system/name, e.g. "
                                  "vmscan/mm_vmscan_direct_reclaim_begin");
    }
    const std::string system = text.substr(0, slash);
    const std::string name = text.substr(slash + 1);
    if (!is_known_event_system(system))
      return fail(event.mark, "unknown event system " + in_quotes(system) +
                                  ": profiles name vmscan and compaction events");
    if (!is_identifier(name))
      return fail(event.mark, in_quotes(text) + " is not an event name: after the system comes "
                                                "one name of letters, digits and '_'");
    const std::string_view known_system = known_event_system(name);
    if (known_system.empty()) {
      // Kernels add events: the running kernel's available_events decides
      // (a live run refuses names it lacks). The list only catches typos.
      std::vector<std::string> full_names;
      for (const KnownEvent& known : known_events())
        full_names.push_back(std::string(known.system) + "/" + std::string(known.name));
      warn(event.mark, "event " + in_quotes(text) + " is not one allocwatch knows" +
                           did_you_mean(text, {full_names.begin(), full_names.end()}) +
                           "; a live run uses it only if the kernel's available_events lists it");
    } else if (known_system != system)
      return fail(event.mark, in_quotes(name) + " is a " + std::string(known_system) +
                                  " event: write " +
                                  in_quotes(std::string(known_system) + "/" + name));
    profile_.events.push_back(EventSpec{system, name, pos_of(event.mark)});
    return true;
  }

  bool check_events(const Fields& fields) {
    const Entry* entry = find(fields, "events");
    if (!entry)
      return true;
    std::vector<Named> events;
    if (!read_names(*entry, events))
      return false;
    for (const Named& event : events)
      if (!check_event(event))
        return false;
    return true;
  }

  // A reference from a binding or pair to one of the profile's events.
  bool check_event_ref(const Named& ref) {
    if (ref.text.find('/') != std::string::npos)
      return fail(ref.mark, "bindings and pairs name events without their system: write " +
                                in_quotes(ref.text.substr(ref.text.find('/') + 1)));
    std::vector<std::string_view> listed;
    for (const EventSpec& event : profile_.events) {
      if (event.name == ref.text)
        return true;
      listed.push_back(event.name);
    }
    const std::string_view system = known_event_system(ref.text);
    if (!system.empty())
      return fail(ref.mark, "event " + in_quotes(ref.text) + " is not listed in 'events': add " +
                                std::string(system) + "/" + ref.text + " there");
    return fail(ref.mark, "event " + in_quotes(ref.text) + " is not listed in 'events'" +
                              did_you_mean(ref.text, listed));
  }

  // Adds the other kernel names of each function the binding names, so that
  // the binding holds whichever name this kernel has.
  std::vector<std::string> with_alternatives(const std::vector<Named>& names) const {
    std::vector<std::string> out;
    for (const Named& name : names)
      out.push_back(name.text);
    for (const Named& name : names)
      for (const std::string& alternative :
           profile_.functions[function_index_.at(name.text)].alternatives)
        if (std::find(out.begin(), out.end(), alternative) == out.end())
          out.push_back(alternative);
    return out;
  }

  bool check_binding(const YAML::Node& node) {
    if (!reject_empty(node, "bindings"))
      return false;
    if (!node.IsMap())
      return fail(node.Mark(), std::string("a binding is a map with 'functions' and 'events', "
                                           "not ") +
                                   kind_of(node));
    Fields fields;
    if (!read_fields(node, kBindingKeys, fields))
      return false;
    for (std::string_view key : kBindingKeys)
      if (!find(fields, key))
        return fail(node.Mark(), "a binding needs " + in_quotes(key));
    std::vector<Named> functions;
    std::vector<Named> events;
    if (!read_names(*find(fields, "functions"), functions) ||
        !read_names(*find(fields, "events"), events))
      return false;
    std::vector<std::string_view> listed;
    for (const auto& [name, index] : function_index_)
      listed.push_back(name);
    for (const Named& function : functions)
      if (!function_index_.contains(function.text))
        return fail(function.mark, "function " + in_quotes(function.text) +
                                       " is not listed in 'functions'" +
                                       did_you_mean(function.text, listed));
    Binding binding;
    binding.functions = with_alternatives(functions);
    for (const Named& event : events) {
      if (!check_event_ref(event))
        return false;
      binding.events.push_back(event.text);
    }
    binding.pos = pos_of(node.Mark());
    profile_.bindings.push_back(std::move(binding));
    return true;
  }

  // An optional list (bindings, pairs) whose every item check_item reads.
  bool check_each(const Fields& fields, std::string_view key,
                  bool (Checker::*check_item)(const YAML::Node&)) {
    const Entry* entry = find(fields, key);
    if (!entry)
      return true;
    if (!read_list(*entry))
      return false;
    for (const YAML::Node& node : entry->value)
      if (!(this->*check_item)(node))
        return false;
    return true;
  }

  bool read_event_ref(const Fields& fields, std::string_view key, std::string& out) {
    const Entry* entry = find(fields, key);
    if (!read_scalar(*entry, out))
      return false;
    return check_event_ref(Named{out, entry->value.Mark()});
  }

  bool read_modes(const Entry& entry, std::vector<Mode>& out) {
    std::vector<Named> names;
    if (!read_names(entry, names))
      return false;
    for (const Named& name : names) {
      if (name.text == "graph")
        out.push_back(Mode::Graph);
      else if (name.text == "events")
        out.push_back(Mode::Events);
      else
        return fail(name.mark, "unknown mode " + in_quotes(name.text) +
                                   did_you_mean(name.text, {"graph", "events"}) +
                                   "; the modes are graph and events");
    }
    return true;
  }

  bool read_shrinker(const Entry& entry, bool& out) {
    std::string text;
    if (!read_scalar(entry, text))
      return false;
    if (text != "true" && text != "false")
      return fail(entry.value.Mark(), "shrinker must be true or false, not " + in_quotes(text));
    out = text == "true";
    return true;
  }

  // In any one mode an event may begin one pair and end one pair: otherwise
  // one tracepoint would open two spans and the binder could not tell them
  // apart.
  bool check_pair_overlap(const PairSpec& pair, const YAML::Mark& mark) {
    for (const PairSpec& other : profile_.pairs) {
      for (Mode mode : pair.modes) {
        if (std::find(other.modes.begin(), other.modes.end(), mode) == other.modes.end())
          continue;
        const std::string where = " in " + std::string(mode_name(mode)) + " mode";
        if (other.begin == pair.begin)
          return fail(mark, "event " + in_quotes(pair.begin) + " already begins pair " +
                                in_quotes(other.name) + where);
        if (other.end == pair.end)
          return fail(mark, "event " + in_quotes(pair.end) + " already ends pair " +
                                in_quotes(other.name) + where);
      }
    }
    return true;
  }

  bool check_pair(const YAML::Node& node) {
    if (!reject_empty(node, "pairs"))
      return false;
    if (!node.IsMap())
      return fail(node.Mark(), std::string("a pair is a map with 'name', 'begin' and 'end', "
                                           "not ") +
                                   kind_of(node));
    Fields fields;
    if (!read_fields(node, kPairKeys, fields))
      return false;
    for (std::string_view key : {"name", "begin", "end"})
      if (!find(fields, key))
        return fail(node.Mark(), "a pair needs " + in_quotes(key));
    PairSpec pair;
    pair.pos = pos_of(node.Mark());
    const Entry& name = *find(fields, "name");
    if (!read_scalar(name, pair.name))
      return false;
    if (!is_identifier(pair.name))
      return fail(name.value.Mark(),
                  "pair name " + in_quotes(pair.name) + " is not a name (letters, digits and '_')");
    for (const PairSpec& other : profile_.pairs)
      if (other.name == pair.name)
        return fail(name.value.Mark(), "pair " + in_quotes(pair.name) +
                                           " is already defined at line " +
                                           std::to_string(other.pos.line));
    if (!read_event_ref(fields, "begin", pair.begin) || !read_event_ref(fields, "end", pair.end))
      return false;
    if (pair.begin == pair.end)
      return fail(find(fields, "end")->value.Mark(), "pair " + in_quotes(pair.name) +
                                                         " begins and ends with the same event " +
                                                         in_quotes(pair.begin));
    if (const Entry* claims = find(fields, "claims")) {
      std::vector<Named> events;
      if (!read_names(*claims, events))
        return false;
      for (const Named& event : events) {
        if (!check_event_ref(event))
          return false;
        if (event.text == pair.begin || event.text == pair.end)
          return fail(event.mark, "pair " + in_quotes(pair.name) + " claims its own " +
                                      (event.text == pair.begin ? "begin" : "end") +
                                      " event; its begin and end lines are printed anyway");
        pair.claims.push_back(event.text);
      }
    }
    if (const Entry* shrinker = find(fields, "shrinker")) {
      if (!read_shrinker(*shrinker, pair.shrinker))
        return false;
      // Only these two events print the shrinker instance the pairing needs.
      const std::string_view begin = event_of_role(EventRole::ShrinkSlabStart).name;
      const std::string_view end = event_of_role(EventRole::ShrinkSlabEnd).name;
      if (pair.shrinker && (pair.begin != begin || pair.end != end))
        return fail(shrinker->value.Mark(), "a shrinker pair must begin with " +
                                                std::string(begin) + " and end with " +
                                                std::string(end));
    }
    if (const Entry* modes = find(fields, "modes")) {
      if (!read_modes(*modes, pair.modes))
        return false;
    } else {
      pair.modes = {Mode::Graph, Mode::Events};
    }
    if (!check_pair_overlap(pair, node.Mark()))
      return false;
    profile_.pairs.push_back(std::move(pair));
    return true;
  }

  // A report label: lower-case words, e.g. "direct reclaim".
  static bool is_kind_label(std::string_view text) {
    return !text.empty() && text.size() <= kMaxKindBytes &&
           std::islower(static_cast<unsigned char>(text[0])) &&
           std::all_of(text.begin(), text.end(), [](char c) {
             return std::islower(static_cast<unsigned char>(c)) ||
                    std::isdigit(static_cast<unsigned char>(c)) || c == ' ' || c == '-' || c == '_';
           });
  }

  // Which stall kind already claims a span of this name, if any.
  const StallKind* kind_of_span(const std::string& name, bool pair) const {
    for (const StallKind& stall : profile_.stalls) {
      const std::vector<std::string>& names = pair ? stall.pairs : stall.functions;
      if (std::find(names.begin(), names.end(), name) != names.end())
        return &stall;
    }
    return nullptr;
  }

  bool check_stall(const YAML::Node& node) {
    if (!reject_empty(node, "stalls"))
      return false;
    if (!node.IsMap())
      return fail(node.Mark(), std::string("a stall is a map with 'kind' and 'functions' or "
                                           "'pairs', not ") +
                                   kind_of(node));
    Fields fields;
    if (!read_fields(node, kStallKeys, fields))
      return false;
    if (!find(fields, "kind"))
      return fail(node.Mark(), "a stall needs 'kind': the name the report gives it");
    if (!find(fields, "functions") && !find(fields, "pairs"))
      return fail(node.Mark(), "a stall needs 'functions' or 'pairs': the spans of that kind");
    StallKind stall;
    stall.pos = pos_of(node.Mark());
    const Entry& kind = *find(fields, "kind");
    if (!read_scalar(kind, stall.kind))
      return false;
    if (!is_kind_label(stall.kind))
      return fail(kind.value.Mark(), "stall kind " + in_quotes(stall.kind) +
                                         " is not a label (lower-case letters, digits, spaces, "
                                         "'-' and '_', at most " +
                                         std::to_string(kMaxKindBytes) + " bytes)");
    for (const StallKind& other : profile_.stalls)
      if (other.kind == stall.kind)
        return fail(kind.value.Mark(), "stall kind " + in_quotes(stall.kind) +
                                           " is already defined at line " +
                                           std::to_string(other.pos.line));
    if (const Entry* functions = find(fields, "functions")) {
      std::vector<Named> names;
      if (!read_names(*functions, names))
        return false;
      std::vector<std::string_view> listed;
      for (const auto& [name, index] : function_index_)
        listed.push_back(name);
      for (const Named& function : names) {
        if (!function_index_.contains(function.text))
          return fail(function.mark, "function " + in_quotes(function.text) +
                                         " is not listed in 'functions'" +
                                         did_you_mean(function.text, listed));
        for (const std::string& name :
             profile_.functions[function_index_.at(function.text)].alternatives)
          if (const StallKind* other = kind_of_span(name, false))
            return fail(function.mark, "function " + in_quotes(function.text) +
                                           " is already a stall of kind " + in_quotes(other->kind));
      }
      stall.functions = with_alternatives(names);
    }
    if (const Entry* pairs = find(fields, "pairs")) {
      std::vector<Named> names;
      if (!read_names(*pairs, names))
        return false;
      std::vector<std::string_view> listed;
      for (const PairSpec& pair : profile_.pairs)
        listed.push_back(pair.name);
      for (const Named& pair : names) {
        if (std::find(listed.begin(), listed.end(), pair.text) == listed.end())
          return fail(pair.mark, "pair " + in_quotes(pair.text) + " is not defined in 'pairs'" +
                                     did_you_mean(pair.text, listed));
        if (const StallKind* other = kind_of_span(pair.text, true))
          return fail(pair.mark, "pair " + in_quotes(pair.text) + " is already a stall of kind " +
                                     in_quotes(other->kind));
        stall.pairs.push_back(pair.text);
      }
    }
    profile_.stalls.push_back(std::move(stall));
    return true;
  }

  bool check_background(const Fields& fields) {
    const Entry* entry = find(fields, "background");
    if (!entry)
      return true;
    std::vector<Named> names;
    if (!read_names(*entry, names))
      return false;
    profile_.background.clear();
    for (const Named& name : names) {
      if (name.text.size() > kTaskCommBytes)
        return fail(name.mark, "background task " + in_quotes(name.text) +
                                   " is longer than a task name can be (" +
                                   std::to_string(kTaskCommBytes) + " bytes)");
      profile_.background.push_back(name.text);
    }
    return true;
  }

  bool check_whole() {
    if (profile_.functions.empty() && profile_.pairs.empty())
      return fail(root_mark_, "the profile traces nothing: give 'functions' (graph mode) or "
                              "'pairs' (events mode)");
    // Pending events older than the window are dropped, so a call longer
    // than the window could never claim its first events.
    if (profile_.window < profile_.threshold)
      return fail(window_given_ ? window_mark_ : threshold_mark_,
                  "window (" + format_duration(profile_.window) +
                      ") is shorter than the threshold (" + format_duration(profile_.threshold) +
                      "): a slow call's events would be dropped before it ends");
    return true;
  }

  std::string file_;
  std::string_view text_; // the profile's text, while check() runs
  std::string error_;
  Profile profile_;
  YAML::Mark root_mark_;
  YAML::Mark threshold_mark_;
  YAML::Mark window_mark_;
  bool window_given_ = false;
  std::map<std::string, std::size_t, std::less<>> function_index_; // name → functions index
};

} // namespace

Result<Profile> load_profile_text(std::string_view yaml, const std::string& name_for_messages) {
  if (yaml.size() > kMaxProfileBytes)
    return Error{escaped(name_for_messages) + ": larger than 64 KiB: not a profile"};
  return Checker(name_for_messages).run(yaml);
}

Result<Profile> load_profile_file(const std::string& path) {
  auto failed = [&](const std::string& why) -> Error { return Error{escaped(path) + ": " + why}; };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return failed(std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return failed("is a directory, not a profile");
  }
  std::string text;
  const int err = read_at_most(fd, kMaxProfileBytes, text);
  ::close(fd);
  if (err == EFBIG)
    return failed("larger than 64 KiB: not a profile");
  if (err != 0)
    return failed(std::string("cannot read: ") + std::strerror(err));
  return load_profile_text(text, path);
}

} // namespace allocwatch
