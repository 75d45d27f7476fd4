#include "profile/loader.h"

#include "kernel/symbol_names.h"
#include "kernel/vocabulary.h"
#include "profile/nearest.h"
#include "profile/profile_fields.h"
#include "profile/yaml_guard.h"
#include "util/escape.h"
#include "util/size.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <variant>
#include <yaml-cpp/yaml.h>

namespace allocwatch {

namespace {

constexpr std::string_view kProfileKeys[] = {
    "description",    "threshold",      "window",    "max_pending_per_task",
    "max_held_bytes", "buffer_size_kb", "functions", "events",
    "bindings",       "pairs",          "stalls",    "background"};
constexpr std::string_view kBindingKeys[] = {"functions", "events"};
constexpr std::string_view kPairKeys[] = {"name", "begin", "end", "claims", "shrinker", "modes"};
constexpr std::string_view kStallKeys[] = {"kind", "functions", "pairs"};
// A kind is a short label.
constexpr std::size_t kMaxKindBytes = 40;

std::string stem_of(const std::string& path) {
  std::string stem = std::filesystem::path(path).filename().string();
  if (stem.size() > 5 && stem.ends_with(".yaml"))
    stem.resize(stem.size() - 5);
  return stem;
}

class Checker : FieldReader {
public:
  Checker(std::string file, std::string_view text) : FieldReader(std::move(file), text) {}

  Result<Profile> run() {
    if (!check())
      return Error{error()};
    profile_.name = stem_of(file());
    profile_.path = file();
    return std::move(profile_);
  }

private:
  // A doubt about an accepted value, in the same form as an error.
  void warn(const YAML::Mark& mark, const std::string& message) {
    profile_.warnings.push_back(located(mark) + "warning: " + message);
  }

