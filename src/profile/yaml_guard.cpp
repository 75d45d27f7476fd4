#include "profile/yaml_guard.h"

#include "util/escape.h"
#include "util/read_limit.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

namespace allocwatch {

namespace {

constexpr const char* kTooLarge = "larger than 64 KiB: not a profile";

// Walks the parser's events (see yaml_guard.h), and throws YamlRefusal at the
// first thing refused.
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
        throw YamlRefusal{second_root_, "a profile is one YAML document; this is a second one"};
  }
  int documents() const { return documents_; }

  void OnDocumentStart(const YAML::Mark&) override { root_seen_ = false; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (!root_seen_ && mark.pos >= 0 && static_cast<std::size_t>(mark.pos) < text_.size() &&
        text_[static_cast<std::size_t>(mark.pos)] == ',')
      throw YamlRefusal{mark, "syntax error: ',' outside a [list] or {map}"};
    node(mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    throw YamlRefusal{mark, "an alias (*name): anchors and aliases are not allowed in a profile; "
                            "write the value out where it is used"};
  }
  void OnAnchor(const YAML::Mark& mark, const std::string& name) override {
    throw YamlRefusal{mark,
                      "an anchor " + quote("&" + name) +
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
      throw YamlRefusal{mark, "an anchor: anchors and aliases are not allowed in a profile; write "
                              "the value out where it is used"};
    if (!root_seen_ && documents_ == 1)
      second_root_ = mark;
    root_seen_ = true;
    if (++values_ > kMaxProfileValues)
      throw YamlRefusal{mark, "more than " + std::to_string(kMaxProfileValues) +
                                  " values: far more than a profile holds"};
  }

  std::string_view text_;
  int documents_ = 0;
  bool root_seen_ = false;
  std::size_t values_ = 0;
  YAML::Mark second_root_;
};

// yaml-cpp reports a tab in the indentation as whatever it makes of the
// line ("illegal block entry"); say what is wrong when that is the cause.
YamlRefusal syntax_error(std::string_view text, const YAML::Exception& e) {
  if (e.mark.line >= 0) {
    std::size_t start = 0;
    for (int line = 0; line < e.mark.line && start != std::string_view::npos; ++line) {
      start = text.find('\n', start);
      if (start != std::string_view::npos)
        ++start;
    }
    if (start != std::string_view::npos) {
      const std::size_t content = text.find_first_not_of(" \t", start);
      const std::size_t tab = text.find('\t', start);
      if (tab != std::string_view::npos && tab < content) {
        YAML::Mark mark;
        mark.line = e.mark.line;
        mark.column = static_cast<int>(tab - start);
        return {mark, "syntax error: a tab in the indentation; YAML indents with spaces"};
      }
    }
  }
  return {e.mark, "syntax error: " + escaped(e.msg)};
}

} // namespace

Result<std::string> read_profile_bytes(const std::string& path) {
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
    return failed(kTooLarge);
  if (err != 0)
    return failed(std::string("cannot read: ") + std::strerror(err));
  return text;
}

Status check_profile_size(std::string_view text, const std::string& name) {
  if (text.size() > kMaxProfileBytes)
    return Error{escaped(name) + ": " + kTooLarge};
  return Ok{};
}

std::variant<YAML::Node, YamlRefusal> load_guarded_yaml(std::string_view text) {
  try {
    ShapeCheck shape(text);
    shape.run();
    if (shape.documents() == 1)
      return YAML::Load(std::string(text));
    return YAML::Node();
  } catch (const YamlRefusal& refusal) {
    return refusal;
  } catch (const YAML::DeepRecursion& e) { // its own message is "bad file"
    return YamlRefusal{e.mark, "syntax error: nested " + std::to_string(e.depth()) +
                                   " levels deep; a profile nests a few"};
  } catch (const YAML::Exception& e) {
    return syntax_error(text, e);
  }
}

} // namespace allocwatch
