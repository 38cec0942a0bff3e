import Foundation
@testable import IOLoop
import Testing

/// The default number of event loops: the CPUs the process may run on, capped by its
/// container's CPU limit, from the files the kernel shows (laid out in a folder here).
@Suite struct AvailableCoresTests {
    /// A fake root with `proc/self/mountinfo`, `proc/thread-self/cgroup` and cgroup files.
    final class FakeRoot {
        let path = NSTemporaryDirectory() + "rv-cores-\(UUID().uuidString)"
        func write(_ relative: String, _ text: String) throws {
            let file = path + "/" + relative
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try text.write(toFile: file, atomically: true, encoding: .utf8)
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    static let mountinfoV2 = """
        24 30 0:22 / /sys rw,nosuid shared:7 - sysfs sysfs rw
        31 24 0:27 / /sys/fs/cgroup rw,nosuid,nodev shared:9 - cgroup2 cgroup2 rw,nsdelegate
        """

    /// A Kubernetes pod on cgroup v2 without a cgroup namespace: the pod limits 1.5 CPUs, its
    /// container sets none, so the process gets 2 loops of 8 cores.
    @Test func v2_theSmallestQuotaOnTheWayUp_roundedUp() throws {
        let root = FakeRoot()
        try root.write("proc/self/mountinfo", Self.mountinfoV2)
        try root.write("proc/thread-self/cgroup", "0::/kubepods/pod1/ctr\n")
        try root.write("sys/fs/cgroup/kubepods/cpu.max", "max 100000\n")
        try root.write("sys/fs/cgroup/kubepods/pod1/cpu.max", "150000 100000\n")
        try root.write("sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "max 100000\n")
        #expect(AvailableCores.cpuQuota(root: root.path) == 2)
        #expect(AvailableCores.resolve(cpus: 8, root: root.path) == 2)
        #expect(AvailableCores.resolve(cpus: 1, root: root.path) == 1, "fewer CPUs than the quota: the CPUs")
    }

    /// Inside a cgroup namespace (a container's own view) the process's cgroup is `/` and the
    /// mount point's file is its container's limit; half a CPU still makes one loop.
    @Test func v2_inACgroupNamespace_halfACPU_isOneLoop() throws {
        let root = FakeRoot()
        try root.write("proc/self/mountinfo", Self.mountinfoV2)
        try root.write("proc/thread-self/cgroup", "0::/\n")
        try root.write("sys/fs/cgroup/cpu.max", "50000 100000\n")
        #expect(AvailableCores.resolve(cpus: 4, root: root.path) == 1)
    }

    /// cgroup v1 (this kind of host, and older Docker): the `cpu` controller's mount, co-mounted
    /// with `cpuacct` under a path with a space, and a container whose mount root is its cgroup.
    @Test func v1_cfsQuotaOverPeriod_wherevertheCpuControllerIsMounted() throws {
        let root = FakeRoot()
        try root.write("proc/self/mountinfo", """
            31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
            32 31 0:29 /docker/abc /sys/fs/cgroup/cpu\\040acct rw,relatime - cgroup cgroup rw,cpu,cpuacct
            35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
            41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
            """)
        try root.write("proc/thread-self/cgroup", "4:memory:/docker/abc\n2:cpu,cpuacct:/docker/abc\n0::/\n")
        try root.write("sys/fs/cgroup/cpu acct/cpu.cfs_quota_us", "300000\n")
        try root.write("sys/fs/cgroup/cpu acct/cpu.cfs_period_us", "100000\n")
        #expect(AvailableCores.resolve(cpus: 16, root: root.path) == 3)
    }

    /// No limit anywhere (v1's -1, v2's "max", or no cgroup files at all): every CPU.
    @Test func noQuota_isEveryCPU() throws {
        let unlimited = FakeRoot()
        try unlimited.write("proc/self/mountinfo", Self.mountinfoV2 + "\n32 31 0:29 / /cg1 rw - cgroup cgroup rw,cpu\n")
        try unlimited.write("proc/thread-self/cgroup", "1:cpu:/\n0::/\n")
        try unlimited.write("sys/fs/cgroup/cpu.max", "max 100000\n")
        try unlimited.write("cg1/cpu.cfs_quota_us", "-1\n")
        try unlimited.write("cg1/cpu.cfs_period_us", "100000\n")
        #expect(AvailableCores.cpuQuota(root: unlimited.path) == nil)
        #expect(AvailableCores.resolve(cpus: 6, root: unlimited.path) == 6)

        let empty = FakeRoot()
        #expect(AvailableCores.resolve(cpus: 6, root: empty.path) == 6)
        #expect(AvailableCores.resolve(cpus: 0, root: empty.path) == 1, "never fewer than one loop")
    }

    /// The real process: its count is its affinity capped by its real cgroup's quota.
    @Test func thisProcess_isItsAffinityOrLess() throws {
        let affinity = try #require(AvailableCores.affinityCount())
        #expect(AvailableCores.count >= 1 && AvailableCores.count <= affinity)
        let group = try EventLoopGroup(loopCount: nil, name: "test-cores")
        defer { group.shutdown() }
        #expect(group.loops.count == AvailableCores.count)
    }
}