  bool check() {
    const std::variant<YAML::Node, YamlRefusal> loaded = load_guarded_yaml(text());
    if (const YamlRefusal* refusal = std::get_if<YamlRefusal>(&loaded))
      return fail(refusal->mark, refusal->message);
    const YAML::Node& root = std::get<YAML::Node>(loaded);
    if (root.IsNull())
      return fail(YAML::Mark(), "the profile is empty: it needs at least a description, and "
                                "functions or pairs");
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

  // Held lines need room for at least a few long lines; beyond 1 GiB the
  // bound would not keep anything small.
  bool read_held_bytes(const Fields& fields) {
    return read_value(
        fields, "max_held_bytes", [&](const std::string& text, const YAML::Mark& mark) {
          Result<std::uint64_t> size = parse_size(text);
          if (!size.ok())
            return fail(mark, "max_held_bytes: " + size.error().message);
          if (*size < (64u << 10) || *size > (1u << 30))
            return fail(mark, "max_held_bytes must be from 64KiB to 1GiB, not " + text);
          profile_.max_held_bytes = *size;
          return true;
        });
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

  bool check_event(const Named& event, std::size_t entry, bool optional) {
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
    for (const EventSpec& earlier : profile_.events)
      if (earlier.name == name)
        return fail(event.mark, in_quotes(text) + " is listed twice in " + in_quotes("events"));
    profile_.events.push_back(EventSpec{system, name, pos_of(event.mark), entry, optional});
    return true;
  }

  bool check_events(const Fields& fields) {
    const Entry* entry = find(fields, "events");
    if (!entry)
      return true;
    if (!read_list(*entry))
      return false;
    for (std::size_t place = 0; place < entry->value.size(); ++place) {
      const YAML::Node item = entry->value[place];
      if (!reject_empty(item, "events"))
        return false;
      if (item.IsSequence() && item.size() == 0)
        return fail(item.Mark(), "an empty list of alternatives: give at least one name");
      for (std::size_t i = 0; i < (item.IsSequence() ? item.size() : 1); ++i) {
        const YAML::Node name = item.IsSequence() ? item[i] : item;
        if (!name.IsScalar() || name.Scalar().empty())
          return fail(name.Mark(), std::string("an event is system/name or a list of them, not ") +
                                       kind_of(name));
        if (!check_event(Named{name.Scalar(), name.Mark()}, place, item.IsSequence()))
          return false;
      }
    }
    return true;
  }

  // The events a binding or pair that claims `name` claims: those of its
  // entry in `events`, whichever name this kernel has.
  void add_with_alternatives(const std::string& name, std::vector<std::string>& out) const {
    for (const EventSpec& event : profile_.events)
      if (event.name == name)
        for (const EventSpec& other : profile_.events)
          if (other.entry == event.entry &&
              std::find(out.begin(), out.end(), other.name) == out.end())
            out.push_back(other.name);
  }

  // A reference from a binding or stall to one of the profile's functions.
  bool check_function_ref(const Named& ref) {
    if (function_index_.contains(ref.text))
      return true;
    std::vector<std::string_view> listed;
    for (const auto& [name, index] : function_index_)
      listed.push_back(name);
    return fail(ref.mark, "function " + in_quotes(ref.text) + " is not listed in 'functions'" +
                              did_you_mean(ref.text, listed));
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
    Fields fields;
    if (!read_entry_fields(node, "bindings", "a binding is a map with 'functions' and 'events'",
                           kBindingKeys, fields))
      return false;
    for (std::string_view key : kBindingKeys)
      if (!find(fields, key))
        return fail(node.Mark(), "a binding needs " + in_quotes(key));
    std::vector<Named> functions;
    std::vector<Named> events;
    if (!read_names(*find(fields, "functions"), functions) ||
        !read_names(*find(fields, "events"), events))
      return false;
    for (const Named& function : functions)
      if (!check_function_ref(function))
        return false;
    Binding binding;
    binding.functions = with_alternatives(functions);
    for (const Named& event : events) {
      if (!check_event_ref(event))
        return false;
      add_with_alternatives(event.text, binding.events);
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
    Fields fields;
    if (!read_entry_fields(node, "pairs", "a pair is a map with 'name', 'begin' and 'end'",
                           kPairKeys, fields))
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
        add_with_alternatives(event.text, pair.claims);
      }
    }
    if (const Entry* shrinker = find(fields, "shrinker")) {
      if (!read_bool(*shrinker, pair.shrinker))
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

  enum class Span { Function, Pair };

  // Which stall kind already claims a span of this name, if any.
  const StallKind* kind_of_span(const std::string& name, Span span) const {
    for (const StallKind& stall : profile_.stalls) {
      const std::vector<std::string>& names = span == Span::Pair ? stall.pairs : stall.functions;
      if (std::find(names.begin(), names.end(), name) != names.end())
        return &stall;
    }
    return nullptr;
  }

  bool check_stall(const YAML::Node& node) {
    Fields fields;
    if (!read_entry_fields(node, "stalls",
                           "a stall is a map with 'kind' and 'functions' or 'pairs'", kStallKeys,
                           fields))
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
      for (const Named& function : names) {
        if (!check_function_ref(function))
          return false;
        for (const std::string& name :
             profile_.functions[function_index_.at(function.text)].alternatives)
          if (const StallKind* other = kind_of_span(name, Span::Function))
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
        if (const StallKind* other = kind_of_span(pair.text, Span::Pair))
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
    // Held lines older than the window are dropped, so a call longer
    // than the window could never claim its first events.
    if (profile_.window < profile_.threshold)
      return fail(window_given_ ? window_mark_ : threshold_mark_,
                  "window (" + format_duration(profile_.window) +
                      ") is shorter than the threshold (" + format_duration(profile_.threshold) +
                      "): a slow call's events would be dropped before it ends");
    return true;
  }

  Profile profile_;
  YAML::Mark root_mark_;
  YAML::Mark threshold_mark_;
  YAML::Mark window_mark_;
  bool window_given_ = false;
  std::map<std::string, std::size_t, std::less<>> function_index_; // name → functions index
};

} // namespace

Result<Profile> load_profile_text(std::string_view yaml, const std::string& name_for_messages) {
  if (Status small = check_profile_size(yaml, name_for_messages); !small)
    return small.error();
  return Checker(name_for_messages, yaml).run();
}

Result<Profile> load_profile_file(const std::string& path) {
  Result<std::string> text = read_profile_bytes(path);
  if (!text)
    return text.error();
  return load_profile_text(*text, path);
}

} // namespace allocwatch
