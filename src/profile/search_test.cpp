#include "profile/search.h"

#include <algorithm>
#include <cstdlib>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>

namespace allocwatch {

namespace {

namespace fs = std::filesystem;

// A directory under /tmp, removed with everything in it.
class TempDir {
public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "allocwatch-search-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code error;
    fs::remove_all(path_, error);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string dir(const std::string& name) const {
    fs::create_directories(path_ / name);
    return (path_ / name).string();
  }

private:
  fs::path path_;
};

void write_profile(const std::string& dir, const std::string& name,
                   const std::string& description) {
  std::ofstream(fs::path(dir) / (name + ".yaml"))
      << "description: " << description << "\nfunctions: [try_to_free_pages]\n";
}

} // namespace

TEST_CASE("profile search: a value with a '/' or ending in .yaml is a file") {
  CHECK(names_a_file("./mine"));
  CHECK(names_a_file("/etc/allocwatch/profiles/x.yaml"));
  CHECK(names_a_file("mine.yaml"));
  CHECK_FALSE(names_a_file("default"));
  CHECK_FALSE(names_a_file("direct-reclaim"));
  CHECK_FALSE(names_a_file("my.yml"));
  const std::vector<std::string> no_dirs;
  CHECK(find_profile("mine.yaml", no_dirs).value() == "mine.yaml");
  CHECK(find_profile("some/where", no_dirs).value() == "some/where");
}

TEST_CASE("profile search: a name is NAME.yaml in the first directory that has it") {
  TempDir temp;
  const std::string first = temp.dir("first");
  const std::string second = temp.dir("second");
  const std::string third = temp.dir("third");
  write_profile(second, "memcg", "second's memcg");
  write_profile(third, "memcg", "third's memcg");
  write_profile(third, "kswapd", "third's kswapd");
  const std::vector<std::string> dirs{first, second, third};

  CHECK(find_profile("memcg", dirs).value() == second + "/memcg.yaml");
  CHECK(find_profile("kswapd", dirs).value() == third + "/kswapd.yaml");
  const Result<Profile> profile = resolve_profile("memcg", dirs);
  REQUIRE_MESSAGE(profile.ok(), profile.error().message);
  CHECK(profile.value().description == "second's memcg");
  CHECK(profile.value().name == "memcg");

  // A directory named like a profile is not one.
  fs::create_directories(first + "/kswapd.yaml");
  CHECK(find_profile("kswapd", dirs).value() == third + "/kswapd.yaml");
}

TEST_CASE("profile search: an unknown name says where it looked and what exists") {
  TempDir temp;
  const std::string empty = temp.dir("empty");
  const std::string shipped = temp.dir("shipped");
  write_profile(shipped, "memcg", "m");
  write_profile(shipped, "kswapd", "k");
  const Result<std::string> found = find_profile("memgc", {empty, shipped});
  REQUIRE(!found.ok());
  CHECK(found.error().message == "unknown profile 'memgc' (did you mean 'memcg'?)\n"
                                 "  looked for memgc.yaml in: " +
                                     empty + ", " + shipped +
                                     "\n"
                                     "  profiles there: kswapd, memcg");
  const Result<std::string> nothing = find_profile("default", {empty});
  REQUIRE(!nothing.ok());
  CHECK(nothing.error().message == "unknown profile 'default'\n"
                                   "  looked for default.yaml in: " +
                                       empty + "\n  no profiles are installed in any of them");
  CHECK(find_profile("", {empty}).error().message.starts_with("'' is not a profile name"));
  CHECK(find_profile("two words", {empty})
            .error()
            .message.starts_with("'two words' is not a profile name"));
}

TEST_CASE("profile search: the list has the first profile of each name, sorted") {
  TempDir temp;
  const std::string user = temp.dir("user");
  const std::string system = temp.dir("system");
  write_profile(user, "memcg", "\"Mine.\\nMore about it.\"");
  write_profile(system, "memcg", "The shipped one.");
  write_profile(system, "compaction", "Compaction.");
  std::ofstream(fs::path(system) / "broken.yaml") << "description: [\n";
  std::ofstream(fs::path(system) / "notes.txt") << "not a profile\n";
  fs::create_directories(system + "/dir.yaml");

  const std::vector<ProfileInfo> list = list_profiles({user, temp.dir("missing-is-fine"), system});
  REQUIRE(list.size() == 3);
  CHECK(list[0].name == "broken");
  CHECK_FALSE(list[0].loads);
  CHECK(list[0].summary.starts_with(system + "/broken.yaml:2:1: syntax error"));
  CHECK(list[1].name == "compaction");
  CHECK(list[1].loads);
  CHECK(list[1].summary == "Compaction.");
  CHECK(list[2].name == "memcg");
  CHECK(list[2].path == user + "/memcg.yaml");
  CHECK(list[2].summary == "Mine.");
}

TEST_CASE("profile search: the directories, in order") {
  const std::string share = ALLOCWATCH_SHAREDIR "/profiles";
  CHECK(
      profile_search_dirs({"/xdg", "/home/op", ""}) ==
      std::vector<std::string>{"./configs", "/xdg/allocwatch", "/etc/allocwatch/profiles", share});
  // An unset, empty or relative XDG_CONFIG_HOME means $HOME/.config.
  CHECK(profile_search_dirs({"", "/home/op", ""})[1] == "/home/op/.config/allocwatch");
  CHECK(profile_search_dirs({"relative", "/home/op", ""})[1] == "/home/op/.config/allocwatch");
  CHECK(profile_search_dirs({"", "", ""}) ==
        std::vector<std::string>{"./configs", "/etc/allocwatch/profiles", share});

  // A build tree's configs/, beside the executable's directory, comes last
  // and only when it exists.
  TempDir temp;
  const std::string tree = temp.dir("tree");
  temp.dir("tree/build");
  const std::string executable = tree + "/build/allocwatch";
  CHECK(profile_search_dirs({"", "", executable}).size() == 3);
  temp.dir("tree/configs");
  CHECK(
      profile_search_dirs({"", "", executable}) ==
      std::vector<std::string>{"./configs", "/etc/allocwatch/profiles", share, tree + "/configs"});
}

TEST_CASE("profile search: the shipped profiles are found from the source tree") {
  // The unit tests run from the source tree's root, where ./configs is.
  const std::vector<std::string> dirs = profile_search_dirs();
  REQUIRE(!dirs.empty());
  CHECK(dirs[0] == "./configs");
  const Result<Profile> profile = resolve_profile("default", dirs);
  REQUIRE_MESSAGE(profile.ok(), profile.error().message);
  CHECK(profile.value().path == "./configs/default.yaml");
  const std::vector<ProfileInfo> list = list_profiles(dirs);
  for (const std::string name :
       {"compaction", "default", "direct-reclaim", "kswapd", "memcg", "shrinkers"}) {
    const auto it = std::find_if(list.begin(), list.end(),
                                 [&](const ProfileInfo& info) { return info.name == name; });
    REQUIRE_MESSAGE(it != list.end(), name);
    CHECK_MESSAGE(it->loads, it->summary);
  }
}

} // namespace allocwatch
