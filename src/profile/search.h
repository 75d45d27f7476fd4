// Finding the profile `-p NAME|FILE` means, and listing the installed ones
// (--list-profiles).
//
// A value containing '/' or ending in ".yaml" is a file, used as given.
// Otherwise it is a NAME, looked up as NAME.yaml in each search directory in
// order; the first found wins. The directories, from profile_search_dirs():
//   1. ./configs                         (running from a source tree)
//   2. $XDG_CONFIG_HOME/allocwatch       (else $HOME/.config/allocwatch)
//   3. /etc/allocwatch/profiles          (the machine's own)
//   4. ALLOCWATCH_SHAREDIR/profiles      (shipped with the installed program)
//   5. DIR/../configs, DIR being the running executable's directory, only
//      if it exists: build/allocwatch finds the tree's configs/ wherever it
//      is run from. Last, so it never hides an operator's or an installed
//      profile.
// Functions taking `dirs` read only those directories, so tests can use
// their own.
#pragma once

#include "profile/profile.h"
#include "util/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace allocwatch {

// What the search directories are made of; profile_search_dirs() fills it
// from the environment and /proc/self/exe.
struct SearchEnvironment {
  std::string xdg_config_home; // empty when unset
  std::string home;            // empty when unset
  std::string executable;      // absolute path of the running program, or empty
};

std::vector<std::string> profile_search_dirs(const SearchEnvironment& environment);
std::vector<std::string> profile_search_dirs();

// True when `-p value` names a file rather than a profile name.
bool names_a_file(std::string_view value);

// The path `-p value` means. An unknown NAME is an error that says where it
// looked and which profiles exist.
Result<std::string> find_profile(const std::string& value, const std::vector<std::string>& dirs);

// find_profile, then load_profile_file.
Result<Profile> resolve_profile(const std::string& value, const std::vector<std::string>& dirs);

struct ProfileInfo {
  std::string name;
  std::string path;
  bool loads = false;  // false: the file has an error, and summary says which
  std::string summary; // the description's first line, or the load error
};

// Every NAME.yaml in `dirs`, the first found per name (the one -p NAME
// would load), sorted by name.
std::vector<ProfileInfo> list_profiles(const std::vector<std::string>& dirs);

} // namespace allocwatch
