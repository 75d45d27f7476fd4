// Which container a cgroup path belongs to, as the runtimes that made the
// path name it: the container id and the Kubernetes pod uid where the path
// carries them, else the systemd unit. Paths are untrusted (any bytes, any
// length): a segment that does not match a layout exactly is not guessed at.
//
// The layouts, deepest segment first wins for the container and the unit:
//
//   systemd (systemd.unit(5), "slice", "scope", "service" units)
//     /system.slice/nginx.service                        unit nginx.service
//   Docker, systemd cgroup driver (moby daemon/cgroups, "docker-<id>.scope")
//     /system.slice/docker-<64 hex>.scope                docker <id>
//   Docker, cgroupfs driver ("/docker/<id>")
//     /docker/<64 hex>                                   docker <id>
//   Kubernetes, systemd driver (kubelet pkg/kubelet/cm/cgroup_manager_linux.go:
//   each '-' of a name nests a slice, so the pod uid's '-' are written '_')
//     /kubepods.slice/kubepods-burstable.slice/
//       kubepods-burstable-pod<uid with _>.slice/cri-containerd-<id>.scope
//                                                        containerd <id>, pod <uid>
//     .../kubepods-pod<uid>.slice/crio-<id>.scope        cri-o <id>, pod <uid>
//   Kubernetes, cgroupfs driver
//     /kubepods/burstable/pod<uid>/<64 hex>              kubernetes <id>, pod <uid>
//     /kubepods/pod<uid>/<64 hex>                        (guaranteed QoS)
//   Podman (libpod cgroup manager: systemd "libpod-<id>.scope", cgroupfs
//   "/libpod_parent/libpod-<id>"; "libpod-conmon-<id>.scope" is its monitor,
//   not the container)
//     /machine.slice/libpod-<64 hex>.scope                podman <id>
//
// A container id is 64 lower-case hex digits; a pod uid an RFC 4122 uuid
// (8-4-4-4-12 hex), given with '-'.
#pragma once

#include <string>
#include <string_view>

namespace allocwatch {

enum class Runtime : unsigned char { None, Docker, Containerd, CriO, Podman, Kubernetes };

// "docker", "containerd", "cri-o", "podman", "kubernetes" (a cgroupfs-driver
// pod's container, whose runtime the path does not say); "" for None.
std::string_view runtime_name(Runtime runtime);

struct Container {
  Runtime runtime = Runtime::None;
  std::string id;      // 64 hex digits; empty when the path names no container
  std::string pod_uid; // "8b1e1f2c-...-..."; empty when not in a Kubernetes pod
  std::string unit;    // deepest systemd .service or .scope; empty when none
  bool operator==(const Container&) const = default;
};

// The container, pod and unit that `cgroup_path` ("/system.slice/x.service",
// as /proc/PID/cgroup gives it) names.
Container container_of(std::string_view cgroup_path);

} // namespace allocwatch
