#include "cgroup/container.h"

#include <array>

namespace allocwatch {

namespace {

constexpr std::size_t kIdLength = 64;
constexpr std::size_t kUuidLength = 36;

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool is_container_id(std::string_view text) {
  if (text.size() != kIdLength)
    return false;
  for (char c : text)
    if (!is_hex(c))
      return false;
  return true;
}

// An RFC 4122 uuid whose four separators are `separator`: "8-4-4-4-12".
bool is_uuid(std::string_view text, char separator) {
  if (text.size() != kUuidLength)
    return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? text[i] != separator : !is_hex(text[i]))
      return false;
  }
  return true;
}

std::string uuid_with_dashes(std::string_view text) {
  std::string uid(text);
  for (char& c : uid)
    if (c == '_')
      c = '-';
  return uid;
}

// "<prefix><id><suffix>" -> id, when id is a container id.
bool strip(std::string_view segment, std::string_view prefix, std::string_view suffix,
           std::string_view& id) {
  if (!segment.starts_with(prefix) || !segment.ends_with(suffix) ||
      segment.size() < prefix.size() + suffix.size())
    return false;
  id = segment.substr(prefix.size(), segment.size() - prefix.size() - suffix.size());
  return is_container_id(id);
}

// Scopes that are a container, by the runtime that names them so.
struct ScopeLayout {
  std::string_view prefix;
  std::string_view suffix;
  Runtime runtime;
};
constexpr std::array<ScopeLayout, 5> kScopes{{
    {"cri-containerd-", ".scope", Runtime::Containerd},
    {"crio-", ".scope", Runtime::CriO},
    {"docker-", ".scope", Runtime::Docker},
    {"libpod-", ".scope", Runtime::Podman},
    {"libpod-", "", Runtime::Podman}, // cgroupfs manager, under libpod_parent
}};

// "kubepods-burstable-pod<uid>.slice", "kubepods-pod<uid>.slice": the uid
// with '_' for '-'.
bool systemd_pod(std::string_view segment, std::string& uid) {
  constexpr std::string_view kSuffix = ".slice";
  if (!segment.starts_with("kubepods-") || !segment.ends_with(kSuffix))
    return false;
  const std::size_t pod = segment.rfind("pod");
  if (pod == std::string_view::npos || pod + 3 + kUuidLength + kSuffix.size() != segment.size())
    return false;
  const std::string_view text = segment.substr(pod + 3, kUuidLength);
  if (!is_uuid(text, '_') || segment[pod - 1] != '-')
    return false;
  uid = uuid_with_dashes(text);
  return true;
}

} // namespace

std::string_view runtime_name(Runtime runtime) {
  // In the order of Runtime's values.
  static constexpr std::array<std::string_view, 6> kNames{"",      "docker", "containerd",
                                                          "cri-o", "podman", "kubernetes"};
  return kNames[static_cast<std::size_t>(runtime)];
}

Container container_of(std::string_view cgroup_path) {
  Container found;
  // The segment before this one, for the cgroupfs layouts that a parent
  // directory names ("/docker/<id>", "/kubepods/.../pod<uid>/<id>").
  std::string_view parent;
  bool in_kubepods = false;
  bool under_pod = false;
  while (!cgroup_path.empty()) {
    const std::size_t slash = cgroup_path.find('/');
    const std::string_view segment = cgroup_path.substr(0, slash);
    cgroup_path =
        slash == std::string_view::npos ? std::string_view{} : cgroup_path.substr(slash + 1);
    if (segment.empty())
      continue;

    std::string_view id;
    if (segment == "kubepods" || segment.starts_with("kubepods.") ||
        segment.starts_with("kubepods-"))
      in_kubepods = true;
    if (segment.ends_with(".service") || segment.ends_with(".scope"))
      found.unit = segment;

    if (systemd_pod(segment, found.pod_uid)) {
      under_pod = true;
    } else if (in_kubepods && segment.starts_with("pod") && is_uuid(segment.substr(3), '-')) {
      found.pod_uid = segment.substr(3);
      under_pod = true;
    } else if (is_container_id(segment) && (parent == "docker" || under_pod)) {
      found.id = segment;
      found.runtime = parent == "docker" ? Runtime::Docker : Runtime::Kubernetes;
    } else if (!segment.starts_with("libpod-conmon-")) {
      for (const ScopeLayout& layout : kScopes) {
        if (strip(segment, layout.prefix, layout.suffix, id)) {
          found.id = id;
          found.runtime = layout.runtime;
          break;
        }
      }
    }
    parent = segment;
  }
  return found;
}

} // namespace allocwatch
