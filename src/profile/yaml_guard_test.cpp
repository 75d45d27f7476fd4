#include "profile/yaml_guard.h"

#include <doctest/doctest.h>
#include <string>

namespace allocwatch {
namespace {

// "LINE:COL: message" of a refusal, 1-based; "loaded" when none.
std::string refusal_of(std::string_view text) {
  const auto loaded = load_guarded_yaml(text);
  const YamlRefusal* refusal = std::get_if<YamlRefusal>(&loaded);
  if (refusal == nullptr)
    return "loaded";
  return std::to_string(refusal->mark.line + 1) + ":" + std::to_string(refusal->mark.column + 1) +
         ": " + refusal->message;
}

TEST_CASE("yaml guard: what yaml-cpp handles badly is refused before a node is built") {
  // A lone ',' made yaml-cpp's LoadAll return empty documents without end
  // (24 GB in 72 s); anchors and aliases can build a node that holds itself,
  // which yaml-cpp never frees.
  CHECK(refusal_of(",") == "1:1: syntax error: ',' outside a [list] or {map}");
  CHECK(refusal_of("---\n,") == "2:1: syntax error: ',' outside a [list] or {map}");
  CHECK(refusal_of("description: d\nfunctions: [f]\n...\n,\n") ==
        "4:1: syntax error: ',' outside a [list] or {map}");
  CHECK(refusal_of("&a [*a]") == "1:1: an anchor '&a': anchors and aliases are not allowed in a "
                                 "profile; write the value out where it is used");
  CHECK(refusal_of("description: d\nfunctions: [f]\nevents: *x\n") ==
        "3:9: syntax error: the referenced anchor is not defined");
  CHECK(refusal_of("a: 1\n---\nb: 2\n") ==
        "3:1: a profile is one YAML document; this is a second one");
  // Bounds on what a profile can hold: its values, its depth.
  std::string many = "description: d\nfunctions: [";
  for (int i = 0; i < 10001; ++i)
    many += "f" + std::to_string(i) + ",";
  many += "]\n";
  CHECK(refusal_of(many).ends_with(": more than 10000 values: far more than a profile holds"));
  CHECK(refusal_of(std::string(5000, '[')).starts_with("1:"));
  CHECK(refusal_of(std::string(5000, '[')).find(" levels deep; a profile nests a few") !=
        std::string::npos);
}

TEST_CASE("yaml guard: a tab in the indentation is named as such") {
  CHECK(refusal_of("functions:\n\t- f\n") ==
        "2:1: syntax error: a tab in the indentation; YAML indents with spaces");
}

TEST_CASE("yaml guard: no document is a null node, one document its node") {
  const auto empty = load_guarded_yaml("# nothing\n");
  REQUIRE(std::holds_alternative<YAML::Node>(empty));
  CHECK(std::get<YAML::Node>(empty).IsNull());
  const auto one = load_guarded_yaml("description: d\n");
  REQUIRE(std::holds_alternative<YAML::Node>(one));
  CHECK(std::get<YAML::Node>(one)["description"].Scalar() == "d");
}

TEST_CASE("yaml guard: a profile is at most 64 KiB") {
  CHECK(check_profile_size(std::string(64 * 1024, 'x'), "t.yaml").ok());
  const Status large = check_profile_size(std::string(64 * 1024 + 1, 'x'), "t.yaml");
  REQUIRE_FALSE(large.ok());
  CHECK(large.error().message == "t.yaml: larger than 64 KiB: not a profile");
}

} // namespace
} // namespace allocwatch
