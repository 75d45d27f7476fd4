#include "cgroup/container.h"

#include <doctest/doctest.h>
#include <string>

using namespace allocwatch;

namespace {

const std::string kId = "3f4ae8b2c1d04e6f9a7b5c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f";
const std::string kUid = "8b1e1f2c-4d3a-4f5e-9a8b-7c6d5e4f3a2b";
const std::string kUidUnderscored = "8b1e1f2c_4d3a_4f5e_9a8b_7c6d5e4f3a2b";

} // namespace

// Real-world layouts, one per runtime and driver (see container.h for their
// sources); ids and uids as the runtimes write them.
TEST_CASE("container: Kubernetes with the systemd driver") {
  const Container containerd =
      container_of("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" +
                   kUidUnderscored + ".slice/cri-containerd-" + kId + ".scope");
  CHECK(containerd.runtime == Runtime::Containerd);
  CHECK(containerd.id == kId);
  CHECK(containerd.pod_uid == kUid);
  CHECK(containerd.unit == "cri-containerd-" + kId + ".scope");

  const Container crio = container_of("/kubepods.slice/kubepods-besteffort.slice/"
                                      "kubepods-besteffort-pod" +
                                      kUidUnderscored + ".slice/crio-" + kId + ".scope");
  CHECK(crio.runtime == Runtime::CriO);
  CHECK(crio.id == kId);
  CHECK(crio.pod_uid == kUid);

  // Guaranteed QoS: no QoS slice, "kubepods-pod<uid>.slice".
  const Container guaranteed = container_of("/kubepods.slice/kubepods-pod" + kUidUnderscored +
                                            ".slice/cri-containerd-" + kId + ".scope");
  CHECK(guaranteed.pod_uid == kUid);
  CHECK(guaranteed.id == kId);

  // The pod's own slice, before its containers: a pod, no container.
  const Container pod = container_of("/kubepods.slice/kubepods-burstable.slice/"
                                     "kubepods-burstable-pod" +
                                     kUidUnderscored + ".slice");
  CHECK(pod.pod_uid == kUid);
  CHECK(pod.id.empty());
  CHECK(pod.runtime == Runtime::None);
}

TEST_CASE("container: Kubernetes with the cgroupfs driver") {
  const Container burstable = container_of("/kubepods/burstable/pod" + kUid + "/" + kId);
  CHECK(burstable.runtime == Runtime::Kubernetes);
  CHECK(burstable.id == kId);
  CHECK(burstable.pod_uid == kUid);
  CHECK(burstable.unit.empty());

  const Container guaranteed = container_of("/kubepods/pod" + kUid + "/" + kId);
  CHECK(guaranteed.pod_uid == kUid);
  CHECK(guaranteed.id == kId);

  // Nested below a test's own directory, as the live tests make them.
  const Container nested =
      container_of("/allocwatch-test-1-pod/kubepods/besteffort/pod" + kUid + "/" + kId);
  CHECK(nested.pod_uid == kUid);
  CHECK(nested.id == kId);
}

TEST_CASE("container: Docker with either driver, podman, systemd units") {
  const Container systemd = container_of("/system.slice/docker-" + kId + ".scope");
  CHECK(systemd.runtime == Runtime::Docker);
  CHECK(systemd.id == kId);
  CHECK(systemd.pod_uid.empty());

  const Container cgroupfs = container_of("/docker/" + kId);
  CHECK(cgroupfs.runtime == Runtime::Docker);
  CHECK(cgroupfs.id == kId);

  const Container podman = container_of("/machine.slice/libpod-" + kId + ".scope");
  CHECK(podman.runtime == Runtime::Podman);
  CHECK(podman.id == kId);
  const Container podman_cgroupfs = container_of("/libpod_parent/libpod-" + kId);
  CHECK(podman_cgroupfs.runtime == Runtime::Podman);
  // podman's monitor process is not the container.
  const Container conmon = container_of("/machine.slice/libpod-conmon-" + kId + ".scope");
  CHECK(conmon.id.empty());
  CHECK(conmon.unit == "libpod-conmon-" + kId + ".scope");

  const Container service = container_of("/system.slice/nginx.service");
  CHECK(service.runtime == Runtime::None);
  CHECK(service.unit == "nginx.service");
  CHECK(container_of("/user.slice/user-1000.slice/session-3.scope").unit == "session-3.scope");
  CHECK(container_of("/") == Container{});
  CHECK(container_of("") == Container{});
}

TEST_CASE("container: near misses are not guessed at") {
  // A short id, upper-case hex, a uuid with the wrong separators.
  CHECK(container_of("/system.slice/docker-3f4ae8b2c1d0.scope").id.empty());
  std::string upper = kId;
  upper[0] = 'F';
  CHECK(container_of("/docker/" + upper).id.empty());
  CHECK(container_of("/kubepods/burstable/pod" + kUidUnderscored + "/" + kId).pod_uid.empty());
  CHECK(container_of("/kubepods.slice/kubepods-burstable-pod" + kUid + ".slice").pod_uid.empty());
  // A 64-hex directory that no runtime's parent names.
  CHECK(container_of("/elsewhere/" + kId).id.empty());
  // "pod<uid>" outside kubepods.
  CHECK(container_of("/pod" + kUid + "/" + kId).pod_uid.empty());
  CHECK(container_of("/kubepods.slice/kubepods-pod.slice").pod_uid.empty());
}

TEST_CASE("container: runtime names") {
  CHECK(runtime_name(Runtime::Containerd) == "containerd");
  CHECK(runtime_name(Runtime::CriO) == "cri-o");
  CHECK(runtime_name(Runtime::Docker) == "docker");
  CHECK(runtime_name(Runtime::Podman) == "podman");
  CHECK(runtime_name(Runtime::Kubernetes) == "kubernetes");
  CHECK(runtime_name(Runtime::None).empty());
}
