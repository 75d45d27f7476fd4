#include "profile/search.h"

#include "profile/loader.h"
#include "profile/nearest.h"
#include "util/escape.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <system_error>

namespace allocwatch {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kExtension = ".yaml";

bool is_profile_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

bool directory_exists(const std::string& dir) {
  std::error_code error;
  return fs::is_directory(dir, error);
}

bool regular_file_exists(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

// Adds `dir` unless an earlier entry is the same directory under another
// name (./configs and build/../configs, run from the source tree).
void add_dir(std::vector<std::string>& dirs, std::string dir) {
  for (const std::string& earlier : dirs) {
    std::error_code error;
    if (earlier == dir || fs::equivalent(earlier, dir, error))
      return;
  }
  dirs.push_back(std::move(dir));
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

// The profiles in one directory, by name.
std::map<std::string, std::string> profiles_in(const std::string& dir) {
  std::map<std::string, std::string> found;
  std::error_code error;
  fs::directory_iterator it(dir, error);
  if (error)
    return found;
  for (const fs::directory_entry& entry : it) {
    const std::string file = entry.path().filename().string();
    if (file.size() <= kExtension.size() || !file.ends_with(kExtension) ||
        !regular_file_exists(entry.path()))
      continue;
    found.emplace(file.substr(0, file.size() - kExtension.size()), entry.path().string());
  }
  return found;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words)
    out += (out.empty() ? "" : ", ") + word;
  return out;
}

} // namespace

std::vector<std::string> profile_search_dirs(const SearchEnvironment& environment) {
  std::vector<std::string> dirs;
  add_dir(dirs, "./configs");
  // The XDG base directory spec: an unset, empty or relative
  // XDG_CONFIG_HOME means $HOME/.config.
  if (environment.xdg_config_home.starts_with('/'))
    add_dir(dirs, environment.xdg_config_home + "/allocwatch");
  else if (!environment.home.empty())
    add_dir(dirs, environment.home + "/.config/allocwatch");
  add_dir(dirs, "/etc/allocwatch/profiles");
  add_dir(dirs, ALLOCWATCH_SHAREDIR "/profiles");
  if (!environment.executable.empty()) {
    const std::string beside =
        fs::path(environment.executable).parent_path().parent_path().string() + "/configs";
    if (directory_exists(beside))
      add_dir(dirs, beside);
  }
  return dirs;
}

std::vector<std::string> profile_search_dirs() {
  auto variable = [](const char* name) {
    const char* value = std::getenv(name);
    return std::string(value ? value : "");
  };
  std::error_code error;
  const fs::path executable = fs::read_symlink("/proc/self/exe", error);
  return profile_search_dirs(SearchEnvironment{variable("XDG_CONFIG_HOME"), variable("HOME"),
                                               error ? std::string() : executable.string()});
}

bool names_a_file(std::string_view value) {
  return value.find('/') != std::string_view::npos || value.ends_with(kExtension);
}

Result<std::string> find_profile(const std::string& value, const std::vector<std::string>& dirs) {
  if (names_a_file(value))
    return value;
  if (!is_profile_name(value))
    return Error{quote(value) +
                 " is not a profile name (letters, digits, '-', '_', '.'); a profile file "
                 "is given by a path with a '/' or a name ending in .yaml"};
  for (const std::string& dir : dirs) {
    const fs::path path = fs::path(dir) / (value + std::string(kExtension));
    if (regular_file_exists(path))
      return path.string();
  }
  std::vector<std::string> names;
  for (const ProfileInfo& info : list_profiles(dirs))
    names.push_back(info.name);
  const std::optional<std::string> guess =
      nearest(value, std::vector<std::string_view>(names.begin(), names.end()));
  std::string message = "unknown profile " + quote(value);
  if (guess)
    message += " (did you mean '" + *guess + "'?)";
  message += "\n  looked for " + escaped(value) + ".yaml in: " + joined(dirs);
  message += names.empty() ? "\n  no profiles are installed in any of them"
                           : "\n  profiles there: " + joined(names);
  return Error{message};
}

Result<Profile> resolve_profile(const std::string& value, const std::vector<std::string>& dirs) {
  Result<std::string> path = find_profile(value, dirs);
  if (!path.ok())
    return path.error();
  return load_profile_file(path.value());
}

std::vector<ProfileInfo> list_profiles(const std::vector<std::string>& dirs) {
  std::map<std::string, std::string> first_found;
  for (const std::string& dir : dirs)
    for (auto& [name, path] : profiles_in(dir))
      first_found.emplace(name, std::move(path));
  std::vector<ProfileInfo> profiles;
  for (const auto& [name, path] : first_found) {
    const Result<Profile> profile = load_profile_file(path);
    profiles.push_back(ProfileInfo{name, path, profile.ok(),
                                   profile.ok() ? first_line(profile.value().description)
                                                : profile.error().message});
  }
  return profiles;
}

} // namespace allocwatch
