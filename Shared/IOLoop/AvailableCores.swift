#if canImport(Glibc)
import Glibc
internal import CLinux
#endif

/// How many cores this process may keep busy: the CPUs its affinity mask allows, capped by its
/// cgroup's CPU quota rounded up (a container limited to 1.5 CPUs gets 2), and at least 1.
///
/// `sysconf(_SC_NPROCESSORS_ONLN)` counts every core of the node, so a service in a container
/// with a CPU limit of 1 on a 32-core node would start 32 event loops, all contending for one
/// core's quota: more wakeups and throttling for no more work done. The quota is the smallest
/// one on the way from the process's cgroup up to its hierarchy's root, read from cgroup v2
/// (`cpu.max`) or v1 (`cpu.cfs_quota_us` / `cpu.cfs_period_us`), wherever `/proc/self/mountinfo`
/// says they are mounted.
package enum AvailableCores {
    /// This process's count, read once.
    package static let count: Int = resolve(cpus: affinityCount() ?? onlineCount(), root: "")

    /// `cpus` capped by the CPU quota of the calling thread's cgroup, with the files read under
    /// `root` (empty for the real ones; a folder holding `proc/…` and `sys/…` in tests).
    package static func resolve(cpus: Int, root: String) -> Int {
        max(1, min(cpus, cpuQuota(root: root) ?? cpus))
    }

    /// The quota in whole CPUs (rounded up), or nil when no cgroup on the way limits it.
    package static func cpuQuota(root: String) -> Int? {
        guard let memberships = readFile(root + "/proc/thread-self/cgroup") ?? readFile(root + "/proc/self/cgroup"),
              let mounts = readFile(root + "/proc/self/mountinfo") else { return nil }
        var smallest: Int?
        for mount in cgroupMounts(mountinfo: mounts) {
            guard let path = cgroupPath(memberships: memberships, version: mount.version) else { continue }
            for folder in folders(from: path, mountRoot: mount.root, mountPoint: root + mount.mountPoint) {
                if let cpus = quota(in: folder, version: mount.version) {
                    smallest = min(smallest ?? cpus, cpus)
                }
            }
        }
        return smallest
    }

    /// A mounted cgroup hierarchy that holds CPU quotas.
    struct CgroupMount {
        enum Version { case v1, v2 }
        var version: Version
        /// The cgroup this mount shows at its mount point (`/` inside a cgroup namespace).
        var root: String
        var mountPoint: String
    }

    /// The cgroup2 mounts and the v1 mounts of the `cpu` controller among `mountinfo`'s lines
    /// (`id parent dev root mountpoint options … - fstype source superoptions`).
    static func cgroupMounts(mountinfo: String) -> [CgroupMount] {
        var mounts: [CgroupMount] = []
        for line in mountinfo.split(separator: "\n") {
            let halves = line.split(separator: " - ", maxSplits: 1)
            guard halves.count == 2 else { continue }
            let fields = halves[0].split(separator: " ")
            let tail = halves[1].split(separator: " ")
            guard fields.count >= 5, tail.count >= 3 else { continue }
            let root = unescape(fields[3]), mountPoint = unescape(fields[4])
            if tail[0] == "cgroup2" {
                mounts.append(CgroupMount(version: .v2, root: root, mountPoint: mountPoint))
            } else if tail[0] == "cgroup", tail[2].split(separator: ",").contains("cpu") {
                mounts.append(CgroupMount(version: .v1, root: root, mountPoint: mountPoint))
            }
        }
        return mounts
    }

    /// The process's cgroup in the hierarchy of `version`, from `/proc/self/cgroup`
    /// (`0::/path` for v2, `n:cpu,cpuacct:/path` for v1's `cpu` controller).
    static func cgroupPath(memberships: String, version: CgroupMount.Version) -> String? {
        for line in memberships.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { continue }
            switch version {
            case .v2 where parts[0] == "0" && parts[1].isEmpty: return String(parts[2])
            case .v1 where parts[1].split(separator: ",").contains("cpu"): return String(parts[2])
            default: continue
            }
        }
        return nil
    }

    /// The folders of the cgroup at `path` and its ancestors, up to the mount point. A path
    /// outside the mount's root (a namespace that hides the host's path) is the mount point.
    static func folders(from path: String, mountRoot: String, mountPoint: String) -> [String] {
        let base = mountRoot == "/" ? "" : mountRoot
        let relative = path.hasPrefix(base + "/") ? path.dropFirst(base.count + 1) : ""
        var parts = relative.split(separator: "/")
        var folders: [String] = []
        while true {
            folders.append(([mountPoint] + parts.map(String.init)).joined(separator: "/"))
            if parts.isEmpty { return folders }
            parts.removeLast()
        }
    }

    /// The quota one cgroup folder sets, in whole CPUs rounded up; nil when it sets none.
    static func quota(in folder: String, version: CgroupMount.Version) -> Int? {
        let quota: Int, period: Int
        switch version {
        case .v2:
            // "max 100000" (none) or "150000 100000"
            guard let text = readFile(folder + "/cpu.max") else { return nil }
            let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
            guard fields.count >= 2, let q = Int(fields[0]), let p = Int(fields[1]) else { return nil }
            (quota, period) = (q, p)
        case .v1:
            // -1 when none
            guard let q = readFile(folder + "/cpu.cfs_quota_us").flatMap(integer),
                  let p = readFile(folder + "/cpu.cfs_period_us").flatMap(integer) else { return nil }
            (quota, period) = (q, p)
        }
        guard quota > 0, period > 0 else { return nil }
        return (quota + period - 1) / period
    }

    private static func integer(_ text: String) -> Int? {
        Int(text.split(whereSeparator: { $0 == "\n" || $0 == " " }).first ?? "")
    }

    /// mountinfo writes space, tab, newline and backslash in paths as octal escapes (`\040`).
    private static func unescape(_ field: Substring) -> String {
        guard field.contains("\\") else { return String(field) }
        var bytes: [UInt8] = []
        var utf8 = Array(field.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "\\"), utf8.count >= 3,
               let value = UInt8(String(decoding: utf8.prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(value)
                utf8 = utf8.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A small file's text (those under /proc and /sys), or nil when it cannot be read.
    private static func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The CPUs the calling thread may run on, or nil when the kernel does not say.
    package static func affinityCount() -> Int? {
        let count = Int(clinux_affinity_count())
        return count > 0 ? count : nil
    }

    private static func onlineCount() -> Int {
        Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }
}
