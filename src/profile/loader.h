// Reads a profile (the YAML file format is man/allocwatch-profile.5) and
// checks all of it before anyone uses it. The loader is pure: it reads the one
// file and nothing else (no tracefs, no environment), so a bad profile can
// never lead to a half-configured machine.
//
// Every error in the file's content is one line "FILE:LINE:COL: message",
// lines and columns 1-based; an error reading the file is "FILE: message".
// Only the first error is reported.
#pragma once

#include "profile/profile.h"
#include "util/result.h"

#include <string>
#include <string_view>

namespace allocwatch {

// Profile::name is the file name without its directory and ".yaml";
// Profile::path is `path` as given.
Result<Profile> load_profile_file(const std::string& path);

// The same for text already in memory; `name_for_messages` stands for FILE in
// errors and becomes Profile::path (its stem Profile::name).
Result<Profile> load_profile_text(std::string_view yaml, const std::string& name_for_messages);

} // namespace allocwatch
